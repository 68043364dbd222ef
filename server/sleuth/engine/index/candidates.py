"""What the index hands to grep: candidate files, and for files of several chunks the chunks that may match.

:class:`CandidateSet` is the result of :meth:`IndexService.candidates`; :meth:`CandidateSet.entries`
gives its walk entries in result order as a :class:`CandidateList`, whose ``pieces`` hold, for a
file narrowed to some chunks, the byte ranges a range-aware searcher reads instead of the whole file
(:func:`sleuth.engine.index.pieces.search_pieces`; a searcher that ignores them reads every file).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable

from sleuth.engine.index.pieces import Pieces
from sleuth.engine.types import FileEntry
from sleuth.engine.workspace import sort_key

if TYPE_CHECKING:  # the catalogue needs numpy, which a cold grep (importing CandidateList) never loads
    from sleuth.engine.index.catalogue import FileRecord

__all__ = ["CandidateList", "CandidateSet"]


class CandidateList(list):  # type: ignore[type-arg]  # list[FileEntry]
    """Walk entries in result order, with the index's :class:`Pieces` of the files narrowed to some
    chunks, by position (``pieces``). A list, so grep cuts it into pool units like any known file
    list; the pieces ride beside the entries rather than in a frozen entry subclass per narrowed file,
    whose construction cost an ``-i PM_RESUME`` search 3.4 ms (1,300 files) before any file was read."""

    __slots__ = ("pieces",)

    def __init__(self, entries: Iterable[FileEntry] = (), pieces: dict[int, Pieces] | None = None) -> None:
        super().__init__(entries)
        self.pieces: dict[int, Pieces] = pieces if pieces is not None else {}


@dataclass
class CandidateSet:
    """Files that may match (``indexed``: the index says so; ``ordered``: their walk entries in result
    order, and ``pieces``: by position in ``ordered``, the chunks that may match of the files only some
    of whose chunks may) plus ``pending`` ones to read whatever."""

    indexed: list[FileRecord]
    ordered: list[FileEntry]
    pending: list[FileEntry] = field(default_factory=list)
    pieces: dict[int, Pieces] = field(default_factory=dict)

    def entries(self) -> CandidateList:
        """All of them as walk entries, in result order (display path, bytewise), with their pieces."""
        if not self.pending:
            return CandidateList(self.ordered, dict(self.pieces))
        seen = {r.path for r in self.indexed}
        ranged = {id(self.ordered[i]): p for i, p in self.pieces.items()}
        merged = self.ordered + [e for e in self.pending if e.path not in seen]
        merged.sort(key=lambda e: sort_key(e.display))
        return CandidateList(merged, {i: ranged[id(e)] for i, e in enumerate(merged) if id(e) in ranged})

    @property
    def paths(self) -> list[str]:
        return [e.path for e in self.entries()]
