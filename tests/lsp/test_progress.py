"""Work-done progress and partial results (docs/SPEC.md §6)."""

from __future__ import annotations

import pathlib

from harness import make_tree


async def test_work_done_progress_on_the_client_token(start, tmp_path: pathlib.Path) -> None:
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "x\n"})])
    result = await session.request("sleuth/test/endless", {"limit": 4, "workDoneToken": "w"})
    values = session.progress["w"]
    assert values[0]["kind"] == "begin" and values[0]["title"].startswith("Sleuth: ")
    reports = [v for v in values if v["kind"] == "report"]
    assert reports and reports[-1]["percentage"] == 100 and reports[-1]["message"].startswith("4 of 4 files")
    assert [r["percentage"] for r in reports] == sorted(r["percentage"] for r in reports)
    assert values[-1] == {"kind": "end", "message": "4 results"}
    assert len(result["items"]) == 4


async def test_server_creates_a_token_only_when_the_client_supports_progress(start, tmp_path: pathlib.Path) -> None:
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "x\n"})])
    await session.execute("sleuth.test.endless", {"limit": 3})
    await session.workers()  # a round trip: every notification sent before it has arrived
    if session.vscode:
        token = next(t for t in session.created_tokens if session.progress.get(t) and
                     session.progress[t][0].get("title") == "Sleuth: test endless")
        kinds = [v["kind"] for v in session.progress[token]]
        assert kinds[0] == "begin" and kinds[-1] == "end"
    else:
        assert session.created_tokens == []
        assert session.progress == {}


async def test_partial_results_stream_in_order_and_the_response_omits_them(start, tmp_path: pathlib.Path) -> None:
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "x\n"})])
    streamed = await session.request("sleuth/test/endless", {"limit": 6, "partialResultToken": "p"})
    whole = await session.execute("sleuth.test.endless", {"limit": 6})
    sent = [item for value in session.progress["p"] for item in value["items"]]
    assert sent == whole["items"]
    assert streamed["items"] == []  # nothing already sent
    assert streamed["total"] == 6  # the summary stays


async def test_without_partial_token_nothing_streams(start, tmp_path: pathlib.Path) -> None:
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "x\n"})], profile="minimal")
    result = await session.request("sleuth/test/endless", {"limit": 3})
    assert len(result["items"]) == 3
    assert session.progress == {}


async def test_index_builds_after_initialized_with_its_own_progress(start, tmp_path: pathlib.Path) -> None:
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "needle\n", "b/c.txt": "hay\n"})])
    state = await session.workers()
    assert state["index"] is True  # the index service was started for the folder

    def index_values() -> list[dict]:
        for token in session.created_tokens:
            values = session.progress.get(token) or []
            if values and values[0].get("title") == "Sleuth: indexing":
                return values
        return []

    if session.vscode:
        await session.eventually(lambda: index_values() and index_values()[-1]["kind"] == "end")
        assert index_values()[-1]["message"] == "index ready"
    else:
        assert index_values() == []


async def test_index_can_be_switched_off(start, tmp_path: pathlib.Path) -> None:
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "needle\n"})], init_options={"index": {"enabled": False}})
    assert (await session.workers())["index"] is False
    assert len((await session.execute("sleuth.grep", {"pattern": "needle"}))["matches"]) == 1
