"""The rg-dialect parser: errors and their positions, smart-case analysis, classes and flags."""

from __future__ import annotations

import pytest

from sleuth.engine.errors import BadArgs
from sleuth.engine.match import compile_matcher, resolve_case
from sleuth.engine.match.syntax import Cls, ParseError, escape, parse
from sleuth.engine.types import MatchOptions


@pytest.mark.parametrize(
    "pattern, position, words",
    [
        ("fo(o", 2, "unclosed group"),
        ("foo)", 3, "unopened group"),
        ("ab[cd", 2, "unclosed character class"),
        ("a{2,1}", 1, "invalid repetition count range"),
        ("*a", 0, "repetition operator missing expression"),
        ("a{", 1, "unclosed counted repetition"),
        ("a{x}", 2, "repetition quantifier expects a valid decimal"),
        (r"x\p{Nope}", 1, "Unicode property not found"),
        ("[z-a]", 1, "invalid character class range"),
        (r"\xZZ", 0, "invalid hexadecimal digit"),
        ("(?z)a", 2, "unrecognized flag"),
        (r"\q", 0, "unrecognized escape sequence"),
        ("a{70000}", 1, "repetition count above 65535"),
        ("ab\\", 2, "incomplete escape sequence"),
        (r"(a)\2", 3, "back-reference to group 2"),
    ],
)
def test_errors_carry_rg_message_and_position(pattern: str, position: int, words: str) -> None:
    with pytest.raises(ParseError) as info:
        parse(pattern)
    assert info.value.position == position
    assert words in info.value.message


def test_bad_args_says_how_to_fix_and_where() -> None:
    with pytest.raises(BadArgs) as info:
        compile_matcher(MatchOptions(patterns=("foo(bar",)))
    data = info.value.to_dict()
    assert data["code"] == "bad_args"
    assert data["position"] == 3
    assert "fixed_strings" in data["message"]
    assert "unclosed group" in data["message"]


def test_second_pattern_is_named_in_the_error() -> None:
    with pytest.raises(BadArgs) as info:
        compile_matcher(MatchOptions(patterns=("ok", "[bad")))
    assert "pattern 2" in info.value.message
    assert info.value.data["position"] == 0


@pytest.mark.parametrize("pattern", ["a\\nb", r"[\n]", r"\x0A", r"(?:x|\n)"])
def test_newline_is_rejected_in_line_mode_like_rg(pattern: str) -> None:
    with pytest.raises(BadArgs) as info:
        compile_matcher(MatchOptions(patterns=(pattern,)))
    assert "multiline" in info.value.message
    compile_matcher(MatchOptions(patterns=(pattern,), multiline=True))  # fine there


@pytest.mark.parametrize(
    "patterns, insensitive",
    [
        (("foo",), True),
        (("Foo",), False),
        ((r"\Wfoo\S\D",), True),  # escapes are not literals
        ((r"\p{Lu}x",), True),
        ((r"\p{Lu}",), False),  # no literal at all: stays sensitive, as rg
        ((r"[A-Z]x",), False),  # class endpoints are literals
        ((r"\x41",), False),  # an escaped uppercase literal counts (rg's AST analysis)
        (("é",), True),
        (("É",), False),  # Unicode uppercase, as rg's char::is_uppercase
        (("foo", "Bar"), False),  # patterns are analysed together
    ],
)
def test_smart_case_follows_rg(patterns: tuple[str, ...], insensitive: bool) -> None:
    assert resolve_case(MatchOptions(patterns=patterns)) is insensitive


def test_explicit_case_modes_override_smart() -> None:
    assert resolve_case(MatchOptions(patterns=("Foo",), case="insensitive")) is True
    assert resolve_case(MatchOptions(patterns=("foo",), case="sensitive")) is False


def test_class_set_operations_resolve_to_ranges() -> None:
    node = parse(r"[a-z&&[^aeiou]]").node
    assert isinstance(node, Cls)
    assert not node.cs.contains(ord("a")) and node.cs.contains(ord("b"))
    node = parse(r"[\w--\d]").node
    assert isinstance(node, Cls) and not node.cs.contains(ord("5")) and node.cs.contains(ord("é"))
    node = parse(r"[a-c~~b-d]").node
    assert isinstance(node, Cls) and node.cs.chars(10) == [ord("a"), ord("d")]


def test_verbose_flag_ignores_whitespace_and_comments() -> None:
    matcher = compile_matcher(MatchOptions(patterns=("(?x) f o o # a comment\n \\ bar",)))
    assert [(s.start, s.end) for s in matcher.find_iter(b"xx foo bar")] == [(3, 10)]


def test_escape_round_trips_every_meta_character() -> None:
    text = r"a.b*c+d?e(f)g[h]i{j}k|l^m$n\o#p&q-r~s"
    matcher = compile_matcher(MatchOptions(patterns=(escape(text),), case="sensitive"))
    data = ("x" + text + "y").encode()
    assert [(s.start, s.end) for s in matcher.find_iter(data)] == [(1, 1 + len(text))]


def test_lookaround_and_backreferences_are_accepted_like_rg_auto() -> None:
    parsed = parse(r"(\w+)\s\1(?=!)")
    assert parsed.needs_backtracking
