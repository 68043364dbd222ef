"""The server's side of the warm CLI's door (:mod:`sleuth.core.warm` says what it answers and why).

Apart from :mod:`sleuth.core.warm` so that the CLI, which imports only that, never loads what a
listener needs (logging, threads, the commands).
"""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from typing import Any, Callable, Sequence

from sleuth.core.warm import (MAX_REQUEST_BYTES, PROTOCOL, WARM_COMMANDS, bind_loopback, bind_private, environment,
                              fork_socket_path, guards, loopback_path, peer_uid, private_dir, socket_path,
                              token_matches)
from sleuth.core.warm_paths import lock_path
from sleuth.engine.cancel import CancelToken
from sleuth.engine.events import GrepEvent, to_wire
from sleuth.engine.platform import fork_server_available, lock_file, warm_door
from sleuth.searches import INDEX_ONLY

__all__ = ["WarmListener", "WarmState", "WarmRun"]

logger = logging.getLogger(__name__)

_REAP_WAIT_S = 5.0  # how long a closing server waits for its fork server to leave
_REQUEST_DEADLINE_S = 10.0  # for a whole request line to arrive (the CLI sends it in one write)


# What a server hands the listener at each request: its sandbox, settings and services of this moment.
WarmState = Callable[[], tuple[Any, Any, Any]]
# How it runs a command in the context it built (the session's policy: errors, metrics, the log line).
WarmRun = Callable[[str, dict[str, Any], Any], dict[str, Any]]


class WarmListener:
    """The server side: one listening socket for the server's current roots, a thread per client.

    :meth:`update` (call it whenever the roots change) moves the socket to the new roots' path;
    :meth:`close` removes it. Never raises into the server: a socket that cannot be made is logged,
    and the CLI then runs cold.
    """

    def __init__(self, state: WarmState, run: WarmRun, store: Callable[[], str | None] = lambda: None) -> None:
        self.state = state
        self.run = run
        self.store = store  # the server's index store location: a guest door must name the same
        self._guests: set[socket.socket] = set()  # guest doors' hello connections (sleuth.core.engine_host)
        self._arbiter: Any = None  # the open lock file that makes this process the roots' one door
        self.path: str | None = None
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        self._fork_server: subprocess.Popen[bytes] | None = None
        self._roots: list[str] = []
        self._inode: int | None = None  # the socket file's (a socket's own fstat gives another inode)

    def update(self, roots: Sequence[str]) -> None:
        with self._lock:
            loopback = warm_door() == "loopback"
            path = (loopback_path(roots) if loopback else socket_path(roots)) if roots else None
            if path == self.path and self._sock is not None:
                return
            self._close_locked()
            if path is None or not private_dir(os.path.dirname(path), create=True):
                if path is not None:
                    logger.warning("warm CLI socket not offered: %s is not a private folder", os.path.dirname(path))
                return
            if not self._arbitrate(roots):
                logger.info("another Sleuth process holds the door of these folders")
                return
            bound = bind_loopback(path) if loopback else (bind_private(path), None)
            if bound is None or bound[0] is None:
                self._release()
                return
            sock, token = bound  # token: the loopback door's (None: a UNIX socket, its peer's uid checked)
            self._sock, self.path, self._roots = sock, path, list(roots)
            self._inode = _inode(path)
            threading.Thread(target=self._accept, args=(sock, token), name="sleuth-warm-accept", daemon=True).start()

    @property
    def bound(self) -> bool:
        """Whether this process holds the door of its roots (and so hosts their engine)."""
        return self._sock is not None

    def _arbitrate(self, roots: Sequence[str]) -> bool:
        """Take the roots' lock file (``<key>.lock``, held while this door is bound, released by the
        kernel when the process dies, kill -9 included): of several doors that find no live host at
        once, exactly one binds; the others become its guests. Where no lock excludes another process
        (:func:`~sleuth.engine.platform.lock_file`), binding alone decides, as before."""
        path = lock_path(roots)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except OSError:
            return True
        handle = os.fdopen(fd, "r+b")
        if not lock_file(handle, exclusive=True):
            handle.close()
            return False
        self._arbiter = handle
        return True

    def _release(self) -> None:
        handle, self._arbiter = self._arbiter, None
        if handle is not None:
            handle.close()  # closing the file releases its lock

    def close(self) -> None:
        """Remove the socket and end the fork server, waiting (a few seconds at most) until it is reaped:
        a server that exits next would otherwise leave it to whichever process adopts orphans."""
        with self._lock:
            reaper = self._close_locked()
        if reaper is not None:
            reaper.join(_REAP_WAIT_S)

    def _close_locked(self) -> threading.Thread | None:
        sock, path = self._sock, self.path
        self._sock = self.path = None
        fork_server, self._fork_server = self._fork_server, None
        reaper = _end(fork_server) if fork_server is not None else None
        if sock is None:
            self._end_guests()
            self._release()
            return reaper
        try:
            if path and _inode(path) == self._inode:  # still ours, not a later server's
                os.unlink(path)
        except OSError:
            pass
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()
        self._end_guests()  # after the socket is gone: a guest that takes over finds no door to rejoin
        self._release()
        return reaper

    def _end_guests(self) -> None:
        """Close every guest's hello connection: each sees its host gone and takes the engine over."""
        for guest in list(self._guests):
            try:
                guest.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _start_fork_server(self) -> None:
        """On the first warm CLI call, start this server's CLI fork server (:mod:`sleuth.cli.fork_server`:
        later calls skip Python's start-up and the CLI's imports). Started on demand, not with the
        server: an editor nobody runs the CLI beside never pays for the extra process."""
        with self._lock:
            if self._sock is None or (self._fork_server is not None and self._fork_server.poll() is None):
                return
            if not fork_server_available():
                return
            path = fork_socket_path(self._roots)
            if path is None:
                return
            try:  # stdout never the server's: an LSP server's stdout is its protocol
                self._fork_server = subprocess.Popen(
                    [sys.executable, "-m", "sleuth.cli.fork_server", "--socket", path, "--parent", str(os.getpid())],
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, close_fds=True, start_new_session=True)
            except OSError as exc:
                logger.warning("CLI fork server not started: %s", exc)

    def _accept(self, sock: socket.socket, token: str | None) -> None:
        while True:
            try:
                conn, _ = sock.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._serve, args=(conn, token), name="sleuth-warm", daemon=True).start()

    # -- one client ---------------------------------------------------------------------------
    def _serve(self, conn: socket.socket, token: str | None) -> None:
        """One request: from this user (the UNIX socket's peer uid; on loopback, ``token`` in the request)."""
        with conn:
            if token is None:
                uid = peer_uid(conn)
                if uid != os.getuid():
                    logger.warning("warm CLI socket: refused a connection from uid %s", uid)
                    return
            try:
                raw = _read_line(conn)
            except (OSError, ValueError):
                return
            hold = False
            try:
                request, answer = self._admit(raw, token)
                if request is not None and request.get("door") is not None:
                    answer, hold = self._door(request, conn)
                elif request is not None:
                    if token is None:
                        self._start_fork_server()
                    answer = self._answer(request, conn)
            except Exception as exc:  # a bug here must not take the server down
                logger.exception("warm door request failed")
                answer = {"error": {"code": "internal", "message": f"Internal error: {type(exc).__name__}: {exc}",
                                    "hint": "Retry with --no-server; report this if it persists."}}
            try:
                conn.sendall(json.dumps(answer, separators=(",", ":")).encode("ascii") + b"\n")
                if hold:
                    self._hold_guest(conn)
                conn.shutdown(socket.SHUT_RDWR)  # also wakes the hang-up watcher blocked in recv
            except OSError:
                pass

    def _admit(self, raw: bytes, door_token: str | None) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        """The request object when it may be read further (its token, its protocol), else the refusal."""
        try:
            request = json.loads(raw)
        except ValueError:
            return None, {"refused": "unreadable request"}
        if door_token is not None and not (isinstance(request, dict) and token_matches(request.get("token"), door_token)):
            logger.warning("loopback warm door: refused a request without this server's token")
            return None, {"refused": "token"}
        if not isinstance(request, dict) or request.get("v") != PROTOCOL:
            return None, {"refused": "protocol version"}
        return request, {}

    # -- a guest door (sleuth.core.engine_host) -------------------------------------------------
    def _door(self, request: dict[str, Any], conn: socket.socket) -> tuple[dict[str, Any], bool]:
        """A guest's hello (answered, then held open: ``True``) or call (run in this engine)."""
        from sleuth.core import engine_host
        from sleuth.engine.errors import SleuthError

        sandbox, settings, services = self.state()
        why = engine_host.door_refusal(request, sandbox, settings, self.store())
        if why is not None:
            return {"refused": why}, False
        if request["door"] == "hello":
            return {"host": {"pid": os.getpid()}}, True
        theirs = engine_host.settings_from_json(request.get("settings"))
        args = request.get("args")
        if theirs is None or not isinstance(args, dict) or request["door"] != "call":
            return {"refused": "unreadable call"}, False
        token = CancelToken()
        threading.Thread(target=_cancel_on_hangup, args=(conn, token), name="sleuth-door-hangup", daemon=True).start()
        sink = engine_host.LineSink(conn, token)
        ctx = engine_host.door_context(request, theirs, services, token, sink)
        engine_host.wait_for_index(request, services, token)
        try:
            return engine_host.host_answer(self.run(request["command"], args, ctx)), False
        except SleuthError as error:
            return {"error": error.to_dict(), "host_pid": os.getpid()}, False

    def _hold_guest(self, conn: socket.socket) -> None:
        """Keep a guest's hello connection until it hangs up or this door closes (:meth:`close`)."""
        with self._lock:
            if self._sock is None:
                return  # this door closed meanwhile: the guest sees the connection end and takes over
            self._guests.add(conn)
        try:
            conn.recv(1)
        except OSError:
            pass
        finally:
            with self._lock:
                self._guests.discard(conn)

    @property
    def guests(self) -> int:
        """How many guest doors use this engine now."""
        with self._lock:
            return len(self._guests)

    def _answer(self, request: dict[str, Any], conn: socket.socket) -> dict[str, Any]:
        from sleuth.commands.config import cli_settings
        from sleuth.commands.context import CommandContext
        from sleuth.engine.errors import SleuthError
        from sleuth.engine.workspace import Workspace

        command, args, roots = request.get("command"), request.get("args"), request.get("roots")
        if command not in WARM_COMMANDS or not isinstance(args, dict):
            return {"refused": "not a warm command"}
        if not isinstance(roots, list) or not roots or not all(isinstance(r, str) for r in roots):
            return {"refused": "roots"}
        sandbox, settings, services = self.state()
        workspace = Workspace(roots)
        if [r.path for r in workspace.roots] != [r.path for r in sandbox.roots]:
            return {"refused": "other roots"}
        if request.get("guards") != guards(settings):
            return {"refused": "other settings"}
        if request.get("environment") != environment(args):
            return {"refused": "another environment"}  # its ~, its global gitignore...: the cold CLI's answer
        if command in INDEX_ONLY and not (services.index is not None and services.index.ready):
            return {"refused": "index not ready"}
        token = CancelToken()
        threading.Thread(target=_cancel_on_hangup, args=(conn, token), name="sleuth-warm-hangup",
                         daemon=True).start()
        ctx = CommandContext(workspace=workspace, settings=cli_settings(settings), token=token,
                             services=services.replace(open_buffers=None))
        if request.get("stream") is True and command == "sleuth.grep":
            ctx.partial = _Rows(conn, token, args.get("output")) if request.get("rows") is True else _Batches(conn, token)
        try:
            result = self.run(command, args, ctx)
        except SleuthError as error:
            return {"error": error.to_dict()}
        if "files_in_workspace" in result and request.get("files_in_workspace") is not True:
            result["files_in_workspace"] = None  # the cold CLI has no index to count: its result says None
            # (a client that asks makes it None itself, having read it: sleuth.cli.grep_run's any_file)
        return {"result": result}


class _Batches:
    """A streaming client's partial-result sink: each batch a ``{"partial": [...]}`` line before the
    answer (whose list then leaves them out), so the CLI prints as the server searches. A client
    that went away cancels the search. Counted for the log line (a :class:`~sleuth.core.session.StreamSink`)."""

    def __init__(self, conn: socket.socket, token: Any) -> None:
        self.conn, self.token = conn, token
        self.sent = 0

    def __call__(self, batch: list[dict[str, Any]]) -> None:
        self.sent += len(batch)
        self._send(batch)

    def _send(self, batch: list[Any]) -> None:
        try:
            self.conn.sendall(b'{"partial":' + json.dumps(batch, separators=(",", ":")).encode("ascii") + b"}\n")
        except OSError:
            self.token.cancel()

    def trim(self, result: dict[str, Any]) -> dict[str, Any]:
        return result  # sleuth.grep leaves the streamed items out itself


class _Rows(_Batches):
    """The sink of a client that reads compact rows (``"rows": true``, :func:`sleuth.engine.events.to_wire`):
    it takes the search's events themselves (:class:`~sleuth.commands.context.EventStream`), and a plain
    line crosses as an array, not as an item object made here and read back there. An older client
    does not ask, and gets items."""

    def __init__(self, conn: socket.socket, token: Any, output: object) -> None:
        super().__init__(conn, token)
        self.output = output if isinstance(output, str) else "content"

    def events(self, batch: list[GrepEvent]) -> None:
        self.sent += len(batch)
        self._send(to_wire(batch, self.output))


def _end(fork_server: subprocess.Popen[bytes]) -> threading.Thread | None:
    """Stop a fork server (it also leaves on its own once this process is gone) and reap it: waited
    for on a thread of its own, so that a folder change neither waits for it nor leaves a zombie."""
    if fork_server.poll() is not None:
        return None  # already reaped by poll()
    try:
        fork_server.terminate()
    except OSError:
        pass
    reaper = threading.Thread(target=fork_server.wait, name="sleuth-fork-server-reaper", daemon=True)
    reaper.start()
    return reaper


def _inode(path: str) -> int | None:
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def _read_line(conn: socket.socket) -> bytes:
    """The request line, whole within :data:`_REQUEST_DEADLINE_S` (a deadline for the request, not for
    each ``recv``: a client that sends a byte now and then cannot hold its thread for ever)."""
    deadline = time.monotonic() + _REQUEST_DEADLINE_S
    chunks: list[bytes] = []
    size = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise ValueError("no whole request in time")
        conn.settimeout(left)
        chunk = conn.recv(1 << 16)
        if not chunk:
            raise ValueError("closed before a full request")
        newline = chunk.find(b"\n")
        if newline >= 0:
            chunks.append(chunk[:newline])
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_REQUEST_BYTES:
            raise ValueError("request too large")
    conn.settimeout(None)
    return b"".join(chunks)


def _cancel_on_hangup(conn: socket.socket, token: Any) -> None:
    """The client sends nothing after its request: any read returning means it went away (Ctrl-C)."""
    try:
        conn.recv(1)
    except OSError:
        pass
    token.cancel()
