"""What the index hands to grep: candidate files, and for files of several chunks the chunks that may match.

:class:`CandidateSet` is the result of :meth:`IndexService.candidates`; :meth:`CandidateSet.entries`
gives its walk entries in result order as a :class:`CandidateList`, whose ``pieces`` hold, for a
file narrowed to some chunks, the byte ranges a range-aware searcher reads instead of the whole file
(:func:`sleuth.engine.pieces.search_pieces`; a searcher that ignores them reads every file).
"""

from __future__ import annotations

from collections.abc import Iterable

from sleuth.engine.types import FileEntry, FileError
from sleuth.engine.values import Record
from sleuth.engine.workspace import sort_key

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:  # the catalogue needs numpy, which a cold grep (importing CandidateList) never loads
    from sleuth.engine.index.catalogue import FileRecord
    from sleuth.engine.index.rowmap import PieceTable

__all__ = ["CandidateList", "CandidateSet"]


class CandidateList(list):  # type: ignore[type-arg]  # list[FileEntry]
    """Walk entries in result order, with the index's pieces of the files narrowed to some chunks, by
    position (``pieces``, a :class:`~sleuth.engine.index.rowmap.PieceTable`, or None). A list, so grep
    cuts it into pool units like any known file list; the pieces ride beside the entries as columns
    rather than in an entry object per narrowed file, whose making cost an ``-i PM_RESUME`` search
    3.4 ms (1,300 files) before any file was read."""

    __slots__ = ("pieces", "errors", "narrowed")

    def __init__(self, entries: Iterable[FileEntry] = (), pieces: PieceTable | None = None,
                 errors: Iterable[FileError] = (), narrowed: bool = False) -> None:
        super().__init__(entries)
        self.pieces = pieces if pieces is not None and len(pieces) else None
        self.errors: list[FileError] = list(errors)  # what the walk would have reported: unreadable folders
        self.narrowed = narrowed  # the index's candidates for a literal (not the whole catalogue): cheap files


class CandidateSet(Record):
    """Files that may match (``indexed``: the index says so; ``ordered``: their walk entries in result
    order, and ``pieces``: by position in ``ordered``, the chunks that may match of the files only some
    of whose chunks may) plus ``pending`` ones to read whatever, and the ``errors`` a walk of the same
    targets would report (folders the index could not read)."""

    __slots__ = ("indexed", "ordered", "pending", "pieces", "errors")

    def __init__(self, indexed: list[FileRecord], ordered: list[FileEntry], pending: list[FileEntry] | None = None,
                 pieces: PieceTable | None = None, errors: list[FileError] | None = None) -> None:
        self.indexed = indexed
        self.ordered = ordered
        self.pending: list[FileEntry] = [] if pending is None else pending
        self.pieces = pieces
        self.errors: list[FileError] = [] if errors is None else errors

    def entries(self) -> CandidateList:
        """All of them as walk entries, in result order (display path, bytewise), with their pieces."""
        if not self.pending:
            return CandidateList(self.ordered, self.pieces, self.errors, narrowed=True)
        seen = {r.path for r in self.indexed}
        merged = self.ordered + [e for e in self.pending if e.path not in seen]
        merged.sort(key=lambda e: sort_key(e.display))
        if self.pieces is None:
            return CandidateList(merged, errors=self.errors, narrowed=True)
        now = {id(e): i for i, e in enumerate(merged)}
        return CandidateList(merged, self.pieces.moved({i: now[id(e)] for i, e in enumerate(self.ordered)}),
                             self.errors, narrowed=True)

    @property
    def paths(self) -> list[str]:
        return [e.path for e in self.entries()]
