"""A catalogue opened, not loaded: made from the stored rows, each file's record only when asked for.

Making 78,000 :class:`~sleuth.engine.index.catalogue.FileRecord` objects up front was most of the
time a process spent opening the Linux tree's store (~0.4 CPU-s with the row maps; a server's
restart waited for it, and the cold CLI paid it for one question). Here the rows are only indexed
(by id and by path), the columns a query needs for every file (the row maps, the sets of unindexed
and wide files, the shards' sizes) are computed in bulk, and a record is made the first time a
query touches its file: a grep's few hundred candidates.

A server also writes: a file re-indexed or removed goes to an overlay over the stored rows
(:class:`_Records`), and the catalogue's own bookkeeping (row maps, sets, sizes) is patched by
:meth:`Catalogue.put` and :meth:`Catalogue.remove` as for a loaded one. The database is written
through by those methods as before; the overlay only keeps the rows read at the open from being
read again.
"""

from __future__ import annotations

import operator
from typing import Callable, Iterator, Mapping, MutableMapping, TypeVar

import numpy as np

from sleuth.engine.index.catalogue import Catalogue, FileRecord
from sleuth.engine.index.catalogue_map import Columns
from sleuth.engine.index.rowmap import RowMap, ranges_of

__all__ = ["lazy_catalogue", "of_columns", "LazyCatalogue"]

K = TypeVar("K")
Row = tuple[object, ...]


class _Records(MutableMapping[K, FileRecord]):
    """``key -> FileRecord`` over the fetched rows (``index``: key -> row position; ``make`` builds,
    once and shared by both keys, the record of a position) with the changes since the open on top:
    ``_over`` holds the records put since, ``_hidden`` the stored keys removed or replaced since."""

    def __init__(self, index: Callable[[], Mapping[K, int]], make: Callable[[int], FileRecord], count: int) -> None:
        self._made_index: Mapping[K, int] | None = None
        self._count = count  # the stored rows: the length until the index is made (nothing can change before)
        self._index_of, self._make = index, make
        self._over: dict[K, FileRecord] = {}
        self._hidden: set[K] = set()

    @property
    def _index(self) -> Mapping[K, int]:
        """Made on first use (78,000 keys: ~20 ms that an open need not wait for, and a cold call that
        asks only for a few records by id never pays for the paths')."""
        if self._made_index is None:
            self._made_index = self._index_of()
        return self._made_index

    def __getitem__(self, key: K) -> FileRecord:
        found = self._over.get(key)
        if found is not None:
            return found
        if key in self._hidden:
            raise KeyError(key)
        return self._make(self._index[key])

    def __contains__(self, key: object) -> bool:
        return key in self._over or (key in self._index and key not in self._hidden)

    def __iter__(self) -> Iterator[K]:
        hidden = self._hidden
        yield from (k for k in self._index if k not in hidden) if hidden else self._index
        yield from list(self._over)

    def __len__(self) -> int:
        if self._made_index is None:  # (a put or removal makes the index first: none happened)
            return self._count
        return len(self._index) - len(self._hidden) + len(self._over)

    def __setitem__(self, key: K, value: FileRecord) -> None:
        if key in self._index:
            self._hidden.add(key)
        self._over[key] = value

    def __delitem__(self, key: K) -> None:
        if key in self._over:
            del self._over[key]
        elif key in self._index and key not in self._hidden:
            self._hidden.add(key)
        else:
            raise KeyError(key)

    def many(self, keys: np.ndarray) -> dict[K, FileRecord]:
        """The records of ``keys`` (each present), by one vectorised search of the stored ids where the
        index can (:meth:`_AscendingIds.positions`): looked up one by one, a numpy call per key, the
        1,067 candidates of an indexed ``[A-Z]+_RESUME`` on the Linux tree took 2.7 of the lookup's 3.1 ms."""
        positions = getattr(self._index, "positions", None)
        if positions is None or self._over or self._hidden:
            return {key: self[key] for key in keys.tolist()}
        make = self._make
        return {key: make(at) for key, at in zip(keys.tolist(), positions(keys))}

    def stored(self) -> Iterator[tuple[K, int]]:
        """``(key, row position)`` of the stored rows still current (not removed or replaced)."""
        hidden = self._hidden
        return (kv for kv in self._index.items() if kv[0] not in hidden) if hidden else iter(self._index.items())

    def changed(self) -> Iterator[tuple[K, FileRecord]]:
        """The records put since the open."""
        return iter(list(self._over.items()))


class _AscendingIds(Mapping[int, int]):
    """``id -> row position`` of stored ids that ascend (a catalogue's rows are read in id order), by
    binary search: a cold grep looks up a few hundred candidates, and the 78,000-entry dict it built
    for them first cost ~9 ms of its call on the Linux tree. Iterating it (every record wanted) makes
    that dict after all, and later lookups use it."""

    __slots__ = ("_ids", "_dict")

    def __init__(self, ids: np.ndarray) -> None:
        self._ids = ids
        self._dict: dict[int, int] | None = None

    def __getitem__(self, key: int) -> int:
        if self._dict is not None:
            return self._dict[key]
        try:
            fid = operator.index(key)
        except TypeError:
            raise KeyError(key) from None
        at = int(np.searchsorted(self._ids, fid))
        if at < len(self._ids) and int(self._ids[at]) == fid:
            return at
        raise KeyError(key)

    def positions(self, keys: np.ndarray) -> list[int]:
        """The row positions of ``keys`` (int64, each stored), in their order; KeyError for one not stored."""
        if self._dict is not None:
            return [self._dict[key] for key in keys.tolist()]
        ids = self._ids
        at = np.searchsorted(ids, keys)
        inside = at < len(ids)
        if not bool(inside.all()) or not bool((ids[at] == keys).all()):
            missing = keys[~inside] if not bool(inside.all()) else keys[ids[at] != keys]
            raise KeyError(int(missing[0]))
        return at.tolist()

    def __iter__(self) -> Iterator[int]:
        if self._dict is None:
            self._dict = dict(zip(self._ids.tolist(), range(len(self._ids))))
        return iter(self._dict)

    def __len__(self) -> int:
        return len(self._ids)


def _id_positions(ids: np.ndarray) -> Mapping[int, int]:
    """The stored ids' positions: searched when they ascend, else a dict."""
    if len(ids) < 2 or bool((ids[1:] > ids[:-1]).all()):
        return _AscendingIds(ids)
    return dict(zip(ids.tolist(), range(len(ids))))


class LazyCatalogue(Catalogue):
    """A :class:`Catalogue` over stored columns (see the module docstring): what :func:`lazy_catalogue` makes."""

    def __init__(self, shards: int, cols: Columns) -> None:
        super().__init__(shards)
        self._cols = cols
        made: dict[int, FileRecord] = {}
        paths = cols.paths
        ids, sizes, mtimes, shard_of, firsts = cols.ids, cols.sizes, cols.mtimes, cols.shards, cols.firsts
        wide, plain = cols.wide, cols.plain

        def make(at: int) -> FileRecord:
            rec = made.get(at)
            if rec is None:
                offs, counts = cols.chunk_offsets(at)
                rec = made[at] = FileRecord(int(sizes[at]), int(mtimes[at]), int(firsts[at]), offs, None, bool(wide[at]),
                                            counts, bool(plain[at]), id=int(ids[at]), path=paths[at],
                                            display=cols.display(at), shard=int(shard_of[at]))
            return rec

        self._make = make
        self._made = made
        self._all_paths = paths
        n = len(paths)
        self._ids: _Records[int] = _Records(lambda: _id_positions(ids), make, n)
        self._paths: _Records[str] = _Records(lambda: dict(zip(paths, range(n))), make, n)
        self.by_id = self._ids  # type: ignore[assignment]
        self.by_path = self._paths  # type: ignore[assignment]

    def stored_path(self, fid: int) -> str:
        """The path of stored file ``fid`` as read at the open (no record made)."""
        return self._all_paths[self._ids._index[fid]]

    def records_made(self) -> int:
        """How many stored rows have become records so far (what the open saved is the rest)."""
        return len(self._made)

    def stat_view(self) -> Mapping[str, tuple[int, int, bool]]:
        """From the stored columns and the overlay: no record is made for it. While nothing changed
        since the open (a restart's catch-up) the columns are the view (:class:`.map_file.StatMapping`:
        a value made as it is asked for); building the 78,000-entry dict cost that restart 40-50 ms
        before ``ready`` (h-ready2's profile)."""
        if not self._paths._hidden and not self._paths._over:
            return self._cols.stat_mapping()
        view = self._cols.stat_view()
        for path in self._paths._hidden:
            del view[path]
        view.update((path, (r.size, r.mtime_ns, r.indexed)) for path, r in self._paths.changed())
        return view


def lazy_catalogue(rows: list[Row], shards: int, paths: list[str] | None = None) -> LazyCatalogue:
    """The catalogue of ``rows`` (:meth:`Catalogue.fetch`'s; ``paths``: their decoded paths, when the
    caller has them), answering as :meth:`Catalogue.from_rows`'s would, with its records made on
    first use and its row maps made at once from the columns."""
    return of_columns(Columns.of_rows(rows, Catalogue.paths_of(rows) if paths is None else paths), shards)


def of_columns(cols: Columns, shards: int) -> LazyCatalogue:
    """The catalogue of stored columns (read from the rows, or mapped: :mod:`.catalogue_map`)."""
    cat = LazyCatalogue(shards, cols)
    n = len(cols)
    fids, sizes, shard_of, firsts, wide = cols.ids, cols.sizes, cols.shards, cols.firsts, cols.wide
    chunks = np.diff(cols.bounds) + 1
    indexed = firsts >= 0
    cat.live_rows = int(chunks[indexed].sum())
    cat.next_id = int(fids.max()) + 1 if n else 1
    cat.unindexed_ids = set(fids[~indexed].tolist())
    cat.wide_ids = set(fids[wide].tolist())
    cat.shard_bytes = [int(sizes[shard_of == s].sum()) for s in range(shards)]
    cat._largest = int(sizes.max()) if n else 0
    for s in range(shards):
        mine = np.flatnonzero((shard_of == s) & indexed)
        chunked = mine[chunks[mine] > 1]
        flat = ranges_of(cols.bounds[chunked], chunks[chunked] - 1)
        cat._row_maps[s] = RowMap.of_columns(fids[mine], firsts[mine], chunks[mine], cols.offsets[flat], cols.lines[flat])
    return cat
