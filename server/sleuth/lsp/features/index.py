"""The index lifecycle hook (SPEC §7): where the server starts, feeds and stops the index service.

The index itself (:mod:`sleuth.engine.index`) is written separately; this module is the only
place the LSP layer touches it, through a duck-typed service object kept in
``server.services.index`` (commands reach it as ``ctx.services.index``):

* construction ``IndexService(workspace, settings, cache_dir)``, then ``start()`` — after
  ``initialized``, when ``index_enabled`` and there is at least one folder;
* ``on_files_changed([(path, kind)])`` — kind ``created`` | ``changed`` | ``deleted``,
  from ``workspace/didChangeWatchedFiles``;
* ``on_buffer(path, text_or_None)`` — open-buffer edits;
* ``set_workspace(workspace)`` / ``set_settings(settings)`` when those change (restart when absent);
* ``stop()`` — on shutdown or when the index is switched off.

Watchers are registered dynamically (``client/registerCapability``) when the client can;
otherwise the service watches or rescans on its own (``client_watches_files=False``).
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from sleuth.lsp.documents import uri_to_path

if TYPE_CHECKING:
    from sleuth.lsp.server import SleuthServer

__all__ = ["setup", "on_initialized", "start_index", "stop_index", "on_folders_changed", "on_settings_changed",
           "register_watchers", "WATCHER_REGISTRATION_ID"]

logger = logging.getLogger(__name__)
WATCHER_REGISTRATION_ID = "sleuth-watched-files"
_KINDS = {types.FileChangeType.Created: "created", types.FileChangeType.Changed: "changed",
          types.FileChangeType.Deleted: "deleted"}


def _service_class() -> Any:
    """The index service class, or None while the index package does not provide one."""
    for module_name in ("sleuth.engine.index.service", "sleuth.engine.index"):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        cls = getattr(module, "IndexService", None)
        if cls is not None:
            return cls
    return None


def _cache_dir(server: "SleuthServer") -> str | None:
    options = server.transport_options
    return (server.settings.index_path or options.get("cacheDir") or options.get("cache_dir")
            or options.get("storagePath") or options.get("storage_path") or options.get("globalStoragePath"))


def start_index(server: "SleuthServer") -> None:
    """Create and start the index service for the current folders (no-op when disabled or absent)."""
    if server.services.index is not None or not server.settings.index_enabled or not server.sandbox.roots:
        return
    cls = _service_class()
    if cls is None:
        return
    try:
        service = cls(server.sandbox, server.settings, _cache_dir(server))
        if hasattr(service, "client_watches_files"):
            service.client_watches_files = server.client_supports_watcher_registration
        start = getattr(service, "start", None)
        if callable(start):
            start()
    except Exception as exc:  # the server stays useful without its index (grep scans)
        logger.exception("index start failed")
        server.window_log_message(types.LogMessageParams(type=types.MessageType.Warning,
                                                         message=f"Sleuth: the index could not start ({exc}); searches scan instead."))
        return
    server.services.index = service


def stop_index(server: "SleuthServer") -> None:
    service, server.services.index = server.services.index, None
    stop = getattr(service, "stop", None)
    if callable(stop):
        try:
            stop()
        except Exception:
            logger.exception("index stop failed")


def _call(server: "SleuthServer", method: str, *args: Any) -> bool:
    """Call ``method`` on the index service if it has it; False when it does not."""
    fn = getattr(server.services.index, method, None)
    if not callable(fn):
        return False
    try:
        fn(*args)
    except Exception:
        logger.exception("index %s failed", method)
    return True


async def on_initialized(server: "SleuthServer") -> None:
    if server.client_supports_watcher_registration:
        await register_watchers(server)
    start_index(server)


def on_folders_changed(server: "SleuthServer") -> None:
    if server.services.index is not None and not _call(server, "set_workspace", server.sandbox):
        stop_index(server)
    start_index(server)


def on_settings_changed(server: "SleuthServer") -> None:
    if not server.settings.index_enabled:
        stop_index(server)
        return
    if server.services.index is not None:
        _call(server, "set_settings", server.settings)
    else:
        start_index(server)


async def register_watchers(server: "SleuthServer") -> None:
    """Ask the client to report file changes under every folder (dynamic registration)."""
    options = types.DidChangeWatchedFilesRegistrationOptions(watchers=[types.FileSystemWatcher(glob_pattern="**/*")])
    registration = types.Registration(id=WATCHER_REGISTRATION_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                      register_options=options)
    try:
        await server.client_register_capability_async(types.RegistrationParams(registrations=[registration]))
    except Exception as exc:
        logger.warning("client/registerCapability failed: %s", exc)


def setup(server: "SleuthServer") -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: "SleuthServer", params: types.DidChangeWatchedFilesParams) -> None:
        events = [(path, _KINDS.get(change.type, "changed")) for change in params.changes
                  if (path := uri_to_path(change.uri)) is not None]
        ls.watched_events += len(events)
        if events and ls.services.index is not None:
            _call(ls, "on_files_changed", events)

    def buffer_changed(path: str, text: str | None) -> None:
        if server.services.index is not None:
            _call(server, "on_buffer", path, text)

    server.buffers.listeners.append(buffer_changed)
