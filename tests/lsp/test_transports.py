"""``sleuth serve`` over TCP and WebSocket (stdio is what every other test uses)."""

from __future__ import annotations

import asyncio
import pathlib
import re
import socket
import subprocess
import sys
from tests.conftest import SLEUTH  # the installed command, as users start it

import pytest
from harness import connect_socket, make_client, make_tree, server_env, Session
from lsprotocol import types
from pygls.uris import from_fs_path
from tests.conftest import HANG_S


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def connect(client, transport: str, port: int, proc: subprocess.Popen[bytes], token: str) -> None:
    """Retry until the server listens (a probe connection would be the server's one client)."""
    while True:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else "server exited"
        try:
            await connect_socket(client, transport, port, token)
            return
        except OSError:
            await asyncio.sleep(0.05)


@pytest.mark.parametrize("transport", ["tcp", "ws"])
async def test_serve_over_a_socket(transport: str, tmp_path: pathlib.Path) -> None:
    if transport == "ws":
        pytest.importorskip("websockets")
    root = make_tree(tmp_path / "ws", {"a.txt": "needle\n"})
    port = free_port()
    token_file = tmp_path / "private" / "token"
    proc = subprocess.Popen([SLEUTH, "serve", f"--{transport}", f"127.0.0.1:{port}",
                             "--token-file", str(token_file)], env=server_env(), stderr=subprocess.PIPE)
    try:
        box: list[Session] = []
        client = make_client(box)
        box.append(Session(client, "minimal"))
        while not token_file.exists() or not token_file.read_text().strip():  # written before the server listens
            assert proc.poll() is None, "server exited"
            await asyncio.sleep(0.05)
        await connect(client, transport, port, proc, token_file.read_text().strip())
        await asyncio.wait_for(client.initialize_session(types.InitializeParams(
            capabilities=types.ClientCapabilities(), root_uri=from_fs_path(str(root)),
            initialization_options={"cacheDir": str(tmp_path / "cache")})), HANG_S)
        result = await asyncio.wait_for(client.protocol.send_request_async(
            types.WORKSPACE_EXECUTE_COMMAND,
            types.ExecuteCommandParams(command="sleuth.test.echo", arguments=[{}])), HANG_S)
        assert result["folders"] == [str(root.resolve())]
        await asyncio.wait_for(client.shutdown_session(), HANG_S)
        await client.stop()
        assert proc.wait(HANG_S) == 0  # the server exits with its one client
    finally:
        proc.terminate()
        proc.wait(HANG_S)


def _frame(message: dict) -> bytes:
    import json

    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


async def test_server_exits_when_the_client_vanishes_mid_search(tmp_path: pathlib.Path) -> None:
    """stdin closes while a command runs: the work is cancelled and the process ends (no hung worker)."""
    root = make_tree(tmp_path / "ws", {"a.txt": "x\n"})
    proc = await asyncio.create_subprocess_exec(SLEUTH, "serve", env=server_env(),
                                                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": None, "rootUri": from_fs_path(str(root)), "capabilities": {},
        "initializationOptions": {"cacheDir": str(tmp_path / "cache")}}}))
    proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 2, "method": "sleuth/test/endless",
                             "params": {"partialResultToken": "p"}}))
    await proc.stdin.drain()
    seen = b""
    while not re.search(rb'"token":\s*"p"', seen):  # the endless command is streaming: it runs
        chunk = await asyncio.wait_for(proc.stdout.read(4096), HANG_S)
        assert chunk, "server closed its output early"
        seen += chunk
    proc.stdin.close()
    reader = asyncio.ensure_future(proc.stdout.read())  # keep draining so the server never blocks writing
    assert await asyncio.wait_for(proc.wait(), HANG_S) is not None
    await reader
