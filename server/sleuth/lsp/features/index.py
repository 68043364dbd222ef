"""The index over LSP: what only LSP adds to the core's index lifecycle (:class:`sleuth.core.index.IndexKeeper`).

The session (:class:`sleuth.core.session.Session`) starts, restarts and stops the index service, its
file watcher and its periodic rescans; this module tells it what LSP can show and feed:

* the first build's work-done progress on a server-created token (``window/workDoneProgress/cancel``
  on it stops the build), a failure as ``window/showMessage`` (a misplaced store, a full disk), a
  watcher that could not start as ``window/logMessage``;
* ``initializationOptions``: ``cacheDir`` (an explicit store location, for tests; the ``index.path``
  setting wins) and ``rescanIntervalSeconds`` (the rescan safety net, default 60; rescans run only
  when the client cannot report file changes);
* ``workspace/didChangeWatchedFiles`` -> ``notify_changed(paths)``; open-buffer edits ->
  ``notify_buffer(path, text or None)``; client watchers are registered dynamically
  (``client/registerCapability``) when the client can: a welcome second source beside the server's
  own watcher.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Mapping

from lsprotocol import types

from sleuth.core.index import RESCAN_INTERVAL_S, BuildProgress, IndexHooks, store_misplaced
from sleuth.engine.cancel import CancelToken
from sleuth.lsp.documents import uri_to_path
from sleuth.lsp.features.base import Feature
from sleuth.lsp.progress import WorkDoneReporter

if TYPE_CHECKING:
    from sleuth.lsp.server import SleuthServer

__all__ = ["IndexFeature", "WATCHER_REGISTRATION_ID"]

logger = logging.getLogger(__name__)
WATCHER_REGISTRATION_ID = "sleuth-watched-files"


class IndexFeature(Feature):
    """The index's LSP side. Owns the transport's index options (``initializationOptions``' ``cacheDir``
    and ``rescanIntervalSeconds``, handed over at ``initialize``) and ``watched_events``, the file-change
    events received (``sleuth/debug/workers``)."""

    def __init__(self, server: "SleuthServer") -> None:
        super().__init__(server)
        self.options: Mapping[str, Any] = {}
        self.watched_events = 0

    def register(self) -> None:
        self.on(types.WORKSPACE_DID_CHANGE_WATCHED_FILES, self.did_change_watched_files)
        self.server.buffers.listeners.append(self._buffer_changed)

    def did_change_watched_files(self, params: types.DidChangeWatchedFilesParams) -> None:
        paths = [path for change in params.changes if (path := uri_to_path(change.uri)) is not None]
        self.watched_events += len(paths)
        if paths:
            self.server.session.index.call("notify_changed", paths)

    def _buffer_changed(self, path: str, text: str | None) -> None:
        self.server.session.index.call("notify_buffer", path, text)

    def start(self) -> None:
        """After ``initialized``: the transport options and hooks, then the index for the current folders
        (no-op when disabled or without folders), with the open buffers handed over at once."""
        server = self.server
        session = server.session
        explicit = self.options.get("cacheDir") or self.options.get("cache_dir")
        session.cache_dir = explicit if isinstance(explicit, str) else None
        session.open_buffers = server.buffers.snapshot  # handed to an index this door starts by taking the engine over
        session.index.hooks = IndexHooks(
            on_error=lambda message: self._show(f"Sleuth: the index failed ({message}); searches scan instead. "
                                                "Run 'Sleuth: Rebuild Index' once the cause is fixed."),
            on_start_failed=self._start_failed,
            on_watch_failed=lambda error: server.post(lambda: server.window_log_message(types.LogMessageParams(
                type=types.MessageType.Warning,
                message=f"Sleuth: cannot watch the folders ({error}); the index catches up by rescans."))),
            progress=self._build_progress,
            rescans=not server.client_supports_watcher_registration,
            rescan_interval_s=self._rescan_interval(),
        )
        self.refresh()

    def refresh(self) -> None:
        """After a change of folders or settings: the session restarts the index when what it depends on changed."""
        self.server.session.refresh_index(self.server.buffers.snapshot())

    def _show(self, message: str) -> None:
        server = self.server
        server.post(lambda: server.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning,
                                                                               message=message)))

    def _start_failed(self, exc: BaseException) -> None:
        """The server stays useful without its index (grep scans); a setting the person must change is
        said where they look, every failure in the log."""
        server = self.server
        message = f"Sleuth: the index could not start ({exc}); searches scan instead."
        if store_misplaced(exc):
            self._show(message)
        server.post(lambda: server.window_log_message(types.LogMessageParams(type=types.MessageType.Warning,
                                                                             message=message)))

    def _build_progress(self) -> BuildProgress | None:
        """The first build's progress on a server-created token (when the client supports it)."""
        server = self.server
        if not server.client_supports_progress:
            return None
        reporter = WorkDoneReporter(server.post, server.notify, server.new_progress_token(), "Sleuth: indexing",
                                    ready=False)
        server.create_progress(reporter)
        token = CancelToken()  # window/workDoneProgress/cancel on the indexing progress stops the build
        server.cancels.register_progress(reporter.token, token)

        def end(message: str) -> None:
            server.post(lambda: reporter.end(message))
            server.post(lambda: server.cancels.unregister(None, reporter.token))

        return BuildProgress(reporter.sink, end, token)

    def _rescan_interval(self) -> float:
        value = self.options.get("rescanIntervalSeconds", RESCAN_INTERVAL_S)
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 \
            else RESCAN_INTERVAL_S

    def register_watchers(self) -> None:
        """Ask the client to report file changes under every folder (dynamic registration; not awaited)."""
        server = self.server
        if not server.client_supports_watcher_registration:
            return
        options = types.DidChangeWatchedFilesRegistrationOptions(watchers=[types.FileSystemWatcher(glob_pattern="**/*")])
        registration = types.Registration(id=WATCHER_REGISTRATION_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                          register_options=options)
        future = server.client_register_capability(types.RegistrationParams(registrations=[registration]))

        def done(fut: Any) -> None:
            if not fut.cancelled() and fut.exception() is not None:
                logger.warning("client/registerCapability failed: %s", fut.exception())

        future.add_done_callback(done)
