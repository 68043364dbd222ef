"""The tool surface through the real server (pytest-lsp): sleuth.tools.list, sleuth.tools.call
(envelope, tool-level errors as results, unknown tools and malformed calls as JSON-RPC errors),
rate limits configured by the client, and sleuth.metrics counting tool calls."""

from __future__ import annotations

import json
import pathlib

import pytest
from harness import make_tree
from pygls.exceptions import JsonRpcException

TREE = {"src/app.py": "# TODO: validate\nclass Handler:\n    pass\n", "README.md": "Handler docs\n"}


async def test_tools_list_over_lsp(start, tmp_path: pathlib.Path) -> None:
    session = await start([make_tree(tmp_path / "ws", TREE)])
    listed = await session.execute("sleuth.tools.list", {})
    names = [tool["name"] for tool in listed["tools"]]
    assert names == ["forge.search_files", "forge.Search", "codex.grep_files", "kimi.search_files",
                     "acode.search_text", "acode.search_files", "acode.grep", "sleuth.find_symbols"]
    assert all(t["read_only"] and t["risk"] == "low" and not t["requires_approval"] for t in listed["tools"])
    only = await session.execute("sleuth.tools.list", {"profile": "acode"})
    assert [t["tool"] for t in only["tools"]] == ["search_text", "search_files", "grep"]


async def test_tools_call_every_profile_over_lsp(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", TREE)
    session = await start([root])
    forge = await session.execute("sleuth.tools.call", {"name": "forge.rg", "arguments": {"pattern": "Handler"}})
    assert forge["is_error"] is False and json.loads(forge["content"])["count"] == 2
    files = await session.execute("sleuth.tools.call", {"name": "forge.search_files",
                                                        "arguments": {"path": ".", "query": "TODO"}})
    assert json.loads(files["content"])["matches"][0]["path"] == "src/app.py"
    codex = await session.execute("sleuth.tools.call", {"name": "codex.grep_files", "arguments": {"pattern": "Handler"}})
    assert sorted(codex["content"].splitlines()) == [str(root / "README.md"), str(root / "src" / "app.py")]
    kimi = await session.execute("sleuth.tools.call", {"name": "kimi.search_files",
                                                       "arguments": {"query": "Handler", "pattern": "src/*.py"}})
    assert kimi == {"content": "src/app.py:2: class Handler:", "is_error": False}
    grep = await session.execute("sleuth.tools.call", {"name": "acode.grep", "arguments": {"pattern": "TODO"}})
    assert json.loads(grep["content"]) == {"total": 1, "results": [{"path": "src/app.py", "line": 1,
                                                                     "match": "# TODO: validate"}]}


async def test_tool_level_failures_are_results(start, tmp_path: pathlib.Path) -> None:
    session = await start([make_tree(tmp_path / "ws", TREE)])
    bad = await session.execute("sleuth.tools.call", {"name": "forge.Search", "arguments": {"pattern": "(", "x": 1}})
    assert bad["is_error"] is True and json.loads(bad["content"])["error"]["kind"] == "BadArgs"
    outside = await session.execute("sleuth.tools.call", {"name": "acode.grep",
                                                          "arguments": {"pattern": "[", "regex": True}})
    assert outside["is_error"] is True and json.loads(outside["content"])["code"] == "ACODE-SRC-002"


async def test_unknown_tool_and_malformed_call_are_rpc_errors(start, tmp_path: pathlib.Path) -> None:
    session = await start([make_tree(tmp_path / "ws", TREE)])
    with pytest.raises(JsonRpcException) as caught:
        await session.execute("sleuth.tools.call", {"name": "nope.tool", "arguments": {}})
    assert caught.value.data["code"] == "unknown_tool"
    with pytest.raises(JsonRpcException) as caught:
        await session.execute("sleuth.tools.call", {"arguments": {}})
    assert caught.value.code == -32602 and caught.value.data["code"] == "bad_args"


async def test_rate_limit_and_metrics_over_lsp(start, tmp_path: pathlib.Path) -> None:
    session = await start([make_tree(tmp_path / "ws", TREE)], init_options={"rate_limit_per_minute": 2})
    calls = [await session.execute("sleuth.tools.call", {"name": "acode.grep", "arguments": {"pattern": "TODO"}})
             for _ in range(3)]
    assert [c["is_error"] for c in calls] == [False, False, True]
    err = json.loads(calls[2]["content"])
    assert err["code"] == "ACODE-SRC-003" and err["retry_after_seconds"] > 0
    assert calls[1]["rate_limit"]["remaining"] == 0
    metrics = await session.execute("sleuth.metrics", {})
    grep = metrics["by_name"]["acode.grep"]
    assert grep["invocations"] == 3 and grep["rate_limited"] == 1 and "p95" in grep["latency_ms"]


async def test_acode_search_text_over_lsp_once_the_index_is_ready(start, tmp_path: pathlib.Path) -> None:
    import asyncio

    session = await start([make_tree(tmp_path / "ws", {"MyClass.cs": "public class MyClass { }\n"})])
    for _ in range(600):
        status = await session.execute("sleuth.index.status", {})
        if status.get("state") == "ready":
            break
        await asyncio.sleep(0.05)
    envelope = await session.execute("sleuth.tools.call", {"name": "acode.search_text", "arguments": {"query": "MyClass"}})
    out = json.loads(envelope["content"])  # scenario 7 through the server
    assert envelope["is_error"] is False and out["total"] == 1
    assert sorted(out["results"][0]) == ["line", "path", "score", "snippet"] and 0 < out["results"][0]["score"] <= 1
