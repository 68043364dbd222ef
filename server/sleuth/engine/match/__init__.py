"""Matchers: one interface over literal, regex, word, case and fuzzy matching (ripgrep's ``grep-matcher``).

The search layer depends on :class:`Matcher` only. ``compile_matcher`` picks the engine:
RE2 (linear time, Unicode-aware through the rg-dialect translation) for everything it can run,
the ``regex`` module under a deadline for look-around/back-references and fuzzy matching.

Modules: :mod:`.syntax` (rg-dialect parser -> AST, errors with positions), :mod:`.charclass`
(code-point sets, rg's Unicode ``\\w \\d \\s``, ``\\p{..}``, case folding), :mod:`.emit` (AST -> RE2
or ``regex`` text, line-mode rules, ``-w``), :mod:`.engines` (the matchers), :mod:`.compiler`
(``compile_matcher``, smart case, the literal prefilter behind ``may_match``);
:mod:`sleuth.engine.literals` gives the required-literal query the index also uses.

Deliberate differences from ``rg`` (each is tested or documented where it lives): look-around and
back-references are accepted (as ``rg --engine auto`` would with PCRE2); counted repetitions above
1000 and the CRLF flag ``(?R)`` run in the ``regex`` engine; raw-byte escapes under ``(?-u)`` are
refused; ``\\A`` means the start of the buffer (rg's line-by-line fast path also lets it match at line
starts); after an empty match the ``regex`` engine steps one character where rg steps one byte.
"""

from __future__ import annotations

from typing import Iterator, NamedTuple, Protocol

__all__ = ["Span", "Matcher"]


class Span(NamedTuple):
    """A match as byte offsets into the searched buffer; ``score`` in 0..1 for fuzzy matches, else None."""

    start: int
    end: int
    score: float | None = None


class Matcher(Protocol):
    """Finds matches in UTF-8 bytes. In line mode no match spans a ``\\n``."""

    def find_iter(self, data: bytes, start: int = 0, end: int | None = None) -> Iterator[Span]:
        """Non-overlapping matches in ``data[start:end]``, leftmost first."""
        ...

    def may_match(self, data: bytes) -> bool:
        """Cheap whole-buffer test: False guarantees ``find_iter`` yields nothing (literal prefilter)."""
        ...


# Re-exported last: the implementation modules import Span and Matcher from here.
from sleuth.engine.match.compiler import CompileStopped, compile_matcher, resolve_case  # noqa: E402
from sleuth.engine.match.engines import MatchTimeout  # noqa: E402

__all__ += ["compile_matcher", "CompileStopped", "resolve_case", "MatchTimeout"]
