"""Candidate rows become files and byte ranges in numpy (:mod:`sleuth.engine.index.rowmap`): checked
against a row-by-row reference, and a row map patched by every put and remove against one built anew."""

from __future__ import annotations

import bisect
import sqlite3

import numpy as np
from hypothesis import given, settings, strategies as st

from sleuth.engine.index import store
from sleuth.engine.index.catalogue import Catalogue, FileRecord, Indexed
from sleuth.engine.index.rowmap import RowMap, SpanColumns, files_and_spans, gather, join


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


@st.composite
def shards(draw: st.DrawFn) -> list[FileRecord]:
    """Files of one shard: consecutive row blocks, some rows garbage (a replaced version's) between them."""
    records, row = [], draw(st.integers(0, 3))
    for fid in range(1, draw(st.integers(1, 8)) + 1):
        gaps = draw(st.lists(st.integers(1, 40), max_size=6))
        offsets = tuple(sum(gaps[:i + 1]) * 100 for i in range(len(gaps)))
        lines = tuple(sum(gaps[:i + 1]) * 3 for i in range(len(gaps)))
        size = (offsets[-1] if offsets else 0) + 10
        records.append(FileRecord(size, 1, row, offsets, lines=lines, id=fid, path=f"/r/{fid}", display=str(fid), shard=0))
        row += len(offsets) + 1 + draw(st.integers(0, 2))
    return records


@settings(deadline=None)
@given(shards(), st.data())
def test_files_and_spans_equal_the_row_by_row_reference(records: list[FileRecord], data: st.DataObject) -> None:
    live = [row for rec in records for row in rec.rows]
    garbage = [row for row in range(max(live) + 3) if row not in live]
    rows = sorted(data.draw(st.sets(st.sampled_from(live + garbage), min_size=1)))
    files, spans = files_and_spans(join([gather(RowMap.of(records), np.array(rows, np.uint32))]))
    hit = {rec.id: [r for r in rows if r in rec.rows] for rec in records}
    assert files == [rec.id for rec in records if hit[rec.id]]  # row order, which is file order here
    assert _as_dict(spans) == {rec.id: _reference(rec, hit[rec.id]) for rec in records
                               if hit[rec.id] and len(hit[rec.id]) < len(rec.rows)}  # only partly candidate files


def _as_dict(spans: SpanColumns) -> dict[int, tuple[tuple[tuple[int, int], ...], tuple[int, ...]]]:
    out, at = {}, 0
    for fid, count in zip(spans.fids.tolist(), spans.count.tolist()):
        ranges = tuple(zip(spans.start[at:at + count].tolist(), spans.end[at:at + count].tolist()))
        out[fid] = (ranges, tuple(spans.before[at:at + count].tolist()))
        at += count
    assert at == len(spans.start) == len(spans.end) == len(spans.before)
    return out


def test_no_rows_no_files() -> None:
    for hits in (join([gather(RowMap(), np.empty(0, np.uint32))]), join([])):
        files, spans = files_and_spans(hits)
        assert files == [] and _as_dict(spans) == {}


operation = st.tuples(st.sampled_from(["put", "remove", "search"]), st.sampled_from(["a", "b", "c/d", "e"]),
                      st.lists(st.integers(1, 30), max_size=4))


@settings(deadline=None)
@given(st.lists(operation, max_size=30))
def test_a_patched_row_map_equals_one_built_anew(ops: list[tuple[str, str, list[int]]]) -> None:
    conn = sqlite3.connect(":memory:")
    store.create_catalog(conn)
    cat = Catalogue(1)
    next_row = 0
    for op, name, gaps in ops:
        if op == "put":  # an update gives the new version fresh rows above every earlier one
            offsets = tuple(sum(gaps[:i + 1]) * 10 for i in range(len(gaps)))
            lines = tuple(range(1, len(offsets) + 1))
            cat.put(conn, None, "/r/" + name, name, 0, Indexed(1000, 1, next_row, offsets, lines=lines))
            next_row += len(offsets) + 1
        elif op == "remove":
            cat.remove(conn, "/r/" + name)
        else:
            cat.row_map(0)  # a search builds the map; later changes patch it
        patched, fresh = cat.row_map(0), RowMap.of(list(cat.by_id.values()))
        rows = np.arange(next_row + 2)
        assert patched.owners(rows).tolist() == fresh.owners(rows).tolist()
        live = rows[fresh.owners(rows) > 0]
        for name_ in ("start", "end", "before", "chunks"):
            assert getattr(patched, name_)[live].tolist() == getattr(fresh, name_)[live].tolist(), name_
    assert cat.live_rows == sum(len(r.rows) for r in cat.by_id.values())
