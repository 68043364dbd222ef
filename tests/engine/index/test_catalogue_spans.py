"""A record's candidate chunks become byte ranges and first line numbers (what the searcher reads)."""

from __future__ import annotations

import bisect

from hypothesis import given, strategies as st

from sleuth.engine.index.catalogue import FileRecord


def _reference(rec: FileRecord, rows: list[int]) -> tuple[tuple[tuple[int, int], ...], tuple[int, ...]]:
    """Chunk by chunk, then adjacent ranges merged; lines looked up by offset."""
    ranges: list[tuple[int, int]] = []
    for row in sorted(rows):
        k = row - rec.first_row
        start = rec.offsets[k - 1] if k else 0
        end = rec.offsets[k] if k < len(rec.offsets) else -1
        if ranges and ranges[-1][1] == start:
            ranges[-1] = (ranges[-1][0], end)
        else:
            ranges.append((start, end))
    before = tuple(rec.lines[bisect.bisect_left(rec.offsets, s)] if s else 0 for s, _ in ranges)
    return tuple(ranges), before


@given(st.lists(st.integers(1, 50), max_size=12), st.integers(0, 1000), st.data())
def test_spans_merge_adjacent_chunks_and_carry_their_first_lines(gaps: list[int], first_row: int, data) -> None:
    offsets = tuple(sum(gaps[:i + 1]) * 100 for i in range(len(gaps)))
    lines = tuple(sum(gaps[:i + 1]) * 3 for i in range(len(gaps)))
    rec = FileRecord(1, "/r/f", "f", (offsets[-1] if offsets else 0) + 10, 1, 0, first_row, offsets, lines=lines)
    chunks = list(range(first_row, first_row + len(offsets) + 1))
    rows = data.draw(st.lists(st.sampled_from(chunks), min_size=1, unique=True))
    assert rec.spans(rows) == _reference(rec, rows)
