"""What the index hands to grep: candidate files, and for files of several chunks the chunks that may match.

:class:`CandidateSet` is the result of :meth:`IndexService.candidates`; :meth:`CandidateSet.entries`
turns it into walk entries in result order, those files as :class:`RangedEntry` whose ``pieces`` a
range-aware searcher reads instead of the whole file (:func:`sleuth.engine.index.pieces.search_pieces`;
a plain :class:`FileEntry` to a searcher that ignores them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sleuth.engine.index.catalogue import FileRecord
from sleuth.engine.index.pieces import Pieces
from sleuth.engine.types import FileEntry
from sleuth.engine.workspace import sort_key

__all__ = ["RangedEntry", "CandidateSet"]


@dataclass(frozen=True, slots=True)
class RangedEntry(FileEntry):
    """A candidate file of which only ``pieces.ranges`` (byte ``[start, end)``, line-aligned, ``end`` -1 =
    EOF) may hold a line-mode match; valid only while the file's size and mtime equal ``pieces``'."""

    pieces: Pieces | None = None

    @property
    def ranges(self) -> tuple[tuple[int, int], ...]:
        return self.pieces.ranges if self.pieces is not None else ()


@dataclass
class CandidateSet:
    """Files that may match (``indexed``: the index says so) plus ``pending`` ones to read whatever;
    ``ranges``: for indexed files of several chunks, the only pieces a line-mode match may lie in."""

    indexed: list[FileRecord]
    pending: list[FileEntry] = field(default_factory=list)
    ranges: dict[str, Pieces] = field(default_factory=dict)
    ordered: list[FileEntry] | None = None  # walk entries of ``indexed`` when it is already in result order

    def entries(self) -> list[FileEntry]:
        """All of them as walk entries, in result order (display path, bytewise); files with
        :attr:`ranges` as :class:`RangedEntry` (a plain :class:`FileEntry` to callers that ignore it)."""
        ranged = self.ranges
        if self.ordered is not None:
            merged = list(self.ordered)
            if ranged:
                for i, rec in enumerate(self.indexed):
                    pieces = ranged.get(rec.path)
                    if pieces is not None:
                        merged[i] = RangedEntry(rec.path, rec.display, rec.size, rec.mtime_ns / 1e9, pieces)
            if not self.pending:
                return merged
        else:
            merged = [RangedEntry(r.path, r.display, r.size, r.mtime_ns / 1e9, ranged[r.path]) if r.path in ranged
                      else r.entry() for r in self.indexed]
        seen = {r.path for r in self.indexed}
        merged += [e for e in self.pending if e.path not in seen]
        merged.sort(key=lambda e: sort_key(e.display))
        return merged

    @property
    def paths(self) -> list[str]:
        return [e.path for e in self.entries()]
