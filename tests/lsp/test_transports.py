"""``sleuth serve`` over TCP and WebSocket (stdio is what every other test uses)."""

from __future__ import annotations

import asyncio
import pathlib
import socket
import subprocess
import sys

import pytest
from harness import make_client, make_tree, server_env, Session
from lsprotocol import types
from pygls.uris import from_fs_path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def connect(client, transport: str, port: int, proc: subprocess.Popen[bytes]) -> None:
    """Retry until the server listens (a probe connection would be the server's one client)."""
    while True:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else "server exited"
        try:
            if transport == "tcp":
                await client.start_tcp("127.0.0.1", port)
            else:
                await client.start_ws("127.0.0.1", port)
            return
        except OSError:
            await asyncio.sleep(0.05)


@pytest.mark.parametrize("transport", ["tcp", "ws"])
async def test_serve_over_a_socket(transport: str, tmp_path: pathlib.Path) -> None:
    if transport == "ws":
        pytest.importorskip("websockets")
    root = make_tree(tmp_path / "ws", {"a.txt": "needle\n"})
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "sleuth", "serve", f"--{transport}", f"127.0.0.1:{port}"],
                            env=server_env(), stderr=subprocess.PIPE)
    try:
        box: list[Session] = []
        client = make_client(box)
        box.append(Session(client, "minimal"))
        await connect(client, transport, port, proc)
        await asyncio.wait_for(client.initialize_session(types.InitializeParams(
            capabilities=types.ClientCapabilities(), root_uri=from_fs_path(str(root)),
            initialization_options={"cacheDir": str(tmp_path / "cache")})), 60)
        result = await asyncio.wait_for(client.protocol.send_request_async(
            types.WORKSPACE_EXECUTE_COMMAND,
            types.ExecuteCommandParams(command="sleuth.test.echo", arguments=[{}])), 60)
        assert result["folders"] == [str(root.resolve())]
        await asyncio.wait_for(client.shutdown_session(), 30)
        await client.stop()
        assert proc.wait(30) == 0  # the server exits with its one client
    finally:
        proc.terminate()
        proc.wait(30)
