"""rg ``-P/--pcre2``: Perl-compatible patterns, run by the ``regex`` module (a backtracking engine).

Sleuth's default dialect already takes look-around and back-references (what ``rg --engine auto``
hands to PCRE2); ``-P`` adds the rest of PCRE's syntax that the ``regex`` module speaks: atomic groups
``(?>..)``, possessive ``a++``, ``\\K``, recursion, ``\\Q..\\E`` (rewritten here as escaped text), and
PCRE's own rules for what the rg dialect would reject. As in rg: ``^``/``$`` match at line ends,
smart case looks for an uppercase character outside escapes (grep-pcre2's rule), ``-w`` is
``(?<!\\w)(?:PAT)(?!\\w)``, several patterns are ORed, and without ``-U`` no match leaves its line
(a match the whole-buffer search finds across a line end is searched again inside its line, as rg
verifies candidate lines). No literal prefilter: every file is matched (``-P`` is for patterns the
fast path cannot run), under the search's deadline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sleuth.engine.errors import BadArgs
from sleuth.engine.match.engines import RegexMatcher
from sleuth.engine.types import MatchOptions

if TYPE_CHECKING:
    import regex

__all__ = ["Pcre2Matcher", "compile_pcre2", "pcre2_program", "has_uppercase_literal"]


def has_uppercase_literal(pattern: str) -> bool:
    """grep-pcre2's smart-case test: an uppercase character not right after a backslash."""
    chars = iter(pattern)
    for ch in chars:
        if ch == "\\":
            next(chars, None)
        elif ch.isupper():
            return True
    return False


def _quote_spans(pattern: str) -> str:
    """``\\Q..\\E`` (to the end when unclosed) as escaped text: the ``regex`` module lacks it."""
    import regex

    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        if pattern[i] == "\\" and i + 1 < n:
            if pattern[i + 1] == "Q":
                end = pattern.find("\\E", i + 2)
                quoted = pattern[i + 2:] if end < 0 else pattern[i + 2:end]
                out.append(regex.escape(quoted))
                i = n if end < 0 else end + 2
                continue
            out.append(pattern[i:i + 2])
            i += 2
            continue
        out.append(pattern[i])
        i += 1
    return "".join(out)


def pcre2_program(options: MatchOptions) -> "regex.Pattern[str]":
    """The patterns as one ``regex``-module program with PCRE's group numbering (several patterns joined
    as ``(?:p1)|(?:p2)``); :class:`BadArgs` with the position of a syntax error."""
    import regex

    sources = [regex.escape(p) if options.fixed_strings else _quote_spans(p) for p in options.patterns]
    if options.case == "insensitive":
        ci = True
    elif options.case == "sensitive":
        ci = False
    else:
        ci = not any(has_uppercase_literal(p) for p in options.patterns)
    body = sources[0] if len(sources) == 1 else "|".join(f"(?:{s})" for s in sources)
    if options.word:
        body = f"(?<!\\w)(?:{body})(?!\\w)"
    flags = regex.MULTILINE | regex.VERSION0 | (regex.IGNORECASE | regex.FULLCASE if ci else 0)
    try:
        return regex.compile(body, flags)
    except regex.error as err:
        position = err.pos if len(sources) == 1 and not options.word else None
        where = f" at position {position}" if position is not None else ""
        raise BadArgs(f"PCRE2 pattern error{where}: {err.msg}.", position=position, pattern=options.patterns[0],
                      hint="Fix the pattern, or drop -P/engine pcre2 for ripgrep's own syntax.") from None


class Pcre2Matcher(RegexMatcher):
    """The ``regex`` module over decoded text, each match verified on its own line in line mode
    (the loop, deadline and offsets are :class:`RegexMatcher`'s)."""

    __slots__ = ("_line_mode",)
    _WHAT = "The pattern (PCRE2 mode)"

    def __init__(self, pattern: "regex.Pattern[str]", line_mode: bool, description: str) -> None:
        super().__init__(pattern, 0, None, description)
        self._line_mode = line_mode

    def _search(self, text: str, cpos: int, cend: int, left: float) -> "regex.Match[str] | int | None":
        m = self._pattern.search(text, cpos, cend, timeout=left)
        if m is not None and self._line_mode and "\n" in text[m.start():m.end()]:
            line_start = max(cpos, text.rfind("\n", 0, m.start()) + 1)
            line_end = text.find("\n", m.start())
            m = self._pattern.search(text, line_start, line_end, timeout=left)  # this line only, as rg verifies lines
            if m is None:
                return line_end + 1
        return m


def compile_pcre2(options: MatchOptions) -> Pcre2Matcher:
    if options.fuzzy:
        raise BadArgs("sleuth.grep: 'fuzzy' cannot be combined with the pcre2 engine.", argument="engine",
                      hint="Drop one of them.")
    label = f"pcre2: patterns={list(options.patterns)!r} word={options.word} multiline={options.multiline}"
    return Pcre2Matcher(pcre2_program(options), not options.multiline, label)
