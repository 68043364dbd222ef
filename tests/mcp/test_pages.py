"""MCP paging cuts the next pages from the first call's result (issue 32 item 5): one engine search
for a whole answer paged through, counted by the session's activity counters; a changed file makes
the next page search again and see the change."""

from __future__ import annotations

import asyncio
import json
import pathlib
import time
from typing import Any

import pytest

pytest.importorskip("mcp")

from sleuth.mcp.pages import PageCache, gives_whole_page, page_key  # noqa: E402
from tests.conftest import run_sleuth, write_tree  # noqa: E402
from tests.fixtures import with_test_commands  # noqa: E402
from tests.mcp.test_mcp_server import MODES, PLUMBING, _env, connect  # noqa: E402


async def _searches(client: Any) -> int:
    return int((await client.call_tool("debug_workers", {})).structured_content["started"])


async def _pages(client: Any, args: dict[str, Any]) -> list[dict[str, Any]]:
    pages: list[dict[str, Any]] = []
    offset: int | None = 0
    while offset is not None:
        result = await client.call_tool("grep", {**args, "offset": offset})
        assert not result.is_error
        pages.append(result.structured_content)
        offset = result.structured_content["next_offset"]
    return pages


@pytest.mark.parametrize("mode", MODES)
async def test_the_next_pages_come_from_the_first_search(tmp_path: pathlib.Path, mode: str) -> None:
    lines = "".join(f"needle line {i:04d} " + "x" * 60 + "\n" for i in range(400))
    ws = write_tree(tmp_path / "ws", {"big.txt": lines, "small.txt": "needle\n"})
    env = with_test_commands(_env(tmp_path), PLUMBING)
    async with connect(tmp_path, mode, [ws], "--max-output-tokens", "2000", env=env) as client:
        assert not (await client.call_tool("search_text", {"query": "needle"})).is_error  # the index is ready
        before = await _searches(client)
        pages = await _pages(client, {"pattern": "needle", "max_results": 1000})
        assert len(pages) > 2
        assert await _searches(client) == before + 1  # one search, however many pages
        joined = [m for page in pages for m in page["matches"]]
        cli = json.loads(run_sleuth(ws, "grep", "--result-json", "needle", cache=tmp_path / "cache").stdout)
        assert joined == cli["matches"]

        (ws / "a.txt").write_text("needle again\n")  # first in path order; the server's watcher tells the index
        deadline = time.monotonic() + 120  # a bound only: until the change is told, the held answer serves
        while True:  # (counted in calls, a loaded machine's watcher lost the race: a CI flake)
            page = (await client.call_tool("grep", {"pattern": "needle", "max_results": 1000, "offset": 0}))
            if any(m["text"] == "needle again" for m in page.structured_content["matches"]):
                break
            if time.monotonic() > deadline:
                pytest.fail("the changed file never showed")
            await asyncio.sleep(0.02)
        assert await _searches(client) > before + 1


def test_the_cache_holds_the_last_answers_for_their_world() -> None:
    cache = PageCache(size=2)
    a, b, c = (page_key("grep", {"pattern": p, "offset": 5}) for p in "abc")
    assert a == page_key("grep", {"offset": 0, "pattern": "a"})  # offset is not part of the question
    cache.put(a, 1, {"matches": [1]})
    cache.put(b, 1, {"matches": [2]})
    assert cache.get(a, 1) == {"matches": [1]}
    cache.put(c, 1, {"matches": [3]})  # b was used least recently
    assert cache.get(b, 1) is None and cache.get(a, 1) is not None
    assert cache.get(a, 2) is None and cache.get(a, 1) is None  # another world: dropped
    cache.put(c, 1, {"matches": [], "timed_out": True})
    assert cache.get(c, 1) is None  # a timed-out answer is never held


def test_a_held_answer_gives_a_page_only_when_it_holds_all_of_it() -> None:
    done = {"matches": list(range(10)), "truncated": False}
    cut = {"matches": list(range(10)), "truncated": True}
    assert gives_whole_page(done, "matches", 8, 2) and gives_whole_page(done, "matches", 20, 0)
    assert gives_whole_page(cut, "matches", 2, 5)  # the budget ended the page before the items
    assert not gives_whole_page(cut, "matches", 5, 5)  # it reaches their end: there may be more
