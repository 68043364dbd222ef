"""A catalogue for one query: made from the stored rows, each file's record only when asked for.

A server keeps its catalogue for hours and patches it; a one-shot process (the cold CLI, see
:meth:`sleuth.engine.index.maintenance.Maintenance.open_read_only`) asks one question and exits.
Making 78,000 :class:`~sleuth.engine.index.catalogue.FileRecord` objects up front was most of its
time (~0.25 CPU-s on the Linux tree, and the row maps another ~0.12 s): here the rows are only
indexed (by id and by path), the columns a query needs for every file (the row maps, the sets of
unindexed and wide files, the shards' sizes) are computed in bulk, and a record is made the first
time a query touches its file: a grep's few hundred candidates. Read-only: nothing can be put.
"""

from __future__ import annotations

from typing import Callable, Iterator, MutableMapping, TypeVar

import numpy as np

from sleuth.engine.index.catalogue import Catalogue, FileRecord
from sleuth.engine.index.rowmap import RowMap

__all__ = ["lazy_catalogue"]

K = TypeVar("K")
Row = tuple[object, ...]


class _Records(MutableMapping[K, FileRecord]):
    """``key -> FileRecord`` over the fetched rows (``index``: key -> row position); ``make`` builds
    (once, shared by both keys) the record of a position. Writing raises: no one writes this catalogue."""

    def __init__(self, index: dict[K, int], make: Callable[[int], FileRecord]) -> None:
        self._index, self._make = index, make

    def __getitem__(self, key: K) -> FileRecord:
        return self._make(self._index[key])

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def __iter__(self) -> Iterator[K]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def __setitem__(self, key: K, value: FileRecord) -> None:
        raise TypeError("a catalogue opened for reading is not changed")

    def __delitem__(self, key: K) -> None:
        raise TypeError("a catalogue opened for reading is not changed")


def lazy_catalogue(rows: list[Row], shards: int, paths: list[str] | None = None) -> Catalogue:
    """The catalogue of ``rows`` (:meth:`Catalogue.fetch`'s; ``paths``: their decoded paths, when the
    caller has them), answering as :meth:`Catalogue.from_rows`'s would, with its records made on
    first use and its row maps made at once from the columns."""
    made: dict[int, FileRecord] = {}
    if paths is None:
        paths = Catalogue.paths_of(rows)

    def make(at: int) -> FileRecord:
        rec = made.get(at)
        if rec is None:
            fid, _, display, size, mtime_ns, shard, first_row, offsets, wide, lines, plain = rows[at]
            offs = tuple(map(int, offsets.split(","))) if offsets else ()  # type: ignore[union-attr]
            counts = tuple(map(int, lines.split(","))) if lines else ()  # type: ignore[union-attr]
            rec = made[at] = FileRecord(size, mtime_ns, first_row, offs, None, bool(wide), counts,  # type: ignore[arg-type]
                                        bool(plain), id=fid, path=paths[at], display=display, shard=shard)  # type: ignore[arg-type]
        return rec

    n = len(rows)
    fids = np.fromiter((r[0] for r in rows), np.int64, n)
    sizes = np.fromiter((r[3] for r in rows), np.int64, n)
    shard_of = np.fromiter((r[5] for r in rows), np.int64, n)
    firsts = np.fromiter((r[6] for r in rows), np.int64, n)
    chunks = np.fromiter((r[7].count(",") + 2 if r[7] else 1 for r in rows), np.int64, n)  # type: ignore[union-attr]
    wide = np.fromiter((bool(r[8]) for r in rows), np.bool_, n)
    cat = Catalogue(shards)
    cat.by_id = _Records(dict(zip(fids.tolist(), range(n))), make)  # type: ignore[assignment]
    cat.by_path = _Records(dict(zip(paths, range(n))), make)  # type: ignore[assignment]
    indexed = firsts >= 0
    cat.live_rows = int(chunks[indexed].sum())
    cat.next_id = int(fids.max()) + 1 if n else 1
    cat.unindexed_ids = set(fids[~indexed].tolist())
    cat.wide_ids = set(fids[wide].tolist())
    cat.shard_bytes = [int(sizes[shard_of == s].sum()) for s in range(shards)]
    cat._largest = int(sizes.max()) if n else 0
    for s in range(shards):
        mine = np.flatnonzero((shard_of == s) & indexed)
        chunked = [make(at) for at in mine[chunks[mine] > 1].tolist()]
        cat._row_maps[s] = RowMap.of_columns(fids[mine], firsts[mine], chunks[mine], chunked)
    return cat
