"""Session lifecycle: initialize, initialized, configuration, workspace folders, shutdown.

* The sandbox comes from ``initialize`` (``workspaceFolders``, else ``rootUri``, else
  ``rootPath``) and follows ``workspace/didChangeWorkspaceFolders``.
* Settings: ``initializationOptions`` at ``initialize``; ``workspace/configuration``
  (section ``sleuth``) pulled after ``initialized`` and again on every
  ``workspace/didChangeConfiguration`` when the client supports the pull model, else the
  pushed ``settings`` of that notification are used.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.uris import to_fs_path

from sleuth.lsp.config import CLIENT_LAYER, INIT_LAYER, split_init_options
from sleuth.lsp.features import index

if TYPE_CHECKING:
    from sleuth.lsp.server import SleuthServer

__all__ = ["setup", "folders_from_initialize", "folders_after_change", "pushed_settings"]

logger = logging.getLogger(__name__)
SECTION = "sleuth"


def folders_from_initialize(params: types.InitializeParams) -> list[tuple[str, str | None]]:
    """(path, name) of each workspace folder the client announced, in its order."""
    if params.workspace_folders:
        found = [(to_fs_path(f.uri), f.name) for f in params.workspace_folders if f.uri.startswith("file:")]
        return [(p, n) for p, n in found if p]
    if params.root_uri and params.root_uri.startswith("file:"):
        path = to_fs_path(params.root_uri)
        return [(path, None)] if path else []
    if params.root_path:
        return [(params.root_path, None)]
    return []


def folders_after_change(folders: list[tuple[str, str | None]],
                         event: types.WorkspaceFoldersChangeEvent) -> list[tuple[str, str | None]]:
    """(path, name) of the folders after ``didChangeWorkspaceFolders``: removed ones dropped, added
    ``file:`` ones appended in the client's order, none twice."""
    removed = {to_fs_path(f.uri) for f in event.removed or []}
    kept = [(p, n) for p, n in folders if p not in removed]
    known = {p for p, _ in kept}
    for folder in event.added or []:
        path = to_fs_path(folder.uri) if folder.uri.startswith("file:") else None
        if path and path not in known:
            kept.append((path, folder.name))
            known.add(path)
    return kept


def pushed_settings(pushed: Any) -> dict[str, Any]:
    """The settings a ``didChangeConfiguration`` notification carries (push model): its ``sleuth``
    section when it has one, else the whole object; anything else is no settings."""
    if isinstance(pushed, dict) and isinstance(pushed.get(SECTION), dict):
        pushed = pushed[SECTION]
    return pushed if isinstance(pushed, dict) else {}


async def pull_configuration(server: "SleuthServer") -> None:
    """Read section ``sleuth`` from the client (pull model); a failure keeps the previous layer."""
    if not server.client_supports_configuration:
        return
    try:
        values = await server.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)]))
    except Exception as exc:  # a client that advertises but fails: keep what we have
        logger.warning("workspace/configuration failed: %s", exc)
        return
    value = values[0] if values else None
    server.session.config.set_layer(CLIENT_LAYER, value if value is not None else {})


def setup(server: "SleuthServer") -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: "SleuthServer", params: types.InitializeParams) -> None:
        init, ls.transport_options = split_init_options(params.initialization_options)
        ls.session.config.set_layer(INIT_LAYER, init)
        ls.session.config.load_user()
        ls.set_folders(folders_from_initialize(params), report=False)  # problems are shown after `initialized`

    @server.feature(types.INITIALIZED)
    async def initialized(ls: "SleuthServer", params: types.InitializedParams) -> None:
        ls.loop = asyncio.get_running_loop()
        index.register_watchers(ls)  # sent before any later answer; the reply is not awaited
        try:
            await pull_configuration(ls)
            ls.session.apply_settings()
            # First the door (the CLI on the same folders asks this server, sleuth.core.warm): the door's
            # holder hosts the folders' engine; a server started after it uses that engine (engine_guest).
            ls.session.open_warm_door()
            index.start_index(ls)  # in the background; commands sent from now on see the service
        finally:
            ls.configured.set()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: "SleuthServer", params: types.DidChangeConfigurationParams) -> None:
        ls.configured.clear()  # commands sent after this notification wait for the new settings
        try:
            if ls.client_supports_configuration:
                await pull_configuration(ls)
            else:
                ls.session.config.set_layer(CLIENT_LAYER, pushed_settings(params.settings))
            ls.session.apply_settings()
        finally:
            ls.configured.set()
        index.refresh_index(ls)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_folders(ls: "SleuthServer", params: types.DidChangeWorkspaceFoldersParams) -> None:
        ls.set_folders(folders_after_change(ls.folders, params.event))
        index.refresh_index(ls)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: "SleuthServer", params: Any) -> None:
        ls.session.close_warm_door()
        ls.cancels.cancel_all()
        ls.session.stop_index()
