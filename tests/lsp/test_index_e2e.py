"""The index over LSP (docs/SPEC.md §7): build and status commands, ranked text search streamed, watcher events."""

from __future__ import annotations

import asyncio
import pathlib

from harness import make_tree
from lsprotocol import types
from pygls.uris import from_fs_path
from tests.conftest import HANG_S


async def test_build_status_and_streamed_text_search(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {"a.py": "def get_user_by_id(x):\n    return x\n",
                                       "b.txt": "user lookup happens here\n", "c.txt": "nothing\n"})
    session = await start([root])
    status = await session.execute("sleuth.index.build", {"wait": True}, work_done_token="build")
    assert status["state"] == "ready" and status["files"] == 3
    assert [v["kind"] for v in session.progress["build"]][::len(session.progress["build"]) - 1] == ["begin", "end"]
    assert (await session.execute("sleuth.index.status", {}))["files"] == 3
    whole = await session.execute("sleuth.text", {"query": "user"})
    streamed = await session.request("sleuth/text", {"query": "user", "partialResultToken": "t"})
    assert [r["path"] for r in whole["results"]] == ["a.py", "b.txt"]
    assert [r for v in session.progress["t"] for r in v["results"]] == whole["results"]
    assert streamed["results"] == [] and streamed["total"] == whole["total"] == 2


async def test_watched_file_events_reach_the_index(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {"a.txt": "alpha\n"})
    session = await start([root])
    await session.execute("sleuth.index.build", {"wait": True})
    (root / "new.txt").write_text("zebra crossing\n")
    session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=from_fs_path(str(root / "new.txt")), type=types.FileChangeType.Created)]))
    async def applied() -> None:  # in the background: poll, bounded by the timeout below
        while (await session.execute("sleuth.text", {"query": "zebra"}))["total"] != 1 or \
                (await session.execute("sleuth.index.status", {}))["files"] != 2:
            await asyncio.sleep(0.05)

    await asyncio.wait_for(applied(), HANG_S)


async def test_without_client_watchers_the_server_rescans(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {"a.txt": "alpha\n"})
    session = await start([root], profile="minimal", init_options={"rescanIntervalSeconds": 0.2,
                                                                    "cacheDir": str(tmp_path / "cache")})
    await session.execute("sleuth.index.build", {"wait": True})
    (root / "later.txt").write_text("quokka\n")  # no notification of any kind

    async def seen() -> None:
        while (await session.execute("sleuth.index.status", {}))["files"] != 2:
            await asyncio.sleep(0.05)

    await asyncio.wait_for(seen(), HANG_S)
    assert (await session.execute("sleuth.text", {"query": "quokka"}))["total"] == 1
