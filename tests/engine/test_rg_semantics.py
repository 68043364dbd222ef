"""The engine side of rg's -o, -r and binary handling (the CLI's output is compared with rg in tests/diff)."""

from __future__ import annotations

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
    assert [(e["line"], e["column"], e["text"]) for e in result.events] == [(1, 1, "ab"), (1, 4, "ab"), (3, 1, "ab")]
    assert (result.matched_lines, result.matches) == (2, 3)
    assert first_lines(result.events, 1) == result.events[:2]


def test_replacement_of_the_line_and_of_the_match() -> None:
    [event] = _search(b"k=v; k2=v2\n", r"(\w+)=(\w+)", replace="$2=$1").events
    assert event["replacement"] == "v=k; v2=k2" and event["text"] == "k=v; k2=v2"
    rows = _search(b"k=v; k2=v2\n", r"(\w+)=(\w+)", replace="[$2]", only_matching=True).events
    assert [r["replacement"] for r in rows] == ["[v]", "[v2]"]


def test_binary_modes_by_64k_block() -> None:
    early = b"hit one\nhit\x00two\n"
    assert _search(early, "hit").skipped == BINARY  # quit: a NUL in the first block passes the file over
    converted = _search(early, "hit", binary="convert")
    assert [e["binary_offset"] for e in converted.events] == [11, 11]
    assert [e.get("binary_offset") for e in _search(early, "hit", binary="text").events] == [None, None]
    late = b"hit early\n" + b"x" * BINARY_BLOCK + b"\nhit\x00late\n"
    quit = _search(late, "hit")
    assert [(e["line"], e["binary_stopped"]) for e in quit.events] == [(1, True)]  # what precedes the NUL's block
    assert _search(late, "hit", output="count").skipped == BINARY  # rg -c drops a file its search quit on
    marked = _search(late, "hit", binary="convert").events
    assert [(e["line"], e.get("binary_offset")) for e in marked] == [(1, None), (3, len(late) - 6)]
