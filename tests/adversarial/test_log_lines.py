"""Issue 23.4: log lines cannot carry commands; issue 22.7: a huge query does not freeze the server.

Old code: ``sleuth.grep query="hello; $(touch /tmp/pwned)" -> 0 results in 52 ms`` — appended to a
shell start-up file (the repository could choose the log file), the next shell ran the command;
and the query was redacted whole before it was cut to 120 characters (a 50 MB pattern held the
event loop for ~25 s, and every request behind it waited). Now the query is a JSON string literal
with ``$`` and backticks escaped, and only a bounded slice of it is ever redacted.
"""

from __future__ import annotations

import asyncio
import json
import pathlib
import re
import subprocess

import harness
import pytest
from harness import make_tree, profile, sessions, start, start_session  # noqa: F401 - fixtures
from lsprotocol import types
from pygls.exceptions import JsonRpcException

import sleuth.engine.redact as redact_module
from sleuth.engine.redact import REDACT_MARGIN, log_string, sanitize_query
from sleuth.lsp import invocation_log
from sleuth.lsp.invoke import Request, _title
from tests.conftest import HANG_S
from tests.fixtures import with_test_commands



def hostile(tmp: pathlib.Path) -> str:
    return 'hello"; $(touch PWNED1) `touch PWNED2` \\ \n next line \x1b[31m \u2028 \u202e end'


def _query_literal(line: str) -> str:
    match = re.search(r' query=("(?:[^"\\]|\\.)*") -> ', line)
    assert match, line
    return match.group(1)


def _assert_inert(line: str, tmp: pathlib.Path) -> None:
    literal = _query_literal(line)
    assert "\n" not in line and "\x1b" not in line and "\u2028" not in line and "\u202e" not in line
    assert "$" not in literal and "`" not in literal
    decoded = json.loads(literal)  # the query itself, capped: $, backticks and the newline decode back
    assert decoded.endswith(hostile(tmp))


def test_log_string_is_a_json_literal_with_shell_characters_escaped(tmp_path: pathlib.Path) -> None:
    text = hostile(tmp_path)
    literal = log_string(text, 500)
    assert json.loads(literal) == text
    assert "$" not in literal and "`" not in literal and "\n" not in literal and "\x1b" not in literal


async def test_injection_characters_arrive_escaped_in_the_log_file_and_log_message(
        start, tmp_path: pathlib.Path) -> None:
    log = tmp_path / "sleuth.log"
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "x\n"})], init_options={"logFile": str(log)})
    for command, args in (("sleuth.grep", {"pattern": hostile(tmp_path)}),  # bad_args: logged all the same
                          ("sleuth.tools.call", {"name": "acode.grep", "arguments": {"pattern": hostile(tmp_path)}})):
        try:
            await session.execute(command, args)
        except JsonRpcException:
            pass
    await session.eventually(lambda: log.exists() and len(log.read_text().splitlines()) >= 2)
    lines = log.read_text().splitlines()
    assert len(lines) == 2
    for line in lines:
        _assert_inert(line, tmp_path)
    messages = [m.message for m in session.client.log_messages if m.message.startswith(("sleuth.grep", "sleuth.tools"))]
    assert len(messages) == 2
    for message in messages:
        _assert_inert(message, tmp_path)
    # sourced by a shell (the log file was a start-up file): nothing runs
    subprocess.run(["bash", str(log)], cwd=tmp_path, capture_output=True, timeout=HANG_S)
    assert not (tmp_path / "PWNED1").exists() and not (tmp_path / "PWNED2").exists()


def test_a_command_name_that_is_not_plain_is_quoted_too(tmp_path: pathlib.Path) -> None:
    line = invocation_log.summary("x\n$(id)", {}, "bad_args", None, 1.0)
    assert "\n" not in line and "$" not in line and json.loads(line.split(" -> ")[0]) == "x\n$(id)"


# -- huge inputs -------------------------------------------------------------------------------

@pytest.fixture
def redacted_lengths(monkeypatch) -> list[int]:
    seen: list[int] = []
    original = redact_module.redact

    def spy(text: str) -> str:
        seen.append(len(text))
        return original(text)

    monkeypatch.setattr(redact_module, "redact", spy)
    return seen


@pytest.mark.parametrize("args", [
    {"pattern": "a" * 5_000_000},
    {"pattern": ["b" * 1000] * 20_000},
    {"name": "acode.grep", "arguments": {"pattern": "c" * 5_000_000}},
    {"query": {"nested": "d" * 5_000_000}},
])
def test_summary_and_title_redact_a_bounded_slice(args, redacted_lengths: list[int]) -> None:
    line = invocation_log.summary("sleuth.grep", args, "bad_args", None, 3.0)
    title = _title(Request("sleuth.grep", args))
    assert len(line) < 400 and len(title) < 400
    assert redacted_lengths and max(redacted_lengths) <= invocation_log.MAX_QUERY_CHARS + REDACT_MARGIN
    query = invocation_log.query_of(args)
    assert query is not None and len(query) <= invocation_log.MAX_QUERY_CHARS + REDACT_MARGIN + 1


@pytest.mark.parametrize("secret,value", [("password=hunter2hunter2hunter2", "hunter2hunter2hunter2"),
                                          ("ghp_" + "Z" * 36, "ghp_" + "Z" * 36),
                                          ("Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123",
                                           "abcdefghijklmnopqrstuvwxyz0123")])
@pytest.mark.parametrize("offset", [90, 100, 110, 115, 119])
def test_a_secret_straddling_the_cut_is_never_half_shown(secret: str, value: str, offset: int) -> None:
    text = "x" * offset + " " + secret + " tail" * 100_000
    for shown in (sanitize_query(text, 120), json.loads(log_string(text, 120))):
        assert not any(value[i:i + 4] in shown for i in range(len(value) - 3)), shown


async def test_a_huge_pattern_does_not_hold_up_a_small_request_behind_it(
        tmp_path: pathlib.Path, monkeypatch, sessions) -> None:
    """The hook stalls any redaction of a long text until released: the old server, redacting the
    whole pattern on its event loop, answered nothing behind it until then."""
    release = tmp_path / "release"
    env = dict(with_test_commands(harness.server_env(), "tests.adversarial.slow_redaction_commands"),
               SLEUTH_TEST_RELEASE=str(release))
    monkeypatch.setattr(harness, "server_env", lambda: env)
    root = make_tree(tmp_path / "ws", {"a.txt": "needle\n"})
    session = await start_session("minimal", [root], init_options={"cacheDir": str(tmp_path / "cache")})
    sessions.append(session)
    try:
        big = session.send(types.WORKSPACE_EXECUTE_COMMAND, types.ExecuteCommandParams(
            command="sleuth.grep", arguments=[{"pattern": "needle" + "x" * 1_000_000}]))
        small = await asyncio.wait_for(session.execute("sleuth.grep", {"pattern": "needle"}), HANG_S)
        assert [m["path"] for m in small["matches"]] == ["a.txt"]
        with pytest.raises(JsonRpcException) as caught:
            await asyncio.wait_for(big, HANG_S)
        assert caught.value.data["code"] == "bad_args"
    finally:
        release.touch()


def test_every_transport_writes_the_same_safe_line() -> None:
    """Every door's line is the core session's record (LSP and MCP only add a sink): one way to write the
    line, so the escaping above holds at every door (the MCP door once had its own, unescaped copy)."""
    from sleuth.core import logline
    from sleuth.core.session import InvocationRecord

    args = {"pattern": "hello; $(touch /tmp/pwned)\n`id`"}
    assert invocation_log.summary is logline.summary
    assert InvocationRecord("sleuth.grep", args, "ok", {"matches": []}, 1.0).line() == \
        logline.summary("sleuth.grep", args, "ok", 0, 1.0)
    line = logline.summary("sleuth.grep", args, "ok", 0, 1.0)
    assert "$(" not in line and "`" not in line and "\n" not in line
