"""Cancellation and concurrency (docs/SPEC.md §6): cancel stops the work itself, nothing blocks the loop.

The plumbing command ``sleuth.test.endless`` runs until cancelled and counts its steps, so
"the work stopped" is observed directly: after the RequestCancelled answer no worker runs
(``sleuth/debug/workers``) and the step counter no longer moves.
"""

from __future__ import annotations

import asyncio
import pathlib

import pytest
from harness import Session, make_tree
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from tests.conftest import HANG_S

REQUEST_CANCELLED = -32800


async def _assert_stopped(session: Session) -> None:
    """No worker runs and the endless loop's step counter stays put across further round trips."""
    state = await session.until_idle()
    assert state["running"] == 0
    before = await session.execute("sleuth.test.counter", {})
    assert before["running"] == 0
    for _ in range(5):
        await session.workers()
    after = await session.execute("sleuth.test.counter", {})
    assert after["steps"] == before["steps"]


async def test_cancel_request_stops_a_custom_request(start, tmp_path: pathlib.Path) -> None:
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "x\n"})])
    msg_id = session.next_id()
    pending = session.send("sleuth/test/endless", {"partialResultToken": "partial-1"}, msg_id)
    await session.first_progress("partial-1")  # the work is demonstrably running
    session.cancel(msg_id)
    with pytest.raises(JsonRpcException) as caught:
        await asyncio.wait_for(pending, HANG_S)
    assert caught.value.code == REQUEST_CANCELLED
    assert caught.value.data["code"] == "cancelled"
    await _assert_stopped(session)
    streamed = [item["n"] for value in session.progress["partial-1"] for item in value["items"]]
    assert streamed == list(range(len(streamed)))  # what was sent stays valid, in order
    assert (await session.workers())["cancelled"] >= 1


async def test_cancel_request_stops_execute_command(start, tmp_path: pathlib.Path) -> None:
    """pygls alone would answer -32800 and let the command run on; Sleuth stops it."""
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "x\n"})])
    msg_id = session.next_id()
    pending = asyncio.ensure_future(session.execute("sleuth.test.endless", {}, msg_id=msg_id))
    while (await session.execute("sleuth.test.counter", {}))["steps"] == 0:
        await asyncio.sleep(0.01)
    session.cancel(msg_id)
    with pytest.raises(JsonRpcException) as caught:
        await pending
    assert caught.value.code == REQUEST_CANCELLED
    await _assert_stopped(session)


async def test_work_done_progress_cancel_stops_the_work(start, tmp_path: pathlib.Path) -> None:
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "x\n"})])
    pending = asyncio.ensure_future(session.request("sleuth/test/endless", {"workDoneToken": "work-1"}))
    await session.first_progress("work-1")
    assert session.progress["work-1"][0]["kind"] == "begin" and session.progress["work-1"][0]["cancellable"]
    session.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token="work-1"))
    with pytest.raises(JsonRpcException) as caught:
        await pending
    assert caught.value.code == REQUEST_CANCELLED
    await _assert_stopped(session)
    assert session.progress["work-1"][-1] == {"kind": "end", "message": "cancelled"}


async def test_server_created_progress_token_cancels_too(start, tmp_path: pathlib.Path, profile: str) -> None:
    if profile != "vscode":
        pytest.skip("the minimal client cannot show progress, so the server creates no token")
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "x\n"})])
    pending = asyncio.ensure_future(session.execute("sleuth.test.endless", {}))
    def endless_token() -> object:
        return next((t for t in session.created_tokens if (session.progress.get(t) or [{}])[0].get("title")
                     == "Sleuth: test endless"), None)

    await session.eventually(lambda: endless_token() is not None)
    token = endless_token()
    session.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    with pytest.raises(JsonRpcException) as caught:
        await pending
    assert caught.value.code == REQUEST_CANCELLED
    await _assert_stopped(session)


async def test_status_and_other_requests_are_served_while_searches_run(start, tmp_path: pathlib.Path) -> None:
    """Eight endless commands occupy workers; status, another command and a cancel still answer."""
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "x\n"})])
    ids = [session.next_id() for _ in range(8)]
    pending = [session.send("sleuth/test/endless", {"partialResultToken": f"busy-{i}"}, msg_id)
               for i, msg_id in enumerate(ids)]
    for i in range(8):
        await session.first_progress(f"busy-{i}")
    state = await session.workers()
    assert state["running"] == 8
    for command in ("sleuth.metrics", "sleuth.index.status", "sleuth.tools.list", "sleuth.test.echo"):
        try:
            await session.execute(command, {})
        except JsonRpcException as exc:  # answered, possibly with a coded error while its module is missing
            assert exc.data["code"] != "internal", exc.data
    done = await session.execute("sleuth.test.endless", {"limit": 3})  # another search completes meanwhile
    assert [item["n"] for item in done["items"]] == [0, 1, 2]
    assert (await session.workers())["running"] == 8  # the eight are still running: nothing waited for them
    for msg_id in ids:
        session.cancel(msg_id)
    for future in pending:
        with pytest.raises(JsonRpcException):
            await asyncio.wait_for(future, HANG_S)
    await _assert_stopped(session)


async def test_cancel_of_a_finished_or_unknown_request_is_harmless(start, tmp_path: pathlib.Path) -> None:
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "x\n"})])
    msg_id = session.next_id()
    result = await session.execute("sleuth.test.endless", {"limit": 2}, msg_id=msg_id)
    session.cancel(msg_id)
    session.cancel("never-sent")
    assert len(result["items"]) == 2
    assert (await session.execute("sleuth.test.endless", {"limit": 1}))["items"] == [{"n": 0}]


async def test_cancelled_while_queued_never_starts(start, tmp_path: pathlib.Path) -> None:
    """More searches than search workers: a queued one that is cancelled never runs at all."""
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "x\n"})], profile="minimal")
    workers = 16  # Invoker's search pool
    ids = [session.next_id() for _ in range(workers + 1)]
    pending = [session.send("sleuth/test/endless", {"partialResultToken": f"q-{i}"}, msg_id)
               for i, msg_id in enumerate(ids)]
    for i in range(workers):
        await session.first_progress(f"q-{i}")
    assert (await session.workers())["started"] == workers  # the last one waits for a free worker
    session.cancel(ids[-1])
    with pytest.raises(JsonRpcException) as caught:
        await asyncio.wait_for(pending[-1], HANG_S)
    assert caught.value.code == REQUEST_CANCELLED
    for msg_id in ids[:-1]:
        session.cancel(msg_id)
    for future in pending[:-1]:
        with pytest.raises(JsonRpcException):
            await asyncio.wait_for(future, HANG_S)
    state = await session.until_idle()
    assert state["started"] == workers and "q-16" not in session.progress
