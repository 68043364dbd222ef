"""The inner-literal strategy (ripgrep's candidate lines): a pattern whose every match holds a known
case-sensitive literal is matched only on the lines holding one, and a line's matches stop once no
literal is left after the last. Exactness is the rule: what it finds equals a full regex scan."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from sleuth.engine.match import Matcher, compile_matcher
from sleuth.engine.match.base import Span
from sleuth.engine.search import _matched_lines
from sleuth.engine.types import MatchOptions

_LITERALS = ["_RE", "RES", "é_R", "a\tb"]
_BEFORE = ["", "[A-Z]+", r"\w+", r"\w*", "[a-z]?", r"\s*", "(?:ab|b)+", ".*", r"\b", "^", "[^_]*", "x{1,3}", "é*",
           r"\S+", "(?:S|_)"]
_AFTER = ["", "[A-Z]*", r"\w+", "$", r"\b", r"\s+x", ".?", "(?:_RE)?", "(?:S|T)", r"\B", "[^a]+", r"\d"]
_PIECES = ["_RE", "RES", "é_R", "a\tb", "A", "Z", "a", "b", "x", "_", " ", "\t", "\n", "\r\n", "é", "S", "T", "1",
           "\xff"]  # "\xff" stands for an invalid UTF-8 byte (see _bytes)


@st.composite
def _patterns(draw: st.DrawFn) -> str:
    """A pattern with a required literal: BEFORE LITERAL AFTER, or an alternation of two such."""
    def one() -> str:
        return draw(st.sampled_from(_BEFORE)) + draw(st.sampled_from(_LITERALS)) + draw(st.sampled_from(_AFTER))

    return one() if draw(st.booleans()) else f"{one()}|{one()}"


def _bytes(pieces: list[str]) -> bytes:
    return b"".join(b"\xff" if piece == "\xff" else piece.encode() for piece in pieces)


class _FullScan(Matcher):
    """The same program without its anchors or its line shortcut: RE2 over the whole buffer, each
    match's line found by the searcher (the reference the strategy must equal)."""

    def __init__(self, options: MatchOptions) -> None:
        self.real = compile_matcher(options)
        if hasattr(self.real, "_anchor"):  # (--crlf's `$` runs in the regex module: no anchors there)
            self.real._anchor = None  # type: ignore[attr-defined]
        self.may_match = self.real.may_match

    def find_iter(self, data: bytes, start: int = 0, end: int | None = None):  # type: ignore[no-untyped-def]
        return self.real.find_iter(data, start, end)


_TEXTS = st.lists(st.sampled_from(_PIECES + _LITERALS * 4), max_size=40).map(_bytes)  # literals often, side by side


@settings(max_examples=1000, deadline=None)
@given(pattern=_patterns(), text=_TEXTS, word=st.booleans(), crlf=st.booleans())
@example(pattern="_RE", text=b"_RE_RE\n", word=False, crlf=False)  # the next match's literal right at the last's end
@example(pattern=r"[A-Z]+_RE", text=b"xA_REB_RE\r\nC_RE", word=False, crlf=False)
def test_the_lines_holding_the_literal_give_what_a_full_scan_gives(pattern: str, text: bytes, word: bool,
                                                                   crlf: bool) -> None:
    options = MatchOptions((pattern,), case="sensitive", word=word, crlf=crlf)
    matcher = compile_matcher(options)
    reference = _FullScan(options)
    assert list(_matched_lines(text, matcher)) == list(_matched_lines(text, reference))
    assert list(matcher.find_iter(text)) == list(reference.find_iter(text))


def test_the_usual_patterns_are_anchored() -> None:
    """The property above is not vacuous: the benchsuite's suffix shapes take the strategy."""
    for pattern, word in (("[A-Z]+_RESUME", False), (r"\w+_RESUME", False), ("[A-Z]+_RESUME", True),
                          ("[A-Z]+_RESUME|PM_[A-Z]+", False)):
        matcher = compile_matcher(MatchOptions((pattern,), case="sensitive", word=word))
        assert matcher.matched_lines(b"x PM_RESUME\n") is not None, pattern


class _CountingProgram:
    """A real RE2 program that counts its searches."""

    def __init__(self, program) -> None:  # type: ignore[no-untyped-def]
        self.program = program
        self.calls = 0

    def Match(self, *args):  # type: ignore[no-untyped-def]  # noqa: N802 - the binding's name
        self.calls += 1
        return self.program.Match(*args)


def test_a_line_whose_literal_occurs_once_costs_one_regex_search() -> None:
    """Every match holds the literal, so after a line's last literal no search is needed: one RE2
    search per matching line, not a second one that finds nothing."""
    matcher = compile_matcher(MatchOptions(("[A-Z]+_RESUME",), case="sensitive"))
    program, word = matcher._any  # type: ignore[attr-defined]
    counting = _CountingProgram(program)
    matcher._any = (counting, word)  # type: ignore[attr-defined]
    data = b"int x;\nif (PM_RESUME) {}\nint y; DPM_RESUME and SUSPEND_RESUME\nnone\n" * 10
    lines = list(matcher.matched_lines(data))
    assert [len(spans) for _lo, _hi, spans in lines] == [1, 2] * 10
    assert counting.calls == 30  # one per match: the line's last literal ends its search
    assert lines[1][2] == [Span(32, 42), Span(47, 61)]
