"""What the index hands to grep: candidate files, and for files of several chunks the chunks that may match.

:class:`CandidateSet` is the result of :meth:`IndexService.candidates`; :meth:`CandidateSet.entries`
gives its walk entries in result order, a file narrowed to some chunks as a :class:`RangedEntry` whose
``pieces`` a range-aware searcher reads instead of the whole file
(:func:`sleuth.engine.index.pieces.search_pieces`; a plain :class:`FileEntry` to a searcher that
ignores them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sleuth.engine.index.pieces import Pieces
from sleuth.engine.types import FileEntry
from sleuth.engine.workspace import sort_key

if TYPE_CHECKING:  # the catalogue needs numpy, which a cold grep (importing RangedEntry) never loads
    from sleuth.engine.index.catalogue import FileRecord

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
    """Files that may match (``indexed``: the index says so; ``ordered``: their walk entries in result
    order, a :class:`RangedEntry` for each file of which only some chunks may match) plus ``pending``
    ones to read whatever."""

    indexed: list[FileRecord]
    ordered: list[FileEntry]
    pending: list[FileEntry] = field(default_factory=list)

    def entries(self) -> list[FileEntry]:
        """All of them as walk entries, in result order (display path, bytewise)."""
        if not self.pending:
            return list(self.ordered)
        seen = {r.path for r in self.indexed}
        merged = self.ordered + [e for e in self.pending if e.path not in seen]
        merged.sort(key=lambda e: sort_key(e.display))
        return merged

    @property
    def paths(self) -> list[str]:
        return [e.path for e in self.entries()]
