"""The "can this buffer match" check of a pattern without a required literal (engine/match/regex_check.py):
Hyperscan on ASCII buffers, the exact RE2 program on the others. It must answer exactly as the RE2
program's own check on every buffer, ASCII or not (a False means "no match possible": a wrong
False loses a file's matches)."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import sleuth.engine.match.regex_check as regex_check
from sleuth.engine.match import compile_matcher
from sleuth.engine.match.base import Matcher
from sleuth.engine.match.prefilter import hyperscan_available
from sleuth.engine.types import MatchOptions
from tests.conftest import under_fallback

NO_LITERAL = r"\w{5}\s+\w{5}\s+\w{5}\s+\w{5}\s+\w{5}"  # the benchsuite's linux_no_literal

needs_hyperscan = under_fallback("no-hyperscan", not hyperscan_available(),
                                 "hyperscan is not installed, not usable on this CPU, or not allowed")


def _exact(options: MatchOptions) -> Matcher:
    """The same matcher with the RE2 check only (what ran before Hyperscan took the ASCII buffers)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(regex_check, "hyperscan_available", lambda: False)
        return compile_matcher(options)


@needs_hyperscan
def test_a_pattern_without_literals_is_checked_by_hyperscan() -> None:
    may_match = compile_matcher(MatchOptions(patterns=(NO_LITERAL,))).may_match
    assert may_match.__qualname__.startswith("ascii_regex_check")
    assert may_match(b"alpha bravo charl delta echos\n")
    assert not may_match(b"alpha bravo\ncharl delta echos\n")  # line mode: \s never takes the newline
    assert not may_match(b"alpha bravo charlie delta echos\n")  # a middle word of 7
    assert may_match("alph\u00e9 bravo charl delta echos\n".encode())  # a Unicode \w: the RE2 path


TOKENS = [r"\w", r"\s", r"\d", r"\W", r"\S", "[a-c]", "[^x]", ".", "[[:upper:]]", r"\pL", "(?:ab|[0-9])", r"\b"]
QUANTIFIERS = ["", "+", "*", "?", "{2}", "{1,3}", "{3,}"]


@st.composite
def no_literal_patterns(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.tuples(st.sampled_from(TOKENS), st.sampled_from(QUANTIFIERS)), min_size=1, max_size=6))
    body = "".join(token + (quantifier if token != r"\b" else "") for token, quantifier in parts)
    anchored = draw(st.sampled_from(["", "^", "$"]))
    return "^" + body if anchored == "^" else body + "$" if anchored == "$" else body


TEXT = st.text(alphabet="ab_x1 \t\n-:AZ\u00e9\u212a\u0430", max_size=40)


@needs_hyperscan
@settings(max_examples=300, deadline=None)
@given(pattern=no_literal_patterns(), text=TEXT, case=st.sampled_from(["sensitive", "insensitive"]))
@example(pattern=NO_LITERAL, text="aaaaa bbbbb ccccc ddddd eeeee", case="sensitive")
@example(pattern=r"\w{2}$", text="x\u00e9\u00e9", case="sensitive")
@example(pattern=r"[^x]{3}", text="\u00e9\u00e9", case="sensitive")  # 4 bytes, 2 characters: no match
def test_the_check_answers_as_the_re2_program(pattern: str, text: str, case: str) -> None:
    options = MatchOptions(patterns=(pattern,), case=case)  # type: ignore[arg-type]
    exact = _exact(options).may_match
    matcher = compile_matcher(options)
    fast = matcher.may_match
    data = text.encode()
    if fast(data) is False:  # never a lost match, whatever the pattern
        assert list(matcher.find_iter(data)) == []
    if exact.__name__ == "_anything":  # a Unicode \b: only the ASCII program is RE2's, no exact check
        return
    assert fast(data) == exact(data)
    assert fast(memoryview(data)) == exact(data)  # the scan asks on a view of its read buffer


@needs_hyperscan
def test_a_unicode_word_boundary_is_checked_on_ascii_buffers() -> None:
    r"""``\b`` is Unicode in rg (RE2's is ASCII, so the ``regex`` module serves non-ASCII buffers): the
    ASCII program still answers for ASCII buffers; before, such a pattern had no check and every file
    of a scan went through the line machinery (the view's ``\b\d{4,}\b`` row)."""
    may_match = compile_matcher(MatchOptions(patterns=(r"\b\d{4,}\b",))).may_match
    assert may_match.__qualname__.startswith("ascii_regex_check")
    assert may_match(b"stream 1234 here\n")
    assert not may_match(b"queue71 alpha69 12345x 999\n")
    assert not may_match(memoryview(b"queue71 alpha69 12345x 999\n"))
    assert may_match("caf\u00e9 no number\n".encode())  # not ASCII: the regex module decides
