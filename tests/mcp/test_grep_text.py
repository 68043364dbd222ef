"""The ``grep`` tool's text is made from the search's typed events (:class:`sleuth.mcp.tools._GrepText`, a
sink of :mod:`sleuth.engine.events`): one line per result item, whatever the output mode."""

from __future__ import annotations

from sleuth.engine.events import Context, End, Match, to_item
from sleuth.mcp.tools import SEARCH_TOOLS


def _text(items: list[dict]) -> list[str]:
    grep = next(tool for tool in SEARCH_TOOLS if tool.name == "grep")
    return grep.render_items(items)


def test_lines_context_and_replacements_one_line_an_item() -> None:
    items = [to_item(Context("a.c", 1, "before")), to_item(Match("a.c", 2, "the needle", 5, 11, "needle")),
             to_item(Match("b.c", 7, "needle", 1, 7, "needle", replacement="pin"))]
    assert _text(items) == ["a.c-1- before", "a.c:2: the needle", "b.c:7: pin"]


def test_whole_file_items_of_files_with_matches_and_count() -> None:
    files = [to_item(End("a.c", None, True), "files_with_matches"), to_item(End("b.c", None, True), "files_with_matches")]
    counts = [to_item(End("a.c", 3, True), "count"), to_item(End("b.c", 0, True), "count")]
    assert _text(files) == ["a.c", "b.c"]
    assert _text(counts) == ["a.c: 3", "b.c: 0"]
    without = [to_item(End("c.c", None, False), "files_without_match")]
    assert without == [{"type": "file", "path": "c.c", "matched": False}] and _text(without) == ["c.c"]
    assert _text([]) == []
