"""What both ends of a server's warm doors share: where they are and who is at the other end,
computed with nothing but ``os``, the C-level socket module and SHA-256.

Apart from :mod:`sleuth.core.warm` because the CLI's fork client (:mod:`sleuth.cli.fork_client`)
computes them before it has imported anything else: every module it loads is paid on every warm call.
A server of some roots offers two sockets in one private folder, both named by the roots' hash:

* ``<key>.sock``, the warm door (:mod:`sleuth.core.warm`): one JSON request, one JSON answer;
* ``<key>.tcp`` instead of ``<key>.sock`` where a UNIX socket cannot name its peer's user
  (:func:`sleuth.engine.platform.warm_door`): the warm door listens on 127.0.0.1 and this private
  file holds its port and a token that each request must carry;
* ``<key>.fork.sock``, the CLI fork server (:mod:`sleuth.cli.fork_server`): a ``sleuth`` process
  hands over its arguments, folder, environment and standard streams, and a forked copy of a process
  that has already imported the CLI runs it.
"""

from __future__ import annotations

import os
import stat

from sleuth.engine import platform as _platform
from sleuth.engine.roots_key import roots_key as _key

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~3 ms of every warm call)
if TYPE_CHECKING:
    import _socket
    from typing import Sequence

__all__ = ["NO_SERVER_ENV", "roots_key", "socket_dir", "socket_path", "door_may_exist", "fork_socket_path", "private_dir", "peer_uid",
           "loopback_path", "read_loopback", "lock_path"]

NO_SERVER_ENV = "SLEUTH_NO_SERVER"  # "1": the CLI always runs cold (as --no-server), e.g. for a whole test run

_SUN_PATH_MAX = 107


def roots_key(roots: Sequence[str]) -> str:
    """The hash that names a set of roots: the same as the index store's directory
    (:func:`sleuth.engine.index.store.store_dir`), so one server, one store, one socket per workspace."""
    return _key(roots)


def socket_dir() -> str:
    """``$XDG_RUNTIME_DIR/sleuth`` (per-user, tmpfs), else ``sleuth-run`` in the cache folder
    (:func:`sleuth.engine.user_dirs.cache_home`: ``$XDG_CACHE_HOME``, ``~/.cache``)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        return os.path.join(runtime, "sleuth")
    from sleuth.engine.user_dirs import cache_home  # only here: a warm call with XDG_RUNTIME_DIR never loads it

    return os.path.join(cache_home(), "sleuth-run")


def _named(roots: Sequence[str], suffix: str) -> str | None:
    path = os.path.join(socket_dir(), roots_key(roots) + suffix)
    return path if len(os.fsencode(path)) <= _SUN_PATH_MAX else None


def socket_path(roots: Sequence[str]) -> str | None:
    """Where the server of ``roots`` listens; None when the path would be too long for a UNIX socket."""
    return _named(roots, ".sock")


def door_may_exist(roots: Sequence[str]) -> bool:
    """Whether the file of a warm door for ``roots`` is there (its socket, or the loopback port's file):
    without one no server listens, and a cold call need not load the door's client at all (its
    handshake's modules, ``hmac``, ``secrets``, ``logging``, ``dataclasses``, were ~20 ms of every cold
    ``sleuth grep`` run without ``--no-server``). A file left by a dead server is found out by connecting."""
    unix = socket_path(roots)
    unix_there = unix is not None and os.path.exists(unix)
    loopback_there = os.path.exists(loopback_path(roots))
    if not unix_there and not loopback_there:
        return False  # no door's file either way: warm_door, which loads the socket module, need not say which
    return loopback_there if _platform.warm_door() == "loopback" else unix_there


def fork_socket_path(roots: Sequence[str]) -> str | None:
    """Where the CLI fork server of the server of ``roots`` listens (None: too long a path)."""
    return _named(roots, ".fork.sock")


def lock_path(roots: Sequence[str]) -> str:
    """The lock file whose holder is the one door (and engine host) of ``roots`` (:mod:`sleuth.core.engine_host`)."""
    return os.path.join(socket_dir(), roots_key(roots) + ".lock")


def loopback_path(roots: Sequence[str]) -> str:
    """Where the server of ``roots`` writes its loopback warm door's port and token."""
    return os.path.join(socket_dir(), roots_key(roots) + ".tcp")


def read_loopback(path: str) -> tuple[int, str] | None:
    """(port, token) from a loopback door's file, when it is a regular file of this user's alone."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or not _platform.owned_privately(info.st_uid, info.st_mode):
            return None
        fields = os.read(fd, 256).decode("ascii", "replace").split()
    finally:
        os.close(fd)
    if len(fields) != 2 or not fields[0].isdigit() or len(fields[1]) < 32:
        return None
    return int(fields[0]), fields[1]


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
    return stat.S_ISDIR(info.st_mode) and _platform.owned_privately(info.st_uid, info.st_mode)


def peer_uid(sock: _socket.socket) -> int | None:
    """The uid of the process at the other end (:func:`sleuth.engine.platform.peer_uid`); None where unavailable."""
    return _platform.peer_uid(sock)
