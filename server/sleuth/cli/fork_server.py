"""The CLI fork server: a process that has already imported the CLI forks one copy per ``sleuth`` call.

Why: with a server's index warm, a ``sleuth grep`` spent most of its ~60 ms starting Python and
importing the CLI (~40 ms) before the server's ~15 ms search; rg takes ~450 ms on the Linux tree,
so the issue's 10x bar (~45 ms a call) could not be met by trimming imports. Mercurial's ``chg``
answers the same problem the same way: the client hands over its arguments, current folder,
environment and standard streams, and a pre-forked worker runs the real command on them.

So the child runs :func:`sleuth.cli.main` itself, with the client's ``argv``, folder, environment,
umask and file descriptors 0, 1 and 2 (passed over the socket, ``SCM_RIGHTS``): it reads the same
settings files, asks the same warm door (:mod:`sleuth.core.warm`) or runs cold, decides colours by
the client's terminal and writes straight to the client's stdout. The output is the cold path's
by construction, not by a second renderer. The client (:mod:`sleuth.cli.fork_client`) forwards
Ctrl-C to the child and exits with the child's status.

Started by a server's warm door on the first warm CLI call (:class:`sleuth.core.warm_listener.WarmListener`),
one per server, listening on :func:`~sleuth.core.warm_paths.fork_socket_path` of its roots; it exits
with that server (its parent) or when its socket is taken or removed. It runs one thread and forks
from it, so no lock another thread held is copied into a child; that thread reads every arriving
request a piece at a time from one ``select`` loop, each with a deadline for the whole request, so a
client that sends slowly or not at all delays no other call. It serves only its own user
(``SO_PEERCRED``, in a ``0700`` folder) and a client of the same installation (Python, package
folder and version): a child runs with the client's own rights, so it can do nothing the client's
own process could not.

Wire format (client to server, one message, the three descriptors attached to its first bytes): a
4-byte big-endian length, then NUL-separated fields (:data:`MAGIC`, version, package folder, Python,
interpreter mode, folder, umask, the encodings and error handlers of stdin/stdout/stderr, ``argv[0]``, the argument
count, the arguments, then ``KEY=VALUE`` environment entries). Server to client: ``R`` + a reason
(refused: the client runs the command itself), or ``P`` + the child's pid (4 bytes), later ``X`` +
the exit status (4 bytes, signed).
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import select
import signal
import socket
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Iterable, NoReturn, Sequence

from sleuth.cli.fork_client import FORK_COMMANDS, MAGIC, MAX_REQUEST_BYTES, installation
from sleuth.cli.std_streams import replace_std_streams
from sleuth.core.warm_paths import peer_uid, private_dir
from sleuth.engine.cancel import CancelToken
from sleuth.engine.grep import pool
from sleuth.engine.test_gates import EXIT_GATE_ENV, hold

__all__ = ["MAGIC", "FORK_COMMANDS", "ForkRequest", "parse_request", "installation", "main"]

_FDS = 3
_POLL_S = 1.0  # how often the idle loop checks that its parent and its socket are still there
_REQUEST_DEADLINE_S = 10.0  # for a whole request to arrive (a client sends it at once: ~10 KB, one write)
_HEADER_FIELDS = 14  # MAGIC .. argv0: the fields before the argument count


@dataclass(frozen=True)
class ForkRequest:
    """One client's call, decoded."""

    installation: tuple[str, str, str, str]
    cwd: bytes
    umask: int
    streams: tuple[tuple[str, str], tuple[str, str], tuple[str, str]]  # (encoding, errors) of 0, 1, 2
    argv0: str
    args: list[str]
    env: dict[bytes, bytes]


def parse_request(payload: bytes) -> ForkRequest:
    """The fields of a request's payload (after its length); ValueError when malformed."""
    fields = payload.split(b"\0")
    if len(fields) < _HEADER_FIELDS + 1 or fields[0] != MAGIC:
        raise ValueError("not a sleuth fork request")
    text = [os.fsdecode(f) for f in fields[1:_HEADER_FIELDS]]
    version, package, python, mode, _cwd, umask = text[:6]
    streams = ((text[6], text[7]), (text[8], text[9]), (text[10], text[11]))
    count = int(fields[_HEADER_FIELDS])
    args_end = _HEADER_FIELDS + 1 + count
    if count < 0 or args_end > len(fields):
        raise ValueError("argument count")
    env: dict[bytes, bytes] = {}
    for entry in fields[args_end:]:
        key, sep, value = entry.partition(b"=")
        if sep and key:
            env[key] = value
    return ForkRequest((version, package, python, mode), fields[5], int(umask, 8), streams,  # type: ignore[arg-type]
                       text[12], [os.fsdecode(a) for a in fields[_HEADER_FIELDS + 1:args_end]], env)


# -- the server ----------------------------------------------------------------------------------

def preload() -> None:
    """Import what any forked call may need, and build the search subcommands' parsers, once.

    Every module of the CLI, the commands, the core and the engine (not the LSP and MCP stacks,
    which no CLI search uses): a child then imports nothing. A module whose optional dependency is
    missing is skipped, as the CLI itself would skip it.
    """
    for package in ("sleuth.cli", "sleuth.commands", "sleuth.core", "sleuth.engine"):
        module = importlib.import_module(package)
        for info in pkgutil.walk_packages(module.__path__, package + "."):
            try:
                importlib.import_module(info.name)
            except Exception:  # an optional backend's module (pcre2, re2...): the call will say so
                continue
    import sleuth.cli as cli

    for name in sorted(FORK_COMMANDS):
        cli.prebuild_parser(name)


def _listen(path: str) -> socket.socket | None:
    from sleuth.core.warm import bind_private

    if not private_dir(os.path.dirname(path), create=True):
        return None
    return bind_private(path)


def serve(path: str, parent: int) -> int:
    """Accept calls on ``path`` until ``parent`` exits or the socket is no longer ours."""
    sock = _listen(path)
    if sock is None:
        return 1
    inode = os.stat(path).st_ino  # the file's, not the socket's (fstat of a socket gives sockfs' inode)
    preload()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel; their status goes to the client
    signal.signal(signal.SIGTERM, _leave)  # its server's close: leave through `finally`, removing the socket
    sock.setblocking(False)
    pending: dict[socket.socket, _Pending] = {}
    try:
        while True:
            now = time.monotonic()
            wait = min([_POLL_S, *(max(0.0, p.deadline - now) for p in pending.values())])
            ready, _, _ = select.select([sock, *pending], [], [], wait)
            if os.getppid() != parent:
                return 0
            try:
                if os.stat(path).st_ino != inode:
                    return 0
            except OSError:
                return 0
            for conn in ready:
                if conn is sock:
                    _accept(sock, pending)
                elif _read_some(conn, pending[conn]):
                    _take(pending.pop(conn), sock, pending.values())
            now = time.monotonic()
            for conn in [c for c, p in pending.items() if p.deadline <= now]:
                pending.pop(conn).close()  # too slow (or stuck): its call is dropped, nobody else waits
    finally:
        for request in pending.values():
            request.close()
        try:
            if os.stat(path).st_ino == inode:
                os.unlink(path)
        except OSError:
            pass
        sock.close()


def _leave(_signum: int, _frame: object) -> None:
    raise SystemExit(0)


class _Pending:
    """One client's request as it arrives: its bytes, the descriptors passed with them, its deadline.

    Requests are read a piece at a time as their bytes come, all of them from the one loop, so a
    client that sends slowly (or stops) delays no other; it has :data:`_REQUEST_DEADLINE_S` in all."""

    def __init__(self, conn: socket.socket) -> None:
        self.conn = conn
        self.data = bytearray()
        self.fds: list[int] = []
        self.deadline = time.monotonic() + _REQUEST_DEADLINE_S

    def size(self) -> int | None:
        """The payload's length once its 4-byte header is in; ValueError when too large."""
        if len(self.data) < 4:
            return None
        size = int.from_bytes(self.data[:4], "big")
        if size > MAX_REQUEST_BYTES:
            raise ValueError("request too large")
        return size

    def complete(self) -> bool:
        size = self.size()
        return size is not None and len(self.data) >= 4 + size

    def close(self) -> None:
        _close_fds(self.fds)
        self.conn.close()


def _accept(listener: socket.socket, pending: dict[socket.socket, _Pending]) -> None:
    try:
        conn, _ = listener.accept()
    except OSError:
        return
    if peer_uid(conn) != os.getuid():
        conn.close()  # another user's: not a byte read, nothing forked
        return
    conn.setblocking(False)
    pending[conn] = _Pending(conn)


def _read_some(conn: socket.socket, request: _Pending) -> bool:
    """Read what has arrived; True once the request is whole. A closed, broken or oversized request
    is dropped here (False, and no longer pending: its socket is closed)."""
    try:
        data, ancillary, _flags, _addr = conn.recvmsg(1 << 16, socket.CMSG_SPACE(_FDS * 4))
        for level, kind, raw in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                request.fds.extend(int.from_bytes(raw[i:i + 4], sys.byteorder, signed=True)
                                   for i in range(0, len(raw) - len(raw) % 4, 4))
        if not data:
            raise OSError("closed before a whole request")
        request.data += data
        return request.complete()
    except BlockingIOError:
        return False
    except (OSError, ValueError):
        request.deadline = 0.0  # dropped by the loop's deadline sweep
        return False


def _close_fds(fds: list[int]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass
    fds.clear()


def _take(request: _Pending, listener: socket.socket, others: Iterable[_Pending]) -> None:
    """Answer one whole request: refuse it, or fork its child; never raises (a bad client costs only its own call).
    ``others``: the requests still arriving, whose sockets and streams the child must not hold."""
    conn, fds = request.conn, request.fds
    try:
        size = request.size() or 0
        parsed = parse_request(bytes(request.data[4:4 + size]))
        conn.setblocking(True)
        conn.settimeout(_REQUEST_DEADLINE_S)  # (a refusal is a few bytes: the socket's buffer takes them at once)
        if parsed.installation != installation():
            conn.sendall(b"R" + b"another installation of Sleuth")
            return
        if len(fds) != _FDS:
            conn.sendall(b"R" + b"standard streams")
            return
        conn.settimeout(None)
        pid = os.fork()
        if pid == 0:
            for other in others:
                other.close()
            _child(conn, listener, parsed, fds)
    except (OSError, ValueError):
        pass
    finally:
        request.close()


# -- one child -----------------------------------------------------------------------------------

def _child(conn: socket.socket, listener: socket.socket, request: ForkRequest, fds: list[int]) -> NoReturn:
    """Become the client's ``sleuth`` process, run the command, report its status, exit."""
    status = 1
    try:
        listener.close()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # its own children (decompressors, pools) are waited for
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        fds.clear()
        os.chdir(request.cwd)
        os.umask(request.umask)
        os.environb.clear()
        os.environb.update(request.env)
        sys.argv = [request.argv0, *request.args]
        replace_std_streams(request.streams)
        conn.sendall(b"P" + os.getpid().to_bytes(4, "big"))
        pool.fork_workers()  # the watcher below is a second thread: the pool would pick a fork server
        threading.Thread(target=_interrupt_on_hangup, args=(conn,), daemon=True).start()
        status = _run(request.args)
    except KeyboardInterrupt:  # Ctrl-C, forwarded before the call began
        status = 130
    except BaseException:  # the set-up failed: say so where the client shows it
        try:
            traceback.print_exc()
        except BaseException:
            pass
    finally:
        try:
            pool.shutdown_pool(wait=True)  # os._exit runs no atexit hook: no worker may keep stdout open
        except BaseException:
            pass
        _let_go_of_streams()
        try:
            conn.sendall(b"X" + (status & 0xFFFFFFFF).to_bytes(4, "big"))
        except BaseException:
            pass
        hold(EXIT_GATE_ENV, CancelToken())
        os._exit(status)


def _let_go_of_streams() -> None:
    """Flush and close descriptors 0-2 (the client's streams) before the status goes out: ``os._exit``
    unmaps this fork of the fork server (every module the CLI may need: ~45 MB resident) before the
    kernel closes its files, and a reader of the output (``sleuth grep ... | wc -l``, a caller's pipe)
    waited that long for an end the output had already reached (the end of file came ~0.9 ms after the
    client's exit at load ~5; now before it)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # a closed pipe: nothing more can reach its reader
    for fd in (0, 1, 2):
        try:
            os.close(fd)
        except OSError:
            pass


def _run(args: Sequence[str]) -> int:
    """``sys.exit(main())`` as the console script does it, the status returned instead."""
    from sleuth.cli import main

    try:
        status = _exit_status(main(list(args)))
    except SystemExit as exc:
        status = _exit_status(exc.code)
    except KeyboardInterrupt:
        status = 130
    except BaseException:
        traceback.print_exc()
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # a closed pipe (`| head`): what was written is all the reader wanted
    return status


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    sys.stderr.write(f"{code}\n")
    return 1


def _interrupt_on_hangup(conn: socket.socket) -> None:
    """The client went away (killed, or its terminal closed): stop as Ctrl-C would."""
    try:
        while conn.recv(64):
            pass
    except OSError:
        pass
    os.kill(os.getpid(), signal.SIGINT)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sleuth.cli.fork_server", description=__doc__.splitlines()[0])
    parser.add_argument("--socket", required=True, help="where to listen")
    parser.add_argument("--parent", type=int, required=True, help="exit when this process is no longer the parent")
    ns = parser.parse_args(argv)
    return serve(ns.socket, ns.parent)


if __name__ == "__main__":
    raise SystemExit(main())
