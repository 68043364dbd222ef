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
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping, NamedTuple, Sequence

import numpy as np

from sleuth.engine.pieces import Pieces, pack, unpack

if TYPE_CHECKING:
    from sleuth.engine.index.catalogue import FileRecord

__all__ = ["RowMap", "RowHits", "ranges_of", "SpanColumns", "PieceTable", "gather", "join", "files_and_spans"]


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
        chunked = [r for r in indexed if r.offsets]
        size = sum(len(r.offsets) for r in chunked)
        return cls.of_columns(np.array([r.id for r in indexed], np.int64),
                              np.array([r.first_row for r in indexed], np.int64),
                              np.array([len(r.offsets) + 1 for r in indexed], np.int64),
                              np.fromiter(chain.from_iterable(r.offsets for r in chunked), np.int64, size),
                              np.fromiter(chain.from_iterable(r.lines if len(r.lines) == len(r.offsets)
                                                              else (0,) * len(r.offsets) for r in chunked),
                                          np.int64, size))

    @classmethod
    def of_columns(cls, ids: np.ndarray, firsts: np.ndarray, counts: np.ndarray, offsets: np.ndarray,
                   lines: np.ndarray) -> "RowMap":
        """The map of indexed files given as columns (id, first row, chunks), and the chunk boundaries
        of the files of more than one chunk, flat in the same order (``offsets``: where each chunk after
        the first starts; ``lines``: the newlines before it, 0 where unknown): what :meth:`of` computes
        from records, without needing a record of any file (:mod:`sleuth.engine.index.lazy_catalogue`)."""
        found = cls(int((firsts + counts).max()) if len(ids) else 0)
        if not len(ids):
            return found
        # Row numbers: first_row + 0, 1, ... per file, as one vector.
        within = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        rows = np.repeat(firsts, counts) + within
        found.fid[rows] = np.repeat(ids.astype(np.uint32), counts)
        found.chunks[rows] = np.repeat(counts, counts)
        # A one-chunk file (most: up to 16 KiB) is start 0, end -1, no line before: set for all at once,
        # then the chunked files' boundaries, scattered from the flat columns.
        found.end[firsts] = -1
        multi = counts > 1
        per, first = counts[multi], firsts[multi]
        total = int(per.sum())
        if total:
            heads = np.cumsum(per) - per  # each chunked file's first chunk, in the flat order
            spans = np.repeat(first, per) + (np.arange(total) - np.repeat(heads, per))
            later = np.ones(total, np.bool_)  # the chunks after a file's first: each starts at an offset
            later[heads] = False
            earlier = np.ones(total, np.bool_)  # the chunks before a file's last: each ends at an offset
            earlier[heads + per - 1] = False
            start, end, before = np.zeros(total, np.int64), np.full(total, -1, np.int64), np.zeros(total, np.int64)
            start[later], end[earlier], before[later] = offsets, offsets, lines
            found.start[spans], found.end[spans], found.before[spans] = start, end, before
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


class SpanColumns(NamedTuple):
    """The files only some of whose chunks are candidates (``fids``, in grouping order), how many
    byte ranges each has (``count``: adjacent candidate chunks merged), and the ranges themselves,
    flat in the same order: ``start``, ``end`` (-1: end of file) and the newlines ``before`` each."""

    fids: np.ndarray
    count: np.ndarray
    start: np.ndarray
    end: np.ndarray
    before: np.ndarray


def files_and_spans(hits: RowHits) -> tuple[list[int], SpanColumns]:
    """The candidate files (grouping order) and, as columns, the candidate byte ranges of those
    only some of whose chunks are candidates."""
    n = len(hits.fids)
    if not n:
        return [], _NO_SPANS
    run_start = np.flatnonzero(np.concatenate(([True], hits.fids[1:] != hits.fids[:-1])))
    run_len = np.diff(np.append(run_start, n))
    file_ids = hits.fids[run_start]
    partial = run_len < hits.chunks[run_start]
    if not partial.any():
        return file_ids.tolist(), _NO_SPANS
    picked = np.flatnonzero(np.repeat(partial, run_len))
    run_of = np.repeat(np.arange(len(run_start)), run_len)[picked]
    rows = hits.rows[picked]
    opens = np.ones(len(rows), np.bool_)  # a range opens at a run's first row or after a gap in the rows
    opens[1:] = (rows[1:] != rows[:-1] + 1) | (run_of[1:] != run_of[:-1])
    first = np.flatnonzero(opens)
    last = np.append(first[1:], len(rows)) - 1
    count = np.bincount(run_of[first], minlength=len(run_start))[partial]
    spans = SpanColumns(file_ids[partial].astype(np.int64), count.astype(np.int64), hits.start[picked[first]],
                        hits.end[picked[last]], hits.before[picked[first]])
    return file_ids.tolist(), spans


_NO_SPANS = SpanColumns(*(np.empty(0, np.int64) for _ in range(5)))


class PieceTable:
    """The index's :class:`~sleuth.engine.pieces.Pieces` of some files of a candidate list, by
    position in the list, as columns: ascending ``positions`` with each file's ``size``, ``mtime_ns``
    and range ``count``, ranges flat from ``first[k]`` in ``start``/``end``/``before``. A pool unit's
    share is sliced out as one packed blob (:meth:`blob`, :func:`sleuth.engine.pieces.pack`), so a search never
    makes an object per narrowed file on the server (an ``-i PM_RESUME`` search narrows ~1,300)."""

    __slots__ = ("positions", "size", "mtime_ns", "count", "first", "start", "end", "before")

    def __init__(self, positions: np.ndarray, size: np.ndarray, mtime_ns: np.ndarray, count: np.ndarray,
                 start: np.ndarray, end: np.ndarray, before: np.ndarray) -> None:
        """Columns in any order of ``positions`` (distinct); ranges flat in that order."""
        order = np.argsort(positions, kind="stable")
        take = ranges_of(np.cumsum(count)[order] - count[order], count[order])
        count = count[order]
        self.positions = positions[order].astype(np.int64)
        self.size, self.mtime_ns, self.count = size[order].astype(np.int64), mtime_ns[order].astype(np.int64), count
        self.first = np.concatenate(([0], np.cumsum(count))).astype(np.int64)
        self.start, self.end, self.before = (column[take].astype(np.int64) for column in (start, end, before))

    def __len__(self) -> int:
        return len(self.positions)

    def items(self) -> Iterator[tuple[int, Pieces]]:
        """``(position, pieces)`` in position order."""
        return iter(unpack(self.blob(0, int(self.positions[-1]) + 1)).items()) if len(self) else iter(())

    def blob(self, low: int, high: int) -> bytes:
        """The pieces of positions ``low`` to ``high`` (excluded), keyed from ``low``, in the packed form
        :func:`sleuth.engine.pieces.pack` gives."""
        i, j = np.searchsorted(self.positions, (low, high)).tolist()
        a, b = int(self.first[i]), int(self.first[j])
        return pack((self.positions[i:j] - low, self.size[i:j], self.mtime_ns[i:j], self.count[i:j]),
                    (self.start[a:b], self.end[a:b], self.before[a:b]))

    def take(self, kept: Sequence[int]) -> "PieceTable":
        """The table after the list keeps only the files at positions ``kept`` (ascending), renumbered."""
        kept_at = np.asarray(kept, np.int64)
        where = np.searchsorted(kept_at, self.positions)
        inside = where < len(kept_at)
        inside[inside] = kept_at[where[inside]] == self.positions[inside]
        rows = np.flatnonzero(inside)
        take = ranges_of(self.first[rows], self.count[rows])
        return PieceTable(where[rows], self.size[rows], self.mtime_ns[rows], self.count[rows],
                          self.start[take], self.end[take], self.before[take])

    def moved(self, new_positions: Mapping[int, int]) -> "PieceTable":
        """The table with each position ``p`` renumbered ``new_positions[p]`` (an order-keeping map)."""
        return PieceTable(np.array([new_positions[p] for p in self.positions.tolist()], np.int64), self.size,
                          self.mtime_ns, self.count, self.start, self.end, self.before)


def ranges_of(first: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Indexes into flat range columns of the groups starting at ``first`` with ``count`` ranges each,
    group after group: one gather instead of a slice per group."""
    return np.repeat(first - (np.cumsum(count) - count), count) + np.arange(int(count.sum()))
