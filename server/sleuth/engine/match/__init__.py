"""Matchers: one interface over literal, regex, word, case and fuzzy matching (ripgrep's ``grep-matcher``).

The search layer depends on :class:`Matcher` only. ``compile_matcher`` picks the engine:
RE2 (linear time, Unicode-aware through the rg-dialect translation) for everything it can run,
the ``regex`` module under a deadline for look-around/back-references and fuzzy matching.

Modules: :mod:`.syntax` (rg-dialect parser -> AST, errors with positions), :mod:`.charclass`
(code-point sets, rg's Unicode ``\\w \\d \\s``, ``\\p{..}``, case folding), :mod:`.emit` (AST -> RE2
or ``regex`` text, line-mode rules, ``-w``), :mod:`.base` (:class:`Matcher`, :class:`Span`: what every other module
depends on), :mod:`.case` (rg's case rules), :mod:`.literals` (the required-literal AND/OR tree the
prefilter and the index use), :mod:`.prefilter` (``may_match``), :mod:`.engines` (the matchers),
:mod:`.compiler` (``compile_matcher``). Imports go one way: base, syntax -> case -> literals ->
prefilter, engines -> compiler -> this package.

Deliberate differences from ``rg`` (each is tested or documented where it lives): look-around and
back-references are accepted (as ``rg --engine auto`` would with PCRE2); counted repetitions above
1000 and the CRLF flag ``(?R)`` run in the ``regex`` engine; raw-byte escapes under ``(?-u)`` are
refused; ``\\A`` means the start of the buffer (rg's line-by-line fast path also lets it match at line
starts); after an empty match the ``regex`` engine steps one character where rg steps one byte.
"""

from __future__ import annotations

from sleuth.engine.match.base import LineMatches, Matcher, Span
from sleuth.engine.match.case import resolve_case
from sleuth.engine.match.compiler import CompileStopped, compile_matcher
from sleuth.engine.match.engines import MatchTimeout

__all__ = ["Span", "Matcher", "LineMatches", "compile_matcher", "CompileStopped", "resolve_case", "MatchTimeout"]
