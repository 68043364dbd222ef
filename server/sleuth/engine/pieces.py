"""Searching only the candidate chunks of an indexed file (the rest of it is never read), and the one
packed form in which those chunks travel from the index to the pool's workers.

The index knows, for a file cut into several chunks, which chunks may hold a line-mode match
(:class:`Pieces`), and the catalogue stores how many newlines precede each chunk. So a 24 MB
generated header with three candidate chunks costs three ``pread`` calls of 4 KiB, the matcher runs
on those pieces only, and line numbers come from the stored counts. This is sound only while the
file is what was indexed: same size and mtime (checked on the open descriptor), and *plain* — no
NUL (which would make it binary), BOM or UTF-16 (whose offsets are in transcoded text). Anything
else returns None and the caller searches the file whole.

The searcher lives beside :mod:`sleuth.engine.search` (it is one: bytes in, line events out), and
this module owns the packed form both ways (:func:`pack`, :func:`unpack`): the index only supplies
the columns (:class:`sleuth.engine.index.rowmap.PieceTable`), grep only carries the bytes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from sleuth.engine.errors import SearchTimeout
from sleuth.engine.match.base import Matcher
from sleuth.engine.file_scan import FolderOpener
from sleuth.engine.search import FileResult, first_lines, search_buffer
from sleuth.engine.types import SearchOptions

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:  # the columns are numpy arrays; a worker unpacking them never imports numpy
    from typing import NamedTuple
    import numpy as np
else:
    from sleuth.engine.plain_typing import NamedTuple

__all__ = ["Pieces", "search_pieces", "pack", "unpack"]


class Pieces(NamedTuple):
    """Line-aligned byte ranges ``[start, end)`` (``end`` -1 = end of file) that may hold every match,
    the newlines before each range's start, and the size and mtime they are valid for."""

    ranges: tuple[tuple[int, int], ...]
    lines: tuple[int, ...]
    size: int
    mtime_ns: int


def pack(files: Sequence["np.ndarray"], ranges: Sequence["np.ndarray"]) -> bytes:
    """The packed form of some files' pieces: native int64 columns, the file count ``n`` and range
    count ``k``, then the ``n`` positions, sizes, mtimes and range counts (``files``, in that order),
    then the ``k`` range starts, ends and newlines-before (``ranges``). An indexed ``-i`` search ships
    ~1,300 narrowed files; as nested tuples they were the bulk of the pickling the pool's feeder
    thread did, under the interpreter lock the search thread needs. Columns must be int64."""
    from array import array  # here: only an index's narrowed pieces are packed (issue 30)

    n, k = len(files[0]), len(ranges[0])
    if not n:
        return b""
    return array("q", (n, k)).tobytes() + b"".join(column.tobytes() for column in (*files, *ranges))


def unpack(blob: bytes) -> dict[int, Pieces]:
    """The pieces :func:`pack` packed, by position (in a pool unit: position in the unit)."""
    if not blob:
        return {}
    from array import array

    flat = array("q")
    flat.frombytes(blob)
    n, k = flat[0], flat[1]
    at = 2
    positions, sizes, mtimes, counts = (flat[at + i * n:at + (i + 1) * n].tolist() for i in range(4))
    at += 4 * n
    starts, ends, befores = (flat[at + i * k:at + (i + 1) * k].tolist() for i in range(3))
    out: dict[int, Pieces] = {}
    a = 0
    for position, size, mtime_ns, count in zip(positions, sizes, mtimes, counts):
        b = a + count
        out[position] = Pieces(tuple(zip(starts[a:b], ends[a:b])), tuple(befores[a:b]), size, mtime_ns)
        a = b
    return out


def _line_end(fd: int, start: int, size: int) -> int:
    """The offset just past the newline that ends the line starting at ``start`` (or the file's end)."""
    at = start
    while at < size:
        chunk = os.pread(fd, 1 << 16, at)
        if not chunk:
            break
        found = chunk.find(b"\n")
        if found >= 0:
            return at + found + 1
        at += len(chunk)
    return size


def search_pieces(path: str, display: str, pieces: Pieces, matcher: Matcher,
                  options: SearchOptions, opener: FolderOpener) -> FileResult | None:
    """Match only ``pieces`` of ``path`` (line mode, no context, no invert: the caller checks),
    opened with the caller's ``opener`` (it searches many files, folder by folder).

    Returns None when the file is not the one indexed (or cannot be read): search it whole, which
    also reports any error properly.
    """
    try:
        fd = opener.open(path)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if st.st_size != pieces.size or st.st_mtime_ns != pieces.mtime_ns:
            return None
        result = FileResult(display)
        cap = options.max_matches_per_file
        # The index chose these pieces for their literals: most match, so a matcher that finds its lines by
        # a literal searches at once (a prefilter pass first cost ~2 ms of an indexed [A-Z]+_RESUME's ~40).
        may_match = None if matcher.finds_lines_by_literal else matcher.may_match
        for (start, end), base in zip(pieces.ranges, pieces.lines):
            length = (pieces.size if end < 0 else end) - start
            piece = os.pread(fd, length, start)
            if len(piece) != length:
                return None
            if may_match is not None and not may_match(piece):
                continue
            try:
                found = search_buffer(piece, matcher, options, display, checked=True)
            except SearchTimeout as exc:
                return FileResult(display, error=f"{exc.message} {exc.hint}")
            if not found.matched_lines:
                continue
            for event in found.events:
                event.line += base
                if event.offset is not None:  # (byte_offsets) the piece's offsets, made the file's
                    event.offset += start
                event.bytes_searched = None
            result.events.extend(found.events)
            result.matched_lines += found.matched_lines
            if found.matches is not None:
                result.matches = (result.matches or 0) + found.matches
            if cap is not None and result.matched_lines >= cap:
                result.events = first_lines(result.events, cap)  # with -o a line may hold several events
                result.matched_lines = cap
                result.capped = True
                break
        result.searched = pieces.size  # as the whole file's search counts it (a plain file)
        if options.byte_offsets and result.events:
            capped = cap is not None and result.matched_lines >= cap
            last = result.events[-1]
            last.bytes_searched = result.searched = _line_end(fd, last.offset or 0, pieces.size) if capped \
                else pieces.size
        return result
    except OSError:
        return None
    finally:
        os.close(fd)
