"""pytest-lsp harness: the real ``sleuth serve`` process (the installed command) over stdio, two client profiles.

``vscode``: the capabilities VS Code sends (work-done progress, ``workspace/configuration``,
dynamic registration of watched files, workspace folders); ``minimal``: none at all. The
client records every ``$/progress`` value raw (pytest-lsp's default handler rejects partial
results), answers ``window/workDoneProgress/create`` and ``client/registerCapability``, and
serves ``workspace/configuration`` from ``Session.configuration``.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import pathlib
import sys
from typing import Any, AsyncIterator

import pytest
import pytest_asyncio
import pytest_lsp
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, LanguageClient, register_lsp_features
from sleuth.lsp.server import converter_factory as default_converter
from tests.conftest import HANG_S, SLEUTH  # SLEUTH: the installed command, as users start it
from tests.fixtures import with_test_commands

HERE = pathlib.Path(__file__).parent
PROFILES = ("vscode", "minimal")


def capabilities(profile: str) -> types.ClientCapabilities:
    if profile == "vscode":
        return pytest_lsp.client_capabilities("visual-studio-code")
    if profile == "neovim":  # opted into by the tests that name it (e.g. workspace/symbol)
        return pytest_lsp.client_capabilities("neovim")
    return types.ClientCapabilities()


class Session:
    """One client connected to one server process, with helpers for Sleuth's surface."""

    def __init__(self, client: LanguageClient, profile: str) -> None:
        self.client = client
        self.profile = profile
        self.progress: dict[Any, list[Any]] = {}
        self.created_tokens: list[Any] = []
        self.registrations: list[types.Registration] = []
        self.configuration: dict[str, Any] | None = None
        self.configuration_requests = 0
        self._ids = itertools.count(1000)
        self._waiters: list[tuple[Any, asyncio.Future[None]]] = []

    # -- client-side handlers ---------------------------------------------------------------
    def on_progress(self, params: types.ProgressParams) -> None:
        self.progress.setdefault(params.token, []).append(params.value)
        for token, waiter in list(self._waiters):
            if token == params.token and not waiter.done():
                waiter.set_result(None)

    async def first_progress(self, token: Any) -> None:
        if self.progress.get(token):
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((token, waiter))
        await asyncio.wait_for(waiter, HANG_S)

    # -- requests ---------------------------------------------------------------------------
    @property
    def vscode(self) -> bool:
        return self.profile == "vscode"

    def next_id(self) -> int:
        return next(self._ids)

    def send(self, method: str, params: Any, msg_id: Any = None) -> "asyncio.Future[Any]":
        """Send now; the returned future resolves with the response."""
        return asyncio.ensure_future(self.client.protocol.send_request_async(method, params, msg_id=msg_id))

    async def request(self, method: str, params: Any) -> Any:
        return await asyncio.wait_for(self.send(method, params), 120)

    async def execute(self, command: str, args: dict[str, Any] | None = None, msg_id: Any = None,
                      work_done_token: Any = None) -> Any:
        params = types.ExecuteCommandParams(command=command, arguments=[args or {}], work_done_token=work_done_token)
        return await asyncio.wait_for(self.send(types.WORKSPACE_EXECUTE_COMMAND, params, msg_id), 120)

    def cancel(self, msg_id: Any) -> None:
        self.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))

    async def workers(self) -> dict[str, Any]:
        return await self.request("sleuth/debug/workers", {})

    async def until_idle(self) -> dict[str, Any]:
        """Poll the server until no command worker runs (bounded by the test timeout)."""
        while True:
            state = await self.workers()
            if state["running"] == 0:
                return state
            await asyncio.sleep(0.02)

    async def eventually(self, predicate: Any, timeout: float = HANG_S) -> None:
        """Poll ``predicate()`` (with a server round trip between polls) until it holds."""
        async def poll() -> None:
            while not predicate():
                await self.workers()
                await asyncio.sleep(0.02)

        await asyncio.wait_for(poll(), timeout)

    def open(self, path: pathlib.Path, text: str, version: int = 1) -> str:
        uri = from_fs_path(str(path))
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="plaintext", version=version, text=text)))
        return uri


def make_client(session_box: list[Session]) -> LanguageClient:
    client = LanguageClient(converter_factory=default_converter)
    features = {k: v for k, v in DEFAULT_CLIENT_FEATURES.items()
                if k not in (types.PROGRESS, types.WORKSPACE_CONFIGURATION, types.WINDOW_WORK_DONE_PROGRESS_CREATE)}
    register_lsp_features(client, features)

    @client.feature(types.PROGRESS)
    def progress(params: types.ProgressParams) -> None:
        session_box[0].on_progress(params)

    @client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
    def create(params: types.WorkDoneProgressCreateParams) -> None:
        session_box[0].created_tokens.append(params.token)

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        session_box[0].registrations.extend(params.registrations)

    @client.feature(types.WORKSPACE_CONFIGURATION)
    def configuration(params: types.ConfigurationParams) -> list[Any]:
        session = session_box[0]
        session.configuration_requests += 1
        return [session.configuration for _ in params.items]

    return client


def server_env() -> dict[str, str]:
    return with_test_commands(os.environ, "tests.lsp.plumbing_commands")


async def start_session(profile: str, folders: list[pathlib.Path], *, init_options: Any = None,
                        configuration: dict[str, Any] | None = None, mode: str | None = None,
                        names: list[str] | None = None) -> Session:
    """``mode``: ``folders`` (workspaceFolders; the vscode default), ``root_uri`` (the minimal
    default) or ``root_path`` (only the deprecated rootPath); ``names``: the folders' names (their
    base names by default)."""
    box: list[Session] = []
    client = make_client(box)
    session = Session(client, profile)
    session.configuration = configuration
    box.append(session)
    await client.start_io(SLEUTH, "serve", env=server_env())
    caps = capabilities(profile)
    mode = mode or ("folders" if profile == "vscode" else "root_uri")
    if mode == "root_uri":
        params = types.InitializeParams(capabilities=caps, root_uri=from_fs_path(str(folders[0])) if folders else None,
                                        initialization_options=init_options)
    elif mode == "root_path":
        params = types.InitializeParams(capabilities=caps, root_path=str(folders[0]), initialization_options=init_options)
    else:
        params = types.InitializeParams(
            capabilities=caps, initialization_options=init_options,
            workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(str(f)), name=names[i] if names else f.name)
                               for i, f in enumerate(folders)])
    session.initialize_result = await client.initialize_session(params)
    return session


@pytest.fixture(params=PROFILES)
def profile(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest_asyncio.fixture
async def sessions() -> AsyncIterator[list[Session]]:
    """Started sessions are shut down at the end of the test."""
    started: list[Session] = []
    yield started
    for session in started:
        try:
            await asyncio.wait_for(session.client.shutdown_session(), HANG_S)
        except Exception:
            pass
        await session.client.stop()


@pytest.fixture
def start(sessions: list[Session], profile: str, tmp_path: pathlib.Path):
    """Start a server on ``folders``; its index store goes to a temporary cache directory."""

    async def _start(folders: list[pathlib.Path], **kwargs: Any) -> Session:
        options = kwargs.get("init_options")
        if options is None or (isinstance(options, dict) and "cacheDir" not in options):
            kwargs["init_options"] = {**(options or {}), "cacheDir": str(tmp_path / "sleuth-cache")}
        session = await start_session(kwargs.pop("profile", profile), folders, **kwargs)
        sessions.append(session)
        return session

    return _start


def make_tree(root: pathlib.Path, files: dict[str, str]) -> pathlib.Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


async def connect_socket(client: LanguageClient, transport: str, port: int, token: str | None,
                         headers: dict[str, str] | None = None) -> None:
    """``client.start_tcp``/``start_ws`` with the server's secret: TCP sends a ``Sleuth-Token``
    header block before the first message, WebSocket an ``Authorization: Bearer`` header (plus ``headers``)."""
    from pygls.io_ import run_async, run_websocket

    if transport == "tcp":
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        if token is not None:
            writer.write(f"Sleuth-Token: {token}\r\n\r\n".encode())
        client.protocol.set_writer(writer)
        task = run_async(stop_event=client._stop_event, reader=reader, protocol=client.protocol)
    else:
        from websockets.asyncio.client import connect

        extra = dict(headers or {})
        if token is not None:
            extra["Authorization"] = f"Bearer {token}"
        websocket = await connect(f"ws://127.0.0.1:{port}", additional_headers=extra)
        task = run_websocket(stop_event=client._stop_event, websocket=websocket, protocol=client.protocol)
    client._async_tasks.append(asyncio.create_task(task))
    await asyncio.sleep(0)
