"""The ``sleuth`` process's side of the CLI fork server (:mod:`sleuth.cli.fork_server` says why and how).

:func:`run` hands this process's call (arguments, folder, environment, umask, standard streams) to
the fork server of a running Sleuth server for the current folder, forwards Ctrl-C (and SIGTERM,
SIGHUP) to the child that runs it, and returns the child's exit status. It returns None, having
changed nothing, whenever the call must run here: ``--no-server`` or ``SLEUTH_NO_SERVER=1``, not a
search subcommand, ``--root`` given (the fork server is keyed by the current folder), ``--pre`` (a
program the caller runs), a path to this process's own descriptors (a shell's ``<(command)``), no fork
server for this folder, a peer or folder not this user's, another installation of Sleuth, a closed
standard stream, or a refusal.

Everything here runs on every warm call before anything else, so it imports only what Python has
already loaded at start-up plus the C-level socket module: ``socket``, ``json``, ``signal`` or
``struct`` would each cost a few milliseconds of a budget of ~10.
"""

from __future__ import annotations

import _signal
import os
import sys

from sleuth import __version__
from sleuth.cli.std_streams import leave
from sleuth.core.warm_paths import NO_SERVER_ENV, fork_socket_path, peer_uid, private_dir
from sleuth.engine.platform import OWN_DESCRIPTORS, fork_server_available
from sleuth.searches import SEARCHES

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a few ms of every warm call)
if TYPE_CHECKING:
    import _socket

__all__ = ["run", "leave", "OWN_DESCRIPTORS", "MAGIC", "FORK_COMMANDS", "MAX_REQUEST_BYTES", "installation", "recv_exactly"]

# The wire's constants live here, the light end; the fork server imports them.
MAGIC = b"sleuth-fork/2"  # 2: the interpreter-mode field; a fork server of 1 reads no such request
FORK_COMMANDS = frozenset(search.name for search in SEARCHES if search.warm)  # the subcommands, as the warm door
MAX_REQUEST_BYTES = 8 << 20  # argv and environment; a larger call runs in its own process
_CONNECT_TIMEOUT_S = 1.0
_FORWARDED = tuple(getattr(_signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(_signal, name))


def run(argv: list[str]) -> int | None:
    """The exit status of ``argv`` (``sys.argv``) run by a fork server, or None: run it here."""
    args = argv[1:]
    if os.environ.get(NO_SERVER_ENV) == "1" or "--no-server" in args:
        return None
    first = next((a for a in args if not a.startswith("-")), None)
    if first not in FORK_COMMANDS or any(a == "--root" or a.startswith("--root=") for a in args):
        return None
    if any(a == "--pre" or a.startswith("--pre=") for a in args):
        return None  # a preprocessor is a program the caller runs, in its own process (sleuth.cli.grep_pre)
    if any(a.startswith(OWN_DESCRIPTORS) for a in args):
        return None  # a shell's <(command), /dev/fd/63: this process's descriptor, which the child has not
    try:
        cwd = os.getcwd()
        streams = _streams()
    except (OSError, ValueError):
        return None
    path = fork_socket_path([os.path.realpath(cwd)])
    # the file first: without one, the socket module is not even loaded (fork_server_available asks it;
    # ~0.2 ms of a cold call as people type it: issue 30)
    if path is None or not os.path.exists(path) or not fork_server_available() or not private_dir(os.path.dirname(path)):
        return None  # (only where fork_server_available(): nothing past here runs elsewhere)
    import _socket

    payload = _payload(argv, cwd, streams)
    if payload is None:
        return None
    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        return _call(conn, path, payload)
    finally:
        conn.close()


def _streams() -> list[bytes]:
    """The (encoding, errors) pairs of stdin, stdout, stderr; ValueError when one is closed."""
    fields: list[bytes] = []
    for fd, stream in enumerate((sys.stdin, sys.stdout, sys.stderr)):
        os.fstat(fd)  # OSError: closed
        if stream is None:
            raise ValueError("no Python stream")
        fields += [stream.encoding.encode("ascii"), (stream.errors or "strict").encode("ascii")]
    return fields


def installation() -> tuple[str, str, str, str]:
    """What a client must share with the fork server to run in its forks: version, package folder,
    Python, and how that interpreter was started: the file-name encoding and UTF-8 mode (from the
    locale and ``PYTHONUTF8`` at start-up, which a fork keeps whatever environment it is given)."""
    package = os.path.dirname(os.path.abspath(sys.modules["sleuth"].__file__ or ""))
    mode = f"{sys.getfilesystemencoding()}:{sys.getfilesystemencodeerrors()}:utf8={sys.flags.utf8_mode}"
    return __version__, package, os.path.realpath(sys.executable), mode


def _payload(argv: list[str], cwd: str, streams: list[bytes]) -> bytes | None:
    umask = os.umask(0)
    os.umask(umask)
    fields = [MAGIC, *(os.fsencode(part) for part in installation()), os.fsencode(cwd), b"%o" % umask, *streams, os.fsencode(argv[0]), b"%d" % (len(argv) - 1),
              *(os.fsencode(a) for a in argv[1:]), *(k + b"=" + v for k, v in os.environb.items())]
    if any(b"\0" in f for f in fields):
        return None
    body = b"\0".join(fields)
    return None if len(body) > MAX_REQUEST_BYTES else len(body).to_bytes(4, "big") + body


def _call(conn: _socket.socket, path: str, payload: bytes) -> int | None:
    """Hand the call over; Ctrl-C (SIGINT, SIGTERM, SIGHUP) is caught from before the connection, so
    that none is lost between the fork and the child's pid reaching this process."""
    signals = _Signals()
    previous = [(signum, _signal.signal(signum, signals.caught)) for signum in _FORWARDED]
    try:
        status = _hand_over(conn, path, payload, signals)
    finally:
        for signum, handler in previous:
            _signal.signal(signum, handler)
    if status is None and signals.pending:
        return 128 + signals.pending[0]  # stopped before anything ran: do not run it here instead
    return status


class _Signals:
    """Forwards each signal to the child once its pid is known; keeps the ones that come before."""

    def __init__(self) -> None:
        self.child: int | None = None
        self.pending: list[int] = []

    def caught(self, signum: int, _frame: object) -> None:
        if self.child is None:
            self.pending.append(signum)
        else:
            _forward(self.child, signum)

    def started(self, child: int) -> None:
        self.child = child
        for signum in self.pending:
            _forward(child, signum)
        self.pending.clear()


def _hand_over(conn: _socket.socket, path: str, payload: bytes, signals: _Signals) -> int | None:
    conn.settimeout(_CONNECT_TIMEOUT_S)
    try:
        conn.connect(path)
    except OSError:
        return None  # nobody listens (a stale socket): run here
    if peer_uid(conn) != os.getuid() or signals.pending:
        return None
    conn.settimeout(None)
    fds = b"".join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in (0, 1, 2))
    import _socket

    try:
        sent = conn.sendmsg([payload], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
        if sent < len(payload):
            conn.sendall(payload[sent:])
        kind = recv_exactly(conn, 1)
    except OSError:
        return None
    if kind != b"P":
        return None  # refused ("R" + why), or gone before the child started: nothing ran
    try:  # from here on the child runs the call: never run it here as well
        signals.started(int.from_bytes(recv_exactly(conn, 4), "big"))
        status = recv_exactly(conn, 5)
    except OSError:
        sys.stderr.write("sleuth: the process that ran this search ended without an exit status\n")
        return 2
    if status[:1] != b"X":
        return 2
    return int.from_bytes(status[1:], "big") & 0xFF


def _forward(child: int, signum: int) -> None:
    try:
        os.kill(child, signum)
    except OSError:
        pass


def recv_exactly(conn: _socket.socket, size: int) -> bytes:
    """``size`` bytes from ``conn``; OSError when it closes first."""
    chunks: list[bytes] = []
    while size > 0:
        chunk = conn.recv(min(size, 1 << 20))
        if not chunk:
            raise OSError("closed before the whole message")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)
