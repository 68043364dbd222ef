"""What the index hands to grep: candidate files, and for big files the chunks that may match.

:class:`CandidateSet` is the result of :meth:`IndexService.candidates`; :meth:`CandidateSet.entries`
turns it into walk entries in result order, big files as :class:`RangedEntry` whose ``ranges`` a
range-aware searcher may restrict itself to (a plain :class:`FileEntry` to one that is not).
:func:`absent` is the cheap check that drops big files whose candidate chunks lack the literals.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Iterable

from sleuth.engine.index.catalogue import FileRecord
from sleuth.engine.index.trigram import And, Lit, Or, Query
from sleuth.engine.types import FileEntry
from sleuth.engine.workspace import sort_key

__all__ = ["RangedEntry", "CandidateSet", "merge_ranges", "absent"]


@dataclass(frozen=True, slots=True)
class RangedEntry(FileEntry):
    """A candidate file of which only ``ranges`` (byte ``[start, end)``, line-aligned, ``end`` -1 = EOF) may
    hold a line-mode match. Offsets count in the searched buffer (UTF-16 transcoded to UTF-8); they
    hold only while the file's size and mtime still equal the entry's — otherwise search it whole."""

    ranges: tuple[tuple[int, int], ...] = ()


def merge_ranges(spans: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for start, end in spans:
        if out and out[-1][1] == start:
            out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return tuple(out)


def _holds(query: Query, data: bytes, lowered: list[bytes]) -> bool:
    """Whether ``data`` (one candidate range) contains the literals; case-insensitive ones are compared
    ASCII-lowercased, which is exact only for ASCII text — any non-ASCII byte keeps the range."""
    if isinstance(query, Lit):
        if not query.folded:
            return query.data in data
        if not lowered:
            if not data.isascii():
                return True  # KELVIN SIGN, LONG S and friends fold to ASCII letters: don't judge
            lowered.append(data.lower())
        return query.data.lower() in lowered[0]
    if isinstance(query, And):
        return all(_holds(q, data, lowered) for q in query.items)
    if isinstance(query, Or):
        return any(_holds(q, data, lowered) for q in query.items)
    return True


def absent(rec: FileRecord, spans: tuple[tuple[int, int], ...], query: Query) -> bool:
    """True when no candidate chunk of a big, unchanged, plain UTF-8 file contains the literals:
    reading a few chunks beats letting the searcher read megabytes. Any doubt keeps the file."""
    try:
        fd = os.open(rec.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False
    try:
        st = os.fstat(fd)
        if st.st_size != rec.size or st.st_mtime_ns != rec.mtime_ns:
            return False
        if os.pread(fd, 2, 0) in (b"\xff\xfe", b"\xfe\xff"):
            return False  # UTF-16: offsets are in the transcoded text
        for start, end in spans:
            length = (st.st_size if end < 0 else end) - start
            if _holds(query, os.pread(fd, length, start), []):
                return False
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


@dataclass
class CandidateSet:
    """Files that may match (``indexed``: the index says so) plus ``pending`` ones to read whatever;
    ``ranges``: for big indexed files, the only byte ranges a line-mode match may lie in."""

    indexed: list[FileRecord]
    pending: list[FileEntry] = field(default_factory=list)
    ranges: dict[str, tuple[tuple[int, int], ...]] = field(default_factory=dict)

    def entries(self) -> list[FileEntry]:
        """All of them as walk entries, in result order (display path, bytewise); big files with
        :attr:`ranges` as :class:`RangedEntry` (a plain :class:`FileEntry` to callers that ignore it)."""
        seen = {r.path for r in self.indexed}
        ranged = self.ranges
        merged = [RangedEntry(r.path, r.display, r.size, r.mtime_ns / 1e9, ranged[r.path]) if r.path in ranged
                  else r.entry() for r in self.indexed]
        merged += [e for e in self.pending if e.path not in seen]
        merged.sort(key=lambda e: sort_key(e.display))
        return merged

    @property
    def paths(self) -> list[str]:
        return [e.path for e in self.entries()]
