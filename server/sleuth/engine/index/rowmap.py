"""Chunk rows as arrays: which file owns each row of a shard, and where in that file the chunk lies.

A line-mode candidate query ends as a sorted array of chunk rows: thousands of them for a
case-insensitive literal, most in a few big generated headers. Turning them into files and byte
ranges row by row in Python (a dict lookup per row, a sorted list per file) cost the Linux tree's
``-i`` alternation ~20 ms of the ~45 ms its candidates took, on the path of every search, before any
worker could start. With per-row arrays it is a few numpy calls, and Python touches each candidate
*file* once.

A row belongs to one version of one file: a file's chunks get consecutive rows, and an update gives
the new version fresh rows above every earlier one (the old rows become garbage, owner 0). So the
live rows of a sorted row array come grouped by file, each file's rows ascending.
"""

from __future__ import annotations

from itertools import chain
from typing import TYPE_CHECKING, Iterable, NamedTuple, Sequence

import numpy as np

if TYPE_CHECKING:
    from sleuth.engine.index.catalogue import FileRecord

__all__ = ["RowMap", "RowHits", "Spans", "gather", "join", "files_and_spans"]

Spans = tuple[tuple[tuple[int, int], ...], tuple[int, ...]]  # byte ranges [start, end) (end -1: EOF), newlines before each


class RowMap:
    """Per-row arrays of one shard: owning file id (0: no live file), the chunk's byte ``start`` and
    ``end`` in that file (-1: end of file), the newlines ``before`` it, and how many ``chunks`` the
    file has. Kept current by the catalogue as files are put and removed (under the service lock)."""

    __slots__ = ("fid", "start", "end", "before", "chunks")

    def __init__(self, capacity: int = 0) -> None:
        self.fid = np.zeros(capacity, np.uint32)
        self.start = np.zeros(capacity, np.int64)
        self.end = np.zeros(capacity, np.int64)
        self.before = np.zeros(capacity, np.int64)
        self.chunks = np.zeros(capacity, np.uint32)

    @classmethod
    def of(cls, records: Sequence[FileRecord]) -> "RowMap":
        """The map of these records (one shard's), built in bulk: a few list joins and scatters."""
        indexed = [r for r in records if r.first_row >= 0]
        firsts = np.array([r.first_row for r in indexed], np.int64)
        counts = np.array([len(r.offsets) + 1 for r in indexed], np.int64)
        found = cls(int((firsts + counts).max()) if len(indexed) else 0)
        if not indexed:
            return found
        # Row numbers: first_row + 0, 1, ... per record, as one vector.
        within = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        rows = np.repeat(firsts, counts) + within
        found.fid[rows] = np.repeat(np.array([r.id for r in indexed], np.uint32), counts)
        found.chunks[rows] = np.repeat(counts, counts)
        found.start[rows] = np.fromiter(chain.from_iterable((0, *r.offsets) for r in indexed), np.int64, len(rows))
        found.end[rows] = np.fromiter(chain.from_iterable((*r.offsets, -1) for r in indexed), np.int64, len(rows))
        found.before[rows] = np.fromiter(chain.from_iterable((0, *r.lines) if len(r.lines) == len(r.offsets)
                                                             else (0,) * (len(r.offsets) + 1) for r in indexed),
                                         np.int64, len(rows))
        return found

    def put(self, rec: FileRecord) -> None:
        if rec.first_row < 0:
            return
        n = len(rec.offsets) + 1
        low, high = rec.first_row, rec.first_row + n
        if high > len(self.fid):
            self._grow(high)
        self.fid[low:high] = rec.id
        self.chunks[low:high] = n
        self.start[low:high] = (0, *rec.offsets)
        self.end[low:high] = (*rec.offsets, -1)
        self.before[low:high] = (0, *rec.lines) if len(rec.lines) == len(rec.offsets) else 0

    def clear(self, rec: FileRecord) -> None:
        if rec.first_row < 0:
            return
        low, high = rec.first_row, min(rec.first_row + len(rec.offsets) + 1, len(self.fid))
        mine = self.fid[low:high] == rec.id  # rows are never reused, but check: clearing must not unmap another file
        self.fid[low:high][mine] = 0

    def _grow(self, needed: int) -> None:
        size = max(needed, 2 * len(self.fid), 1 << 12)
        for name in self.__slots__:
            old = getattr(self, name)
            new = np.zeros(size, old.dtype)
            new[:len(old)] = old
            setattr(self, name, new)

    def owners(self, rows: Iterable[int]) -> np.ndarray:
        """The owning file id of each row (0: garbage, or past the end)."""
        rows = np.asarray(rows if isinstance(rows, np.ndarray) else list(rows), np.int64)
        inside = rows < len(self.fid)
        out = np.zeros(len(rows), np.uint32)
        out[inside] = self.fid[rows[inside]]
        return out


class RowHits(NamedTuple):
    """Live candidate rows grouped by file, each with its chunk's facts (see :class:`RowMap`)."""

    fids: np.ndarray
    rows: np.ndarray
    chunks: np.ndarray
    start: np.ndarray
    end: np.ndarray
    before: np.ndarray


def gather(rowmap: RowMap, rows: np.ndarray) -> RowHits:
    """The live ones among ``rows`` (sorted, distinct: one shard's) with their chunks' facts."""
    rows = rows.astype(np.int64)
    fids = rowmap.owners(rows)
    live = np.flatnonzero(fids)
    rows = rows[live]
    return RowHits(fids[live], rows, rowmap.chunks[rows], rowmap.start[rows], rowmap.end[rows], rowmap.before[rows])


def join(parts: Sequence[RowHits]) -> RowHits:
    """Hits of several shards as one (file ids are disjoint between shards, so grouping holds)."""
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return RowHits(*(np.empty(0, t) for t in (np.uint32, np.int64, np.uint32, np.int64, np.int64, np.int64)))
    return RowHits(*(np.concatenate(column) for column in zip(*parts)))


def files_and_spans(hits: RowHits) -> tuple[list[int], dict[int, Spans]]:
    """The candidate files (grouping order) and, for each file only some of whose chunks are
    candidates, those chunks' byte ranges (adjacent ones merged) and the newlines before each."""
    n = len(hits.fids)
    if not n:
        return [], {}
    run_start = np.flatnonzero(np.concatenate(([True], hits.fids[1:] != hits.fids[:-1])))
    run_len = np.diff(np.append(run_start, n))
    file_ids = hits.fids[run_start]
    partial = run_len < hits.chunks[run_start]
    if not partial.any():
        return file_ids.tolist(), {}
    picked = np.flatnonzero(np.repeat(partial, run_len))
    run_of = np.repeat(np.arange(len(run_start)), run_len)[picked]
    rows = hits.rows[picked]
    opens = np.ones(len(rows), np.bool_)  # a range opens at a run's first row or after a gap in the rows
    opens[1:] = (rows[1:] != rows[:-1] + 1) | (run_of[1:] != run_of[:-1])
    first = np.flatnonzero(opens)
    last = np.append(first[1:], len(rows)) - 1
    pairs = list(zip(hits.start[picked[first]].tolist(), hits.end[picked[last]].tolist()))
    before = hits.before[picked[first]].tolist()
    per_file = np.bincount(run_of[first], minlength=len(run_start))[partial].tolist()
    spans: dict[int, Spans] = {}
    at = 0
    for fid, k in zip(file_ids[partial].tolist(), per_file):
        spans[fid] = (tuple(pairs[at:at + k]), tuple(before[at:at + k]))
        at += k
    return file_ids.tolist(), spans
