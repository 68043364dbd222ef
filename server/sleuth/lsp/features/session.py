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
from sleuth.lsp.features.base import Feature

if TYPE_CHECKING:
    from sleuth.lsp.features.index import IndexFeature
    from sleuth.lsp.server import SleuthServer

__all__ = ["SessionFeature", "folders_from_initialize", "folders_after_change", "pushed_settings"]

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


class SessionFeature(Feature):
    """The session's lifecycle over LSP. Owns ``folders``: (path, name) of the workspace folders in the
    client's order, as it names them; the transport's own ``initializationOptions`` go to the index feature."""

    def __init__(self, server: "SleuthServer", index: "IndexFeature") -> None:
        super().__init__(server)
        self.index = index
        self.folders: list[tuple[str, str | None]] = []

    def register(self) -> None:
        self.on(types.INITIALIZE, self.initialize)
        self.on(types.INITIALIZED, self.initialized)
        self.on(types.WORKSPACE_DID_CHANGE_CONFIGURATION, self.did_change_configuration)
        self.on(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS, self.did_change_folders)
        self.on(types.SHUTDOWN, self.shutdown)

    def set_folders(self, folders: list[tuple[str, str | None]], report: bool = True) -> None:
        """Replace the sandbox (invocations already running keep theirs) and re-read the settings."""
        self.folders = folders
        self.server.session.set_roots([p for p, _ in folders], [n or "" for _, n in folders], report=report)

    def initialize(self, params: types.InitializeParams) -> None:
        session = self.server.session
        init, self.index.options = split_init_options(params.initialization_options)
        session.config.set_layer(INIT_LAYER, init)
        session.config.load_user()
        self.set_folders(folders_from_initialize(params), report=False)  # problems are shown after `initialized`

    async def initialized(self, params: types.InitializedParams) -> None:
        ls = self.server
        ls.loop = asyncio.get_running_loop()
        self.index.register_watchers()  # sent before any later answer; the reply is not awaited
        try:
            await pull_configuration(ls)
            ls.session.apply_settings()
            # First the door (the CLI on the same folders asks this server, sleuth.core.warm): the door's
            # holder hosts the folders' engine; a server started after it uses that engine (engine_guest).
            ls.session.open_warm_door()
            self.index.start()  # in the background; commands sent from now on see the service
        finally:
            ls.configured.set()

    async def did_change_configuration(self, params: types.DidChangeConfigurationParams) -> None:
        ls = self.server
        ls.configured.clear()  # commands sent after this notification wait for the new settings
        try:
            if ls.client_supports_configuration:
                await pull_configuration(ls)
            else:
                ls.session.config.set_layer(CLIENT_LAYER, pushed_settings(params.settings))
            ls.session.apply_settings()
        finally:
            ls.configured.set()
        self.index.refresh()

    def did_change_folders(self, params: types.DidChangeWorkspaceFoldersParams) -> None:
        self.set_folders(folders_after_change(self.folders, params.event))
        self.index.refresh()

    def shutdown(self, params: Any) -> None:
        ls = self.server
        ls.session.close_warm_door()
        ls.cancels.cancel_all()
        ls.session.stop_index()
