"""Work cut into units in final order, and the one form a unit travels in to a pool worker.

A unit is consecutive files — and, in a big walked scan, whole subtrees (:class:`~sleuth.engine.walk.Subtree`)
a worker walks itself — in final result order. Whatever produced them (a walk, an index's candidates,
the catalogue), a unit is a :class:`Unit`: the paths and display paths joined by NUL, which no path
holds, plus what only some positions have (the index's pieces, open-buffer texts, subtrees). The
catalogue's 78,000 files shipped as one tuple per file cost the server ~50 ms of pickling a scan and
the workers ~50 ms of unpickling; two strings a unit cost about a third of that, and half the bytes
through the pipe.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Iterator, Mapping

from sleuth.engine.cancel import CancelToken
from sleuth.engine.index.candidates import CandidateList
from sleuth.engine.types import FileEntry
from sleuth.engine.walk import Subtree

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:  # numpy: only an index's candidates carry a table, and a cold grep never loads numpy
    from typing import NamedTuple
    from sleuth.engine.index.rowmap import PieceTable
else:
    from sleuth.engine.plain_typing import NamedTuple

__all__ = ["Unit", "units", "unit_files", "CHUNK_FILES", "CHUNK_BYTES", "LIST_UNIT_FILES", "SUBTREE_WEIGHT"]

CHUNK_FILES = 96  # files per unit of a walked scan
CHUNK_BYTES = 16 << 20
UNITS_PER_WORKER = 4  # a known file list (index candidates, the catalogue) is cut into about this many per core
LIST_UNIT_FILES = (48, 2048)  # ... of at least / at most this many files
SUBTREE_WEIGHT = 12  # a subtree counts as this many files when packing units (8 subtrees a unit)


class Unit(NamedTuple):
    """Consecutive files and subtrees in final order: ``count`` paths and display paths, each joined by
    NUL (a subtree's are its folder's), and by position in the unit: the index's candidate pieces,
    packed (:mod:`sleuth.engine.pieces`), open-buffer texts, and subtrees. ``walk_buffers``:
    the open buffers under the subtrees, by path (a subtree's files are known only once walked)."""

    paths: str
    displays: str
    count: int
    pieces: bytes = b""
    texts: dict[int, str] | None = None
    subtrees: dict[int, Subtree] | None = None
    walk_buffers: dict[str, str] | None = None

    def files(self) -> Iterator[tuple[str, str]]:
        """``(path, display)`` of every position (a subtree's folder at its own)."""
        if not self.count:
            return iter(())
        return zip(self.paths.split("\0"), self.displays.split("\0"))


def unit_files(items: Iterable[FileEntry | Subtree]) -> int:
    """Files per unit: ``CHUNK_FILES`` for a walk; for a known list, enough units to keep every worker
    busy to the end and no more. Measured: 4 per core at least as fast as 8-32 on 1,000-2,500 index
    candidates; the catalogue's 78,000 files in units of 96 cost the server process a third of a
    second of shipping, in units of 512 about half that, and that scan ran 5-10% faster; in units of
    2,048 the server's CPU for the no-literal scan fell again, 0.19-0.21 -> 0.11-0.14 s, and the scan
    took 1.90-1.98 -> 1.70-1.91 s over LSP. A big unit still streams: its worker publishes what it
    finds as it goes (:mod:`sleuth.engine.grep.unit_search`)."""
    if not isinstance(items, list):
        return CHUNK_FILES
    low, high = LIST_UNIT_FILES
    return max(low, min(high, len(items) // (UNITS_PER_WORKER * (os.cpu_count() or 1))))


def units(items: Iterable[FileEntry | Subtree], buffers: Mapping[str, str] | None, token: CancelToken,
          line_mode: bool) -> Iterator[Unit]:
    """Pack consecutive files and subtrees into units of about one task's worth of work.

    A pool task costs about half a millisecond to ship and return, so units are not too small:
    up to :func:`unit_files` files (or ``CHUNK_BYTES``), a subtree weighing ``SUBTREE_WEIGHT`` files.
    ``line_mode``: an index's candidate pieces travel (a multiline match may leave a piece). The
    caller's token is polled between units.
    """
    most = unit_files(items)
    if isinstance(items, list):  # a list never holds subtrees (only a walk yields them)
        table = items.pieces if line_mode and type(items) is CandidateList else None
        yield from _list_units(items, most, token, table, buffers)
    else:
        yield from _walk_units(items, most, token, buffers)


def _list_units(items: list[FileEntry], most: int, token: CancelToken, table: PieceTable | None,
                buffers: Mapping[str, str] | None) -> Iterator[Unit]:
    """A known list of files (the catalogue, index candidates): cuts found on running sizes, each unit
    built by one comprehension; ``table``: the index's pieces of some of the files, by position.

    The first units are small and double up to ``most`` (48, 96, 192 ... files): a capped answer comes
    from the list's first files, and in one unit of 2,048 a single worker searched them all while the
    others searched units past the cap (``\\w{5}\\s+\\w{5}`` capped at 20,000 events: 636 files, one
    worker). Six more units cost a full scan ~3 ms of shipping."""
    import bisect  # here: a walk (a cold grep's usual path) cuts no list (issue 30)

    sizes = [e.size for e in items]
    if sizes and min(sizes) < 0:
        sizes = [max(size, 0) for size in sizes]
    ends = list(itertools.accumulate(sizes))
    start, ramp = 0, LIST_UNIT_FILES[0]
    while start < len(items):
        stop = min(len(items), start + min(most, ramp), bisect.bisect_left(ends, (ends[start - 1] if start else 0) + CHUNK_BYTES,
                                                                 start) + 1)
        part = items[start:stop]
        pieces = table.blob(start, stop) if table is not None else b""
        texts = {i: buffers[e.path] for i, e in enumerate(part) if e.path in buffers} if buffers else None
        yield Unit("\0".join([e.path for e in part]), "\0".join([e.display for e in part]), len(part), pieces,
                   texts or None)
        start, ramp = stop, ramp * 2
        if token.should_stop():
            return


def _walk_units(items: Iterable[FileEntry | Subtree], most: int, token: CancelToken,
                buffers: Mapping[str, str] | None) -> Iterator[Unit]:
    """A walk's files and subtrees, as they come."""
    part: list[FileEntry | Subtree] = []
    weight = size = 0
    for item in items:
        part.append(item)
        if isinstance(item, Subtree):
            weight += SUBTREE_WEIGHT
        else:
            weight += 1
            size += max(item.size, 0)
        if weight >= most or size >= CHUNK_BYTES:
            yield _walked_unit(part, buffers)
            part, weight, size = [], 0, 0
            if token.should_stop():
                return
    if part:
        yield _walked_unit(part, buffers)


def _walked_unit(part: list[FileEntry | Subtree], buffers: Mapping[str, str] | None) -> Unit:
    paths = [item.target.path if isinstance(item, Subtree) else item.path for item in part]
    subtrees = {i: item for i, item in enumerate(part) if isinstance(item, Subtree)} or None
    texts = walk_buffers = None
    if buffers:
        texts = {i: buffers[path] for i, path in enumerate(paths) if path in buffers and not
                 (subtrees and i in subtrees)} or None
        if subtrees:  # only the open buffers a unit's subtrees can hold travel with it
            prefixes = tuple(s.target.path.rstrip(os.sep) + os.sep for s in subtrees.values())
            walk_buffers = {p: t for p, t in buffers.items() if p.startswith(prefixes)} or None
    return Unit("\0".join(paths), "\0".join([item.display for item in part]), len(part), b"", texts, subtrees,
                walk_buffers)
