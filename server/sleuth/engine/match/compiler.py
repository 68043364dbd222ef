"""``compile_matcher``: validated :class:`MatchOptions` -> the fastest exact :class:`Matcher`.

Steps, in rg's order: ``-F`` escapes each pattern; the case mode is resolved (rg's smart case:
insensitive when the patterns contain a literal and no literal is uppercase, escapes such as
``\\W`` and ``\\p{Lu}`` are not literals); every pattern is parsed (errors -> ``BadArgs`` with the
0-based ``position``); patterns are ORed like rg's repeated ``-e``; line mode (not multiline)
rejects a pattern that must match ``\\n`` and keeps ``\\n`` out of every class; ``-w`` is rg 14's
``\\b{start-half}PAT\\b{end-half}`` (crates/regex config.rs ``into_word``), which RE2 runs as
``(?:(?m:^)|\\W)(PAT)(?:\\W|(?m:$))`` with a look-behind emulation (:class:`.engines.Re2Matcher`).

Engine choice, measured on the Linux tree's ``fs/`` (40 MiB, CPU seconds for the 8 benchsuite
queries: RE2 0.008-0.07, ``re`` 0.03-1.1, ``regex`` 0.02-2.1, and both Python engines are
ASCII-only on bytes): RE2 for everything it can express, with a second, ASCII-only program for
ASCII buffers when the pattern has Unicode classes (25% faster there); RE2 for ASCII buffers + the
``regex`` module for the others when the pattern has Unicode ``\\b``/``\\B`` (RE2's are ASCII);
the ``regex`` module alone, under a timeout, for look-around, back-references, start/end-of-word
assertions and counts above 1000; ``regex`` fuzzy matching for ``fuzzy``.
"""

from __future__ import annotations

from sleuth.engine.cancel import CancelToken
from sleuth.engine.errors import BadArgs
from sleuth.engine.match.base import Matcher
from sleuth.engine.match.case import Poll, pattern_sources, resolve_case
from sleuth.engine.match.literals import LiteralQuery, literal_text, query_for_patterns
from sleuth.engine.match.emit import Unsupported, check_line_mode, to_re2, to_regex, word_lookaround, word_wrap
from sleuth.engine.match.engines import FuzzyMatcher, LiteralProgram, Re2Matcher, RegexMatcher, re2_compile, re2_module
from sleuth.engine.match.prefilter import compile_prefilter, literal_ends, program_check, rare_substring
from sleuth.engine.match.regex_check import ascii_only_check, ascii_regex_check
from sleuth.engine.match.syntax import Alt, Group, Node, ParseError, Parsed, parse
from sleuth.engine.types import MatchOptions

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    import regex

__all__ = ["compile_matcher", "CompileStopped", "compile_prefilter", "rare_substring", "capture_regex"]

CRLF_FLAG = "(?R)"  # rg --crlf is its regex crate's CRLF mode on the whole pattern


def _sources(options: MatchOptions) -> list[str]:
    """The patterns as the regex engines get them: ``-F`` escaped, ``--crlf`` in CRLF mode."""
    texts = pattern_sources(options)
    return [CRLF_FLAG + text for text in texts] if options.crlf else texts


def _bad_pattern(options: MatchOptions, index: int, err: ParseError) -> BadArgs:
    pattern = options.patterns[index]
    which = f" (pattern {index + 1})" if len(options.patterns) > 1 else ""
    position: int | None = err.position
    if options.crlf and position is not None:  # the flag prefix is ours, not the caller's
        position = max(0, position - len(CRLF_FLAG))
    if options.fixed_strings:  # the error is in the escaped text: point into what the caller wrote
        position = pattern.find("\n") if "\n" in pattern else None
    if err.message.startswith("the literal"):  # the line-mode newline ban (rg's wording)
        number = f" {index + 1}" if len(options.patterns) > 1 else ""
        where = "" if position is None else f" at position {position}"
        return BadArgs(f"{err.message} (pattern{number}{where}).", position=position, pattern=pattern)
    caret = " " * (position or 0) + "^"
    message = (
        f"regex parse error{which} at position {position}: {err.message}\n    {pattern}\n    {caret}\n"
        "Escape special characters with a backslash, or set fixed_strings to search for literal text."
    )
    return BadArgs(message, position=position, pattern=pattern)


class CompileStopped(Exception):
    """The caller's token stopped a compile (cancelled, or its deadline passed); nothing was kept."""


def _poller(stop: CancelToken | None) -> Poll:
    """A check of ``stop`` every 64 patterns (and at every step, called with 0): compiling 10,000
    ``-e`` patterns is work like any other and stops at the request's deadline."""
    def poll(i: int) -> None:
        if stop is not None and i % 64 == 0 and stop.should_stop():
            raise CompileStopped()

    return poll


def _parse_all(options: MatchOptions, ci: bool, poll: Poll) -> tuple[Node, list[Parsed]]:
    parsed: list[Parsed] = []
    for index, text in enumerate(_sources(options)):
        poll(index)
        try:
            one = parse(text, case_insensitive=ci)
            if not options.multiline:
                check_line_mode(one.node)
        except ParseError as err:
            raise _bad_pattern(options, index, err) from None
        parsed.append(one)
    nodes = [p.node for p in parsed]
    node = nodes[0] if len(nodes) == 1 else Alt(tuple(Group(n, None) for n in nodes))
    return node, parsed


def _case_and_parse(options: MatchOptions, poll: Poll) -> tuple[bool, Node, list[Parsed]]:
    """The case mode and the parsed patterns. Smart case guesses "insensitive" (all-lowercase patterns,
    the usual case) and parses once: the literals that decide it are noted the same either way; an
    uppercase literal means a second parse, case-sensitive."""
    if options.case == "smart":
        try:
            node, parsed = _parse_all(options, True, poll)
        except BadArgs:
            pass  # reported below, exactly as the case-resolved parse reports it
        else:
            if any(p.any_literal for p in parsed) and not any(p.any_uppercase for p in parsed):
                return True, node, parsed
    ci = resolve_case(options, poll)
    return (ci, *_parse_all(options, ci, poll))


def _regex_compile(text: str, options: MatchOptions) -> "regex.Pattern[str]":
    import regex  # only patterns RE2 cannot run pay for importing it (8 ms)

    try:
        return regex.compile(text)
    except regex.error as err:  # the parser rejects what it knows; this is the backstop
        raise BadArgs(f"The pattern could not be compiled ({err.msg}); simplify it or set fixed_strings.",
                      pattern=options.patterns[0]) from None


def compile_matcher(options: MatchOptions, *, stop: CancelToken | None = None) -> Matcher:
    """Compile ``options`` into a :class:`Matcher`; raises ``BadArgs`` for an invalid pattern.

    The backtracking engines' matching later is bounded by the running search's deadline
    (:func:`~sleuth.engine.match.engines.search_deadline`); ``stop`` bounds this compile:
    it is polled between patterns and between steps, and :class:`CompileStopped` is raised once it
    says stop. Every step is linear in the number of patterns (10,000 ``-e`` patterns compile in a
    fraction of a second); a step inside RE2, Hyperscan or the ``regex`` module cannot be
    interrupted, so a deadline may be overrun by at most that one step."""
    if not options.patterns:
        raise BadArgs("At least one pattern is required.")
    if options.engine == "pcre2":
        from sleuth.engine.match.pcre import compile_pcre2

        return compile_pcre2(options)
    poll = _poller(stop)
    ci, node, parsed = _case_and_parse(options, poll)
    line_mode = not options.multiline
    query = query_for_patterns(options, [p.node for p in parsed], ci, poll)
    poll(0)
    prefilter = compile_prefilter(query)
    poll(0)
    label = f"patterns={list(options.patterns)!r} ci={ci} word={options.word} multiline={options.multiline}"

    if options.fuzzy:
        return _fuzzy(options, parsed, ci, line_mode, prefilter, label, query)

    needs_backtracking = any(p.needs_backtracking for p in parsed)
    unicode_wb = any(p.word_boundaries for p in parsed)
    fallback: RegexMatcher | None = None
    if needs_backtracking or unicode_wb:
        body = to_regex(node, line_mode=line_mode)
        text = word_lookaround(body) if options.word else body
        fallback = RegexMatcher(_regex_compile(text, options), 0,
                                prefilter, "regex: " + label)
        if needs_backtracking:
            return fallback
    try:
        ascii_body = to_re2(node, line_mode=line_mode, ascii_text=True)
        poll(0)
        any_body = None if unicode_wb else to_re2(node, line_mode=line_mode, ascii_text=False)
    except Unsupported:  # pragma: no cover - needs_backtracking covers every Unsupported node
        assert fallback is not None
        return fallback
    if any_body == ascii_body:
        ascii_body = None  # nothing Unicode in the pattern: one program serves every buffer
    poll(0)
    any_pair = None if any_body is None else (_literal_pair(options, node, query, line_mode, any_body)
                                              or _re2_pair(any_body, options, line_mode, ascii_text=False))
    poll(0)
    ascii_pair = None if ascii_body is None else _re2_pair(ascii_body, options, line_mode, ascii_text=True)
    poll(0)
    engine = "re2-ascii+regex" if unicode_wb else "re2+re2-ascii" if ascii_pair else "re2"
    anchor = _line_anchors(query) if line_mode else None
    if prefilter is None and any_pair is not None and any_pair[1] is None:
        # No required literal: "does the DFA match at all" is the check. A non-matching file costs that
        # one pass anyway, and asked on the read buffer it spares copying the file and the per-line
        # machinery (the no_literal scan reads 78,000 files, 400 match); a match costs a second pass.
        prefilter = program_check(any_pair[0])
        # ... which Hyperscan answers faster on ASCII buffers, from the program exact on them.
        prefilter = ascii_regex_check((ascii_pair or any_pair)[2], prefilter)
    elif prefilter is None and any_pair is None and ascii_pair is not None and ascii_pair[1] is None:
        prefilter = ascii_only_check(ascii_pair[2])  # a Unicode \b: the ASCII program is exact on ASCII buffers
    ends = literal_ends(anchor) if anchor is not None and len(anchor) > 1 else None
    return Re2Matcher(any_pair[:2] if any_pair else None, ascii_pair[:2] if ascii_pair else None,
                      fallback, prefilter, f"{engine}: {label}", anchor, ends)


def capture_regex(options: MatchOptions) -> "tuple[regex.Pattern[str], dict[str, int] | None]":
    """The patterns as one ``regex``-module program whose groups are rg's: several patterns are joined
    as ``(?:p1)|(?:p2)``, so their groups number on from one pattern to the next (``rg -e '(a)' -e
    '(b)' -r '$2'``); group ``i`` is named ``g{i}``. Returns the program and the group names' numbers.
    Only ``-r/--replace`` needs it: the matchers report spans, not groups (RE2's fast path has none).
    With the pcre2 engine: its own program, whose groups keep their numbers and names (names None)."""
    if options.engine == "pcre2":
        from sleuth.engine.match.pcre import pcre2_program

        return pcre2_program(options), None
    sources = _sources(options)
    joined = sources[0] if len(sources) == 1 else "|".join(f"(?:{s})" for s in sources)
    ci = resolve_case(options)
    try:
        parsed = parse(joined, case_insensitive=ci)
    except ParseError as err:  # compile_matcher reported each pattern's error already; a joined one cannot add one
        raise BadArgs(f"The patterns could not be joined for replacing: {err.message}.") from None
    body = to_regex(parsed.node, line_mode=not options.multiline)
    return _regex_compile(word_lookaround(body) if options.word else body, options), dict(parsed.names)


MAX_ANCHORS = 8  # an alternation of more literals is matched whole: a find pass per literal adds up


def _line_anchors(query: LiteralQuery) -> tuple[bytes, ...] | None:
    """Case-sensitive literals (3 bytes or more) one of which every match contains: the longest one of
    a literal or an AND, one per branch of an OR whose every branch has one; or None."""
    if query.op == "or":
        found = [_line_anchors(child) for child in query.children]
        if not found or any(f is None for f in found):
            return None
        anchors = tuple(dict.fromkeys(a for f in found for a in f))  # type: ignore[union-attr]
        return anchors if len(anchors) <= MAX_ANCHORS else None
    if query.op == "lit":
        candidates = [query]
    elif query.op == "and":
        candidates = [child for child in query.children if child.op == "lit"]
    else:
        return None
    found = [c.lit for c in candidates if not c.casefold and len(c.lit) >= 3 and b"\n" not in c.lit]
    return (max(found, key=len),) if found else None


def _literal_pair(options: MatchOptions, node: Node, query: LiteralQuery, line_mode: bool, body: str
                  ) -> tuple[LiteralProgram, None, str] | None:
    """:func:`_re2_pair` without RE2 for a pattern that is one case-sensitive ASCII literal holding no
    newline, in line mode, without ``-w`` or ``--crlf`` (:class:`~.engines.LiteralProgram`); else None.
    The literal query must say the same (a flag group such as ``(?i:abc)`` is no literal to it)."""
    if options.word or options.crlf or not line_mode or query.op != "lit" or query.casefold:
        return None
    text = literal_text(node)
    if not text or not text.isascii() or "\n" in text or text.encode() != query.lit:
        return None
    return LiteralProgram(query.lit), None, body


def _re2_pair(body: str, options: MatchOptions, line_mode: bool, ascii_text: bool):  # type: ignore[no-untyped-def]
    """(program, -w anchored program or None, pattern text) for one haystack kind, from ``to_re2``'s text."""
    re2 = re2_module()
    text = word_wrap(body, line_mode=line_mode, re2=True, ascii_text=ascii_text) if options.word else body
    try:
        prog = re2_compile(text)
        word = None
        if options.word:
            word = re2_compile(word_wrap(body, line_mode=line_mode, re2=True, line_start=False, ascii_text=ascii_text))
    except re2.error as err:
        raise BadArgs(
            f"The pattern is too large or complex for the regex engine ({err}); simplify it "
            "(fewer or smaller counted repetitions of Unicode classes).",
            pattern=options.patterns[0],
        ) from None
    return prog, word, text


def _fuzzy(options: MatchOptions, parsed: list[Parsed], ci: bool, line_mode: bool,  # type: ignore[no-untyped-def]
           prefilter, label: str, query: LiteralQuery) -> Matcher:
    edits = options.fuzzy
    assert edits is not None
    constraint = ":[^\\n]" if line_mode else ""
    branches = []
    for one in parsed:
        body = to_regex(one.node, line_mode=line_mode)
        branches.append(f"(?:{body}){{e<={edits}{constraint}}}")
    text = "|".join(f"(?:{b})" for b in branches)
    if options.word:  # look-around keeps the reported span and fuzzy_counts those of the word itself
        text = word_lookaround(text)
    text = "(?e)" + text
    pattern = _regex_compile(text, options)
    line_filter = None
    reach = None
    if line_mode and prefilter is not None:
        leaves = query.literals() if query.op in ("lit", "or") else []
        if leaves:
            re2 = re2_module()
            unanchored = re2._re2.RE2.Anchor.UNANCHORED
            alternation = "|".join(re2.escape(x.decode("utf-8", "surrogateescape")) for x in leaves)
            prog = re2_compile(alternation, case_sensitive=not ci)

            def line_filter(data: bytes, pos: int, end: int) -> int:
                return prog.Match(unanchored, data, pos, end)[0][0]

            texts = [literal_text(one.node) for one in parsed]
            if all(t is not None for t in texts):
                reach = max(len(t) for t in texts if t is not None) + edits

    return FuzzyMatcher(pattern, prefilter, line_filter, line_mode, "fuzzy: " + label, reach)
