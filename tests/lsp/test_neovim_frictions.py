"""Frictions seen from Neovim 0.7, a client nobody here wrote (issue 14 item 6).

Lua has one empty table for ``[]`` and ``{}``, so ``arguments = {{}}`` arrives as ``[[]]``; Neovim
shows every work-done progress token it is asked to create (26 in one short session, one titled
"Sleuth: nope" for an unknown command); its messages read "1 results".
"""

from __future__ import annotations

import pathlib
from typing import Any

import pytest
from lsprotocol import types

from harness import make_tree


@pytest.fixture
def profile() -> str:
    return "vscode"  # a client that supports server-created progress, as Neovim does


async def _execute_raw(session: Any, command: str, arguments: Any) -> Any:
    return await session.request(types.WORKSPACE_EXECUTE_COMMAND,
                                 types.ExecuteCommandParams(command=command, arguments=arguments))


@pytest.mark.parametrize("arguments", [[[]], [None], [], None], ids=["lua-empty-table", "null", "empty", "absent"])
async def test_an_empty_argument_means_no_arguments(start, tmp_path: pathlib.Path, arguments: Any) -> None:
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "needle\n"})])
    status = await _execute_raw(session, "sleuth.index.status", arguments)
    assert "state" in status


async def test_only_searches_create_progress_tokens(start, tmp_path: pathlib.Path) -> None:
    # without an index: its build reports on a token of its own ("Sleuth: indexing"), rightly
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "needle\n"})], init_options={"index": {"enabled": False}})
    await session.execute("sleuth.index.status")
    await session.execute("sleuth.tools.list")
    await session.execute("sleuth.metrics")
    with pytest.raises(Exception):
        await session.execute("nope")
    await session.workers()  # a round trip: any create request sent before it has arrived
    assert session.created_tokens == []
    assert not any(v.get("title", "").endswith("nope") for values in session.progress.values() for v in values)
    await session.execute("sleuth.grep", {"pattern": "needle"})
    await session.workers()
    assert len(session.created_tokens) == 1


async def test_one_result_is_singular(start, tmp_path: pathlib.Path) -> None:
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "needle\nhay\n", "b.txt": "needles\nneedle\n"})])
    result = await session.execute("sleuth.grep", {"pattern": "needles"})
    assert len(result["matches"]) == 1
    await session.eventually(lambda: any(v.get("kind") == "end" for t in session.created_tokens
                                         for v in session.progress.get(t, [])))
    ends = [v["message"] for t in session.created_tokens for v in session.progress.get(t, []) if v.get("kind") == "end"]
    assert ends == ["1 result"]


def test_counted_nouns_agree_with_their_number() -> None:
    from sleuth.lsp.invocation_log import summary

    assert summary("sleuth.grep", {"pattern": "x"}, "ok", 1, 3.0) == 'sleuth.grep query="x" -> 1 result in 3 ms'
    assert summary("sleuth.grep", {"pattern": "x"}, "ok", 2, 3.0) == 'sleuth.grep query="x" -> 2 results in 3 ms'
