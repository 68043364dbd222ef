"""``sleuth mcp`` end to end: the official SDK's client against the real process, in both protocol eras.

``legacy`` negotiates 2025-11-25 (initialize handshake, ``roots/list`` as a server-to-client
request); ``auto`` negotiates 2026-07-28 against the SDK 2.x server (stateless, roots through an
input-required round trip). Every test that involves the protocol runs in both.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import pathlib
import socket
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

import pytest

mcp = pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters  # noqa: E402
from mcp_types import ListRootsResult, Root  # noqa: E402

from sleuth.commands.args import json_schema  # noqa: E402
from sleuth.commands.grep import GREP_ARGS  # noqa: E402
from sleuth.commands.config import Settings  # noqa: E402
from sleuth.engine.platform import warm_door  # noqa: E402
from tests.conftest import SLEUTH, run_sleuth, write_tree  # noqa: E402
from tests.fixtures import with_test_commands  # noqa: E402

MODES = ("legacy", "auto")
PLUMBING = "tests.lsp.plumbing_commands"
SLEUTH_MCP = [SLEUTH, "mcp"]  # as hosts start it (README: `claude mcp add sleuth -- sleuth mcp`)


def _env(tmp: pathlib.Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "XDG_CACHE_HOME": str(tmp / "cache"), **extra}


@asynccontextmanager
async def connect(tmp: pathlib.Path, mode: str, roots: list[pathlib.Path] | None, *args: str,
                  env: dict[str, str] | None = None, cwd: pathlib.Path | None = None) -> AsyncIterator[Any]:
    """A client on a fresh ``sleuth mcp``; ``roots`` is a live list the test may change (None: no roots)."""
    callback = None
    if roots is not None:
        async def callback(ctx: Any) -> ListRootsResult:
            return ListRootsResult(roots=[Root(uri=p.resolve().as_uri(), name=p.name) for p in roots])
    params = StdioServerParameters(command=SLEUTH_MCP[0], args=[*SLEUTH_MCP[1:], *args], cwd=str(cwd or tmp),
                                   env=env or _env(tmp))
    async with Client(params, mode=mode, list_roots_callback=callback, read_timeout_seconds=60) as client:
        yield client


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


@pytest.mark.parametrize("mode", MODES)
async def test_tools_list_schemas_and_annotations(tmp_path: pathlib.Path, mode: str) -> None:
    ws = write_tree(tmp_path / "ws", {"a.txt": "x\n"})
    async with connect(tmp_path, mode, [ws], "--profile", "codex") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert {"grep", "find_files", "search_text", "codex_grep_files"} <= set(tools)
    grep = tools["grep"]
    assert grep.annotations.read_only_hint is True and grep.title and "path:line" in grep.description
    expected = json_schema(GREP_ARGS, Settings())
    assert {k: v for k, v in grep.input_schema["properties"].items() if k != "offset"} == expected["properties"]
    assert grep.input_schema["required"] == ["pattern"] and grep.input_schema["additionalProperties"] is False
    assert grep.input_schema["properties"]["offset"]["type"] == "integer"
    for name in ("grep", "find_files", "search_text"):
        schema = tools[name].output_schema
        assert schema["type"] == "object" and {"offset", "next_offset", "truncated"} <= set(schema["properties"])
    assert tools["codex_grep_files"].annotations.read_only_hint is True


@pytest.mark.parametrize("mode", MODES)
async def test_results_equal_the_cli_and_roots_are_the_sandbox(tmp_path: pathlib.Path, mode: str) -> None:
    ws = write_tree(tmp_path / "ws", {"a.txt": "alpha\nneedle one\n", "src/b.py": "def needle():\n    pass\n",
                                      ".ignore": "ignored/\n", "ignored/c.txt": "needle hidden\n"})
    other = write_tree(tmp_path / "other", {"z.txt": "needle elsewhere\n"})
    roots = [ws]
    async with connect(tmp_path, mode, roots) as client:
        result = await client.call_tool("grep", {"pattern": "needle"})
        assert not result.is_error
        cli = json.loads(run_sleuth(ws, "grep", "--result-json", "needle", cache=tmp_path / "cache").stdout)
        assert result.structured_content["matches"] == cli["matches"]
        assert _text(result).splitlines()[:2] == ["a.txt:2: needle one", "src/b.py:1: def needle():"]
        escape = await client.call_tool("grep", {"pattern": "needle", "path": str(other)})
        assert escape.is_error and "sandbox_violation" in _text(escape) and str(ws.resolve()) in _text(escape)
        roots[:] = [other]  # the host changes its roots and says so
        await client.send_roots_list_changed()
        moved = await client.call_tool("grep", {"pattern": "needle"})
        assert [m["path"] for m in moved.structured_content["matches"]] == ["z.txt"]


@pytest.mark.parametrize("mode", MODES)
async def test_find_symbols_by_name_kind_and_path(tmp_path: pathlib.Path, mode: str) -> None:
    ws = write_tree(tmp_path / "ws", {"src/users.py": "class UserService:\n    def get_user(self):\n        pass\n",
                                      "lib/users.py": "def get_user():\n    pass\n"})
    async with connect(tmp_path, mode, [ws]) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert tools["find_symbols"].annotations.read_only_hint is True
        assert {"query", "kind", "include_path", "offset"} <= set(tools["find_symbols"].input_schema["properties"])
        found = await client.call_tool("find_symbols", {"query": "get_user"})
        assert _text(found).splitlines()[:2] == ["lib/users.py:1: function get_user",
                                                 "src/users.py:2: method get_user in UserService"]
        methods = await client.call_tool("find_symbols", {"query": "get_user", "kind": "method"})
        assert [r["path"] for r in methods.structured_content["results"]] == ["src/users.py"]
        scoped = await client.call_tool("find_symbols", {"query": "getuser", "include_path": "lib"})
        assert [r["path"] for r in scoped.structured_content["results"]] == ["lib/users.py"]


@pytest.mark.parametrize("mode", MODES)
async def test_bad_arguments_are_tool_errors_a_model_can_read(tmp_path: pathlib.Path, mode: str) -> None:
    ws = write_tree(tmp_path / "ws", {"a.txt": "x\n"})
    async with connect(tmp_path, mode, [ws]) as client:
        regex = await client.call_tool("grep", {"pattern": "foo(bar"})
        assert regex.is_error and "bad_args" in _text(regex) and "position 3" in _text(regex)
        typo = await client.call_tool("grep", {"pattern": "x", "max_result": 3})
        assert typo.is_error and "'max_result'" in _text(typo)
        offset = await client.call_tool("grep", {"pattern": "x", "offset": -1})
        assert offset.is_error and "offset" in _text(offset)
        missing = await client.call_tool("find_files", {"patterns": "*.txt", "path": "nope"})
        assert missing.is_error and "not_found" in _text(missing)


@pytest.mark.parametrize("mode", MODES)
async def test_output_budget_and_paging_are_continuous(tmp_path: pathlib.Path, mode: str) -> None:
    lines = "".join(f"needle line {i:04d} " + "x" * 60 + "\n" for i in range(400))
    ws = write_tree(tmp_path / "ws", {"big.txt": lines, "small.txt": "needle\n"})
    async with connect(tmp_path, mode, [ws], "--max-output-tokens", "2000") as client:
        pages: list[dict[str, Any]] = []
        offset: int | None = 0
        while offset is not None:
            result = await client.call_tool("grep", {"pattern": "needle", "offset": offset, "max_results": 1000})
            assert not result.is_error
            page = result.structured_content
            assert page["offset"] == offset
            assert len(_text(result).encode()) <= 2000 * 3 and len(json.dumps(page).encode()) <= 2000 * 3
            if page["next_offset"] is not None:
                assert page["truncated"] and page["truncated_reason"] == "output_budget"
                assert f"offset={page['next_offset']}" in _text(result)
            pages.append(page)
            offset = page["next_offset"]
    assert len(pages) > 2
    joined = [m for page in pages for m in page["matches"]]
    cli = json.loads(run_sleuth(ws, "grep", "--result-json", "needle", cache=tmp_path / "cache").stdout)
    assert joined == cli["matches"]  # every match once, in order, across the pages


@pytest.mark.parametrize("mode", MODES)
async def test_root_flag_without_client_roots(tmp_path: pathlib.Path, mode: str) -> None:
    ws = write_tree(tmp_path / "ws", {"a.txt": "needle\n"})
    cwd = write_tree(tmp_path / "cwd", {"c.txt": "needle in cwd\n"})
    async with connect(tmp_path, mode, None, "--root", str(ws), cwd=cwd) as client:
        result = await client.call_tool("grep", {"pattern": "needle"})
        assert [m["path"] for m in result.structured_content["matches"]] == ["a.txt"]
    async with connect(tmp_path, mode, None, cwd=cwd) as client:  # last resort: the current directory
        result = await client.call_tool("grep", {"pattern": "needle"})
        assert [m["path"] for m in result.structured_content["matches"]] == ["c.txt"]


@pytest.mark.parametrize("mode", MODES)
async def test_progress_and_cancellation_stop_the_work(tmp_path: pathlib.Path, mode: str) -> None:
    """The plumbing command runs until cancelled; after the client cancels, no worker runs and its step
    counter stays put (the same proof as tests/lsp/test_cancel.py)."""
    ws = write_tree(tmp_path / "ws", {"a.txt": "x\n"})
    env = with_test_commands(_env(tmp_path), PLUMBING)
    progressed = asyncio.Event()
    reports: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reports.append(progress)
        progressed.set()

    async with connect(tmp_path, mode, [ws], env=env) as client:
        call = asyncio.ensure_future(client.call_tool("sleuth_test_endless", {}, progress_callback=on_progress))
        await asyncio.wait_for(progressed.wait(), 60)
        assert reports[0] >= 1
        call.cancel()
        with pytest.raises(BaseException):
            await call
        for _ in range(2000):  # bounded poll, no timing assumption
            state = (await client.call_tool("debug_workers", {})).structured_content
            if state["running"] == 0:
                break
        assert state["running"] == 0 and state["cancelled"] >= 1
        before = (await client.call_tool("sleuth_test_counter", {})).structured_content
        for _ in range(5):
            await client.call_tool("debug_workers", {})
        after = (await client.call_tool("sleuth_test_counter", {})).structured_content
        assert before["running"] == 0 and after["steps"] == before["steps"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _post(port: int, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("POST", "/mcp", json.dumps(body), headers)
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        connection.close()


def test_http_refuses_a_foreign_origin_and_a_missing_token(tmp_path: pathlib.Path) -> None:
    ws = write_tree(tmp_path / "ws", {"a.txt": "x\n"})
    port, token_file = _free_port(), tmp_path / "secret" / "token"
    process = subprocess.Popen([*SLEUTH_MCP, "--http", f"127.0.0.1:{port}", "--token-file", str(token_file),
                                "--root", str(ws)], env=_env(tmp_path), stderr=subprocess.DEVNULL)
    try:
        body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "t", "version": "1"}}}
        headers = {"accept": "application/json, text/event-stream", "content-type": "application/json",
                   "host": f"127.0.0.1:{port}"}
        for _ in range(1200):  # wait for the listener (bounded)
            try:
                missing = _post(port, body, headers)
                break
            except ConnectionRefusedError:
                assert process.poll() is None
                time.sleep(0.05)
        assert missing[0] == 401
        assert oct(token_file.stat().st_mode & 0o777) == "0o600"
        token = token_file.read_text().strip()
        auth = {**headers, "authorization": f"Bearer {token}"}
        assert _post(port, body, {**headers, "authorization": "Bearer wrong"})[0] == 401
        assert _post(port, body, {**auth, "origin": "http://evil.example"})[0] in (400, 403, 421)
        assert _post(port, body, {**auth, "host": "evil.example"})[0] in (400, 403, 421)
        status, text = _post(port, body, {**auth, "origin": f"http://127.0.0.1:{port}"})
        assert status == 200 and "serverInfo" in text
    finally:
        process.terminate()
        process.wait(30)


def test_http_listens_on_loopback_only(tmp_path: pathlib.Path) -> None:
    done = subprocess.run([*SLEUTH_MCP, "--http", "0.0.0.0:8765"], env=_env(tmp_path), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and "loopback" in done.stderr


@pytest.mark.parametrize("mode", MODES)
async def test_a_repository_config_cannot_make_the_mcp_server_write_a_file(tmp_path: pathlib.Path, mode: str) -> None:
    """The roots' .agent/config.yml is the repository's: it may not name a log file (a path to write)."""
    target = tmp_path / "planted.log"
    ws = write_tree(tmp_path / "ws", {"a.txt": "needle\n", ".agent/config.yml": f"log_file: {target}\n"})
    async with connect(tmp_path, mode, [ws]) as client:
        result = await client.call_tool("grep", {"pattern": "needle"})
        assert not result.is_error
    assert not target.exists()


def test_a_refused_repository_setting_is_said_once_on_the_mcp_servers_stderr(tmp_path: pathlib.Path) -> None:
    """The MCP door reports settings problems as the others do (the session's problem hook; before, it
    dropped them): a key the repository may not set is named once on stderr, with where to set it."""
    from tests.adversarial.mcp_sync import McpProcess

    ws = write_tree(tmp_path / "ws", {"a.txt": "needle\n",
                                      ".agent/config.yml": f"sleuth:\n  log_file: {tmp_path / 'x.log'}\n"})
    for mode in MODES:
        process = McpProcess([ws], tmp_path, mode=mode)
        try:
            assert not process.call("grep", {"pattern": "needle"}).is_error
            assert not process.call("grep", {"pattern": "needle"}).is_error
            said = [line for line in process.stderr().splitlines() if "log_file" in line]
        finally:
            process.close()
        assert len(said) == 1 and "config.yml" in said[0], said


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("signum", ["SIGINT", "SIGTERM"])
def test_a_stdio_server_stops_on_sigint_and_sigterm_and_removes_its_warm_socket(
        tmp_path: pathlib.Path, signum: str) -> None:
    """A host stops its server with signals while stdin is still open (Claude Code 2.1: SIGINT, then
    SIGTERM 100 ms later). Before, SIGINT did nothing until the host's next line (the SDK's stdin
    read cannot be cancelled) and SIGTERM killed the process without closing the session, leaving
    the warm socket file behind."""
    import signal

    ws = write_tree(tmp_path / "ws", {"a.txt": "needle\n"})
    run_dir = tmp_path / "run"
    run_dir.mkdir(mode=0o700)
    process = subprocess.Popen([*SLEUTH_MCP, "--root", str(ws)], cwd=ws, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=_env(tmp_path, XDG_RUNTIME_DIR=str(run_dir)))
    assert process.stdin is not None and process.stdout is not None
    try:
        def ask(message: dict[str, Any]) -> dict[str, Any]:
            process.stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
            process.stdin.flush()
            return json.loads(process.stdout.readline()) if "id" in message else {}

        ask({"id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                                         "clientInfo": {"name": "test", "version": "0"}}})
        ask({"method": "notifications/initialized"})
        answer = ask({"id": 1, "method": "tools/call", "params": {"name": "grep", "arguments": {"pattern": "needle"}}})
        assert answer["result"]["isError"] is False
        door = "sleuth/*.sock" if warm_door() == "unix" else "sleuth/*.tcp"  # the loopback door's token file
        deadline = time.monotonic() + 60  # the warm door opens beside the first call: poll with a bound
        while not list(run_dir.glob(door)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert list(run_dir.glob(door)), "the warm door opened once the roots were known"
        process.send_signal(getattr(signal, signum))
        try:
            code = process.wait(timeout=60)  # a bound, not a speed claim: before the fix it waited for stdin
        except subprocess.TimeoutExpired:
            code = None
        assert code == 128 + getattr(signal, signum), f"exit status {code} after {signum}"
        assert not list(run_dir.glob(door)), "the session was closed: no warm door file left"
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        process.stdin.close()
        process.stdout.close()
        assert process.stderr is not None
        process.stderr.close()
