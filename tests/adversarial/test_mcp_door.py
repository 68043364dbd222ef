"""Adversarial: the MCP door (``sleuth mcp``) gets the sandbox corpus and the random arguments of the
LSP and CLI doors (issue 16; the corpus and the strategies are :mod:`test_sandbox_doors`' and
:mod:`test_random_arguments`').

One ``sleuth mcp --profile all`` process per protocol era (2025-11-25 with the handshake and
``roots/list``; 2026-07-28, stateless, roots through input-required round trips), driven by the
official SDK's client, its roots the corpus' workspace. Every answer must be a tool result — an
``isError`` result for bad input, never a protocol error, a hang or a crash — carrying no secret
marker, no name of the outside folder the call did not name itself, and no path outside the roots
or under a denied glob; the server's log (stderr) must carry no secret and no traceback.
"""

from __future__ import annotations

import json
import os
import pathlib
from typing import Any, Callable, Iterator

import pytest

pytest.importorskip("mcp")

from hypothesis import HealthCheck, Phase, given, settings, strategies as st  # noqa: E402

from sleuth.commands.files import FILES_ARGS  # noqa: E402
from sleuth.commands.grep import GREP_ARGS  # noqa: E402
from sleuth.commands.profiles import all_tools  # noqa: E402
from sleuth.commands.text import TEXT_ARGS  # noqa: E402
from tests.adversarial import test_random_arguments as randoms  # noqa: E402
from tests.adversarial import test_sandbox_doors as doors  # noqa: E402
from tests.adversarial.mcp_sync import McpProcess  # noqa: E402

MODES = ("legacy", "auto")
NATIVE = {"grep": "matches", "find_files": "items", "search_text": "results"}  # tool -> its item list


def _profile_tool(qualified: str) -> Callable[[doors.Attack], list[dict[str, Any]]]:
    return lambda attack: doors._tool_args(attack)[qualified]


# MCP tool name -> the argument objects of one attack (the same objects the LSP door gets)
MCP_DOORS: dict[str, Callable[[doors.Attack], list[dict[str, Any]]]] = {
    "grep": doors._grep_args, "find_files": doors._files_args, "search_text": doors._text_args,
    **{name.replace(".", "_"): _profile_tool(name) for name in doors.TOOLS},
}


def _answer(result: Any) -> str:
    """Everything a tool result shows a model: its text blocks and its structured content."""
    texts = [getattr(block, "text", "") for block in result.content]
    return "\n".join(texts) + json.dumps(result.structured_content, ensure_ascii=False)


# -- the sandbox corpus -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> doors.World:
    return doors._plant(tmp_path_factory.mktemp("mcp-doors"))


@pytest.fixture(scope="module", params=MODES)
def server(request: pytest.FixtureRequest, world: doors.World) -> Iterator[McpProcess]:
    process = McpProcess([world.root], world.base, "--profile", "all", "--log-level", "debug", mode=request.param)
    try:
        yield process
    finally:
        process.close()


@pytest.mark.parametrize("tool", sorted(MCP_DOORS))
def test_no_mcp_tool_leaks_outside_or_denied_content_or_names(world: doors.World, server: McpProcess,
                                                              tool: str) -> None:
    arguments = MCP_DOORS[tool]
    control = server.call(tool, arguments(doors.Attack())[0])
    shown = _answer(control)
    assert not control.is_error and ("TOPSECRET allowed" in shown or "a.txt" in shown), shown[:2000]
    assert not doors._leaks("", shown), shown[:2000]
    attempts, leaks = 0, []
    for attack in doors._attacks(world):
        for args in arguments(attack):
            attempts += 1
            sent = json.dumps(args, ensure_ascii=False)
            result = server.call(tool, args)  # a protocol error or a time-out raises: the test fails
            found = doors._leaks(sent, _answer(result))
            if found:
                leaks.append((attack.label, args, found, _answer(result)[:600]))
            if tool in NATIVE and not result.is_error:
                doors._check_paths(world, result.structured_content)
    assert attempts > 80 and not leaks, leaks[:5]
    log = server.stderr()
    assert doors.SECRET not in log and "Traceback" not in log, log[-4000:]


@pytest.mark.parametrize("tool,path_key", [("grep", "path"), ("find_files", "path")])
def test_a_path_outside_the_roots_is_an_error_result_that_names_the_roots(world: doors.World, server: McpProcess,
                                                                           tool: str, path_key: str) -> None:
    base = {"grep": {"pattern": doors.PAT}, "find_files": {"patterns": ["**"]}}[tool]
    for outside in (str(world.outside), "../" + doors.OUT_NAME, "/etc", "outdir"):
        result = server.call(tool, {**base, path_key: outside})
        text = _answer(result)
        assert result.is_error, (outside, text[:600])
        assert str(world.root.resolve()) in text and doors.SECRET not in text, text[:600]


# -- random arguments -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def random_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[McpProcess, pathlib.Path]]:
    base = tmp_path_factory.mktemp("mcp-random")
    root = base / "ws"
    for rel, text in {"a.txt": "alpha beta\nTODO fix\n", "src/main.py": "def main():\n    return 42\n",
                      "denied/secret.txt": "secret\n", ".hidden/h.txt": "hidden alpha\n",
                      ".agent/config.yml": "sleuth:\n  deny_globs: ['denied/**']\n"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "link").symlink_to("src")
    process = McpProcess([root], base, "--profile", "all")
    try:
        yield process, root
    finally:
        process.close()


def _has_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return any("\ud800" <= ch <= "\udfff" for ch in value)
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(v) for v in value)
    return False


def _objects_only(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """MCP's ``arguments`` is an object by the protocol: any other value is a malformed message. A lone
    surrogate cannot leave the official SDK's client (it fails to encode the request, client-side, before
    anything is sent); the raw door sends one as a JSON escape (``test_protocol_abuse``)."""
    return strategy.filter(lambda value: isinstance(value, dict) and not _has_lone_surrogate(value))


RANDOM_DOORS: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "grep": _objects_only(randoms._from_spec(GREP_ARGS)),
    "find_files": _objects_only(randoms._from_spec(FILES_ARGS)),
    "search_text": _objects_only(randoms._from_spec(TEXT_ARGS)),
    **{f"{tool.profile}_{tool.name}": _objects_only(randoms._from_schema(tool.input_schema)) for tool in all_tools()},
}


def _clean(root: pathlib.Path, tool: str, result: Any) -> None:
    text = _answer(result)
    if result.is_error:
        assert text.strip() and "Internal error" not in text and "Traceback" not in text, (tool, text[:600])
        return
    items = (result.structured_content or {}).get(NATIVE[tool]) if tool in NATIVE else None
    real_root = os.path.realpath(root)
    for item in items or []:
        rel = item.get("path", "")
        assert not os.path.isabs(rel) and ".." not in rel.split("/"), item
        real = os.path.realpath(os.path.join(root, rel))
        assert real.startswith(real_root + os.sep) and not rel.startswith("denied/"), item


@pytest.mark.parametrize("tool", sorted(RANDOM_DOORS))
@settings(max_examples=randoms.EXAMPLES // 2, derandomize=not randoms.HUNT, deadline=None,
          phases=list(Phase) if randoms.HUNT else [Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example,
                                 HealthCheck.filter_too_much])
@given(data=st.data())
def test_every_random_argument_object_gets_a_tool_result(random_server: tuple[McpProcess, pathlib.Path], tool: str,
                                                         data: st.DataObject) -> None:
    process, root = random_server
    arguments = data.draw(RANDOM_DOORS[tool], label="arguments")
    _clean(root, tool, process.call(tool, arguments))  # a protocol error or a time-out raises


def test_the_mcp_server_survived_every_random_call(random_server: tuple[McpProcess, pathlib.Path]) -> None:
    """Runs after the property (module order): alive, answering, stderr free of tracebacks."""
    process, root = random_server
    assert process.alive()
    result = process.call("grep", {"pattern": "alpha"})
    assert not result.is_error and [m["path"] for m in result.structured_content["matches"]] == ["a.txt"]
    assert "Traceback" not in process.stderr(), process.stderr()[-4000:]
