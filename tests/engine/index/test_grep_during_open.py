"""A grep sent while a restarted server opens its store waits for the open and answers from the
index, with every file changed while no server ran read from disk: rg's answer (issue 34).

The open is held between reading the store and catching up (the test gate
``SLEUTH_TEST_CATCH_UP_GATE``), so the grep provably arrives during it; no sleeps, no timed asserts.
A build is never waited for: that case is ``tests/lsp/test_first_query.py``'s (the scan answers).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from sleuth.commands import get_command
from sleuth.engine.index import freshness
from sleuth.engine.test_gates import CATCH_UP_GATE_ENV
from tests.conftest import HANG_S
from tests.diff.rg import needs_rg, rg_events
from tests.fixtures import started_index
from tests.engine.index.test_restart_freshness import _tree
from tests.fixtures import context, index_service

FILES = 40


def _until(condition: Any) -> bool:
    deadline = time.monotonic() + HANG_S
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


@needs_rg
def test_a_grep_during_the_open_waits_and_answers_from_the_index(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(freshness, "RACY_NS", 0)  # (seconds-old folders: else every one is listed again)
    root, cache = tmp_path / "ws", tmp_path / "cache"
    root.mkdir()
    _tree(root)
    for n in range(FILES):
        (root / f"many/f{n}.txt").parent.mkdir(exist_ok=True)
        (root / f"many/f{n}.txt").write_text(f"haystack {n}\n")
    started_index(root, cache).stop()
    (root / "b.c").write_text("haystack\nNEEDLE_A written while no server ran\n")  # changed while down
    (root / "many/f7.txt").write_text("NEEDLE_A\n")
    gate = tmp_path / "gate"
    gate.write_text("held\n")
    monkeypatch.setenv(CATCH_UP_GATE_ENV, str(gate))
    service = index_service(root, cache)
    answers: list[dict[str, Any]] = []
    try:
        service.start()
        assert _until(lambda: service.state.cat is not None)  # the store is open; its catch-up is held
        ctx = context(service.workspace, index=service)
        grep = threading.Thread(target=lambda: answers.append(
            get_command("sleuth.grep")({"pattern": "NEEDLE_A", "max_results": 1000}, ctx)))
        grep.start()
        assert _until(lambda: service.state.open_waiters == 1), "the grep did not wait for the open"
        assert service.status()["state"] == "loading" and not answers
        gate.unlink()
        grep.join(HANG_S)
        assert answers, "the grep never answered"
    finally:
        gate.unlink(missing_ok=True)
        service.stop()
    (answer,) = answers
    expected = sorted((path, line) for kind, path, line in rg_events(root, "NEEDLE_A") if kind == "match")
    assert sorted((m["path"], m["line"]) for m in answer["matches"] if m["type"] == "match") == expected
    assert len(expected) == 4  # a.txt, d/f/g.txt... and the two files changed while down
    assert answer["files_scanned"] < FILES  # the index's candidates, not the whole tree


def test_a_search_waiting_for_the_open_is_not_in_its_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The open yields to a person's search (:mod:`sleuth.engine.foreground`). A grep is one from its
    first step (``core/policy.py``), so while it waits for the open it lifts its mark: else the open
    would wait for the very grep that waits for it (a second per step, measured on the Linux tree)."""
    from sleuth.engine import foreground

    root, cache = tmp_path / "ws", tmp_path / "cache"
    root.mkdir()
    _tree(root)
    started_index(root, cache).stop()
    gate = tmp_path / "gate"
    gate.write_text("held\n")
    monkeypatch.setenv(CATCH_UP_GATE_ENV, str(gate))
    service = index_service(root, cache)
    answers: list[dict[str, Any]] = []
    marked_after: list[int] = []

    def search() -> None:
        with foreground.searching():
            answers.append(get_command("sleuth.grep")({"pattern": "NEEDLE_A", "max_results": 1000}, ctx))
            marked_after.append(foreground.active())

    try:
        service.start()
        assert _until(lambda: service.state.cat is not None)
        ctx = context(service.workspace, index=service)
        grep = threading.Thread(target=search)
        grep.start()
        assert _until(lambda: service.state.open_waiters == 1), "the grep did not wait for the open"
        # (still waiting: the grep gives up after OPEN_WAIT_S, and its end alone lifts the mark too)
        assert _until(lambda: foreground.active() == 0 and service.state.open_waiters == 1), \
            "the grep waiting for the open held it back"
        gate.unlink()
        grep.join(HANG_S)
        assert answers and marked_after == [1]  # its mark is back once the wait ended
    finally:
        gate.unlink(missing_ok=True)
        service.stop()
