"""compile_matcher end to end: spans on UTF-8 bytes for every option, engine choice, limits."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sleuth.engine.match import Matcher, MatchTimeout, compile_matcher
from sleuth.engine.match.engines import FuzzyMatcher, search_deadline
from sleuth.engine.types import MatchOptions


def spans(matcher: Matcher, data: bytes, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    return [(s.start, s.end) for s in matcher.find_iter(data, start, end)]


def texts(options: MatchOptions, data: bytes) -> list[bytes]:
    return [data[s.start : s.end] for s in compile_matcher(options).find_iter(data)]


def test_literal_spans_are_byte_offsets() -> None:
    data = "é PM_RESUME x PM_RESUME".encode()
    assert spans(compile_matcher(MatchOptions(patterns=("PM_RESUME",))), data) == [(3, 12), (15, 24)]


def test_line_mode_never_spans_a_newline() -> None:
    data = b"alpha  \n  beta\ngamma"
    assert texts(MatchOptions(patterns=(r"\w+\s+\w+",)), data) == []
    assert texts(MatchOptions(patterns=(r"[^x]+",)), data) == [b"alpha  ", b"  beta", b"gamma"]
    assert texts(MatchOptions(patterns=(r"(?s).+",)), data) == [b"alpha  ", b"  beta", b"gamma"]


def test_multiline_lets_classes_cross_lines_but_not_dot() -> None:
    data = b"alpha  \n  beta"
    assert texts(MatchOptions(patterns=(r"\w+\s+\w+",), multiline=True), data) == [b"alpha  \n  beta"]
    assert texts(MatchOptions(patterns=(r"a.+",), multiline=True), data) == [b"alpha  "]
    assert texts(MatchOptions(patterns=(r"(?s)a.+",), multiline=True), data) == [data]


def test_unicode_perl_classes() -> None:
    data = "x éAh ٣٤ a\u00a0b".encode()
    assert texts(MatchOptions(patterns=(r"\wAh",)), data) == ["éAh".encode()]
    assert texts(MatchOptions(patterns=(r"\d+",)), data) == ["٣٤".encode()]
    assert texts(MatchOptions(patterns=(r"a\sb",)), data) == ["a\u00a0b".encode()]


def test_unicode_case_folding() -> None:
    data = "Straße STRASSE \u212a k ſ".encode()
    assert texts(MatchOptions(patterns=("STRAẞE",), case="insensitive"), data) == ["Straße".encode()]
    assert texts(MatchOptions(patterns=("k",), case="insensitive"), data) == ["\u212a".encode(), b"k"]
    assert texts(MatchOptions(patterns=("S",), case="insensitive"), b"s S") == [b"s", b"S"]
    assert texts(MatchOptions(patterns=("s",), case="insensitive"), "ſ".encode()) == ["ſ".encode()]


def test_word_boundary_is_unicode_aware_on_any_buffer() -> None:
    options = MatchOptions(patterns=(r"\bfoo\b",))
    assert texts(options, b"foo xfoo foo_ (foo)") == [b"foo", b"foo"]
    assert spans(compile_matcher(options), "éfoo foo".encode()) == [(6, 9)]  # é is a word char
    assert spans(compile_matcher(options), "—foo".encode()) == [(3, 6)]  # — is not


def test_word_option_uses_rg_half_boundaries() -> None:
    word = MatchOptions(patterns=("foo",), word=True)
    assert spans(compile_matcher(word), b"foo foo_ -foo- foo5") == [(0, 3), (10, 13)]
    assert spans(compile_matcher(MatchOptions(patterns=("!?foo!?",), word=True)), b"!!foo!!") == [(1, 6)]
    assert spans(compile_matcher(MatchOptions(patterns=("-2",), word=True)), b"-2") == [(0, 2)]
    assert spans(compile_matcher(MatchOptions(patterns=("|aa",), word=True)), b"-aa") == [(0, 0), (1, 3)]


def test_fixed_strings_and_multiple_patterns() -> None:
    data = b"a.b axb (x) a+b"
    assert texts(MatchOptions(patterns=("a.b",), fixed_strings=True), data) == [b"a.b"]
    assert texts(MatchOptions(patterns=("(x)", "a+b"), fixed_strings=True), data) == [b"(x)", b"a+b"]
    assert texts(MatchOptions(patterns=("axb", "a.b")), data) == [b"a.b", b"axb", b"a+b"]


def test_empty_matches_follow_rust_iteration() -> None:
    matcher = compile_matcher(MatchOptions(patterns=("a*",)))
    assert spans(matcher, b"baa") == [(0, 0), (1, 3)]  # no empty match right after "aa"
    assert spans(compile_matcher(MatchOptions(patterns=("$",))), b"ab\ncd\n") == [(2, 2), (5, 5)]
    assert spans(compile_matcher(MatchOptions(patterns=("x*",))), b"") == []  # an empty file has no line


def test_start_and_end_bound_the_search_but_keep_context() -> None:
    matcher = compile_matcher(MatchOptions(patterns=(r"\bbar",)))
    data = b"foobar bar"
    assert spans(matcher, data, 3) == [(7, 10)]  # "bar" at 3 follows a word char
    assert spans(compile_matcher(MatchOptions(patterns=("^b",))), b"ab\nb", 1) == [(3, 4)]
    assert spans(compile_matcher(MatchOptions(patterns=("o",))), b"oooo", 1, 3) == [(1, 2), (2, 3)]


def test_anchors_in_line_mode() -> None:
    data = b"foo\nbar foo\nfoo"
    assert spans(compile_matcher(MatchOptions(patterns=("^foo",))), data) == [(0, 3), (12, 15)]
    assert spans(compile_matcher(MatchOptions(patterns=("foo$",))), data) == [(0, 3), (8, 11), (12, 15)]
    assert spans(compile_matcher(MatchOptions(patterns=(r"\Afoo",))), data) == [(0, 3)]
    assert spans(compile_matcher(MatchOptions(patterns=(r"foo\z",))), data) == [(12, 15)]


def test_invalid_utf8_is_matched_bytewise_around() -> None:
    data = b"\xff\xfeabc \xc3 d\xe9"
    assert texts(MatchOptions(patterns=(r"\w+",)), data) == [b"abc", b"d"]


def test_lookaround_and_backreferences_run_in_the_regex_engine() -> None:
    data = "hello hello x éfoobar foobar".encode()
    assert texts(MatchOptions(patterns=(r"\b(\w+) \1\b",)), data) == [b"hello hello"]
    assert texts(MatchOptions(patterns=(r"(?<=foo)bar",)), data) == [b"bar", b"bar"]
    assert spans(compile_matcher(MatchOptions(patterns=(r"(?<=foo)bar",))), data) == [(19, 22), (26, 29)]


def test_pathological_backtracking_times_out_instead_of_hanging() -> None:
    matcher = compile_matcher(MatchOptions(patterns=(r"(?=(x+x+)+y)x",)))
    with search_deadline(time.monotonic() + 0.1), pytest.raises(MatchTimeout) as info:
        list(matcher.find_iter(b"x" * 5000))
    assert info.value.to_dict()["code"] == "timeout"


def test_fuzzy_scores_and_levels_are_supersets() -> None:
    data = b"helo\nhallo\nxx hello\njello world\nhxllx\n"
    found = {}
    for level in (1, 2, 3, 4):
        matcher = compile_matcher(MatchOptions(patterns=("hello",), fuzzy=level))
        found[level] = [(s.start, s.end, s.score) for s in matcher.find_iter(data)]
        assert all(s.score is not None and 0.0 <= s.score <= 1.0 for s in matcher.find_iter(data))
    assert (14, 19, 1.0) in found[1]
    assert (0, 4, 0.8) in found[1]
    lines = [{data.count(b"\n", 0, s) for s, _, _ in found[level]} for level in (1, 2, 3, 4)]
    assert lines[0] <= lines[1] <= lines[2] <= lines[3]
    assert 4 in lines[1] and 4 not in lines[0]  # "hxllx" needs two edits


def test_fuzzy_matches_stay_inside_a_line() -> None:
    matcher = compile_matcher(MatchOptions(patterns=("abcdef",), fuzzy=2))
    data = b"abc\ndef\nabcdxf\n"
    assert all(b"\n" not in data[s.start : s.end] for s in matcher.find_iter(data))
    assert [data[s.start : s.end] for s in matcher.find_iter(data)] == [b"abcdxf"]


def test_exact_matches_have_no_score() -> None:
    matcher = compile_matcher(MatchOptions(patterns=("x",)))
    assert [s.score for s in matcher.find_iter(b"x x")] == [None, None]


@pytest.mark.parametrize(
    "pattern, data",
    [("PM_RESUME", b"nothing here"), ("[A-Z]+_RESUME", b"PM_RESUM"), ("ERR_SYS|PME_TURN_OFF", b"ERR_SY")],
)
def test_may_match_rejects_buffers_without_the_literals(pattern: str, data: bytes) -> None:
    matcher = compile_matcher(MatchOptions(patterns=(pattern,)))
    assert matcher.may_match(data) is False
    assert matcher.may_match(b"x " + b"PM_RESUME ERR_SYS") is True


def test_may_match_is_case_insensitive_when_matching_is() -> None:
    matcher = compile_matcher(MatchOptions(patterns=("pm_resume",)))
    assert matcher.may_match(b"PM_RESUME")
    assert matcher.may_match("STRAẞE".encode()) is False
    folded = compile_matcher(MatchOptions(patterns=("straße",)))
    assert folded.may_match("STRAẞE".encode()) and list(folded.find_iter("STRAẞE".encode()))


@settings(max_examples=300, deadline=None)
@given(word=st.text(alphabet="abcé", min_size=2, max_size=6), edits=st.integers(1, 3),
       lines=st.lists(st.text(alphabet="abcé x", max_size=30), max_size=5), case=st.sampled_from(["smart", "insensitive"]))
def test_fuzzy_skipping_to_pieces_finds_what_a_full_scan_finds(word: str, edits: int, lines: list[str], case: str) -> None:
    """The piece filter and the jump to `reach` before a piece are optimisations: same spans."""
    matcher = compile_matcher(MatchOptions(patterns=(word,), fuzzy=edits, case=case))  # type: ignore[arg-type]
    assert isinstance(matcher, FuzzyMatcher)
    full_scan = FuzzyMatcher(matcher._pattern, None, None, True, "reference")
    data = "\n".join(lines).encode()
    assert list(matcher.find_iter(data)) == list(full_scan.find_iter(data))


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="ab_RESUMxé \n\t", max_size=80),
       pattern=st.sampled_from([r"[A-Z]+_RES", r"_RES\w*", r"\b_RES", r"(?:^|\s)_RES", r"_RES$",
                                r"[^\n]*_RES", "_RES", "_RES|xab", r"[A-Z]+_RES|Mxé\w*", r"\bab_R|SUM\b|b a",
                                r"(?:_RE|xab\s+x)S?"]),
       word=st.booleans(), case=st.sampled_from(["sensitive", "smart"]))
def test_line_anchor_finds_what_the_whole_buffer_search_finds(text: str, pattern: str, word: bool, case: str) -> None:
    """Matching only the lines holding the required literal, or one of an alternation's (found with
    bytes.find), gives the same spans."""
    matcher = compile_matcher(MatchOptions(patterns=(pattern,), word=word, case=case))
    assert getattr(matcher, "_anchor", None) is not None
    data = text.encode("utf-8")
    anchored = list(matcher.find_iter(data))
    matcher._anchor = None  # type: ignore[attr-defined]
    assert anchored == list(matcher.find_iter(data))


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="abc_\n", max_size=60), anchors=st.lists(st.sampled_from(["ab", "abc", "c_a", "_", "bca"]),
       min_size=2, max_size=4, unique=True), window=st.tuples(st.integers(0, 60), st.integers(0, 60)))
def test_lines_holding_any_anchor_are_found_alike_by_one_pass_and_by_find(text: str, anchors: list[str],
                                                                         window: tuple[int, int]) -> None:
    """An alternation's candidate lines: the one-pass Hyperscan finder, the ``bytes.find`` passes and a
    line-by-line reference agree, inside any window."""
    from sleuth.engine.match.engines import _anchor_lines
    from sleuth.engine.match.prefilter import hyperscan_available, literal_ends

    data = text.encode()
    start, end = min(window), max(window)
    literals = tuple(a.encode() for a in anchors)
    expected, pos = [], 0
    for line in data.split(b"\n"):  # every line, clipped to the window, that holds a literal inside it
        lo, hi = max(pos, start), min(pos + len(line), end, len(data))
        if lo <= hi and any(lit in data[lo:hi] for lit in literals):
            expected.append((lo, hi))
        pos += len(line) + 1
    assert list(_anchor_lines(data, literals, start, end)) == expected
    if hyperscan_available():
        assert list(_anchor_lines(data, literals, start, end, literal_ends(literals))) == expected


def test_an_alternation_of_literals_with_a_nul_byte_is_anchored_by_find() -> None:
    from sleuth.engine.match.prefilter import literal_ends

    assert literal_ends((b"a\x00b", b"xyz")) is None  # Hyperscan's literal mode would stop at the NUL
    matcher = compile_matcher(MatchOptions(patterns=("a\\x00b|xyz",), case="sensitive"))
    assert matcher._anchor == (b"a\x00b", b"xyz")  # type: ignore[attr-defined]  # lines found by bytes.find
    data = b"one a\x00b here\nnothing\nxyz\n"
    assert [(s.start, s.end) for s in matcher.find_iter(data)] == [(4, 7), (21, 24)]
