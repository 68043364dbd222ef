"""Required literals: the examples of the module docstring and the contract, property-tested:
whenever the matcher finds a match in a buffer, the buffer satisfies the literal query and
``may_match`` is True."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sleuth.engine.errors import BadArgs
from sleuth.engine.match.literals import ANY, LiteralQuery, fuzzy_pieces, required_literals
from sleuth.engine.match import compile_matcher
from sleuth.engine.types import MatchOptions


@pytest.mark.parametrize(
    "pattern, expected",
    [
        ("PM_RESUME", "'PM_RESUME'"),
        ("[A-Z]+_RESUME", "'_RESUME'"),
        ("ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT",
         "OR('CFG_BME_EVT', 'ERR_SYS', 'LINK_REQ_RST', 'PME_TURN_OFF')"),
        (r"\w{5}\s+\w{5}\s+\w{5}\s+\w{5}\s+\w{5}", "ANY"),
        (r"\wAh", "'Ah'"),
        ("foo.*Bar", "AND('foo', 'Bar')"),
        ("(foo|bar)Baz", "OR('barBaz', 'fooBaz')"),
        ("ab?C", "OR('aC', 'abC')"),
        ("x[ab]Y", "OR('xaY', 'xbY')"),
        ("(Foo)+", "'Foo'"),
        ("(Foo)*bar", "'bar'"),
        ("Foo|.*", "ANY"),
        ("a{3}B", "'aaaB'"),
        (r"(\w+)\s\1X", "'X'"),
    ],
)
def test_examples(pattern: str, expected: str) -> None:
    assert str(required_literals(MatchOptions(patterns=(pattern,)))) == expected


def test_case_insensitive_leaves_are_marked_and_keep_their_spelling() -> None:
    query = required_literals(MatchOptions(patterns=("pm_resume",)))
    assert query == LiteralQuery("lit", b"pm_resume", casefold=True)
    assert query.satisfied_by(b"xx PM_Resume") and not query.satisfied_by(b"PM-RESUME")


def test_multiple_patterns_are_ored_and_fixed_strings_escaped() -> None:
    query = required_literals(MatchOptions(patterns=("a.b", "(c)"), fixed_strings=True, case="sensitive"))
    assert str(query) == "OR('a.b', '(c)')"


def test_fuzzy_uses_pigeonhole_pieces() -> None:
    assert fuzzy_pieces("abcdefg", 2) == ["abc", "de", "fg"]
    assert fuzzy_pieces("ab", 2) == []
    query = required_literals(MatchOptions(patterns=("Hello",), fuzzy=1))
    assert str(query) == "OR('Hel', 'lo')"
    assert required_literals(MatchOptions(patterns=("a.c",), fuzzy=1)) == ANY


def test_invalid_patterns_give_any() -> None:
    assert required_literals(MatchOptions(patterns=("fo(o",))) == ANY
    with pytest.raises(BadArgs):
        compile_matcher(MatchOptions(patterns=("fo(o",)))


def test_and_or_simplify() -> None:
    a, b = LiteralQuery.literal("a"), LiteralQuery.literal("b")
    assert LiteralQuery.all_of([ANY, a, LiteralQuery.all_of([a, b])]) == LiteralQuery("and", children=(a, b))
    assert LiteralQuery.any_of([a, ANY]) == ANY
    assert LiteralQuery.literal("") == ANY
    assert LiteralQuery("and", children=(a, b)).literals() == [b"a", b"b"]


_ATOMS = ["a", "b", "A", "é", "É", "ß", "k", "s", "σ", "_", "1", " ", ".", r"\w", r"\d", r"\s", r"\W",
          "[ab]", "[^a]", "[a-c]", "(?i:a)", "(?i:s)", r"\b", "^", "$", "(ab|b)", "(a|)", "(?i:ß)", "[kK]"]
_CHARS = st.sampled_from(list("abAB éÉßẞkK\u212asSſσΣς_1\n.") + ["\u00e9a", "ss", "SS"])


@st.composite
def _patterns(draw: st.DrawFn) -> str:
    parts = [a + draw(st.sampled_from(["", "", "", "*", "+", "?", "{2}", "{1,3}"]))
             for a in draw(st.lists(st.sampled_from(_ATOMS), min_size=1, max_size=5))]
    if draw(st.booleans()):
        parts.insert(draw(st.integers(0, len(parts))), "|")
    return "".join(parts)


@settings(max_examples=400, deadline=None)
@given(pattern=_patterns(), hay=st.lists(_CHARS, max_size=25).map("".join),
       case=st.sampled_from(["smart", "insensitive", "sensitive"]), word=st.booleans(),
       multiline=st.booleans())
def test_any_match_implies_the_query_holds(pattern: str, hay: str, case: str, word: bool, multiline: bool) -> None:
    options = MatchOptions(patterns=(pattern,), case=case, word=word, multiline=multiline)  # type: ignore[arg-type]
    try:
        matcher = compile_matcher(options)
    except BadArgs:
        return
    data = hay.encode("utf-8")
    if next(iter(matcher.find_iter(data)), None) is not None:
        assert required_literals(options).satisfied_by(data), str(required_literals(options))
        assert matcher.may_match(data)


@settings(max_examples=150, deadline=None)
@given(word=st.text(alphabet="abcdeé", min_size=2, max_size=7), hay=st.lists(_CHARS, max_size=25).map("".join),
       edits=st.integers(1, 4))
def test_fuzzy_match_implies_a_piece_is_present(word: str, hay: str, edits: int) -> None:
    options = MatchOptions(patterns=(word,), fuzzy=edits)
    matcher = compile_matcher(options)
    data = hay.encode("utf-8")
    if next(iter(matcher.find_iter(data)), None) is not None:
        assert required_literals(options).satisfied_by(data)
        assert matcher.may_match(data)
