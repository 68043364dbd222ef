"""Issue 27 item 3: one small message nested 10,000 deep killed the language server.

``json.loads`` raised ``RecursionError`` on a 20 KB request (``arguments`` nesting 10,000 arrays, or a
named argument nesting 10,000 objects), the server did not catch it and exited; every later request
was lost. ``sleuth mcp`` survived the same line (the SDK's parser stops at 200 levels) but never
answered it, so its host waited forever. Now every message is answered or refused
(:mod:`sleuth.core.message_limits`): a message nested deeper than 64 levels is InvalidRequest with its
id, and arguments nested deeper than 32 levels are ``bad_args`` whichever door they came through.
Each test sends the deep message over raw pipes to the installed ``sleuth`` and then a normal
request, and requires both answers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.adversarial.test_protocol_abuse import RawServer, frame, request, started, status_request
from tests.conftest import SLEUTH

DEEP = 10_000


def _arrays(n: int) -> str:
    return "[" * n + "]" * n


def _objects(n: int) -> str:
    return '{"a": ' * n + "1" + "}" * n


def _command(msg_id: int, command: str, arguments: str) -> bytes:
    return ('{"jsonrpc": "2.0", "id": %d, "method": "workspace/executeCommand", "params": {"command": "%s", '
            '"arguments": %s}}' % (msg_id, command, arguments)).encode()


LSP_CASES = {
    "arguments-nest-10000-arrays": _command(40, "sleuth.grep", _arrays(DEEP)),
    "a-named-argument-nests-10000-objects": _command(40, "sleuth.grep", '[{"pattern": %s}]' % _objects(DEEP)),
    "tool-call-arguments-nest-10000-objects": _command(
        40, "sleuth.tools.call", '[{"name": "forge.Search", "arguments": {"pattern": %s}}]' % _objects(DEEP)),
    "the-id-after-the-deep-params": ('{"jsonrpc": "2.0", "method": "sleuth/grep", "params": {"pattern": %s}, '
                                     '"id": 40}' % _arrays(DEEP)).encode(),
    "decodable-but-nested-100-deep": _command(40, "sleuth.grep", '[{"pattern": %s}]' % _arrays(100)),
}


@pytest.fixture
def lsp(tmp_path: Path):
    with started(RawServer, tmp_path) as raw:
        yield raw


@pytest.mark.parametrize("case", sorted(LSP_CASES))
def test_lsp_refuses_a_deep_message_with_its_id_and_answers_the_next(lsp: RawServer, case: str) -> None:
    lsp.send(frame(LSP_CASES[case]) + frame(status_request(41)))
    refused = lsp.response(40)
    assert refused is not None, f"the deep message was never answered; stderr: {lsp.stderr[-2000:]!r}"
    assert refused["error"]["code"] == -32600 and "nests more than 64 levels" in refused["error"]["message"]
    assert (lsp.response(41) or {}).get("result") is not None, "the request behind the deep one was lost"
    assert lsp.proc.poll() is None and b"RecursionError" not in lsp.stderr


@pytest.mark.parametrize("command,arguments", [
    ("sleuth.grep", '[{"pattern": "needle", "include_globs": %s}]' % _arrays(40)),
    ("sleuth.tools.call", '[{"name": "codex.grep_files", "arguments": %s}]' % _objects(40)),
    ("sleuth.tools.call", '[{"name": "kimi.search_files", "arguments": {"query": "x", "extra": %s}}]' % _arrays(40)),
], ids=["grep-glob-list", "codex-arguments", "kimi-extra-argument"])
def test_lsp_refuses_arguments_nested_deeper_than_32_as_bad_args(lsp: RawServer, command: str,
                                                                 arguments: str) -> None:
    """Within the message limit, deep arguments reach the commands: refused before any walk of them."""
    lsp.send(frame(_command(42, command, arguments)))
    answer = lsp.response(42)
    assert answer is not None
    assert answer["error"]["data"]["code"] == "bad_args" and "32 levels" in answer["error"]["message"], answer


def test_lsp_answers_a_body_that_breaks_the_id_scan_with_null(lsp: RawServer) -> None:
    """A deep message without any id is refused with id null, and the stream stays in step."""
    lsp.send(frame(('{"jsonrpc": "2.0", "method": "x", "params": %s}' % _arrays(DEEP)).encode()))
    refused = lsp.wait_for(lambda m: "method" not in m and m.get("id") is None)
    assert refused is not None and refused["error"]["code"] == -32600
    lsp.send(frame(status_request(43)))
    assert (lsp.response(43) or {}).get("result") is not None


# -- the MCP door: one JSON-RPC message a line ----------------------------------------------------

class RawMcp(RawServer):
    """The installed ``sleuth mcp`` with raw pipes: lines in, parsed lines out (a thread reads them)."""

    def argv(self, folder: Path) -> list[str]:
        return [str(SLEUTH), "mcp", "--root", str(folder), "--no-index"]

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.messages.put(json.loads(line))

    def send(self, line: bytes) -> None:
        super().send(line.rstrip(b"\n") + b"\n")

    def initialize(self) -> None:
        self.send(json.dumps(request(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                                       "clientInfo": {"name": "raw", "version": "0"}})).encode())
        assert self.response(1) is not None
        self.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')


@pytest.fixture
def mcp(tmp_path: Path):
    pytest.importorskip("mcp")
    with started(RawMcp, tmp_path) as raw:
        yield raw


def _tool_call(msg_id: int, name: str, arguments: str) -> bytes:
    return ('{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": "%s", "arguments": %s}}'
            % (msg_id, name, arguments)).encode()


MCP_CASES = {
    "arguments-nest-10000-arrays": _tool_call(50, "grep", '{"pattern": %s}' % _arrays(DEEP)),
    "a-named-argument-nests-10000-objects": _tool_call(50, "grep", '{"pattern": %s}' % _objects(DEEP)),
}


@pytest.mark.parametrize("case", sorted(MCP_CASES))
def test_mcp_refuses_a_deep_message_with_its_id_and_answers_the_next(mcp: RawMcp, case: str) -> None:
    mcp.send(MCP_CASES[case])
    mcp.send(b'{"jsonrpc": "2.0", "id": 51, "method": "tools/list"}')
    refused = mcp.response(50)
    assert refused is not None, "the deep line was never answered"
    assert refused["error"]["code"] == -32600 and "nests more than 64 levels" in refused["error"]["message"]
    assert (mcp.response(51) or {}).get("result", {}).get("tools"), "the request behind the deep one was lost"


def test_mcp_answers_a_line_that_is_not_json_and_one_that_is_not_json_rpc(mcp: RawMcp) -> None:
    mcp.send(b'{"jsonrpc": "2.0", "id": 52, "method":')
    assert (mcp.response(None) or {}).get("error", {}).get("code") == -32700
    mcp.send(b'{"id": 53, "method": "tools/list"}')
    assert (mcp.response(53) or {}).get("error", {}).get("code") == -32600
    mcp.send(b'{"jsonrpc": "2.0", "id": 54, "method": "tools/list"}')
    assert (mcp.response(54) or {}).get("result") is not None


def test_mcp_refuses_arguments_nested_deeper_than_32_as_bad_args(mcp: RawMcp) -> None:
    """150 levels pass the SDK's parser (it stops at 200): the commands refuse them, by name."""
    mcp.send(_tool_call(55, "grep", '{"pattern": %s}' % _arrays(150)))
    answer = mcp.response(55)
    assert answer is not None and answer["result"]["isError"]
    assert "32 levels" in answer["result"]["content"][0]["text"]


def test_lsp_reads_past_a_message_over_the_size_limit_and_refuses_it_with_its_id(lsp: RawServer) -> None:
    """Over 64 MiB a message is not decoded (nor held whole): read past in chunks, refused with the id
    found in its first bytes, and the stream stays in step for the request behind it."""
    from sleuth.core.message_limits import MAX_MESSAGE_BYTES

    head = json.dumps(status_request(60)).encode()
    lsp.send(frame(head + b" " * (MAX_MESSAGE_BYTES + 1 - len(head))) + frame(status_request(61)))
    refused = lsp.response(60)
    assert refused is not None and refused["error"]["code"] == -32600 and "at most" in refused["error"]["message"]
    assert (lsp.response(61) or {}).get("result") is not None
