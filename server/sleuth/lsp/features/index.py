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
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from sleuth.core.index import RESCAN_INTERVAL_S, BuildProgress, IndexHooks, store_misplaced
from sleuth.engine.cancel import CancelToken
from sleuth.lsp.documents import uri_to_path
from sleuth.lsp.progress import WorkDoneReporter

if TYPE_CHECKING:
    from sleuth.engine.index.service import IndexService
    from sleuth.lsp.server import SleuthServer

__all__ = ["setup", "start_index", "refresh_index", "register_watchers", "WATCHER_REGISTRATION_ID"]

logger = logging.getLogger(__name__)
WATCHER_REGISTRATION_ID = "sleuth-watched-files"


def start_index(server: "SleuthServer") -> None:
    """After ``initialized``: the transport options and hooks, then the index for the current folders
    (no-op when disabled or without folders), with the open buffers handed over at once."""
    session = server.session
    explicit = server.transport_options.get("cacheDir") or server.transport_options.get("cache_dir")
    session.cache_dir = explicit if isinstance(explicit, str) else None
    session.open_buffers = server.buffers.snapshot  # handed to an index this door starts by taking the engine over
    session.index.hooks = IndexHooks(
        on_error=lambda message: _show(server, f"Sleuth: the index failed ({message}); searches scan instead. "
                                               "Run 'Sleuth: Rebuild Index' once the cause is fixed."),
        on_start_failed=lambda exc: _start_failed(server, exc),
        on_watch_failed=lambda error: server.post(lambda: server.window_log_message(types.LogMessageParams(
            type=types.MessageType.Warning,
            message=f"Sleuth: cannot watch the folders ({error}); the index catches up by rescans."))),
        progress=lambda: _build_progress(server),
        rescans=not server.client_supports_watcher_registration,
        rescan_interval_s=_rescan_interval(server),
    )
    refresh_index(server)


def refresh_index(server: "SleuthServer") -> None:
    """After a change of folders or settings: the session restarts the index when what it depends on changed."""
    server.session.refresh_index(server.buffers.snapshot())


def _show(server: "SleuthServer", message: str) -> None:
    server.post(lambda: server.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning,
                                                                           message=message)))


def _start_failed(server: "SleuthServer", exc: BaseException) -> None:
    """The server stays useful without its index (grep scans); a setting the person must change is
    said where they look, every failure in the log."""
    message = f"Sleuth: the index could not start ({exc}); searches scan instead."
    if store_misplaced(exc):
        _show(server, message)
    server.post(lambda: server.window_log_message(types.LogMessageParams(type=types.MessageType.Warning,
                                                                         message=message)))


def _build_progress(server: "SleuthServer") -> BuildProgress | None:
    """The first build's progress on a server-created token (when the client supports it)."""
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


def _rescan_interval(server: "SleuthServer") -> float:
    value = server.transport_options.get("rescanIntervalSeconds", RESCAN_INTERVAL_S)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 \
        else RESCAN_INTERVAL_S


def register_watchers(server: "SleuthServer") -> None:
    """Ask the client to report file changes under every folder (dynamic registration; not awaited)."""
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


def setup(server: "SleuthServer") -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: "SleuthServer", params: types.DidChangeWatchedFilesParams) -> None:
        paths = [path for change in params.changes if (path := uri_to_path(change.uri)) is not None]
        ls.watched_events += len(paths)
        if paths:
            ls.session.index.call("notify_changed", paths)

    def buffer_changed(path: str, text: str | None) -> None:
        server.session.index.call("notify_buffer", path, text)

    server.buffers.listeners.append(buffer_changed)
