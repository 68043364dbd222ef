"""The engine side of rg's -o, -r and binary handling (the CLI's output is compared with rg in tests/diff)."""

from __future__ import annotations

import pytest

from sleuth.engine.errors import BadArgs
from sleuth.engine.match import compile_matcher
from sleuth.engine.replace import parse_template
from sleuth.engine.search import BINARY, BINARY_BLOCK, first_lines, search_data
from sleuth.engine.types import MatchOptions, Replacement, SearchOptions


def _search(data: bytes, pattern: str, **opts):
    match = MatchOptions(patterns=(pattern,), case="sensitive")
    if "replace" in opts:
        opts["replace"] = Replacement(opts["replace"], match)
    return search_data(data, "f", compile_matcher(match), SearchOptions(**opts))


def test_template_pieces_follow_the_regex_crates_expand() -> None:
    assert parse_template("a$1 b") == ["a", 1, " b"]
    assert parse_template("$1a") == ["1a"] and type(parse_template("$1a")[0]) is not str  # a name, not $1 + "a"
    assert parse_template("${1}a$$x$") == [1, "a$x$"]
    assert parse_template("${name}") == ["name"]
    assert parse_template("$-") == ["$-"]


def test_only_matching_rows_and_counts() -> None:
    result = _search(b"ab ab\nx\nab\n", "ab", only_matching=True)
    assert [(e.line, e.column, e.text) for e in result.events] == [(1, 1, "ab"), (1, 4, "ab"), (3, 1, "ab")]
    assert (result.matched_lines, result.matches) == (2, 3)
    assert first_lines(result.events, 1) == result.events[:2]


def test_replacement_of_the_line_and_of_the_match() -> None:
    [event] = _search(b"k=v; k2=v2\n", r"(\w+)=(\w+)", replace="$2=$1").events
    assert event.replacement == "v=k; v2=k2" and event.text == "k=v; k2=v2"
    rows = _search(b"k=v; k2=v2\n", r"(\w+)=(\w+)", replace="[$2]", only_matching=True).events
    assert [r.replacement for r in rows] == ["[v]", "[v2]"]


def test_binary_modes_by_64k_block() -> None:
    early = b"hit one\nhit\x00two\n"
    assert _search(early, "hit").skipped == BINARY  # quit: a NUL in the first block passes the file over
    converted = _search(early, "hit", binary="convert")
    assert [e.binary_offset for e in converted.events] == [11, 11]
    assert [e.binary_offset for e in _search(early, "hit", binary="text").events] == [None, None]
    late = b"hit early\n" + b"x" * BINARY_BLOCK + b"\nhit\x00late\n"
    quit = _search(late, "hit")
    assert [(e.line, e.binary_stopped) for e in quit.events] == [(1, True)]  # what precedes the NUL's block
    assert _search(late, "hit", output="count").skipped == BINARY  # rg -c drops a file its search quit on
    marked = _search(late, "hit", binary="convert").events
    assert [(e.line, e.binary_offset) for e in marked] == [(1, None), (3, len(late) - 6)]


def test_pcre2_engine_speaks_pcre_and_keeps_to_lines() -> None:
    def rows(pattern: str, data: bytes, **match) -> list[tuple[int, str]]:
        options = MatchOptions(patterns=(pattern,), engine="pcre2", **match)
        result = search_data(data, "f", compile_matcher(options), SearchOptions(only_matching=True))
        return [(e.line, e.text) for e in result.events]

    assert rows(r"foo\Kbar", b"foobar\n") == [(1, "bar")]
    assert rows(r"(?>a+)b|a++c", b"aaab aac\n") == [(1, "aaab"), (1, "aac")]
    assert rows(r"\Qa.b\E", b"a.b axb\n") == [(1, "a.b")]
    assert rows(r"a\sb", b"a\nb a b\n") == [(2, "a b")]  # no match leaves its line without multiline
    assert rows(r"a\sb", b"a\nb\n", multiline=True) == [(1, "a"), (2, "b")]
    assert rows("Foo", b"foo Foo\n") == [(1, "Foo")] and rows("foo", b"foo Foo\n") == [(1, "foo"), (1, "Foo")]
    assert rows(r"\sfoo", b"x FOO\n") == [(1, " FOO")]  # smart case: "\s" is no uppercase literal (nor would "\S" be)
    with pytest.raises(BadArgs) as bad:
        rows("a(b", b"")
    assert bad.value.to_dict()["position"] == 3
