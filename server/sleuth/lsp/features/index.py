"""The index lifecycle hook (SPEC §7): where the server starts, feeds and stops the index service.

The only place the LSP layer touches :class:`sleuth.engine.index.service.IndexService`; the
service lives in ``server.services.index`` (commands reach it as ``ctx.services.index``).

* :func:`start_index` — after ``initialized`` (when ``index_enabled`` and a folder is open):
  ``IndexService(workspace, settings.index_config(), cache_dir=...)`` then ``start(progress)``, with its own
  work-done progress on a server-created token; open buffers are handed over at once.
* ``workspace/didChangeWatchedFiles`` -> ``notify_changed(paths)``; open-buffer edits ->
  ``notify_buffer(path, text or None)``.
* The server's own file watcher (:class:`sleuth.engine.index.watcher.Watcher`) starts and stops
  with the index, on every folder, whatever the client can do: freshness never depends on the
  client reporting changes.
* A folder change, or a change of a setting the index depends on, restarts both;
  ``index_enabled: false`` and ``shutdown`` stop them (``stop()``).

Client watchers are still registered dynamically (``client/registerCapability``) when the client
can: a welcome second source. Without them the server also asks the index for an incremental
rescan (size/mtime) every ``rescanIntervalSeconds`` (initialization option, default 60), a safety
net behind its own watcher.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from sleuth.engine.cancel import CancelToken, NullProgress
from sleuth.lsp.documents import uri_to_path
from sleuth.lsp.progress import WorkDoneReporter

if TYPE_CHECKING:
    from sleuth.engine.index.service import IndexService
    from sleuth.lsp.server import SleuthServer

__all__ = ["setup", "start_index", "stop_index", "on_folders_changed", "on_settings_changed",
           "register_watchers", "WATCHER_REGISTRATION_ID"]

logger = logging.getLogger(__name__)
WATCHER_REGISTRATION_ID = "sleuth-watched-files"
RESCAN_INTERVAL_S = 60.0  # without client file watching (initializationOptions.rescanIntervalSeconds)


def _cache_dir(server: "SleuthServer") -> str | None:
    """Where the store goes: the ``index.path`` setting, else the ``cacheDir`` initialization option (an
    explicit override, used by tests), else None: the user cache directory, by roots only. An editor's
    own ``storagePath`` no longer picks it, so VS Code, the CLI and a second window share one store."""
    options = server.transport_options
    explicit = options.get("cacheDir") or options.get("cache_dir")
    return server.settings.index_path or (explicit if isinstance(explicit, str) else None)


def index_key(server: "SleuthServer") -> tuple[Any, ...]:
    """What the index depends on: when this changes, the index restarts."""
    s = server.settings
    return (s.index_enabled, s.index_config(), tuple(r.path for r in server.sandbox.roots), _cache_dir(server))


def start_index(server: "SleuthServer") -> None:
    """Create and start the index service for the current folders (no-op when disabled or without folders)."""
    if server.services.index is not None or not server.settings.index_enabled or not server.sandbox.roots:
        return
    reporter = _index_progress(server)
    try:
        from sleuth.engine.index.service import IndexService  # its SQLite stack loads only when an index runs

        service = IndexService(server.sandbox, server.settings.index_config(), cache_dir=_cache_dir(server),
                               on_error=lambda message: _index_failed(server, message))
        for path, text in server.buffers.snapshot().items():
            service.notify_buffer(path, text)
        token = CancelToken()  # window/workDoneProgress/cancel on the indexing progress stops the build
        if reporter is not None:
            server.cancels.register_progress(reporter.token, token)
        service.start(progress=reporter.sink if reporter else NullProgress, token=token)
    except Exception as exc:  # the server stays useful without its index (grep scans)
        if reporter is not None:
            reporter.end("failed")
        message = f"Sleuth: the index could not start ({exc}); searches scan instead."
        if _misplaced_store(exc):  # a setting the person must change: say it where they look
            server.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))
        else:
            logger.exception("index start failed")
        server.window_log_message(types.LogMessageParams(type=types.MessageType.Warning, message=message))
        return
    server.services.index = service
    server.index_key = index_key(server)
    _start_watcher(server, service)
    if not server.client_supports_watcher_registration:
        _start_rescans(server, service)
    if reporter is not None:
        def finish() -> None:
            # Ends the progress when the first build is done, failed, was cancelled or the index stopped.
            while not service.wait_ready(0.5):
                if token.should_stop() or server.services.index is not service or _failed(service):
                    break
            server.post(lambda: reporter.end("index ready" if service.ready else "index stopped"))
            server.post(lambda: server.cancels.unregister(None, reporter.token))

        threading.Thread(target=finish, name="sleuth-index-progress", daemon=True).start()


def _misplaced_store(exc: BaseException) -> bool:
    """Whether the index refused its store location (inside a workspace folder)."""
    try:
        from sleuth.engine.index.store import StoreInsideWorkspace
    except Exception:  # the index stack itself failed to import: not a location problem
        return False
    return isinstance(exc, StoreInsideWorkspace)


def _index_failed(server: "SleuthServer", message: str) -> None:
    """The index stopped on an error (index thread): tell the person once, with the cause (a full disk,
    a read-only cache), not only the log; searches keep working by scanning."""
    logger.warning("index failed: %s", message)
    server.post(lambda: server.window_show_message(types.ShowMessageParams(
        type=types.MessageType.Warning,
        message=f"Sleuth: the index failed ({message}); searches scan instead. Run 'Sleuth: Rebuild Index' "
                "once the cause is fixed.")))


def _start_watcher(server: "SleuthServer", service: "IndexService") -> None:
    """Watch the folders for the index (in the background: adding 5,000 watches takes ~0.15 s)."""
    from sleuth.engine.index.watcher import Watcher

    watcher = Watcher(service.workspace, service.options, service)
    service.watcher = watcher
    server.watcher = watcher

    def start() -> None:
        watcher.start()
        if watcher.state == "failed":
            server.post(lambda: server.window_log_message(types.LogMessageParams(
                type=types.MessageType.Warning,
                message=f"Sleuth: cannot watch the folders ({watcher.error}); the index catches up by rescans.")))

    threading.Thread(target=start, name="sleuth-watcher-start", daemon=True).start()


def _failed(service: "IndexService") -> bool:
    try:
        return service.status().get("state") == "error"
    except Exception:
        return True


def _index_progress(server: "SleuthServer") -> WorkDoneReporter | None:
    if not server.client_supports_progress:
        return None
    reporter = WorkDoneReporter(server.post, server.notify, server.new_progress_token(), "Sleuth: indexing",
                                ready=False)
    server.create_progress(reporter)
    return reporter


def _rescan_interval(server: "SleuthServer") -> float:
    value = server.transport_options.get("rescanIntervalSeconds", RESCAN_INTERVAL_S)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 \
        else RESCAN_INTERVAL_S


def _start_rescans(server: "SleuthServer", service: "IndexService") -> None:
    """The client reports no file changes: catch the index up by an incremental rescan, periodically."""
    loop = server.loop
    if loop is None:
        return
    interval = _rescan_interval(server)

    async def rescans() -> None:
        while server.services.index is service:
            await asyncio.sleep(interval)
            if server.services.index is service and service.ready:
                await loop.run_in_executor(None, lambda: service.build(full=False, wait=False))

    server.rescan_task = loop.create_task(rescans())


def stop_index(server: "SleuthServer") -> None:
    task, server.rescan_task = server.rescan_task, None
    if task is not None:
        task.cancel()
    watcher, server.watcher = getattr(server, "watcher", None), None
    if watcher is not None:
        try:
            watcher.stop()
        except Exception:
            logger.exception("watcher stop failed")
    service, server.services.index = server.services.index, None
    if service is not None:
        try:
            service.stop()
        except Exception:
            logger.exception("index stop failed")


def _call(server: "SleuthServer", method: str, *args: Any) -> None:
    """Call ``method`` on the index service; its failure must not break document sync."""
    index = server.services.index
    if index is not None:
        try:
            getattr(index, method)(*args)
        except Exception:
            logger.exception("index %s failed", method)


def on_folders_changed(server: "SleuthServer") -> None:
    stop_index(server)
    start_index(server)


def on_settings_changed(server: "SleuthServer") -> None:
    if not server.settings.index_enabled:
        stop_index(server)
    elif server.services.index is None or index_key(server) != server.index_key:
        stop_index(server)
        start_index(server)


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
            _call(ls, "notify_changed", paths)

    def buffer_changed(path: str, text: str | None) -> None:
        _call(server, "notify_buffer", path, text)

    server.buffers.listeners.append(buffer_changed)
