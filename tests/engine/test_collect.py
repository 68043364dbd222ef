"""Collecting: exact +1 truncation, event counting and streaming only final items."""

from __future__ import annotations

from hypothesis import given, strategies as st

from sleuth.engine.collect import Collector
from sleuth.engine.events import End, GrepEvent, Match, to_items
from sleuth.engine.search import FileResult


def result(path: str, n: int) -> FileResult:
    events: list = [Match(path, i + 1, "x") for i in range(n)]
    return FileResult(path, events=events, matched_lines=n)


@given(st.lists(st.integers(min_value=0, max_value=5), max_size=10), st.integers(min_value=1, max_value=12))
def test_truncated_is_exact(sizes: list[int], limit: int):
    collector = Collector(limit)
    for i, n in enumerate(sizes):
        if not collector.add(result(f"f{i}", n)):
            break
    total = sum(sizes)
    assert collector.truncated == (total > limit)
    assert len(collector.items) == min(total, limit)


def test_sink_receives_items_in_order_and_never_the_extra_one():
    sent: list[GrepEvent] = []
    collector = Collector(3, sink=sent.extend)
    collector.add(result("a", 2))
    collector.flush()
    collector.add(result("b", 2))
    collector.flush()
    assert [(e.path, e.line) for e in sent] == [("a", 1), ("a", 2), ("b", 1)]
    assert collector.truncated and collector.streamed == 3


def test_files_with_matches_and_count_outputs():
    files = Collector(10, output="files_with_matches")
    files.add(FileResult("a", matched_lines=3))
    assert files.items == [End("a", None, True)]
    assert to_items(files.items, "files_with_matches") == [{"type": "file", "path": "a"}]
    counts = Collector(10, output="count")
    counts.add(FileResult("a", matched_lines=3))
    assert counts.items == [End("a", 3, True)]
    assert to_items(counts.items, "count") == [{"type": "count", "path": "a", "count": 3}]
