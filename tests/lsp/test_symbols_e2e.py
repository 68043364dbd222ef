"""``workspace/symbol`` (Ctrl+T, ``vim.lsp.buf.workspace_symbol()``) and ``sleuth.symbols`` over LSP."""

from __future__ import annotations

import asyncio
import pathlib

import pytest
from harness import make_tree
from lsprotocol import types
from tests.conftest import HANG_S

TREE = {
    "src/users.py": "class UserService:\n    def get_user_by_id(self, uid):\n        return uid\n",
    "drivers/pm.h": "enum pm_event {\n\tPM_RESUME,\n\tPM_SUSPEND,\n};\nstruct pm_ops {\n\tint (*resume)(void);\n};\n",
    "docs/guide.md": "# Guide\n## Getting started\n",
}


async def _symbols(session, query: str, **params: object) -> list[types.SymbolInformation]:
    return await session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query, **params))


async def test_workspace_symbol_is_advertised_and_answers_ctrl_t(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", TREE)
    session = await start([root])
    assert session.initialize_result.capabilities.workspace_symbol_provider
    await session.execute("sleuth.index.build", {"wait": True})
    found = await _symbols(session, "get_user_by_id")
    assert [(s.name, s.container_name, s.kind) for s in found] == [("get_user_by_id", "UserService", types.SymbolKind.Method)]
    location = found[0].location
    assert location.uri == (root / "src/users.py").resolve().as_uri()
    assert (location.range.start.line, location.range.start.character, location.range.end.character) == (1, 8, 22)
    assert [s.name for s in await _symbols(session, "pmresume")] == ["PM_RESUME"]
    # word starts come from the in-order tier, whose key vocabulary loads in the background at first use
    async def word_starts() -> None:
        while [s.name for s in await _symbols(session, "gubi")] != ["get_user_by_id"]:
            await asyncio.sleep(0.05)

    await asyncio.wait_for(word_starts(), HANG_S)
    assert [s.name for s in await _symbols(session, "getting started")] == ["Getting started"]
    assert await _symbols(session, "") == []


async def test_kinds_a_client_did_not_declare_are_mapped(start, tmp_path: pathlib.Path) -> None:
    """A client without ``symbolKind.valueSet`` knows File..Array only: an enum member must not reach it as 22."""
    root = make_tree(tmp_path / "ws", TREE)
    session = await start([root])
    await session.execute("sleuth.index.build", {"wait": True})
    (member,) = await _symbols(session, "PM_RESUME")
    (struct,) = await _symbols(session, "pm_ops")
    if session.vscode:
        assert (member.kind, struct.kind) == (types.SymbolKind.EnumMember, types.SymbolKind.Struct)
    else:
        assert (member.kind, struct.kind) == (types.SymbolKind.Constant, types.SymbolKind.Class)


@pytest.mark.parametrize("profile", ["neovim"])
async def test_neovim_workspace_symbol_with_partial_results_and_progress(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", TREE)
    session = await start([root])
    await session.execute("sleuth.index.build", {"wait": True})
    answer = await _symbols(session, "pm", partial_result_token="p", work_done_token="w")
    assert answer == []
    await session.eventually(lambda: session.progress.get("p"))
    streamed = [item for batch in session.progress["p"] for item in batch]
    assert [(s["name"], s.get("containerName")) for s in streamed] == [
        ("pm_ops", None), ("pm_event", None), ("PM_RESUME", "pm_event"), ("PM_SUSPEND", "pm_event")]
    assert [v["kind"] for v in session.progress["w"]][::len(session.progress["w"]) - 1] == ["begin", "end"]


async def test_a_function_saved_to_disk_is_found_at_once(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", TREE)
    session = await start([root])
    await session.execute("sleuth.index.build", {"wait": True})
    assert await _symbols(session, "freshly_written") == []
    (root / "src" / "later.py").write_text("def freshly_written():\n    pass\n")

    async def found() -> None:  # the server's own watcher sees the write; poll, bounded below
        while [s.name for s in await _symbols(session, "freshly_written")] != ["freshly_written"]:
            await asyncio.sleep(0.05)

    await asyncio.wait_for(found(), HANG_S)


async def test_the_command_and_custom_request(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", TREE)
    session = await start([root])
    await session.execute("sleuth.index.build", {"wait": True})
    result = await session.execute("sleuth.symbols", {"query": "pm", "kind": "enummember"})
    assert [(r["name"], r["kind"], r["path"], r["line"]) for r in result["results"]] == [
        ("PM_RESUME", "enummember", "drivers/pm.h", 2), ("PM_SUSPEND", "enummember", "drivers/pm.h", 3)]
    streamed = await session.request("sleuth/symbols", {"query": "guide", "partialResultToken": "s"})
    assert streamed["results"] == [] and streamed["total"] == 1
    assert [r["name"] for v in session.progress["s"] for r in v["results"]] == ["Guide"]
    with pytest.raises(Exception, match="unknown kind"):
        await session.execute("sleuth.symbols", {"query": "pm", "kind": "gadget"})
