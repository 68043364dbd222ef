"""The collector's settings for a process that serves searches (``engine/heap.py``, issue 32 item 4).

A 20,000-line answer is ~60,000 short-lived objects (typed events, then items): with CPython's default
young threshold of 700 the collector's walks cost a third of the search's CPU (bench/big_answers.py;
the module's docstring has the figures). A server session raises the threshold (tests/core/test_session_jobs.py),
never lowers it."""

from __future__ import annotations

import gc
from typing import Iterator

import pytest

from sleuth.engine import heap


@pytest.fixture
def default_collector() -> Iterator[None]:
    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        yield
    finally:
        gc.set_threshold(*saved)


def test_tune_never_lowers_a_threshold_or_turns_the_collector_on(default_collector: None) -> None:
    gc.set_threshold(heap.YOUNG_THRESHOLD * 2, 5, 5)
    heap.tune()
    assert gc.get_threshold() == (heap.YOUNG_THRESHOLD * 2, 5, 5)
    gc.set_threshold(0, 10, 10)  # threshold 0: the person's own choice of no automatic collection
    heap.tune()
    assert gc.get_threshold() == (0, 10, 10)
