"""The in-memory file catalogue: every indexed file with its size, mtime and chunk rows.

Read from ``catalog.db`` when a store is opened (as a :class:`~sleuth.engine.index.lazy_catalogue.LazyCatalogue`:
records made on first use), it answers "which file owns chunk row N" for candidate queries, "has
this file changed" for catch-up (size/mtime, no re-reading) and the file list for fuzzy Quick-Open
without touching the disk.
"""

from __future__ import annotations

import bisect
import os
import sqlite3
import sys
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Mapping

import numpy as np

from sleuth.engine.index.rowmap import RowMap
from sleuth.engine.types import FileEntry
from sleuth.engine.workspace import sort_key

__all__ = ["Indexed", "FileRecord", "Catalogue", "FETCH_BATCH"]

FETCH_BATCH = 4096  # catalogue rows read between two yields to searches
ORDER_ALONE_IDS = 5000  # up to this many ids are sorted by their own keys while no catalogue order is cached


@dataclass(slots=True)
class Indexed:
    """What the index learnt of one file's content (the builder's answer). ``first_row`` -1 = unreadable
    or too large (always a candidate). Not changed once made."""

    size: int
    mtime_ns: int
    first_row: int
    offsets: tuple[int, ...]  # chunk start offsets after the first (empty: one chunk)
    error: str | None = None
    # The text may end in a two-character literal (no final newline, so no trigram follows it), or holds
    # a NUL: trigrams cannot rule out such a literal (see trigram.pair_spellings), so the file is its candidate.
    wide: bool = False
    lines: tuple[int, ...] = ()  # newlines before each of ``offsets``: a chunk's first line number, minus one
    plain: bool = False  # no NUL, BOM or UTF-16: the bytes on disk are the indexed text, so chunks may be read alone


@dataclass(slots=True, kw_only=True)
class FileRecord(Indexed):
    """A catalogued file: what was indexed of it, and which file it is (id, paths, shard)."""

    id: int
    path: str
    display: str
    shard: int

    @property
    def indexed(self) -> bool:
        return self.first_row >= 0

    @property
    def rows(self) -> range:
        return range(self.first_row, self.first_row + 1 + len(self.offsets)) if self.first_row >= 0 else range(0)

    def entry(self) -> FileEntry:
        return FileEntry(self.path, self.display, self.size, self.mtime_ns / 1e9)


class Catalogue:
    """Files by id and by path, plus per-shard row maps (:class:`RowMap`). Not thread-safe: the service locks."""

    def __init__(self, shards: int) -> None:
        self.by_id: dict[int, FileRecord] = {}
        self.by_path: dict[str, FileRecord] = {}
        self.live_rows = 0  # chunk rows of the current versions (the rest of a shard's rows are garbage)
        self._row_maps: list[RowMap | None] = [None] * shards  # built on first use, then kept current
        self.shard_bytes = [0] * shards
        self.next_id = 1
        self.unindexed_ids: set[int] = set()
        self.wide_ids: set[int] = set()
        # Derived views, built on first use and then kept current by put/remove (a saved file must not
        # cost the next search a re-sort of 78,000 paths: ~0.2 s). Lists are replaced, never changed
        # in place: a search may still be reading the one it was handed.
        self._sorted: list[FileRecord] | None = None
        self._keys: list[bytes] | None = None  # sort keys of _sorted, for placing a new file
        self._entries: list[FileEntry] | None = None
        self._order: dict[int, int] | None = None
        self._entry_by_id: dict[int, FileEntry] | None = None
        self._largest: int | None = None
        self._rank: tuple[dict[int, int], np.ndarray] | None = None  # order() as an array, and the dict it is of

    # -- loading and persistence ------------------------------------------------------------
    COLUMNS = "id, path, display, size, mtime_ns, shard, first_row, offsets, wide, lines, plain"

    @classmethod
    def fetch(cls, conn: sqlite3.Connection, pause: Callable[[], None] = lambda: None) -> list[tuple[object, ...]]:
        """Every stored row, in one read: what :meth:`from_rows` and
        :func:`~sleuth.engine.index.lazy_catalogue.lazy_catalogue` take (a caller that must see the rows
        a freshness check saw reads them once for both). ``pause`` is called between batches of rows:
        a server's open yields to searches there (:func:`sleuth.engine.foreground.yield_to_searches`)."""
        cursor = conn.execute(f"SELECT {cls.COLUMNS} FROM files")
        rows: list[tuple[object, ...]] = []
        while batch := cursor.fetchmany(FETCH_BATCH):
            rows.extend(batch)
            pause()
        return rows

    @classmethod
    def from_rows(cls, rows: list[tuple[object, ...]], shards: int) -> "Catalogue":
        """The catalogue of rows :meth:`fetch` read, every record made at once (the lazy one's reference)."""
        return cls._of_batches(iter((rows,)), shards)

    @staticmethod
    def paths_of(rows: list[tuple[object, ...]]) -> list[str]:
        """The fetched rows' paths, decoded (stored as bytes: a name that is not UTF-8 round-trips).
        In one call, joined by NUL (no path holds one): a decode per path cost the open of the Linux
        tree's store 0.13 s, this ~0.01 s."""
        raw = [r[1] for r in rows]
        try:
            joined = b"\0".join(raw)  # type: ignore[arg-type]
        except TypeError:  # a store that held some paths as text
            return [p if isinstance(p, str) else os.fsdecode(p) for p in raw]  # type: ignore[arg-type]
        text = joined.decode(sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())
        return text.split("\0") if raw else []

    @staticmethod
    def sizes_of(rows: list[tuple[object, ...]], paths: list[str]) -> dict[str, tuple[int, int, bool]]:
        """``path -> (size, mtime_ns, indexed)`` of fetched rows (``paths``: :meth:`paths_of` them):
        what a freshness check compares (:meth:`stat_view`)."""
        if not rows:
            return {}
        _, _, _, sizes, mtimes, _, firsts, *_ = zip(*rows)
        return dict(zip(paths, zip(sizes, mtimes, (f >= 0 for f in firsts))))  # type: ignore[operator]

    @classmethod
    def _of_batches(cls, batches: Iterator[list[tuple[object, ...]]], shards: int) -> "Catalogue":
        """The per-row work is :meth:`_add` inlined (no row map exists yet)."""
        cat = cls(shards)
        by_id, by_path, shard_bytes = cat.by_id, cat.by_path, cat.shard_bytes
        unindexed, wide_ids = cat.unindexed_ids, cat.wide_ids
        encoding, errors = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()
        live = top = 0
        for rows in batches:
            for fid, path, display, size, mtime_ns, shard, first_row, offsets, wide, lines, plain in rows:
                if not isinstance(path, str):  # stored as bytes: a name that is not UTF-8 round-trips
                    path = path.decode(encoding, errors)
                offs = tuple(map(int, offsets.split(","))) if offsets else ()
                counts = tuple(map(int, lines.split(","))) if lines else ()
                rec = FileRecord(size, mtime_ns, first_row, offs, None, bool(wide), counts, bool(plain),
                                 id=fid, path=path, display=display, shard=shard)
                by_id[fid] = rec
                by_path[path] = rec
                shard_bytes[shard] += size
                if fid > top:
                    top = fid
                if first_row >= 0:
                    live += 1 + len(offs)
                else:
                    unindexed.add(fid)
                if wide:
                    wide_ids.add(fid)
        cat.live_rows = live
        cat.next_id = max(cat.next_id, top + 1)
        return cat

    def _invalidate(self) -> None:
        self._sorted = self._keys = self._entries = self._order = self._entry_by_id = self._largest = None

    def _add(self, rec: FileRecord) -> None:
        self.by_id[rec.id] = rec
        self.by_path[rec.path] = rec
        self.live_rows += len(rec.rows)
        row_map = self._row_maps[rec.shard]
        if row_map is not None:
            row_map.put(rec)
        self.shard_bytes[rec.shard] += rec.size
        self.next_id = max(self.next_id, rec.id + 1)
        if not rec.indexed:
            self.unindexed_ids.add(rec.id)
        if rec.wide:
            self.wide_ids.add(rec.id)

    def _drop(self, rec: FileRecord) -> None:
        self.by_id.pop(rec.id, None)
        if self.by_path.get(rec.path) is rec:
            del self.by_path[rec.path]
        self.live_rows -= len(rec.rows)
        row_map = self._row_maps[rec.shard]
        if row_map is not None:
            row_map.clear(rec)
        self.shard_bytes[rec.shard] -= rec.size
        self.unindexed_ids.discard(rec.id)
        self.wide_ids.discard(rec.id)

    INSERT = "INSERT OR REPLACE INTO files VALUES(?,?,?,?,?,?,?,?,?,?,?)"

    @staticmethod
    def row_values(rec: FileRecord) -> tuple[object, ...]:
        return (rec.id, os.fsencode(rec.path), rec.display, rec.size, rec.mtime_ns, rec.shard, rec.first_row,
                ",".join(map(str, rec.offsets)), int(rec.wide), ",".join(map(str, rec.lines)), int(rec.plain))

    def put(self, conn: sqlite3.Connection, fid: int | None, path: str, display: str, shard: int,
            indexed: Indexed) -> FileRecord:
        """Record (insert or replace) a file in memory and in ``conn`` (the caller's transaction)."""
        old = self.by_path.get(path)
        if old is not None:
            self._drop(old)
            fid = old.id if fid is None else fid
        if fid is None:
            fid = self.next_id
        rec = FileRecord(indexed.size, indexed.mtime_ns, indexed.first_row, indexed.offsets, None, indexed.wide,
                         indexed.lines, indexed.plain, id=fid, path=path, display=display, shard=shard)
        conn.execute(self.INSERT, self.row_values(rec))
        self._add(rec)
        if old is not None and old.id == rec.id and old.display == rec.display:
            self._cached_replace(old, rec)
        else:
            if old is not None:
                self._cached_remove(old)
            self._cached_insert(rec)
        return rec

    def remove(self, conn: sqlite3.Connection, path: str) -> FileRecord | None:
        rec = self.by_path.get(path)
        if rec is not None:
            conn.execute("DELETE FROM files WHERE id=?", (rec.id,))
            self._drop(rec)
            self._cached_remove(rec)
        return rec

    def add_loaded(self, rec: FileRecord) -> None:
        """Add a record the caller has already written (full builds insert in bulk)."""
        self._invalidate()
        self._row_maps = [None] * len(self._row_maps)  # rebuilt in bulk on first use, not patched per file
        self._add(rec)

    # -- keeping the derived views current ----------------------------------------------------
    def _position(self, rec: FileRecord) -> int | None:
        """Where ``rec`` stands in the cached result order, or None (no cache, or not there)."""
        if self._sorted is None or self._keys is None:
            return None
        pos = self.order().get(rec.id)  # redone after an insert or removal: the next search wants it too
        return pos if pos is not None and self._sorted[pos] is rec else None

    def _cached_replace(self, old: FileRecord, rec: FileRecord) -> None:
        """A file changed in place (same id and display): same position, new size, mtime and chunks."""
        pos = self._position(old)
        if pos is None:
            self._invalidate()
            return
        self._splice(pos, old, rec)
        self._resize(old.size, rec.size)

    def _cached_insert(self, rec: FileRecord) -> None:
        """A new file, placed by its sort key."""
        if self._sorted is None or self._keys is None:
            self._invalidate()
            return
        key = sort_key(rec.display)
        self._splice(bisect.bisect_right(self._keys, key), None, rec, key)
        self._resize(0, rec.size)

    def _cached_remove(self, rec: FileRecord) -> None:
        pos = self._position(rec)
        if pos is None:
            self._invalidate()
            return
        self._splice(pos, rec, None)
        self._resize(rec.size, 0)

    def _splice(self, pos: int, leaving: FileRecord | None, coming: FileRecord | None,
                key: bytes | None = None) -> None:
        """Put ``coming`` where ``leaving`` stood at ``pos`` in the cached lists (either may be None: an
        insert, with the new sort ``key``, or a removal). New lists, never edited in place."""
        assert self._sorted is not None and self._keys is not None
        drop, new = (1 if leaving is not None else 0), ((coming,) if coming is not None else ())
        self._sorted = [*self._sorted[:pos], *new, *self._sorted[pos + drop:]]
        if (leaving is None) != (coming is None):  # one file more or less: keys and positions move
            self._keys = [*self._keys[:pos], *((key,) if key is not None else ()), *self._keys[pos + drop:]]
            self._order = None
        if self._entries is not None:
            entries = (coming.entry(),) if coming is not None else ()
            self._entries = [*self._entries[:pos], *entries, *self._entries[pos + drop:]]
        if self._entry_by_id is not None:
            for record in (leaving, coming):
                if record is not None:
                    self._entry_by_id.pop(record.id, None)

    def _resize(self, before: int, after: int) -> None:
        """Keep the cached largest size right when a file of ``before`` bytes now has ``after``."""
        if self._largest is None:
            return
        if after >= self._largest:
            self._largest = after
        elif before >= self._largest:
            self._largest = None  # the largest file shrank or left: recomputed on next use

    # -- queries ----------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.by_id)

    @property
    def total_bytes(self) -> int:
        return sum(self.shard_bytes)

    def row_map(self, shard: int) -> RowMap:
        """Shard ``shard``'s :class:`RowMap`: built from the records on first use, then patched by put/remove."""
        found = self._row_maps[shard]
        if found is None:
            found = self._row_maps[shard] = RowMap.of([r for r in self.by_id.values() if r.shard == shard])
        return found

    def owners(self, shard: int, rows: Iterable[int]) -> Iterator[tuple[int, int]]:
        """``(file id, row)`` for the live rows among ``rows`` (rows of replaced versions are garbage)."""
        rows = list(rows)
        for fid, row in zip(self.row_map(shard).owners(rows).tolist(), rows):
            if fid:
                yield fid, row

    def rank(self) -> np.ndarray:
        """:meth:`order` as an array indexed by file id (-1: no such file), for sorting candidates in numpy."""
        order = self.order()
        if self._rank is None or self._rank[0] is not order:
            ranks = np.full(max(self.next_id, 1), -1, np.int64)
            ranks[np.fromiter(order.keys(), np.int64, len(order))] = np.fromiter(order.values(), np.int64, len(order))
            self._rank = (order, ranks)
        return self._rank[1]

    def ordered(self, ids: np.ndarray, records: Mapping[int, FileRecord] | None = None) -> np.ndarray:
        """``ids`` (file ids, int64) in result order. Through :meth:`rank` once the catalogue's order
        exists (a server's later searches: no string compared); before that, a few ids are sorted by
        their own keys: a one-shot process (the cold CLI) asking once for a few hundred candidates
        must not sort all 78,000 paths of the Linux tree for it (~0.2 s). ``records``: the ids' records
        where the caller has them already (else looked up here)."""
        if self._order is None and len(ids) <= ORDER_ALONE_IDS:
            by_id = self.by_id if records is None else records
            keys = [sort_key(by_id[f].display) for f in ids.tolist()]
            return ids[np.array(sorted(range(len(keys)), key=keys.__getitem__), np.int64)] if keys else ids
        return ids[np.argsort(self.rank()[ids], kind="stable")]

    def sorted_records(self) -> list[FileRecord]:
        """All records in result order (display path, bytewise); cached until the next change."""
        if self._sorted is None:
            records = list(self.by_id.values())
            keys = [sort_key(r.display) for r in records]
            ranked = sorted(range(len(records)), key=keys.__getitem__)
            self._sorted = [records[i] for i in ranked]
            self._keys = [keys[i] for i in ranked]
        return self._sorted

    def sorted_entries(self) -> list[FileEntry]:
        """:meth:`sorted_records` as walk entries; cached (Quick-Open lists the whole catalogue)."""
        if self._entries is None:
            self._entries = [r.entry() for r in self.sorted_records()]
        return self._entries

    def largest(self) -> int:
        """The size of the biggest file (0 when empty); cached."""
        if self._largest is None:
            self._largest = max((r.size for r in self.by_id.values()), default=0)
        return self._largest

    def order(self) -> dict[int, int]:
        """File id -> position in :meth:`sorted_records` (sorting candidates by it is cheap); cached."""
        if self._order is None:
            self._order = {r.id: i for i, r in enumerate(self.sorted_records())}
        return self._order

    def entry_of(self, fid: int) -> FileEntry:
        """The walk entry of file ``fid``, made on first request and kept (an indexed grep wants a few
        hundred of them: making all 78,000 cost the first search after a start 0.2 s)."""
        if self._entry_by_id is None:
            self._entry_by_id = {}
        entry = self._entry_by_id.get(fid)
        if entry is None:
            entry = self._entry_by_id[fid] = self.by_id[fid].entry()
        return entry

    def under(self, prefix: str) -> list[FileRecord]:
        """Records whose path is ``prefix`` or inside it, in result order."""
        records = self.sorted_records()
        if not prefix:
            return records
        sep_prefix = prefix.rstrip("/\\") + ("/" if "/" in prefix else "\\")
        return [r for r in records if r.path == prefix or r.path.startswith(sep_prefix)]

    def unindexed(self) -> list[FileRecord]:
        return [self.by_id[i] for i in self.unindexed_ids]

    def smallest_shard(self) -> int:
        return min(range(len(self.shard_bytes)), key=self.shard_bytes.__getitem__)

    def __contains__(self, path: str) -> bool:
        return path in self.by_path

    def stat_view(self) -> Mapping[str, tuple[int, int, bool]]:
        """``path -> (size, mtime_ns, indexed)`` of every file: what a freshness check compares
        (:func:`sleuth.engine.index.freshness.quick_catch_up`)."""
        return {p: (r.size, r.mtime_ns, r.first_row >= 0) for p, r in self.by_path.items()}

