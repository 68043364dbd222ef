"""Every difference between the operating systems Sleuth runs on, decided here and only here.

Each function answers one question the rest of Sleuth used to answer with ``sys.platform`` or
``os.name`` tests of its own: who is at the other end of a socket, whether descriptors can be passed,
how the search pool starts its workers, how files are locked, whether paths compare without case,
how the file watcher watches. Where a capability can be tested (a socket option, a module, a start
method) it is tested; the platform's name decides only where nothing can be asked (macOS's
``LOCAL_PEERCRED``, which Python does not name).

Every fallback can be forced on Linux, so that it is tested where the suite runs:
``SLEUTH_FORCE_FALLBACKS`` is a comma-separated list of :data:`FALLBACKS` (``all`` for every one).

In the engine (the lowest layer) because the engine's pool, index store and watcher need it as much
as the doors do; it imports only ``os``, ``sys`` and the C-level socket module, because the CLI's
fork client loads it on every warm call (:mod:`sleuth.cli.fork_client`).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the fork client's budget)
if TYPE_CHECKING:
    import _socket
    from types import ModuleType
    from typing import IO, Literal

__all__ = ["FALLBACKS", "FORCE_ENV", "forced", "compiled_module", "peer_uid", "warm_door", "fork_server_available",
           "pool_start_method", "lock_file", "locks_exclude", "paths_fold_case", "path_key", "observer_kind",
           "hyperscan_allowed", "signal_receiver", "cache_base", "make_observer",
           "overflow_signal_available", "owned_privately", "fork_aside", "OWN_DESCRIPTORS"]

#: Paths that name this process's own files (a shell's ``<(command)``): the fork client keeps such a call
#: here, the grep reads such a path as a stream (here, not in sleuth.cli.fork_client, which a cold
#: ``--no-server`` call does not import)
OWN_DESCRIPTORS = ("/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/")

FORCE_ENV = "SLEUTH_FORCE_FALLBACKS"
#: The fallbacks that can be forced, each what Sleuth does where the preferred way is missing.
FALLBACKS = {
    "spawn": "the search pool starts its workers by spawn (Windows; no fork)",
    "no-fork-server": "the CLI runs every call in its own process (no fork, or no descriptor passing)",
    "loopback-warm": "the warm door listens on 127.0.0.1 and admits a token from a private file "
                     "(no UNIX socket or no way to learn the peer's user)",
    "polling": "the file watcher polls (no inotify, FSEvents or ReadDirectoryChangesW)",
    "no-hyperscan": "RE2 scans the literal prefilter's literals (no hyperscan wheel)",
    "casefold-paths": "paths compare without case (macOS's and Windows's default file systems)",
    "no-locks": "index-store locks are not taken (neither fcntl nor msvcrt)",
    "no-compiled-grams": "the index build finds a chunk's n-grams with numpy (the optional C loop not compiled)",
    "no-compiled-stats": "an opened store's files are stated by a second interpreter (the optional C loop not compiled)",
    "no-compiled-defs": "the definition scan runs the regex in Python (the optional C scanner not compiled)",
    "no-compiled-lines": "the searcher finds candidate lines and counts newlines with bytes methods "
                         "(the optional C loops not compiled)",
}


def forced(name: str) -> bool:
    """Whether ``SLEUTH_FORCE_FALLBACKS`` forces the fallback ``name`` (one of :data:`FALLBACKS`)."""
    value = os.environ.get(FORCE_ENV, "")
    if not value:
        return False
    names = {n.strip() for n in value.split(",")}
    return name in names or "all" in names


def compiled_module(name: str, fallback: str) -> ModuleType | None:
    """The optional compiled extension module ``name`` (``setup.py`` builds it where a C compiler exists),
    or None where it was not built or the fallback ``fallback`` (one of :data:`FALLBACKS`) is forced: the
    callers then take their pure-Python path, which gives the same results."""
    if forced(fallback):
        return None
    try:  # by name: an extension module has no source for tests/test_layers.py to see as a module of its own
        __import__(name)
    except ImportError:  # a platform or a wheel without the compiled part
        return None
    return sys.modules[name]


# -- peer credentials ----------------------------------------------------------------------------
_LOCAL_PEERCRED = 0x001  # <sys/un.h> on macOS and the BSDs: struct xucred at level SOL_LOCAL (0)
_SOL_LOCAL = 0


def _peer_credential_option() -> tuple[int, int, int, int] | None:
    """(level, option, buffer size, offset of the uid) of the option that names a UNIX socket's peer."""
    import _socket  # here: a cold --no-server call asks no socket question (issue 30)

    option = getattr(_socket, "SO_PEERCRED", None)
    if option is not None:  # Linux: struct ucred {pid, uid, gid}
        return _socket.SOL_SOCKET, option, 12, 4
    if sys.platform == "darwin" or sys.platform.startswith("freebsd"):  # struct xucred {version, uid, ...}
        return _SOL_LOCAL, _LOCAL_PEERCRED, 76, 4
    return None


def peer_uid(sock: _socket.socket) -> int | None:
    """The uid of the process at the other end of a UNIX socket; None where it cannot be learnt."""
    how = _peer_credential_option()
    if how is None:
        return None
    level, option, size, at = how
    try:
        raw = sock.getsockopt(level, option, size)
    except OSError:
        return None
    return int.from_bytes(raw[at:at + 4], sys.byteorder, signed=True)


def _unix_sockets_with_peers() -> bool:
    import _socket

    return hasattr(_socket, "AF_UNIX") and hasattr(os, "getuid") and _peer_credential_option() is not None


def warm_door() -> Literal["unix", "loopback"]:
    """How the warm CLI door listens: a private UNIX socket whose peer's uid is checked where both
    exist, else 127.0.0.1 with a token that only the user's private file holds."""
    if forced("loopback-warm") or not _unix_sockets_with_peers():
        return "loopback"
    return "unix"


def fork_server_available() -> bool:
    """Whether the CLI fork server can run: it forks, takes the client's standard streams over the
    socket (``SCM_RIGHTS``) and checks the peer's uid, so it needs all three."""
    import _socket

    return (not forced("no-fork-server") and warm_door() == "unix" and hasattr(os, "fork")
            and hasattr(_socket, "SCM_RIGHTS") and hasattr(_socket.socket, "sendmsg"))


def owned_privately(uid: int, mode: int) -> bool:
    """Whether a file or folder with owner ``uid`` and ``mode`` is this user's alone. Where there are
    no POSIX owners (Windows) the answer is True: the user's profile folder's ACL keeps others out
    of the folders Sleuth uses, and is not checked here."""
    if not hasattr(os, "getuid"):
        return True
    return uid == os.getuid() and not mode & 0o077


# -- processes -----------------------------------------------------------------------------------
def fork_aside() -> bool:
    """Whether a one-shot process may fork a child for a side task (the cold CLI checks its index's
    freshness there while it loads the index: :mod:`sleuth.engine.index.aside`): where ``fork`` is
    safe (not Windows, which has none; not macOS, whose system frameworks are not fork-safe), in a
    single-threaded process, and not with the ``spawn`` fallback forced."""
    import threading

    return hasattr(os, "fork") and sys.platform != "darwin" and not forced("spawn") and threading.active_count() == 1


def pool_start_method(threads: int) -> str:
    """The search pool's start method for a process with ``threads`` threads: ``fork`` for a
    single-threaded one (workers in milliseconds), ``forkserver`` for a threaded one (its threads make
    ``fork`` unsafe), ``spawn`` where neither exists."""
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    if forced("spawn"):
        return "spawn"
    if threads == 1 and "fork" in methods:
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


def signal_receiver() -> bool:
    """Whether an asyncio loop can receive signals (``loop.add_signal_handler``): not on Windows,
    whose loop raises NotImplementedError; ``set_wakeup_fd`` on a socket is the capability it lacks."""
    import signal

    return hasattr(signal, "SIGHUP") and hasattr(signal, "pthread_sigmask")


# -- files ---------------------------------------------------------------------------------------
def lock_file(handle: IO[bytes], exclusive: bool) -> bool:
    """Take a shared (or exclusive) lock on an open file without waiting; True when taken.

    ``fcntl.flock`` where it exists. ``msvcrt.locking`` (Windows) has no shared mode, so there a
    shared lock is not taken (True): readers hold one only to keep their index generation from being
    deleted, and Windows refuses to delete a file that is open; exclusive locks (the writer's build
    lock, the clean-up's) are real. Neither module: always True."""
    if forced("no-locks"):
        return True
    try:
        import fcntl
    except ImportError:
        fcntl = None  # type: ignore[assignment]
    if fcntl is not None:
        try:
            fcntl.flock(handle.fileno(), (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        except OSError:
            return False
        return True
    try:
        import msvcrt
    except ImportError:
        return True
    if not exclusive:
        return True
    try:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
    except OSError:
        return False
    return True


def locks_exclude() -> bool:
    """Whether :func:`lock_file`'s exclusive locks keep a second process out (``fcntl`` or ``msvcrt``,
    and ``no-locks`` not forced). Without them two processes may build, or delete, one store at once."""
    if forced("no-locks"):
        return False
    for name in ("fcntl", "msvcrt"):
        try:
            __import__(name)
        except ImportError:
            continue
        return True
    return False


def cache_base() -> str:
    """The per-user cache folder: ``%LOCALAPPDATA%`` (Windows), ``~/Library/Caches`` (macOS),
    else ``$XDG_CACHE_HOME`` or ``~/.cache``."""
    if os.name == "nt":
        return os.environ.get("LOCALAPPDATA") or os.path.expanduser("~\\AppData\\Local")
    if sys.platform == "darwin":
        return os.path.expanduser("~/Library/Caches")
    return os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")


_FOLDS: dict[str, bool] = {}


def paths_fold_case(folder: str) -> bool:
    """Whether the file system holding ``folder`` finds names whatever their case (macOS's APFS and
    Windows's NTFS by default): tested once per folder, by looking the folder up with its last
    name's case swapped. A folder whose name has no letters cannot tell: the platform's default."""
    if forced("casefold-paths"):
        return True
    if folder in _FOLDS:
        return _FOLDS[folder]
    head, name = os.path.split(os.path.abspath(folder))
    swapped = name.swapcase()
    if swapped == name:
        answer = os.name == "nt" or sys.platform == "darwin"
    else:
        try:
            answer = os.path.samefile(folder, os.path.join(head, swapped))
        except OSError:
            answer = False
    _FOLDS[folder] = answer
    return answer


def path_key(path: str, fold: bool) -> str:
    """``path`` as compared on its file system: drive letters and separators normalised
    (``os.path.normcase``: Windows only), and case folded when ``fold``."""
    key = os.path.normcase(path)
    return key.casefold() if fold else key


# -- the watcher ---------------------------------------------------------------------------------
def observer_kind() -> Literal["native", "polling"]:
    """``native``: watchdog's own choice (inotify, FSEvents, ReadDirectoryChangesW, kqueue);
    ``polling`` when forced (watchdog's polling observer, which needs nothing of the platform)."""
    return "polling" if forced("polling") else "native"


def make_observer() -> object:
    """A watchdog observer of :func:`observer_kind`."""
    if observer_kind() == "polling":
        from watchdog.observers.polling import PollingObserver

        return PollingObserver()
    from watchdog.observers import Observer

    return Observer()


def overflow_signal_available() -> bool:
    """Whether the observer reports lost events itself (inotify's ``IN_Q_OVERFLOW``, through
    watchdog's inotify layer). FSEvents and ReadDirectoryChangesW report them as changes of the
    folders; polling loses nothing (it compares snapshots)."""
    if observer_kind() == "polling":
        return False
    try:
        from watchdog.observers.inotify_c import InotifyFD  # noqa: F401
    except (ImportError, OSError):
        return False
    return True


# -- optional dependencies -----------------------------------------------------------------------
def hyperscan_allowed() -> bool:
    """Whether the literal prefilter may use hyperscan when it is installed (its wheel exists for
    some platforms only; RE2 does the same work elsewhere)."""
    return not forced("no-hyperscan")
