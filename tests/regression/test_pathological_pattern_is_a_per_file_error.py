"""Regression: a backtracking pattern that blows up on one file used to abort the whole search.

Guarded: the file gets an ``errors`` entry saying what to do, and the next file is still searched.
"""

from __future__ import annotations

from sleuth.engine.cancel import CancelToken
from sleuth.engine.match import compile_matcher
from sleuth.engine.search import search_path
from sleuth.engine.types import MatchOptions, SearchOptions


def test_backtracking_blow_up_is_reported_for_that_file_and_the_search_goes_on(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("a" * 5000 + "c\n")
    good = tmp_path / "good.txt"
    good.write_text("aab\n")
    matcher = compile_matcher(MatchOptions(patterns=(r"(a|aa)+(?=b)",), case="sensitive"),
                              deadline_token=CancelToken(timeout_ms=300))
    failed = search_path(str(bad), "bad.txt", matcher, SearchOptions())
    assert failed.error and "timeout_ms" in failed.error and not failed.events
    found = search_path(str(good), "good.txt", matcher, SearchOptions())
    assert [e["match_text"] for e in found.events] == ["aa"]
