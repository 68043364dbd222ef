"""Issue 23.7: ``sleuth serve --ws``/``--tcp`` admit only the person.

Old code: any web page's script could open ``ws://127.0.0.1:2087``, send ``initialize`` with
``workspaceFolders: [file:///etc]`` and grep ``/etc/passwd`` (a WebSocket is not bound by the
same-origin rules), and over ``--tcp`` every local user could do the same. Now a connection must
show the token from a file only the person can read, a browser ``Origin`` must be allowed with
``--allow-origin``, a WebSocket ``Host`` must be a loopback name, and the server listens on
loopback unless told otherwise; a refused connection is closed before ``initialize`` is read.
"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import socket
import stat
import subprocess
import sys
from typing import AsyncIterator

import pytest
import pytest_asyncio
from harness import Session, connect_socket, make_client, make_tree, server_env
from lsprotocol import types
from pygls.uris import from_fs_path

from sleuth.lsp.main import parse_address
from tests.conftest import HANG_S, SLEUTH  # SLEUTH: the installed command, as users start it


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Served:
    def __init__(self, proc: subprocess.Popen[bytes], port: int, token: str, token_file: pathlib.Path) -> None:
        self.proc, self.port, self.token, self.token_file = proc, port, token, token_file


async def _listening(proc: subprocess.Popen[bytes], port: int) -> None:
    """Poll until the port accepts (a bare connection is refused by the server and costs it nothing)."""
    while True:
        assert proc.poll() is None, "server exited"
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.05)
            continue
        writer.close()
        return


@pytest_asyncio.fixture
async def serve(tmp_path: pathlib.Path) -> AsyncIterator:
    procs: list[subprocess.Popen[bytes]] = []

    async def _serve(transport: str, *extra: str, address: str | None = None) -> Served:
        port = int(address.rpartition(":")[2]) if address else free_port()
        token_file = tmp_path / "private" / "token"
        proc = subprocess.Popen([SLEUTH, "serve", f"--{transport}",
                                 address or f"127.0.0.1:{port}", "--token-file", str(token_file), *extra],
                                env=server_env(), stderr=subprocess.PIPE)
        procs.append(proc)
        await asyncio.wait_for(_listening(proc, port), HANG_S)
        return Served(proc, port, token_file.read_text().strip(), token_file)

    yield _serve
    for proc in procs:
        proc.terminate()
        proc.wait(HANG_S)


def _frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _initialize(root: pathlib.Path) -> dict:
    return {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": None, "capabilities": {}, "workspaceFolders": [{"uri": from_fs_path(str(root)), "name": "x"}]}}


async def _tcp_exchange(port: int, first: bytes) -> bytes:
    """Send ``first`` and read what comes back until the server closes the connection (bounded)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(first)
    await writer.drain()
    seen = await asyncio.wait_for(reader.read(), HANG_S)
    writer.close()
    return seen


async def _end_to_end(transport: str, served: Served, root: pathlib.Path, **headers: str) -> None:
    """The person's client, with the token: initialize, grep, shutdown."""
    box: list[Session] = []
    client = make_client(box)
    box.append(Session(client, "minimal"))
    await connect_socket(client, transport, served.port, served.token, headers or None)
    await asyncio.wait_for(client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=from_fs_path(str(root)),
        initialization_options={"cacheDir": str(root.parent / "cache")})), HANG_S)
    result = await asyncio.wait_for(client.protocol.send_request_async(
        types.WORKSPACE_EXECUTE_COMMAND,
        types.ExecuteCommandParams(command="sleuth.grep", arguments=[{"pattern": "needle"}])), HANG_S)
    assert [m["path"] for m in result["matches"]] == ["a.txt"]
    await asyncio.wait_for(client.shutdown_session(), HANG_S)
    await client.stop()
    assert served.proc.wait(HANG_S) == 0


# -- TCP -----------------------------------------------------------------------------------------

async def test_tcp_client_without_the_secret_is_closed_before_initialize(serve, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {"a.txt": "needle\n"})
    served = await serve("tcp")
    assert await _tcp_exchange(served.port, _frame(_initialize(pathlib.Path("/etc")))) == b""
    wrong = b"Sleuth-Token: " + b"x" * 43 + b"\r\n" + _frame(_initialize(pathlib.Path("/etc")))
    assert await _tcp_exchange(served.port, wrong) == b""
    assert served.proc.poll() is None  # still listening for the person
    await _end_to_end("tcp", served, root)


async def test_tcp_token_may_share_the_first_messages_header_block(serve, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {"a.txt": "needle\n"})
    served = await serve("tcp")
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    writer.write(f"Sleuth-Token: {served.token}\r\n".encode() + _frame(_initialize(root)))
    await writer.drain()
    header = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HANG_S)
    body = await asyncio.wait_for(reader.readexactly(int(header.split(b":")[1].split(b"\r")[0])), HANG_S)
    assert json.loads(body)["id"] == 1 and "capabilities" in json.loads(body)["result"]
    writer.close()


# -- WebSocket -----------------------------------------------------------------------------------

async def _ws_refusal(port: int, headers: dict[str, str], path: str = "") -> int:
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus

    with pytest.raises(InvalidStatus) as caught:
        await connect(f"ws://127.0.0.1:{port}{path}", additional_headers=headers)
    return caught.value.response.status_code


async def _raw_handshake_status(port: int, host: str, token: str) -> int:
    """A hand-written upgrade request (a page on evil.example that resolves to 127.0.0.1 sends its Host)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET / HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 f"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                 f"Authorization: Bearer {token}\r\n\r\n".encode())
    await writer.drain()
    status = await asyncio.wait_for(reader.readline(), HANG_S)
    writer.close()
    return int(status.split()[1])


async def test_ws_refuses_a_foreign_origin_and_a_client_without_the_secret(serve, tmp_path: pathlib.Path) -> None:
    pytest.importorskip("websockets")
    root = make_tree(tmp_path / "ws", {"a.txt": "needle\n"})
    served = await serve("ws")
    bearer = {"Authorization": f"Bearer {served.token}"}
    assert await _ws_refusal(served.port, {**bearer, "Origin": "https://evil.example"}) == 403
    assert await _ws_refusal(served.port, {"Origin": "https://evil.example"}, f"?token={served.token}") == 403
    assert await _ws_refusal(served.port, {}) == 401
    assert await _ws_refusal(served.port, {"Authorization": "Bearer wrong-token-wrong-token"}) == 401
    assert await _raw_handshake_status(served.port, "evil.example", served.token) == 421  # DNS rebinding
    assert served.proc.poll() is None
    await _end_to_end("ws", served, root)


async def test_ws_admits_an_allowed_origin_with_the_secret(serve, tmp_path: pathlib.Path) -> None:
    pytest.importorskip("websockets")
    root = make_tree(tmp_path / "ws", {"a.txt": "needle\n"})
    served = await serve("ws", "--allow-origin", "https://editor.example", "--allow-origin", "vscode-file://x")
    assert await _ws_refusal(served.port, {"Origin": "https://other.example",
                                           "Authorization": f"Bearer {served.token}"}) == 403
    await _end_to_end("ws", served, root, Origin="https://Editor.example")


# -- loopback and the token file -----------------------------------------------------------------

def test_addresses_default_to_loopback() -> None:
    assert parse_address("2087") == ("127.0.0.1", 2087)
    assert parse_address(":2087") == ("127.0.0.1", 2087)


async def test_the_server_listens_on_loopback_only_and_the_token_is_private(serve) -> None:
    port = free_port()
    served = await serve("tcp", address=str(port))
    with socket.socket() as probe:
        probe.settimeout(5)
        probe.connect(("127.0.0.1", port))
        assert probe.getpeername()[0] == "127.0.0.1"
    listening = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True)
    if listening.returncode == 0 and listening.stdout.strip():
        assert all(line.split()[3].startswith("127.0.0.1:") for line in listening.stdout.strip().splitlines())
    assert stat.S_IMODE(served.token_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(served.token_file.parent.stat().st_mode) == 0o700
    assert len(served.token) >= 32


def test_a_token_file_others_can_read_is_refused(tmp_path: pathlib.Path) -> None:
    token = tmp_path / "token"
    token.write_text("a" * 40 + "\n")
    os.chmod(token, 0o644)
    proc = subprocess.run([SLEUTH, "serve", "--tcp", f"127.0.0.1:{free_port()}",
                           "--token-file", str(token)], env=server_env(), capture_output=True, text=True, timeout=HANG_S)
    assert proc.returncode == 2 and "chmod 600" in proc.stderr
