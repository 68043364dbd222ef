"""An MCP page of a big result is cut from the items that could fit, not from all of them: the same
page as cutting it from the whole result (each form the longest prefix within the budget), without
rendering and encoding 20,000 items several times over (the MCP door's no-literal grep was slower
than rg at ``max_results`` 20,000 because of it: ``bench/mcp_vs_lsp.py``)."""

from __future__ import annotations

import json
from typing import Any, Mapping

from hypothesis import given, settings
from hypothesis import strategies as st

from sleuth.commands.budget import shrink_to_budget
from sleuth.mcp.tools import BYTES_PER_TOKEN, SEARCH_TOOLS, SearchTool, page

GREP = next(tool for tool in SEARCH_TOOLS if tool.name == "grep")


def _whole_cut(tool: SearchTool, result: Mapping[str, Any], offset: int, max_tokens: int) -> tuple[int, list[str]]:
    """The page's length and text lines as cut from every item after ``offset`` (what ``page`` did)."""
    items = list(result.get(tool.key) or [])[offset:]
    budget = max_tokens * BYTES_PER_TOKEN - 600
    base = {k: v for k, v in result.items() if k != tool.key}
    lines = tool.render_items(items)
    _, fit_json = shrink_to_budget(
        lambda k: json.dumps({**base, tool.key: items[:k]}, ensure_ascii=False, separators=(",", ":")), len(items), budget)
    _, fit_text = shrink_to_budget(lambda k: "\n".join(lines[:k]), len(items), budget)
    kept = min(fit_json, fit_text) or min(1, len(items))
    return kept, lines[:kept]


_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=120)


@st.composite
def _grep_result(draw: st.DrawFn) -> dict[str, Any]:
    matches: list[dict[str, Any]] = []
    for f in range(draw(st.integers(0, 12))):
        path = f"dir/f{f:02d}{draw(st.sampled_from(['', 'é', '→x']))}.txt"
        whole = draw(st.sampled_from([None, "file", "count"]))
        if whole == "file":
            matches.append({"type": "file", "path": path})
            continue
        if whole == "count":
            matches.append({"type": "count", "path": path, "count": draw(st.integers(1, 9))})
            continue
        for line in range(1, draw(st.integers(1, 60)) + 1):
            text = draw(_text)
            if draw(st.booleans()):
                matches.append({"type": "context", "path": path, "line": line, "text": text})
            else:
                matches.append({"type": "match", "path": path, "line": line, "column": 1, "end_column": 2,
                                "text": text, "match_text": text[:1]})
    return {"matches": matches, "files_matched": 3, "truncated": draw(st.booleans()), "truncated_reason": None}


@settings(max_examples=150, deadline=None)
@given(_grep_result(), st.integers(0, 40), st.integers(1, 3000))
def test_a_page_is_the_one_cut_from_the_whole_result(result: dict[str, Any], offset: int, max_tokens: int) -> None:
    structured, text = page(GREP, result, offset, max_tokens)
    kept, lines = _whole_cut(GREP, result, offset, max_tokens)
    assert structured["matches"] == result["matches"][offset:offset + kept]
    rest = len(result["matches"][offset:])
    assert structured["truncated"] == (bool(result["truncated"]) or kept < rest)
    assert structured["next_offset"] == (offset + kept if kept and (kept < rest or result["truncated"]) else None)
    assert text.startswith("\n".join(lines) + "\n" if lines else "")


def test_a_page_of_twenty_thousand_matches_is_the_same_cut() -> None:
    matches = [{"type": "match", "path": f"src/file{i // 20:04d}.c", "line": i % 20 + 1, "column": 1, "end_column": 6,
                "text": f"hello world {i} " + "x" * (i % 50), "match_text": "hello"} for i in range(20_000)]
    result = {"matches": matches, "files_matched": 1000, "truncated": True, "truncated_reason": "max_results"}
    structured, text = page(GREP, result, 0, 10_000)
    kept, lines = _whole_cut(GREP, result, 0, 10_000)
    assert 0 < kept < 20_000
    assert structured["matches"] == matches[:kept]
    assert structured["next_offset"] == kept
    assert text.startswith("\n".join(lines) + "\n")
