"""The index lifecycle every long-running transport shares: start, feed, restart, stop.

One :class:`IndexKeeper` holds at most one :class:`~sleuth.engine.index.service.IndexService`
for the current roots, its file watcher (freshness never depends on the client reporting
changes) and, when nothing reports changes, a periodic incremental rescan as a safety net. The
store lives in a directory derived from the roots (``store.store_dir``: one store per workspace,
shared by every process serving the same folders), unless a cache directory is given.

Transports supply callbacks for what they can show a person (a failure, a watcher that could not
start, the first build's progress and its end); the keeper itself never talks to a client.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping

from sleuth.commands.config import Settings
from sleuth.engine import foreground
from sleuth.engine.cancel import CancelToken, NullProgress, ProgressSink
from sleuth.engine.workspace import Workspace

if TYPE_CHECKING:  # SQLite and numpy load only when an index runs
    from sleuth.engine.index.service import IndexService
    from sleuth.engine.index.watcher import Watcher

__all__ = ["IndexKeeper", "IndexHooks", "BuildProgress", "index_key", "store_misplaced", "RESCAN_INTERVAL_S"]

logger = logging.getLogger(__name__)
RESCAN_INTERVAL_S = 60.0


def index_key(workspace: Workspace, settings: Settings, cache_dir: str | None) -> tuple[Any, ...]:
    """What the index depends on: when this changes, the index restarts."""
    return (settings.index_enabled, settings.index_config(), tuple(r.path for r in workspace.roots), cache_dir)


def store_misplaced(exc: BaseException) -> bool:
    """Whether the index refused its store location (inside a workspace folder): a setting the
    person must change, not a bug."""
    try:
        from sleuth.engine.index.store import StoreInsideWorkspace
    except Exception:  # the index stack itself failed to import: not a location problem
        return False
    return isinstance(exc, StoreInsideWorkspace)


@dataclass
class BuildProgress:
    """Where one start's first build reports: its sink, the token that cancels it (an editor's cancel
    button), and ``end(message)``, called once: ``index ready``, ``index stopped`` or ``failed``."""

    sink: ProgressSink
    end: Callable[[str], None]
    token: CancelToken = field(default_factory=CancelToken)


@dataclass
class IndexHooks:
    """What the transport wants to hear about (any may be left out)."""

    on_error: Callable[[str], None] | None = None  # the index stopped on an error (index thread)
    on_start_failed: Callable[[BaseException], None] | None = None  # the service could not start
    on_watch_failed: Callable[[str], None] | None = None  # the watcher could not start (its thread)
    progress: Callable[[], BuildProgress | None] | None = None  # the first build's progress, per start
    rescans: bool = True  # periodic incremental rescans (off when the client reports changes)
    rescan_interval_s: float = RESCAN_INTERVAL_S


@dataclass
class IndexKeeper:
    """At most one running index service (plus watcher and rescans) for the current roots."""

    hooks: IndexHooks = field(default_factory=IndexHooks)
    service: IndexService | None = None
    watcher: Watcher | None = None
    key: tuple[Any, ...] = ()
    _rescan_stop: threading.Event | None = None
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    def start(self, workspace: Workspace, settings: Settings, cache_dir: str | None = None,
              buffers: Mapping[str, str] | None = None) -> IndexService | None:
        """Start the service for ``workspace`` (no-op when disabled, without roots, or running); the
        service, or None. A failure to start is logged and leaves searches scanning."""
        with self._lock:
            if self.service is not None or not settings.index_enabled or not workspace.roots:
                return self.service
            progress = self.hooks.progress() if self.hooks.progress else None
            try:
                from sleuth.engine.index.service import IndexService  # its SQLite stack loads only when an index runs

                service = IndexService(workspace, settings.index_config(), cache_dir=cache_dir, on_error=self._failed)
                for path, text in (buffers or {}).items():
                    service.notify_buffer(path, text)
                service.start(progress=progress.sink if progress else NullProgress,
                              token=progress.token if progress else CancelToken())
            except BaseException:
                if progress is not None:
                    progress.end("failed")
                raise
            self.service = service
            self.key = index_key(workspace, settings, cache_dir)
            self._start_watcher(service)
            if self.hooks.rescans:
                self._start_rescans(service)
            if progress is not None:
                self._end_progress_when_built(service, progress)
            return service

    def stop(self) -> None:
        """Stop the rescans, the watcher and the service (each failure logged, none raised)."""
        with self._lock:
            stop, self._rescan_stop = self._rescan_stop, None
            if stop is not None:
                stop.set()
            watcher, self.watcher = self.watcher, None
            service, self.service = self.service, None
        if watcher is not None:
            try:
                watcher.stop()
            except Exception:
                logger.exception("watcher stop failed")
        if service is not None:
            try:
                service.stop()
            except Exception:
                logger.exception("index stop failed")

    def refresh(self, workspace: Workspace, settings: Settings, cache_dir: str | None = None,
                buffers: Mapping[str, str] | None = None) -> IndexService | None:
        """Bring the index in line with the roots and settings: stop it when disabled, restart it when
        what it depends on changed, start it when none runs."""
        if not settings.index_enabled:
            self.stop()
            return None
        if self.service is not None and index_key(workspace, settings, cache_dir) == self.key:
            return self.service
        self.stop()
        return self.start(workspace, settings, cache_dir, buffers)

    def call(self, method: str, *args: Any) -> None:
        """Call ``method`` on the service when one runs; its failure is logged, never raised."""
        service = self.service
        if service is not None:
            try:
                getattr(service, method)(*args)
            except Exception:
                logger.exception("index %s failed", method)

    # -- internals --------------------------------------------------------------------------
    def _failed(self, message: str) -> None:
        logger.warning("index failed: %s", message)
        if self.hooks.on_error is not None:
            self.hooks.on_error(message)

    def _start_watcher(self, service: IndexService) -> None:
        """Watch the folders once the index is ready, then have it look again for what changed.

        Adding the watches walks every folder (the Linux tree: 5,000 folders, 78,000 names, ~0.3
        CPU-s in the watcher library); started with the index, that walk held the interpreter lock
        against the store's open and delayed ``ready`` by as much again. Started after it, the
        changes made before the last watch was in place are found by one catch-up
        (:meth:`IndexService.rescan`: the folder stamps and a stat of each file), the ones after it
        by the watcher: none is missed, which a watcher racing the first catch-up did not promise."""
        from sleuth.engine.index.watcher import Watcher

        watcher = Watcher(service.workspace, service.options, service)
        service.watcher = watcher
        self.watcher = watcher

        def start() -> None:
            while not service.wait_ready(0.5):
                if self.service is not service or _failed(service):
                    return
            if self.service is not service:
                return
            foreground.yield_to_searches(lambda: self.service is not service)  # (its walk holds the interpreter lock)
            watcher.start()
            if watcher.state == "failed":
                logger.warning("cannot watch the folders (%s); the index catches up by rescans", watcher.error)
                if self.hooks.on_watch_failed is not None:
                    self.hooks.on_watch_failed(str(watcher.error))
            else:
                service.rescan()

        threading.Thread(target=start, name="sleuth-watcher-start", daemon=True).start()

    def _end_progress_when_built(self, service: IndexService, progress: BuildProgress) -> None:
        """End the first build's progress when it is done, failed, was cancelled or the index stopped."""

        def finish() -> None:
            while not service.wait_ready(0.5):
                if progress.token.should_stop() or self.service is not service or _failed(service):
                    break
            progress.end("index ready" if service.ready else "index stopped")

        threading.Thread(target=finish, name="sleuth-index-progress", daemon=True).start()

    def _start_rescans(self, service: IndexService) -> None:
        stop = self._rescan_stop = threading.Event()
        interval = self.hooks.rescan_interval_s

        def rescans() -> None:
            while not stop.wait(interval):
                if self.service is service and service.ready:
                    try:
                        service.build(full=False, wait=False)
                    except Exception:
                        logger.exception("index rescan failed")

        threading.Thread(target=rescans, name="sleuth-index-rescans", daemon=True).start()


def _failed(service: Any) -> bool:
    try:
        return service.status().get("state") == "error"
    except Exception:
        return True
