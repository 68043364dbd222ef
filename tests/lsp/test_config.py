"""Configuration layers (docs/SPEC.md §10) and the invocation log (docs/SPEC.md §8)."""

from __future__ import annotations

import pathlib

from harness import make_tree
from lsprotocol import types
from sleuth.commands.config import Settings


def _warnings(session) -> list[str]:
    return [m.message for m in session.client.messages if m.type == types.MessageType.Warning]


async def test_initialization_options_apply_and_bad_values_are_shown_once(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {"a.txt": "x\n"})
    session = await start([root], init_options={"maxResults": 50, "case": "weird", "bogus": 1})
    settings = (await session.execute("sleuth.test.echo", {}))["settings"]
    assert settings["max_results"] == 50
    assert settings["case"] == "smart"  # bad value: default kept
    shown = _warnings(session)
    assert sum("'case'" in m for m in shown) == 1 and sum("bogus" in m for m in shown) == 1
    session.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"sleuth": {}}))
    await session.execute("sleuth.test.echo", {})
    assert _warnings(session) == shown  # the same problems are not shown again


async def test_agent_config_file_is_the_lowest_layer(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {".agent/config.yml": "tools:\n  search:\n    max_results: 77\n    context_lines: 4\n"})
    session = await start([root], init_options={"contextLines": 1})
    settings = (await session.execute("sleuth.test.echo", {}))["settings"]
    assert settings["max_results"] == 77 and settings["context_lines"] == 1


async def test_workspace_configuration_is_pulled_and_reread_on_change(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {"a.txt": "x\n"})
    session = await start([root], init_options={"contextLines": 1}, configuration={"contextLines": 3})
    settings = (await session.execute("sleuth.test.echo", {}))["settings"]
    if session.vscode:  # pull model: section 'sleuth' overrides initializationOptions
        assert settings["context_lines"] == 3 and session.configuration_requests >= 1
        session.configuration = {"contextLines": 5, "maxResults": -1}
        session.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    else:  # no pull: the pushed settings of didChangeConfiguration are used
        assert settings["context_lines"] == 1 and session.configuration_requests == 0
        session.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"sleuth": {"contextLines": 5, "maxResults": -1}}))
    settings = (await session.execute("sleuth.test.echo", {}))["settings"]
    assert settings["context_lines"] == 5
    assert settings["max_results"] == Settings().max_results  # rejected, default kept
    assert sum("max_results" in m or "maxResults" in m for m in _warnings(session)) == 1


async def test_each_invocation_is_logged_sanitised(start, tmp_path: pathlib.Path) -> None:
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "x\n"})])
    await session.execute("sleuth.test.echo", {"pattern": "password=hunter2\x1b[31m now"})
    await session.execute("sleuth.test.endless", {"limit": 2, "pattern": "two"})
    await session.workers()
    lines = [m.message for m in session.client.log_messages if m.message.startswith("sleuth.test.")]
    echo = next(line for line in lines if line.startswith("sleuth.test.echo"))
    assert "hunter2" not in echo and "[REDACTED]" in echo and "\x1b" not in echo
    assert echo.endswith(" ms")
    endless = next(line for line in lines if line.startswith("sleuth.test.endless"))
    assert 'query="two"' in endless and "-> 2 results" in endless


async def test_log_level_filters_invocation_messages(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {"a.txt": "x\n"})
    session = await start([root], init_options={"logLevel": "warning"})
    await session.execute("sleuth.test.endless", {"limit": 1})
    try:
        await session.execute("sleuth.test.fail", {"error": "NotFound"})
    except Exception:
        pass
    await session.workers()
    lines = [m for m in session.client.log_messages if m.message.startswith("sleuth.test.")]
    assert [m.message.split()[0] for m in lines] == ["sleuth.test.fail"]
    assert lines[0].type == types.MessageType.Warning and "not_found" in lines[0].message
    session.configuration = {"logLevel": "off"}  # pulled by the vscode profile, pushed by the minimal one
    pushed = None if session.vscode else {"sleuth": {"logLevel": "off"}}
    session.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=pushed))
    count = len(session.client.log_messages)
    try:
        await session.execute("sleuth.test.fail", {"error": "NotFound"})
    except Exception:
        pass
    await session.workers()
    assert len(session.client.log_messages) == count
