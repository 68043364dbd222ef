"""Regression: a backtracking pattern that blows up on one file used to abort the whole search.

Guarded: the file gets an ``errors`` entry saying what to do, and the next file is still searched.
And what it says is true: "raise timeout_ms" only when the search's deadline ended the file; when the
per-file cap did (one file may take at most ``DEFAULT_TIMEOUT_S`` whatever ``timeout_ms`` says), a
larger ``timeout_ms`` would not help, and the hint said it would.
"""

from __future__ import annotations

import time

import pytest

from sleuth.engine.match import compile_matcher, engines
from sleuth.engine.match.engines import search_deadline
from sleuth.engine.file_scan import search_path
from sleuth.engine.types import MatchOptions, SearchOptions


def test_backtracking_blow_up_is_reported_for_that_file_and_the_search_goes_on(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("a" * 5000 + "c\n")
    good = tmp_path / "good.txt"
    good.write_text("aab\n")
    matcher = compile_matcher(MatchOptions(patterns=(r"(a|aa)+(?=b)",), case="sensitive"))
    with search_deadline(time.monotonic() + 0.3):
        failed = search_path(str(bad), "bad.txt", matcher, SearchOptions())
    found = search_path(str(good), "good.txt", matcher, SearchOptions())  # the same matcher, the next search
    assert failed.error and "raise timeout_ms" in failed.error and not failed.events
    assert [e.match_text for e in found.events] == ["aa"]


@pytest.mark.parametrize("search_left", [None, 60.0])
def test_the_per_file_cap_does_not_tell_to_raise_timeout_ms(tmp_path, monkeypatch, search_left):
    monkeypatch.setattr(engines, "DEFAULT_TIMEOUT_S", 0.2)
    bad = tmp_path / "bad.txt"
    bad.write_text("a" * 5000 + "c\n")
    matcher = compile_matcher(MatchOptions(patterns=(r"(a|aa)+(?=b)",), case="sensitive"))
    with search_deadline(None if search_left is None else time.monotonic() + search_left):
        failed = search_path(str(bad), "bad.txt", matcher, SearchOptions())
    assert failed.error and "raise timeout_ms" not in failed.error and "per-file limit" in failed.error
