"""Sleuth's incremental index (docs/SPEC.md §7): file catalogue, trigram prefilter, definition keys, persistence.

The design, chosen by measurement on the Linux tree (README, "Index"): byte-trigram posting lists
(:mod:`~sleuth.engine.index.postings`) over line-aligned chunks (a file up to 16 KiB is one; then 8 KiB, 4 KiB in big files), one
shard per core built by its own process, plus one row of definition keys per file; an in-memory
catalogue of size/mtime/chunk rows and per-chunk line counts. The index only narrows; the
searcher confirms, reading only the candidate chunks of a file (:mod:`sleuth.engine.pieces`).

Public entry points: :class:`IndexService` (lifecycle and the narrowing contract),
:class:`CandidateSet`. The searches use it: grep (:mod:`sleuth.engine.grep`) for candidates, the text
search (:mod:`sleuth.engine.text`) and the symbols search (:mod:`sleuth.engine.symbols`) for what it
stores; it imports none of them (grep's request type only for type checking).
"""

from __future__ import annotations

from sleuth.engine.index.candidates import CandidateList, CandidateSet

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import Any
    from sleuth.engine.index.service import IndexService

__all__ = ["IndexService", "CandidateList", "CandidateSet"]


def __getattr__(name: str) -> Any:
    """``IndexService`` on first use: it brings numpy and SQLite, which a cold ``sleuth grep`` (it only
    needs :class:`CandidateList`) should not pay for at every start (numpy alone: ~130 ms here)."""
    if name == "IndexService":
        from sleuth.engine.index.service import IndexService

        return IndexService
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
