"""The server's own file watcher: keeps the index fresh whether or not the client reports changes.

A client without ``workspace/didChangeWatchedFiles`` (scripts, test harnesses, Neovim without a
watcher, MCP hosts) would otherwise get answers from a stale index until the periodic rescan. This
module watches every workspace folder through `watchdog` (inotify on Linux; chosen over
`watchfiles` by measurement, ``bench/watcher_libs.py`` and the README) and hands what changed to a
:class:`ChangeSink` (the index service), which searches those paths from disk until it re-indexes
them: a change is visible to the next query as soon as its event has been handed over.

- **Only what the index holds.** Events are checked against the index's own walk rules (ignore
  files, hidden, deny globs: :class:`sleuth.engine.ignore.IgnoreOracle`) before they are queued:
  a build folder being rewritten, ``.git`` or a denied secret queue no work. An ignore file itself
  always goes through (the service rescans: what it ignores changed) and resets the rules' cache.
- **Folders.** A folder created or moved in is walked (after watchdog has put its watches on it,
  so nothing created inside it is missed) and its files are handed over; a folder deleted or
  moved away is handed over as the folder (the service drops what it held).
- **Never a silent loss.** When the kernel's event queue overflows (``IN_Q_OVERFLOW``: events were
  dropped, which ones is unknown) or watching fails (``ENOSPC``: ``fs.inotify.max_user_watches``
  reached; the library's thread died), every watched folder is handed over as changed: the service
  rescans by size and mtime, the targeted re-read of what may have changed.
- **Debounced.** Events are gathered until the stream is quiet for :data:`QUIET_S` (at most
  :data:`MAX_DELAY_S` after the first), so a branch switch is one hand-over, not thousands.

The engine imports nothing from pygls: the LSP layer starts and stops a :class:`Watcher` with the
index (``sleuth.lsp.features.index``).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any, Callable, Iterable, Protocol

from sleuth.engine.cancel import CancelToken
from sleuth.engine.ignore import IGNORE_FILE_NAMES, IgnoreOracle
from sleuth.engine.platform import make_observer, overflow_signal_available
from sleuth.engine.types import FileError, SkipCounts, WalkOptions
from sleuth.engine.workspace import Target, Workspace

__all__ = ["ChangeSink", "Watcher", "QUIET_S", "MAX_DELAY_S", "HEALTH_CHECK_S"]

logger = logging.getLogger(__name__)

QUIET_S = 0.01  # hand over once no event came for this long...
MAX_DELAY_S = 0.05  # ...or this long after the first event of a burst, whichever comes first
HEALTH_CHECK_S = 1.0  # how often the library's threads are checked to be alive


class ChangeSink(Protocol):
    """What the watcher feeds: :class:`sleuth.engine.index.service.IndexService` is one."""

    def notify_changed(self, paths: Iterable[str], files_only: bool = False) -> None: ...


class _Batch:
    """Events gathered since the last hand-over: changed file paths, new folders, gone folders."""

    def __init__(self) -> None:
        self.files: set[str] = set()
        self.new_dirs: set[str] = set()
        self.gone_dirs: set[str] = set()
        self.rescan_all = False
        self.first = 0.0
        self.last = 0.0

    def __bool__(self) -> bool:
        return bool(self.files or self.new_dirs or self.gone_dirs or self.rescan_all)


class Watcher:
    """Watches ``workspace``'s folders for ``sink`` (see the module docstring).

    ``observer_factory`` makes the watchdog observer (tests pass their own); ``start`` never raises:
    a watcher that cannot watch says so in :meth:`status` and asks the sink for a rescan.
    """

    def __init__(self, workspace: Workspace, options: WalkOptions, sink: ChangeSink, *,
                 observer_factory: Callable[[], Any] | None = None) -> None:
        self.workspace = workspace
        self.options = options
        self.sink = sink
        self._observer_factory = observer_factory
        self._rules = IgnoreOracle(workspace, options)
        self._lock = threading.Condition()
        self._batch = _Batch()
        self._stopping = False
        self._observer: Any = None
        self._overflow_hook: Any = None
        self._thread: threading.Thread | None = None
        self.state = "off"
        self.error: str | None = None
        self.overflows = 0
        self.handed_over = 0

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self) -> None:
        """Watch every folder (watchdog adds its watches on its own thread) and start handing over."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="sleuth-watcher", daemon=True)
        self._thread.start()
        try:
            self._observer = self._make_observer()
            self._overflow_hook = _OverflowHook.install(self.overflowed) if overflow_signal_available() else None
            self._observer.start()
            self.state = "watching"
        except Exception as exc:  # noqa: BLE001 - the index still has its rescans
            self._failed(exc)
        with self._lock:
            stopped = self._stopping
        if stopped:  # stop() ran while the watches were being added: undo them
            self.stop()

    def stop(self) -> None:
        with self._lock:
            self._stopping = True
            self._lock.notify_all()
        if self._overflow_hook is not None:
            self._overflow_hook.remove()
        observer, self._observer = self._observer, None
        if observer is not None:
            try:
                observer.stop()
                if observer.is_alive():  # it never started when adding the watches failed
                    observer.join(timeout=5)
            except Exception:  # noqa: BLE001 - stopping must not fail the index's stop
                logger.exception("stopping the file watcher failed")
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        if self.state == "watching":
            self.state = "off"

    def status(self) -> dict[str, Any]:
        return {"state": self.state, "error": self.error, "overflows": self.overflows,
                "handed_over": self.handed_over}

    def _make_observer(self) -> Any:
        if self._observer_factory is not None:
            observer = self._observer_factory()
        else:
            observer = make_observer()
        from watchdog import events as ev

        handler = _Handler(self)
        # Only what changes content or names: with watchdog's default mask (IN_OPEN, IN_CLOSE_NOWRITE
        # too) every file a search reads is an event, and adding 5,000 folder watches alone
        # overflowed the kernel queue on the Linux tree.
        wanted = [ev.FileCreatedEvent, ev.DirCreatedEvent, ev.FileModifiedEvent, ev.FileDeletedEvent,
                  ev.DirDeletedEvent, ev.FileMovedEvent, ev.DirMovedEvent, ev.FileClosedEvent]
        for root in self.workspace.roots:
            observer.schedule(handler, root.path, recursive=True, event_filter=wanted)
        return observer

    # -- input ----------------------------------------------------------------------------------
    def event(self, kind: str, path: str, is_dir: bool, dest: str | None = None) -> None:
        """One change from the library: ``kind`` is created/modified/closed/deleted/moved."""
        with self._lock:
            batch = self._batch
            if kind == "moved":
                self._add(batch, path, is_dir, gone=True)
                if dest is not None:
                    self._add(batch, dest, is_dir, gone=False)
            else:
                self._add(batch, path, is_dir, gone=kind == "deleted")
            now = time.monotonic()
            batch.first = batch.first or now
            batch.last = now
            self._lock.notify_all()

    @staticmethod
    def _add(batch: _Batch, path: str, is_dir: bool, gone: bool) -> None:
        if not is_dir:
            batch.files.add(path)
        elif gone:
            batch.gone_dirs.add(path)
            batch.new_dirs.discard(path)
        else:
            batch.new_dirs.add(path)

    def overflowed(self) -> None:
        """Events were lost (kernel queue overflow): every watched folder may have changed."""
        self.overflows += 1
        logger.warning("file events were lost (inotify queue overflow): rescanning the workspace")
        with self._lock:
            self._batch.rescan_all = True
            self._batch.first = self._batch.first or time.monotonic()
            self._lock.notify_all()

    def _failed(self, exc: BaseException) -> None:
        self.state = "failed"
        self.error = f"{type(exc).__name__}: {exc}"
        logger.warning("the file watcher stopped (%s): the index relies on rescans", self.error)
        self.overflowed()

    # -- hand-over thread -----------------------------------------------------------------------
    def _run(self) -> None:
        next_check = time.monotonic() + HEALTH_CHECK_S
        while True:
            with self._lock:
                while not self._stopping and not self._due():
                    now = time.monotonic()
                    wait = next_check - now
                    if self._batch:
                        wait = min(wait, self._batch.last + QUIET_S - now, self._batch.first + MAX_DELAY_S - now)
                    self._lock.wait(max(wait, 0.001))
                    if time.monotonic() >= next_check:
                        break
                if self._stopping:
                    return
                batch = self._batch if self._due() else None
                if batch is not None:
                    self._batch = _Batch()
            if batch is not None:
                try:
                    self._hand_over(batch)
                except Exception:  # noqa: BLE001 - one bad batch must not end the watching
                    logger.exception("handing file changes to the index failed")
            if time.monotonic() >= next_check:
                next_check = time.monotonic() + HEALTH_CHECK_S
                self._check_health()

    def _due(self) -> bool:
        batch = self._batch
        if not batch:
            return False
        now = time.monotonic()
        return now - batch.last >= QUIET_S or now - batch.first >= MAX_DELAY_S

    def _check_health(self) -> None:
        """watchdog reports a failure to add a watch (ENOSPC) by ending its thread: never silently."""
        observer = self._observer
        if self.state != "watching" or observer is None:
            return
        threads = [observer, *getattr(observer, "emitters", ())]
        dead = [t for t in threads if hasattr(t, "is_alive") and not t.is_alive()]
        if dead or (self._overflow_hook is not None and not self._overflow_hook.alive()):
            self._failed(RuntimeError("the inotify thread ended (fs.inotify.max_user_watches reached?)"))

    def _hand_over(self, batch: _Batch) -> None:
        """Filter ``batch`` by the index's rules and give what is left to the sink."""
        if batch.rescan_all:
            self._rules.invalidate_all()
            self.sink.notify_changed([r.path for r in self.workspace.roots])
            self.handed_over += 1
        files: set[str] = set()
        for path in batch.files:
            if os.path.basename(path) in IGNORE_FILE_NAMES or path.endswith(f"{os.sep}.git{os.sep}info{os.sep}exclude"):
                self._rules.invalidate_all()
                files.add(path)  # the service rescans: what the rules keep changed
            elif self._wanted(path):
                files.add(path)
        gone = [d for d in batch.gone_dirs if self._rules.admits(d, is_dir=True)]
        for d in gone:
            self._rules.invalidate(d)
        for d in sorted(batch.new_dirs):
            self._rules.invalidate(d)
            files.update(self._files_under(d))
        if files:
            self.sink.notify_changed(sorted(files), files_only=True)
            self.handed_over += 1
        if gone:
            self.sink.notify_changed(sorted(gone))
            self.handed_over += 1

    def _wanted(self, path: str) -> bool:
        """Whether the index's walk would yield ``path`` (or would have, for a path now gone)."""
        if os.path.lexists(path):
            return self._rules.is_searchable(path)
        return self._rules.admits(path, is_dir=False)

    def _files_under(self, folder: str) -> list[str]:
        """The files the index's walk yields under a new ``folder`` (it obeys the ignore files inside)."""
        from sleuth.engine.walk import walk

        root = self.workspace.root_of(folder)
        if root is None or not self._rules.admits(folder, is_dir=True):
            return []
        errors: list[FileError] = []
        entries = walk(self.workspace, [Target(root, folder, True)], self.options, CancelToken(), SkipCounts(), errors)
        return [e.path for e in entries if hasattr(e, "path") and self._rules.admits(e.path, is_dir=False)]


class _Handler:
    """watchdog's handler interface: ``dispatch(event)`` for each event, on the observer's thread."""

    def __init__(self, watcher: Watcher) -> None:
        self.watcher = watcher

    def dispatch(self, event: Any) -> None:
        kind = event.event_type
        if kind not in ("created", "modified", "closed", "deleted", "moved"):
            return
        dest = os.fsdecode(event.dest_path) if getattr(event, "dest_path", "") else None
        self.watcher.event(kind, os.fsdecode(event.src_path), bool(event.is_directory), dest)


class _OverflowHook:
    """Learns of ``IN_Q_OVERFLOW`` from watchdog's inotify layer.

    watchdog's observer re-adds its watches after an overflow but tells its handlers nothing; its
    inotify layer (one inotify descriptor per process, watchdog >= 7.1, Linux) calls
    ``on_queue_overflow`` on every callback registered with it. So a callback is registered on a
    private empty folder of its own (never a watched one: a second watch on the same folder would
    replace the observer's event mask). Elsewhere there is no hook: the platform's backend
    (FSEvents, ReadDirectoryChangesW) reports lost events as changes of the folders.
    """

    def __init__(self, fd: Any, folder: str, on_overflow: Callable[[], None]) -> None:
        self._fd, self._folder, self._on_overflow = fd, folder, on_overflow
        self._wd = -1

    @classmethod
    def install(cls, on_overflow: Callable[[], None]) -> "_OverflowHook | None":
        try:
            from watchdog.observers.inotify_c import InotifyConstants, InotifyFD
        except (ImportError, OSError):
            return None
        import tempfile

        fd = InotifyFD.get_instance()
        hook = cls(fd, tempfile.mkdtemp(prefix="sleuth-watch-"), on_overflow)
        hook._wd = fd.add_callback(os.fsencode(hook._folder), InotifyConstants.IN_DELETE_SELF, hook, id(hook))
        return hook

    def alive(self) -> bool:
        return bool(self._fd.is_alive())

    def remove(self) -> None:
        try:
            self._fd.remove_callbacks([(self._wd, id(self))])
        except Exception:  # noqa: BLE001 - the descriptor may be closed already
            pass
        try:
            os.rmdir(self._folder)
        except OSError:
            pass

    # watchdog's WatchCallback protocol
    def on_event(self, event: Any) -> None:
        pass

    def on_watch_deleted(self, wd: int) -> None:
        pass

    def on_queue_overflow(self) -> None:
        self._on_overflow()
