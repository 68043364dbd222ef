"""The index's load and catch-up wait while a person's search runs (issue 14.2: the first grep
during a store load must run at cold speed; measured, not asserted here: ``bench/first_query.py``)."""

from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from sleuth.engine import foreground
from tests.fixtures import context, index_service, poll_until


def test_yield_returns_at_once_without_a_search() -> None:
    before = foreground.yields()
    foreground.yield_to_searches(patience=60)
    assert foreground.yields() == before


def test_yield_waits_for_the_search_and_resumes_when_it_ends() -> None:
    release, held = threading.Event(), threading.Event()

    def search() -> None:
        with foreground.searching():
            held.set()
            release.wait(30)

    searcher = threading.Thread(target=search)
    searcher.start()
    assert held.wait(10)
    before = foreground.yields()
    upkeep = threading.Thread(target=foreground.yield_to_searches, kwargs={"patience": 60})
    upkeep.start()
    assert poll_until(lambda: foreground.yields() > before)
    assert upkeep.is_alive()  # still waiting: the search holds it (its patience is a minute)
    release.set()
    upkeep.join(10)
    searcher.join(10)
    assert not upkeep.is_alive() and foreground.active() == 0


def test_yield_gives_up_when_stopped() -> None:
    with foreground.searching():
        foreground.yield_to_searches(lambda: True, patience=60)  # returns: the upkeep was cancelled


def test_store_load_waits_while_a_search_runs(tmp_path: Path, kit: SimpleNamespace,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    kit.write_tree(root, {f"d{i}/f{j}.txt": f"needle {i} {j}\n" for i in range(3) for j in range(5)})
    kit.start(root, cache).stop()  # a complete store to load
    monkeypatch.setattr(foreground, "PATIENCE_S", 60.0)
    before = foreground.yields()
    service = index_service(root, cache)
    release = threading.Event()
    held = threading.Event()

    def search() -> None:
        with foreground.searching():
            held.set()
            release.wait(60)

    searcher = threading.Thread(target=search)
    searcher.start()
    try:
        assert held.wait(10)
        service.start()
        assert poll_until(lambda: foreground.yields() > before), "the load never yielded to the search"
        assert not service.ready and service.status()["state"] == "loading"
        release.set()
        assert service.wait_ready(60), service.status()
        assert service.status()["files"] == 15
    finally:
        release.set()
        searcher.join(10)
        service.stop()


def test_a_grep_marks_itself_while_it_runs(tmp_path: Path) -> None:
    """What the index waits for: a grep is a foreground search from its first file to its answer."""
    from sleuth.commands.args import parse_args
    from sleuth.commands.grep import GREP_ARGS, build_request
    from sleuth.engine.cancel import CancelToken
    from sleuth.engine.grep import run_grep

    root = tmp_path / "ws"
    root.mkdir()
    for n in range(5):
        (root / f"f{n}.txt").write_text(f"needle {n}\n")
    ctx = context(root)
    request = build_request(parse_args("sleuth.grep", {"pattern": "needle"}, GREP_ARGS, ctx.settings), ctx)
    seen: list[int] = []
    outcome = run_grep(ctx.workspace, request, CancelToken(), sink=lambda batch: seen.append(foreground.active()))
    assert seen and min(seen) >= 1
    assert foreground.active() == 0
    assert outcome is not None
