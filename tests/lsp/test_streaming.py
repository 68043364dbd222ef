"""A slow search streams (issue 14 item 3): matches leave the server while their unit still runs,
in final order, and work-done progress keeps coming.

The pattern is a back-reference (the ``regex`` module, tens of milliseconds a file here); the tree
is a few hundred files in one folder, so the walk cuts it into units of ``CHUNK_FILES``. Before,
a unit's results left only when the whole unit was searched: at most one batch per unit.
"""

from __future__ import annotations

import asyncio
import math
import pathlib
import random
import string

import pytest
from harness import Session, make_tree
from sleuth.engine.grep.units import CHUNK_FILES
from tests.conftest import HANG_S

PATTERN = r"(\w+\d) .*\1 .*\1"
FILES = 300


def _slow_tree(root: pathlib.Path) -> pathlib.Path:
    """Files the back-reference takes its time over (a digit starts every word, so ``\\w+\\d`` keeps
    failing late), each with two matching lines."""
    rng = random.Random(14)

    def word() -> str:
        return str(rng.randrange(10)) + "".join(rng.choice(string.ascii_lowercase) for _ in range(6))

    files = {}
    for n in range(FILES):
        lines = [" ".join(word() for _ in range(12)) for _ in range(150)]
        for i in (7, 99):
            lines[i] = f"key{n}x{i}7 then key{n}x{i}7 and key{n}x{i}7"
        files[f"f{n:03}.txt"] = "\n".join(lines) + "\n"
    return make_tree(root, files)


@pytest.mark.parametrize("profile", ["vscode"])
async def test_a_slow_search_streams_in_final_order_with_progress(start, tmp_path: pathlib.Path) -> None:
    session: Session = await start([_slow_tree(tmp_path / "ws")], init_options={"index": {"enabled": False}})
    # the server's default 20 s search budget is a clock: a busy machine reached it and cut one answer short
    args = {"pattern": PATTERN, "max_results": 10_000, "timeout_ms": 300_000}
    batches_at_answer: list[int] = []
    pending = session.send("sleuth/grep", {**args, "workDoneToken": "w", "partialResultToken": "p"})
    pending.add_done_callback(lambda _: batches_at_answer.append(len(session.progress.get("p", []))))
    streamed_answer = await asyncio.wait_for(pending, 120)
    whole = await session.execute("sleuth.grep", args)

    batches = [value["matches"] for value in session.progress["p"]]
    streamed = [item for batch in batches for item in batch]
    assert streamed + streamed_answer["matches"] == whole["matches"]  # final order, nothing lost or repeated
    assert len(whole["matches"]) == 2 * FILES
    assert batches_at_answer == [len(batches)]  # every batch arrived before the response
    # Each unit's first match leaves on its own, before the rest of its unit: more batches than units.
    assert len(batches) > math.ceil(FILES / CHUNK_FILES)
    assert len(batches[0]) < 2 * CHUNK_FILES  # not the whole first unit at once

    work = session.progress["w"]
    assert work[0]["kind"] == "begin" and work[-1]["kind"] == "end"
    reports = [value for value in work if value["kind"] == "report"]
    assert len(reports) >= 3
    counts = [int(r["message"].split()[0]) for r in reports if r["message"][0].isdigit()]
    assert counts == sorted(counts) and counts[-1] == FILES


@pytest.mark.parametrize("profile", ["vscode"])
async def test_progress_keeps_coming_while_the_work_says_nothing(start, tmp_path: pathlib.Path) -> None:
    """The reporter's heartbeat: before, a command that reported nothing left the client at "starting"."""
    session: Session = await start([make_tree(tmp_path / "ws", {"a.txt": "x\n"})])
    msg_id = session.next_id()
    pending = session.send("sleuth/test/quiet", {"workDoneToken": "q"}, msg_id)
    await session.eventually(lambda: sum(v["kind"] == "report" for v in session.progress.get("q", [])) >= 3)
    session.cancel(msg_id)
    with pytest.raises(Exception):
        await asyncio.wait_for(pending, HANG_S)
    await session.eventually(lambda: session.progress["q"][-1]["kind"] == "end")
    assert session.progress["q"][0]["kind"] == "begin"


def _many_files(root: pathlib.Path) -> pathlib.Path:
    """Enough matching files for several parts (a pool search), each with one match."""
    return make_tree(root, {f"d{n % 7}/f{n:04}.txt": f"filler\nstreamword {n}\n" for n in range(600)})


@pytest.mark.parametrize("profile", ["vscode"])
async def test_the_first_batch_arrives_while_the_search_is_held(start, tmp_path: pathlib.Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The search gate (the e2e driver's hook, ``SLEUTH_TEST_SEARCH_GATE``): with its file present a grep
    streams its first batch, then holds its answer; removing the file lets the rest out, nothing lost."""
    gate = tmp_path / "search-gate"
    monkeypatch.setenv("SLEUTH_TEST_SEARCH_GATE", str(gate))
    session: Session = await start([_many_files(tmp_path / "ws")], init_options={"index": {"enabled": False}})
    args = {"pattern": "streamword", "max_results": 10_000}
    gate.write_text("held\n")
    pending = session.send("sleuth/grep", {**args, "partialResultToken": "p"})
    await session.eventually(lambda: bool(session.progress.get("p")))
    await session.execute("sleuth.index.status", {})  # a round trip answered while the grep is held
    assert not pending.done() and len(session.progress["p"]) == 1  # one batch out, the rest held
    gate.unlink()
    answer = await asyncio.wait_for(pending, 120)
    streamed = [item for value in session.progress["p"] for item in value["matches"]]
    whole = await session.execute("sleuth.grep", args)
    assert streamed + answer["matches"] == whole["matches"] and len(whole["matches"]) == 600


@pytest.mark.parametrize("profile", ["vscode"])
async def test_a_held_search_is_cancelled(start, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The gate's wait polls the search's token: a cancel ends a held search (the e2e toggles step relies on it)."""
    gate = tmp_path / "search-gate"
    monkeypatch.setenv("SLEUTH_TEST_SEARCH_GATE", str(gate))
    session: Session = await start([_many_files(tmp_path / "ws")], init_options={"index": {"enabled": False}})
    gate.write_text("held\n")
    msg_id = session.next_id()
    pending = session.send("sleuth/grep", {"pattern": "streamword", "partialResultToken": "p"}, msg_id)
    await session.eventually(lambda: bool(session.progress.get("p")))
    session.cancel(msg_id)
    with pytest.raises(Exception, match="[Cc]ancel"):
        await asyncio.wait_for(pending, HANG_S)
    assert len(session.progress["p"]) == 1  # ended by the cancel while held, nothing more streamed
