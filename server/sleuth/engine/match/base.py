"""The interface every matcher implements: :class:`Span` and the :class:`Matcher` protocol.

It sits below the engines, the compiler and the searchers so that each of them imports it without
importing the others (ripgrep's ``grep-matcher`` crate: the trait, with no engine in it).
"""

from __future__ import annotations

from collections.abc import Iterator

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import ClassVar, NamedTuple, Protocol
else:
    from sleuth.engine.plain_typing import NamedTuple, Protocol

__all__ = ["Span", "Matcher", "LineMatches"]


class Span(NamedTuple):
    """A match as byte offsets into the searched buffer; ``score`` in 0..1 for fuzzy matches, else None."""

    start: int
    end: int
    score: float | None = None


LineMatches = Iterator[tuple[int, int, list[Span]]]
"""``(line start, line end, spans in the line)`` for each line with a match, in order."""


class Matcher(Protocol):
    """Finds matches in UTF-8 bytes. In line mode no match spans a ``\\n``.

    ``find_iter`` and ``may_match`` are required; ``matched_lines`` is an optional fast path with a
    default (ripgrep's ``Matcher::find_candidate_line``): a matcher that subclasses this protocol
    inherits the default, which declines."""

    __slots__ = ()

    #: True when one call can run until the search's deadline (a backtracking engine: back-references,
    #: look-around, fuzzy): a server runs such a search where a cancel can interrupt that call, in a
    #: pool worker (:mod:`sleuth.engine.grep.pool`), never on one of its own threads.
    backtracks: ClassVar[bool] = False

    def find_iter(self, data: bytes, start: int = 0, end: int | None = None) -> Iterator[Span]:
        """Non-overlapping matches in ``data[start:end]``, leftmost first."""
        ...

    def may_match(self, data: bytes) -> bool:
        """Cheap whole-buffer test: False guarantees ``find_iter`` yields nothing (literal prefilter)."""
        ...

    @property
    def finds_lines_by_literal(self) -> bool:
        """True when :meth:`matched_lines` finds its lines by a literal every match holds, so a buffer
        without one costs it a ``bytes.find``, no more than ``may_match`` would: a caller that would ask
        ``may_match`` of a buffer most likely to match (an index's candidate piece) may search at once."""
        return False

    def matched_lines(self, data: bytes) -> LineMatches | None:
        """The matching lines of ``data`` with their spans, when this matcher finds matches line by line
        anyway (so the searcher need not locate each match's line again); None (the default) means
        "not offered": the searcher then derives the lines from ``find_iter``. When offered, the
        lines and spans must be exactly those ``find_iter`` implies (each span inside its line)."""
        return None
