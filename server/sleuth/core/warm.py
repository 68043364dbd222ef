"""The warm CLI's door: a running server answers ``sleuth grep|files|text`` over a private UNIX socket.

A server (``sleuth serve``, ``sleuth mcp``) listens on ``<dir>/<key>.sock``, where ``key`` is the
hash of its roots (the index store's key, :func:`roots_key`) and ``dir`` is ``$XDG_RUNTIME_DIR/sleuth``
or, without it, ``<cache dir>/sleuth-run`` (beside the index stores, not among them): a ``0700``
folder of the user's. The CLI computes the same path for its own roots, sends one request line and
reads one answer line. Nothing else listens and
nothing is started on demand: without a server the CLI runs cold, as before.

The socket is an attack surface, so the server answers only when:

* the peer is the same user (``SO_PEERCRED``; the folder's mode already keeps others out, this
  holds even if it did not);
* the command is one of :data:`WARM_COMMANDS` (the read-only searches, nothing that writes);
* the client's roots, canonicalised, are exactly the server's (same folders, same order), and the
  command runs in a sandbox built from them, so every path argument meets the same sandbox check
  as in the cold CLI and nothing outside the server's folders is reachable;
* the client's safeguards and index-shaping settings (:data:`GUARD_FIELDS`, from its own
  ``config.yml`` and ``.agent/config.yml``) equal the server's, so the server neither weakens its
  deny globs or redaction for the client nor answers from an index built under other rules;
* for ``sleuth.text`` and ``sleuth.symbols``, the server's index is ready (the cold CLI waits for it; a scan would say
  ``source: "scan"``).

Otherwise it answers ``{"refused": why}`` and the CLI runs cold. The command runs with
:func:`sleuth.commands.config.cli_settings` of the server's settings (equal, by the check above, to the
CLI's own), the CLI's workspace object and no open editor buffers, so the result object, and the
lines the CLI renders from it, are the cold path's. A client that disconnects cancels the search.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import socket
import stat
import struct
import sys
import threading
from typing import Any, Callable, Sequence

__all__ = ["WARM_COMMANDS", "GUARD_FIELDS", "PROTOCOL", "roots_key", "socket_dir", "socket_path", "private_dir",
           "peer_uid", "guards", "WarmListener", "WarmState", "MAX_REQUEST_BYTES"]

logger = logging.getLogger(__name__)

PROTOCOL = 1
WARM_COMMANDS = frozenset({"sleuth.grep", "sleuth.files", "sleuth.text", "sleuth.symbols"})
# Settings that shape what a search may read or what the index holds: must match to answer warm.
GUARD_FIELDS = ("deny_globs", "redaction", "backend", "index_path", "index_enabled", "follow",
                "respect_gitignore", "max_file_size_bytes")
MAX_REQUEST_BYTES = 64 << 20  # 10,000 long -e patterns fit; a runaway client does not
_SUN_PATH_MAX = 107


def roots_key(roots: Sequence[str]) -> str:
    """The hash that names a set of roots: the same as the index store's directory
    (:func:`sleuth.engine.index.store.store_dir`), so one server, one store, one socket per workspace."""
    return hashlib.sha256("\0".join(sorted(roots)).encode("utf-8", "surrogateescape")).hexdigest()[:16]


def socket_dir() -> str:
    """``$XDG_RUNTIME_DIR/sleuth`` (per-user, tmpfs), else ``$XDG_CACHE_HOME/sleuth-run`` (``~/.cache``)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        return os.path.join(runtime, "sleuth")
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "sleuth-run")


def socket_path(roots: Sequence[str]) -> str | None:
    """Where the server of ``roots`` listens; None when the path would be too long for a UNIX socket."""
    path = os.path.join(socket_dir(), roots_key(roots) + ".sock")
    return path if len(os.fsencode(path)) <= _SUN_PATH_MAX else None


def private_dir(path: str, create: bool = False) -> bool:
    """Whether ``path`` is a real folder (not a link) of this user that nobody else may enter;
    with ``create``, made ``0700`` first when missing."""
    if create:
        try:
            os.makedirs(path, mode=0o700, exist_ok=True)
        except OSError:
            return False
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return (stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
            and not info.st_mode & (stat.S_IRWXG | stat.S_IRWXO))


def peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process at the other end (``SO_PEERCRED``, Linux); None where unavailable."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    except OSError:
        return None
    _pid, uid, _gid = struct.unpack("3i", raw)
    return uid


def guards(settings: Any) -> dict[str, Any]:
    """The :data:`GUARD_FIELDS` of a :class:`~sleuth.commands.config.Settings`, JSON-shaped for comparison."""
    return json.loads(json.dumps({name: getattr(settings, name) for name in GUARD_FIELDS}))


# What a server hands the listener at each request: its sandbox, settings and services of this moment.
WarmState = Callable[[], tuple[Any, Any, Any]]


class WarmListener:
    """The server side: one listening socket for the server's current roots, a thread per client.

    :meth:`update` (call it whenever the roots change) moves the socket to the new roots' path;
    :meth:`close` removes it. Never raises into the server: a socket that cannot be made is logged,
    and the CLI then runs cold.
    """

    def __init__(self, state: WarmState, on_answer: Callable[[str, Any, str, float], None] | None = None) -> None:
        self.state = state
        self.on_answer = on_answer
        self.path: str | None = None
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()

    def update(self, roots: Sequence[str]) -> None:
        with self._lock:
            path = socket_path(roots) if roots and sys.platform.startswith("linux") else None
            if path == self.path and self._sock is not None:
                return
            self._close_locked()
            if path is None or not private_dir(os.path.dirname(path), create=True):
                if path is not None:
                    logger.warning("warm CLI socket not offered: %s is not a private folder", os.path.dirname(path))
                return
            sock = self._bind(path)
            if sock is None:
                return
            self._sock, self.path = sock, path
            threading.Thread(target=self._accept, args=(sock,), name="sleuth-warm-accept", daemon=True).start()

    def close(self) -> None:
        with self._lock:
            self._close_locked()

    def _close_locked(self) -> None:
        sock, path = self._sock, self.path
        self._sock = self.path = None
        if sock is None:
            return
        try:
            if path and os.stat(path).st_ino == os.fstat(sock.fileno()).st_ino:
                os.unlink(path)
        except OSError:
            pass
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()

    @staticmethod
    def _bind(path: str) -> socket.socket | None:
        """Listen at ``path``; a stale socket (nobody answers) is replaced, a live one left to its server."""
        if os.path.lexists(path):
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                probe.connect(path)
            except OSError:
                try:
                    os.unlink(path)
                except OSError:
                    return None
            else:
                logger.info("another Sleuth server answers the warm CLI for these folders (%s)", path)
                return None
            finally:
                probe.close()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            old = os.umask(0o177)
            try:
                sock.bind(path)
            finally:
                os.umask(old)
            sock.listen(16)
        except OSError as exc:
            sock.close()
            logger.warning("warm CLI socket not offered (%s): %s", path, exc)
            return None
        return sock

    def _accept(self, sock: socket.socket) -> None:
        while True:
            try:
                conn, _ = sock.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._serve, args=(conn,), name="sleuth-warm", daemon=True).start()

    # -- one client ---------------------------------------------------------------------------
    def _serve(self, conn: socket.socket) -> None:
        with conn:
            uid = peer_uid(conn)
            if uid != os.getuid():
                logger.warning("warm CLI socket: refused a connection from uid %s", uid)
                return
            try:
                request = _read_line(conn)
            except (OSError, ValueError):
                return
            try:
                answer = self._answer(request, conn)
            except Exception as exc:  # a bug here must not take the server down
                logger.exception("warm CLI request failed")
                answer = {"error": {"code": "internal", "message": f"Internal error: {type(exc).__name__}: {exc}",
                                    "hint": "Retry with --no-server; report this if it persists."}}
            try:
                conn.sendall(json.dumps(answer, separators=(",", ":")).encode("ascii") + b"\n")
                conn.shutdown(socket.SHUT_RDWR)  # also wakes the hang-up watcher blocked in recv
            except OSError:
                pass

    def _answer(self, raw: bytes, conn: socket.socket) -> dict[str, Any]:
        import time

        from sleuth.commands import get_command
        from sleuth.commands.config import cli_settings
        from sleuth.commands.context import CommandContext
        from sleuth.engine.cancel import CancelToken
        from sleuth.engine.errors import SleuthError
        from sleuth.engine.workspace import Workspace

        try:
            request = json.loads(raw)
        except ValueError:
            return {"refused": "unreadable request"}
        if not isinstance(request, dict) or request.get("v") != PROTOCOL:
            return {"refused": "protocol version"}
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
        if command in ("sleuth.text", "sleuth.symbols") and not (services.index is not None and services.index.ready):
            return {"refused": "index not ready"}
        token = CancelToken()
        threading.Thread(target=_cancel_on_hangup, args=(conn, token), name="sleuth-warm-hangup",
                         daemon=True).start()
        ctx = CommandContext(workspace=workspace, settings=cli_settings(settings), token=token,
                             services=dataclasses.replace(services, open_buffers=None))
        started = time.monotonic()
        outcome = "ok"
        try:
            return {"result": get_command(command)(args, ctx)}
        except SleuthError as error:
            outcome = error.code
            return {"error": error.to_dict()}
        finally:
            if self.on_answer is not None:
                try:
                    self.on_answer(command, args, outcome, (time.monotonic() - started) * 1000)
                except Exception:
                    logger.exception("warm CLI log hook failed")


def _read_line(conn: socket.socket) -> bytes:
    conn.settimeout(10)
    chunks: list[bytes] = []
    size = 0
    while True:
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
