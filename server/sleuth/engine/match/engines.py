"""The matchers behind the :class:`~sleuth.engine.match.Matcher` protocol.

* :class:`Re2Matcher` — google-re2 through its low-level ``RE2.Match(anchor, text, pos, endpos)``
  (spans as int tuples, no per-match Python objects, linear time). It may hold two programs: one
  exact on any UTF-8 buffer, or — when the pattern has Unicode ``\\b``/``\\B``, which RE2 only has
  in ASCII — one exact on ASCII buffers plus a :class:`RegexMatcher` for the others.
* :class:`RegexMatcher` — the ``regex`` module on the decoded text, for look-around,
  back-references and non-ASCII word boundaries; every search call runs under a timeout so a
  pathological pattern raises :class:`MatchTimeout` instead of hanging.
* :class:`FuzzyMatcher` — ``regex`` fuzzy matching (``{e<=N}``), line by line, under a timeout.

Iteration follows Rust's ``find_iter``: leftmost-first, non-overlapping, an empty match right
after the previous match is skipped, and the next search after an empty match starts one
byte later (one character in the ``regex`` engine, which sees decoded text). The search layer calls ``may_match`` first; it is the literal prefilter
compiled from :func:`sleuth.engine.match.literals.required_literals`.
"""

from __future__ import annotations

import _thread  # threading.Lock and threading.local are _thread's: no threading for a cold grep (issue 30)
import time
from collections.abc import Callable, Iterator

from sleuth.engine.errors import SearchTimeout
from sleuth.engine.line_table import literal_lines
from sleuth.engine.match.base import LineMatches, Matcher, Span

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:  # the regex module is imported where a pattern needs it (it costs 8 ms at start-up)
    from typing import Any

    import regex

__all__ = ["MatchTimeout", "Re2Matcher", "RegexMatcher", "FuzzyMatcher", "re2_compile", "re2_module", "LiteralProgram",
           "DEFAULT_TIMEOUT_S", "search_deadline"]

# RE2's anchor arguments, set by re2_module before the first program exists (LiteralProgram ignores them)
_UNANCHORED: Any = None
_ANCHOR_START: Any = None
DEFAULT_TIMEOUT_S = 5.0  # one buffer's budget in the backtracking engine when no deadline is given
Prefilter = Callable[[bytes], bool]


class MatchTimeout(SearchTimeout):
    """The backtracking engine ran past its budget on one buffer (a pathological pattern)."""

    default_hint = "Simplify the pattern (avoid nested repetition with look-around/back-references) or raise timeout_ms."


def re2_module() -> Any:
    """google-re2, imported by the first program compiled (:func:`re2_compile`) or asked for: its
    import (the C++ extension and its wrapper) is ~2 ms of a cold ``sleuth grep``, and a grep of one
    plain literal compiles no program at all (:class:`LiteralProgram`; issue 30)."""
    global _UNANCHORED, _ANCHOR_START
    import re2

    if _UNANCHORED is None:
        _UNANCHORED, _ANCHOR_START = re2._re2.RE2.Anchor.UNANCHORED, re2._re2.RE2.Anchor.ANCHOR_START
    return re2


def re2_compile(pattern: str, *, case_sensitive: bool = True, literal: bool = False):  # type: ignore[no-untyped-def]
    """A low-level ``_re2.RE2`` program; raises ``re2.error`` with RE2's message."""
    re2 = re2_module()
    options = re2.Options()
    options.log_errors = False
    options.max_mem = 64 << 20  # a cap, not an allocation: the no-literal query thrashes the DFA at 8 MiB (4x slower), not at 32
    options.case_sensitive = case_sensitive
    options.literal = literal
    return re2.compile(pattern.encode("utf-8"), options)._regexp


class LiteralProgram:
    """The program of a pattern that is one case-sensitive ASCII literal without a newline, answered by
    ``bytes.find`` as RE2's own ``Match`` would (unanchored only): the leftmost occurrence inside
    ``[pos, end)``; a literal's matches are its occurrences, RE2 finds them by memchr and memcmp too.
    A cold grep of such a pattern (the usual kind) then never imports RE2 (:func:`re2_module`)."""

    __slots__ = ("literal",)

    def __init__(self, literal: bytes) -> None:
        self.literal = literal

    def Match(self, _anchor: Any, data: bytes, pos: int, end: int) -> list[tuple[int, int]]:  # noqa: N802 (RE2's name)
        if type(data) is memoryview:
            data = data.tobytes()
        if end > len(data):  # RE2 matches nothing past the text's end, as its Match reads it
            return [(-1, -1)]
        at = data.find(self.literal, pos, end)
        return [(at, at + len(self.literal)) if at >= 0 else (-1, -1)]


def _anything(data: bytes) -> bool:
    """``may_match`` without a prefilter: any buffer may hold a match."""
    return True


def _no_line_at_end(data: bytes) -> bool:
    """True when the buffer's end starts no line (empty buffer, or it ends with "\\n"): rg then
    sees no line there, so an empty match at the very end is not reported."""
    return not data or data[-1] == 0x0A


_SEARCH = _thread._local()  # .deadline: the absolute deadline of the search this thread runs, or None


class search_deadline:  # noqa: N801 (used as a function: ``with search_deadline(d):``)
    """While this thread runs one search, the backtracking matchers take their per-buffer budget from
    the search's absolute ``time.monotonic()`` deadline (capped by :data:`DEFAULT_TIMEOUT_S`).

    A scan's matchers are compiled once per process and shared by every search with the same
    options (``engine/grep.py``), so they cannot hold one request's token; without this, each file
    got the 5 s default whatever ``timeout_ms`` said, and the scan polls its deadline only every
    16 files: ``fuzzy: 4`` with ``timeout_ms: 2000`` ran 20 s on 20 slow files. A class rather than
    a ``contextlib.contextmanager``: that module is ~0.5 ms of a cold ``sleuth grep`` (issue 30)."""

    __slots__ = ("deadline", "previous")

    def __init__(self, deadline: float | None) -> None:
        self.deadline = deadline
        self.previous: float | None = None

    def __enter__(self) -> None:
        self.previous = getattr(_SEARCH, "deadline", None)
        _SEARCH.deadline = self.deadline

    def __exit__(self, *_exc: object) -> None:
        _SEARCH.deadline = self.previous


def _budget() -> tuple[float, bool]:
    """Seconds one buffer may take, and whether that is the running search's time left (True) or the
    per-buffer cap :data:`DEFAULT_TIMEOUT_S` (False): the cap holds whatever ``timeout_ms`` says, so
    that one pathological file leaves time for the others."""
    deadline = getattr(_SEARCH, "deadline", None)
    if deadline is None:
        return DEFAULT_TIMEOUT_S, False
    left = deadline - time.monotonic()
    return (max(0.001, left), True) if left < DEFAULT_TIMEOUT_S else (DEFAULT_TIMEOUT_S, False)


def _timed_out(what: str, by_search: bool) -> MatchTimeout:
    """The error for a buffer that used up its budget; "raise timeout_ms" only where it would help."""
    if by_search:
        return MatchTimeout(f"{what} took too long on one file: the search's timeout_ms ran out.")
    return MatchTimeout(f"{what} took longer on one file than the {DEFAULT_TIMEOUT_S:g} s any one file may take.",
                        hint="Simplify the pattern (avoid nested repetition with look-around/back-references); "
                             "a larger timeout_ms does not lift this per-file limit.")


class Re2Matcher(Matcher):
    """RE2 matcher. For rg ``-w`` (``\\b{start-half}PAT\\b{end-half}``, which RE2 cannot write)
    ``word`` holds a second program: ``prog`` is then ``(?:^|\\W)(PAT)(?:\\W|$)`` searched from one
    character before the position, so the character before it serves as look-behind context, and
    ``word`` is ``\\W(PAT)(?:\\W|$)`` anchored there for the one case the first cannot settle."""

    __slots__ = ("_any", "_ascii", "_fallback", "may_match", "_anchor", "_ends", "description")

    def __init__(self, any_prog, ascii_prog, fallback: "RegexMatcher | None",  # type: ignore[no-untyped-def]
                 prefilter: Prefilter | None, description: str, anchor: tuple[bytes, ...] | None = None,
                 ends: Callable[[bytes | memoryview], list[int]] | None = None) -> None:
        self._any = any_prog  # (prog, word_prog | None) exact on any UTF-8 buffer, or None
        self._ascii = ascii_prog  # the same pair exact (and smaller, faster) on ASCII buffers, or None
        self._fallback = fallback
        self.may_match: Prefilter = prefilter or _anything  # the prefilter itself: one call per file of a scan
        self._anchor = anchor  # line mode: literals one of which every match contains (see find_iter)
        self._ends = ends  # several anchors: where their occurrences end, in one pass (prefilter.literal_ends)
        self.description = description

    def find_iter(self, data: bytes, start: int = 0, end: int | None = None) -> Iterator[Span]:
        """Matches in ``data[start:end]``, leftmost first.

        With anchors (line mode: case-sensitive literals one of which every match contains), only
        the lines holding one are matched, found by ``bytes.find`` as ripgrep finds candidate lines:
        a pattern led by a class (``[A-Z]+_RESUME``) otherwise runs the DFA over every byte of the
        file, and so does an alternation of literals from its first match on (in the kernel's big
        generated headers, 0.13 of the 1.45 CPU-s a cold ``ERR_SYS|PME_TURN_OFF|...`` scan took)."""
        anchor = self._anchor
        if anchor is None:
            yield from self._find_iter(data, start, end)
            return
        for line_start, line_end in _anchor_lines(data, anchor, start, end, self._ends):
            yield from self._line_spans(data, line_start, line_end, anchor)

    @property
    def finds_lines_by_literal(self) -> bool:
        return self._anchor is not None

    def matched_lines(self, data: bytes) -> LineMatches | None:
        """``(line start, line end, spans)`` for each line with a match, when this matcher finds them
        line by line anyway (line mode with an anchor, see :meth:`find_iter`); else None. The searcher
        then takes the lines as they are found instead of locating each match's line again (an indexed
        ``[A-Z]+_RESUME``: 2,161 matching lines, a bound search and a clipped copy of every span fewer)."""
        anchor = self._anchor
        if anchor is None:
            return None
        if len(anchor) == 1 and self._ascii is None and self._any is not None and self._any[1] is None:
            return _literal_lines(data, anchor[0], self._any[0].Match)  # the usual case, in one loop
        return self._anchored_lines(data, anchor)

    def _anchored_lines(self, data: bytes, anchor: tuple[bytes, ...]) -> Iterator[tuple[int, int, list[Span]]]:
        for line_start, line_end in _anchor_lines(data, anchor, 0, None, self._ends):
            spans = self._line_spans(data, line_start, line_end, anchor)
            if spans:
                yield line_start, line_end, spans

    def _line_spans(self, data: bytes, start: int, end: int, anchor: tuple[bytes, ...]) -> list[Span]:
        """The matches in one candidate line ``[start, end)``. Every match holds an anchor, so once
        none is left after a match the line is done: no second RE2 call that finds nothing (it was
        half of the 4,660 calls of an indexed ``[A-Z]+_RESUME``, for 2,161 matching lines)."""
        spans: list[Span] = []
        find = data.find
        only = anchor[0] if len(anchor) == 1 else None
        for span in self._find_iter(data, start, end):
            spans.append(span)
            if find(only, span.end, end) < 0 if only is not None else \
                    all(find(literal, span.end, end) < 0 for literal in anchor):
                break
        return spans

    def _find_iter(self, data: bytes, start: int = 0, end: int | None = None) -> Iterator[Span]:
        n = len(data)
        end = n if end is None else min(end, n)
        progs = self._any
        if self._ascii is not None:
            window = data if start == 0 and end == n else data[max(0, start - 4) : end + 4]
            if window.isascii():
                progs = self._ascii
            elif progs is None:
                assert self._fallback is not None
                yield from self._fallback.find_iter(data, start, end)
                return
        prog, word = progs
        match = prog.Match
        pos = start
        last_end = -1
        while pos <= end:
            if word is None:
                s, e = match(_UNANCHORED, data, pos, end)[0]
            else:
                s, e = _word_find(match, word.Match, data, pos, end)
            if s < 0:
                return
            if s == e:
                if e == last_end:  # an empty match touching the previous one is skipped (Rust)
                    pos += 1
                    continue
                if e == n and _no_line_at_end(data):
                    return
                yield Span(s, e)
                last_end = e
                pos = e + 1  # one byte, as rg does (an empty match may then fall inside a character)
            else:
                yield Span(s, e)
                last_end = pos = e


def _anchor_lines(data: bytes, anchors: tuple[bytes, ...], start: int, end: int | None,
                  ends: Callable[[bytes | memoryview], list[int]] | None = None) -> Iterator[tuple[int, int]]:
    """``[start, end)`` of each line of ``data[start:end]`` holding one of ``anchors`` (clipped to the
    window), in order. ``ends``: a one-pass finder of where the anchors' occurrences end (several
    anchors, :func:`~sleuth.engine.match.prefilter.literal_ends`); without it, a ``bytes.find`` pass
    per anchor."""
    end = len(data) if end is None else min(end, len(data))
    find, rfind = data.find, data.rfind
    if len(anchors) == 1:
        anchor = anchors[0]
        pos = start
        while pos <= end:
            at = find(anchor, pos, end)
            if at < 0:
                return
            line_end = find(b"\n", at, end)
            line_end = end if line_end < 0 else line_end
            yield max(rfind(b"\n", 0, at) + 1, pos), line_end
            pos = line_end + 1
        return
    # Several literals: where their occurrences end, ascending (one Hyperscan pass, or a find pass each).
    stops = [start + stop for stop in ends(memoryview(data)[start:end])] if ends is not None else \
        sorted(at + len(anchor) for anchor in anchors for at in _occurrences(find, anchor, start, end))
    line_end = -1
    for stop in stops:
        if stop <= line_end:
            continue  # another occurrence on the line just taken
        line_end = find(b"\n", stop, end)  # an anchor holds no newline: its line ends at or after it
        line_end = end if line_end < 0 else line_end
        yield max(rfind(b"\n", 0, stop) + 1, start), line_end


def _literal_lines(data: bytes, literal: bytes, match: Callable[..., list[tuple[int, int]]]) -> LineMatches:
    """:meth:`Re2Matcher.matched_lines` for one anchor and one program (no ``-w``, no ASCII/Unicode
    pair), as ripgrep finds a candidate line by its inner literal and runs the regex on that line only
    (an indexed ``[A-Z]+_RESUME``: 1,273 buffers, 11.6 MB, 2,161 matching lines). ``match``: the
    program's ``Match``; the literal holds no newline, and every match holds the literal (so is never
    empty): once none is left after a match, the line is done. The lines come from one compiled call
    where ``_lines.c`` was built (:func:`~sleuth.engine.line_table.literal_lines`: ``bytes.find`` over
    the whole buffer was a sixth of that search), else from :func:`_found_lines`."""
    if literal_lines is None:
        return _found_lines(data, literal, match)
    return _listed_lines(data, literal, match)


def _listed_lines(data: bytes, literal: bytes, match: Callable[..., list[tuple[int, int]]]) -> LineMatches:
    """:func:`_literal_lines` over the compiled list of candidate lines."""
    assert literal_lines is not None
    find = data.find
    found = literal_lines(data, literal)
    for i in range(0, len(found), 2):
        line_start, line_end = found[i], found[i + 1]
        spans: list[Span] = []
        start = line_start
        while True:
            s, e = match(_UNANCHORED, data, start, line_end)[0]
            if s < 0:
                break
            spans.append(Span(s, e))
            if find(literal, e, line_end) < 0:
                break
            start = e
        if spans:
            yield line_start, line_end, spans


def _found_lines(data: bytes, literal: bytes, match: Callable[..., list[tuple[int, int]]]) -> LineMatches:
    """:func:`_literal_lines` without the compiled loop: :func:`_anchor_lines` and
    :meth:`Re2Matcher._line_spans` fused into one loop. Three generator layers and a call per line
    cost as much as the finds and the RE2 calls themselves."""
    find, rfind = data.find, data.rfind
    size = len(data)
    pos = 0  # always a line's start
    at = find(literal)
    while at >= 0:
        line_start = rfind(b"\n", pos, at) + 1 or pos
        line_end = find(b"\n", at)
        if line_end < 0:
            line_end = size
        spans: list[Span] = []
        start = line_start
        while True:
            s, e = match(_UNANCHORED, data, start, line_end)[0]
            if s < 0:
                at = find(literal, line_end)
                break
            spans.append(Span(s, e))
            at = find(literal, e)  # the next literal: on this line another match may hold it, else it leads to the next line
            if at < 0 or at > line_end:
                break
            start = e
        if spans:
            yield line_start, line_end, spans
        pos = line_end + 1


def _occurrences(find: Callable[[bytes, int, int], int], anchor: bytes, start: int, end: int) -> Iterator[int]:
    """Where each occurrence of ``anchor`` inside ``[start, end)`` starts (overlapping ones too)."""
    at = find(anchor, start, end)
    while at >= 0:
        yield at
        at = find(anchor, at + 1, end)


def _word_find(match, anchored_match, data: bytes, pos: int, end: int) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """The leftmost ``-w`` match starting at or after ``pos`` (see :class:`Re2Matcher`)."""
    if pos == 0:
        return match(_UNANCHORED, data, 0, end)[1]
    back = pos - 1
    while back > 0 and (data[back] & 0xC0) == 0x80:
        back -= 1
    s, e = match(_UNANCHORED, data, back, end)[1]
    if s < 0 or s >= pos:
        return s, e
    # The word found starts at `back` (a line start): try the char at `back` as \W context first.
    s, e = anchored_match(_ANCHOR_START, data, back, end)[1]
    if s >= 0:
        return s, e
    return match(_UNANCHORED, data, pos, end)[1]


class _Offsets:
    """Maps character offsets of the decoded text back to byte offsets, incrementally (linear)."""

    __slots__ = ("text", "ascii", "char", "byte")

    def __init__(self, text: str, ascii_only: bool) -> None:
        self.text = text
        self.ascii = ascii_only
        self.char = 0
        self.byte = 0

    def to_byte(self, c: int) -> int:
        if self.ascii:
            return c
        if c < self.char:  # rare: a match starting before the last mapped end; restart
            self.char = self.byte = 0
        self.byte += len(self.text[self.char : c].encode("utf-8", "surrogateescape"))
        self.char = c
        return self.byte


def _decode(data: bytes) -> tuple[str, bool]:
    ascii_only = data.isascii()
    return (data.decode("ascii") if ascii_only else data.decode("utf-8", "surrogateescape")), ascii_only


def _char_offset(data: bytes, byte_offset: int, ascii_only: bool) -> int:
    if ascii_only or byte_offset == 0:
        return byte_offset
    return len(data[:byte_offset].decode("utf-8", "surrogateescape"))


class RegexMatcher(Matcher):
    """The ``regex`` module over decoded text (``surrogateescape`` keeps invalid bytes 1:1)."""

    __slots__ = ("_pattern", "_group", "may_match", "description")

    def __init__(self, pattern: "regex.Pattern[str]", group: str | int, prefilter: Prefilter | None,
                 description: str) -> None:
        self._pattern = pattern
        self._group = group
        self.may_match: Prefilter = prefilter or _anything  # the prefilter itself: one call per file of a scan
        self.description = description

    _WHAT = "The pattern (backtracking engine)"  # how a time-out names this engine
    backtracks = True

    def _search(self, text: str, cpos: int, cend: int, left: float) -> "regex.Match[str] | int | None":
        """The next match from ``cpos``, None for none, or an int: no match here, go on from there
        (a subclass that verifies matches line by line says so)."""
        return self._pattern.search(text, cpos, cend, timeout=left)

    def find_iter(self, data: bytes, start: int = 0, end: int | None = None) -> Iterator[Span]:
        n = len(data)
        end = n if end is None else min(end, n)
        text, ascii_only = _decode(data)
        cpos = _char_offset(data, start, ascii_only)
        cend = len(text) if end == n else _char_offset(data, end, ascii_only)
        offsets = _Offsets(text, ascii_only)
        budget, by_search = _budget()
        deadline = time.monotonic() + budget
        group = self._group
        last_end = -1
        while cpos <= cend:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _timed_out(self._WHAT, by_search)
            try:
                m = self._search(text, cpos, cend, left)
            except TimeoutError:
                raise _timed_out(self._WHAT, by_search) from None
            if m is None:
                return
            if isinstance(m, int):
                cpos = m
                continue
            s, e = m.span(group)
            if s == e and e == last_end:
                cpos += 1
                continue
            if s == e == len(text) and _no_line_at_end(data):
                return
            yield Span(offsets.to_byte(s), offsets.to_byte(e))
            last_end = e
            cpos = e + 1 if s == e else e


class FuzzyMatcher(Matcher):
    """Approximate matching: ``(?:PAT){e<=N}`` with ENHANCEMATCH, one line at a time in line mode.

    ``score`` = 1 - edits / L, where L = matched length - insertions + deletions is the length of
    the exact string the match was measured against (for a literal pattern: the pattern's length),
    so an exact match scores 1.0 and each edit costs 1/L. Empty matches are never reported.
    """

    __slots__ = ("_pattern", "may_match", "_line_filter", "_reach", "_line_mode", "description")
    backtracks = True

    def __init__(self, pattern: "regex.Pattern[str]", prefilter: Prefilter | None,
                 line_filter: "Callable[[bytes, int, int], int] | None", line_mode: bool,
                 description: str, reach: int | None = None) -> None:
        self._reach = reach  # a match starts at most this many characters before its intact piece
        self._pattern = pattern
        self.may_match: Prefilter = prefilter or _anything  # the prefilter itself: one call per file of a scan
        self._line_filter = line_filter
        self._line_mode = line_mode
        self.description = description

    def find_iter(self, data: bytes, start: int = 0, end: int | None = None) -> Iterator[Span]:
        n = len(data)
        end = n if end is None else min(end, n)
        budget, by_search = _budget()
        deadline = (time.monotonic() + budget, by_search)
        if not self._line_mode:
            yield from self._search(data, start, end, deadline)
            return
        pos = start
        while pos < end or (pos == end == start):
            if self._line_filter is not None:
                hit = self._line_filter(data, pos, end)
                if hit < 0:
                    return
                line_start = data.rfind(b"\n", 0, hit) + 1
                pos = max(pos, line_start)
            line_end = data.find(b"\n", pos, end)
            line_end = end if line_end < 0 else line_end
            yield from self._search(data, pos, line_end, deadline)
            pos = line_end + 1
            if line_end >= end:
                return

    def _search(self, data: bytes, start: int, end: int, budget: tuple[float, bool]) -> Iterator[Span]:
        deadline, by_search = budget
        chunk = data[start:end]
        text, ascii_only = _decode(chunk)
        offsets = _Offsets(text, ascii_only)
        finder = self._line_filter if self._line_mode and self._reach is not None else None
        cpos = 0
        while cpos <= len(text):
            left = deadline - time.monotonic()
            if left <= 0:
                raise _timed_out("The fuzzy pattern", by_search)
            begin = cpos
            if finder is not None:
                # Every match holds one piece intact (pigeonhole) and starts at most `reach`
                # characters before it: skip to there instead of trying every position.
                hit = finder(data, start + offsets.to_byte(cpos), end)
                if hit < 0:
                    return
                rel = hit - start
                hit_char = rel if ascii_only else len(chunk[:rel].decode("utf-8", "surrogateescape"))
                begin = max(cpos, hit_char - self._reach)  # type: ignore[operator]
            try:
                m = self._pattern.search(text, begin, timeout=left)
            except TimeoutError:
                raise _timed_out("The fuzzy pattern", by_search) from None
            if m is None:
                return
            s, e = m.span()
            if s == e:
                cpos = s + 1
                continue
            subs, ins, dels = m.fuzzy_counts
            length = max(1, (e - s) - ins + dels)
            score = max(0.0, min(1.0, 1.0 - (subs + ins + dels) / length))
            yield Span(start + offsets.to_byte(s), start + offsets.to_byte(e), round(score, 4))
            cpos = e
