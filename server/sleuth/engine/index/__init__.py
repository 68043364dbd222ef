"""Sleuth's incremental index (SPEC §7): file catalogue, trigram prefilter, definition keys, persistence.

The design, chosen by measurement on the Linux tree (README, "Index"): SQLite FTS5 ``trigram``
tables (contentless, ``detail=none``) over line-aligned 16 KiB chunks (4 KiB in big files), one
shard database per core built by its own process, plus one row of definition keys per file; an
in-memory catalogue of size/mtime/chunk rows and per-chunk line counts. The index only narrows; the
searcher confirms, reading only the candidate chunks of a file (:mod:`~sleuth.engine.index.pieces`).

Public entry points: :class:`IndexService` (lifecycle and the narrowing contract),
:class:`CandidateSet`, and :func:`sleuth.engine.index.text.search_text` (ranked ``sleuth.text``).
"""

from sleuth.engine.index.candidates import CandidateSet, RangedEntry
from sleuth.engine.index.service import IndexService

__all__ = ["IndexService", "CandidateSet", "RangedEntry"]
