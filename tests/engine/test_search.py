"""The searcher layer: bytes -> events (lines, columns, context, invert, caps, encodings)."""

from __future__ import annotations

import codecs
import os
import threading

import pytest

from hypothesis import given, strategies as st

from sleuth.engine.match import Matcher, compile_matcher
from sleuth.engine.decode import decode_buffer
from sleuth.engine.events import to_items
from sleuth.engine.search import search_buffer
from sleuth.engine.types import MatchOptions, SearchOptions


def events(data: bytes, pattern: str, **opts):
    matcher = compile_matcher(MatchOptions(patterns=(pattern,), case="sensitive"))
    return to_items(search_buffer(data, matcher, SearchOptions(**opts), "f.txt").events)  # as the doors get them


def test_lines_and_byte_columns_are_one_based():
    [event] = events(b"alpha\nbeta gamma\n", "gamma")
    assert (event["line"], event["column"], event["end_column"]) == (2, 6, 11)
    assert event["text"] == "beta gamma" and event["match_text"] == "gamma"


def test_columns_count_bytes_of_utf8_not_characters():
    [event] = events("é→x\n".encode(), "x")
    assert event["column"] == 6  # é is 2 bytes, → is 3


def test_several_matches_on_a_line_are_one_event_with_submatches():
    [event] = events(b"a1 a2 a3\n", r"a\d")
    assert [s["match_text"] for s in event["submatches"]] == ["a1", "a2", "a3"]
    assert event["column"] == 1


def test_last_line_without_newline_is_searched():
    [event] = events(b"x\ny", "y")
    assert event["line"] == 2


def test_crlf_line_endings_are_not_part_of_the_text():
    [event] = events(b"one\r\ntwo\r\n", "two")
    assert event["text"] == "two"


def test_context_lines_merge_without_repeats():
    data = b"".join(f"{i}\n".encode() for i in range(1, 11))
    got = [(e["type"], e["line"]) for e in events(data, "^(4|6)$", before=1, after=1)]
    assert got == [("context", 3), ("match", 4), ("context", 5), ("match", 6), ("context", 7)]


def test_context_stops_at_file_edges():
    got = [(e["type"], e["line"]) for e in events(b"a\nb\n", "a", before=3, after=5)]
    assert got == [("match", 1), ("context", 2)]


def test_invert_reports_the_lines_without_a_match():
    got = [(e["line"], e["text"]) for e in events(b"keep\ndrop\nkeep too\n", "drop", invert=True)]
    assert got == [(1, "keep"), (3, "keep too")]


def test_max_matches_per_file_caps_matching_lines():
    got = events(b"x\nx\nx\n", "x", max_matches_per_file=2)
    assert [e["line"] for e in got] == [1, 2]


def test_long_lines_are_cut_around_the_match_and_marked():
    line = b"a" * 5000 + b"NEEDLE" + b"b" * 5000
    [event] = events(line + b"\n", "NEEDLE", max_columns=100)
    assert "NEEDLE" in event["text"] and event["text"].startswith("…") and event["text"].endswith("…")
    assert len(event["text"].encode()) <= 100 + 2 * len("…".encode())
    assert event["column"] == 5001  # columns still index the original line


def test_invalid_utf8_is_replaced_in_text_only():
    [event] = events(b"bad \xff byte needle\n", "needle")
    assert event["text"] == "bad \ufffd byte needle"


def test_utf16_with_bom_is_transcoded():
    data = codecs.BOM_UTF16_LE + "hello wörld\n".encode("utf-16-le")
    decoded = decode_buffer(data)
    assert decoded == "hello wörld\n".encode()


def test_utf8_bom_is_dropped_so_line_one_column_one_is_the_first_character():
    [event] = events(decode_buffer(codecs.BOM_UTF8 + b"abc\n"), "abc")
    assert event["column"] == 1


def test_nul_byte_means_binary():
    assert decode_buffer(b"text\x00more") is None


@given(st.binary(max_size=300))
def test_decoding_never_raises_and_text_is_valid(data: bytes):
    decoded = decode_buffer(data)
    if decoded is not None:
        for event in events(decoded, "."):
            event["text"].encode("utf-8")  # valid UTF-8, no lone surrogates


# -- search_files: the hot loop reads files into one reused buffer -------------------------------

def _search_files(paths, pattern: str, **opts):
    from sleuth.engine.file_scan import BatchStats, search_files

    matcher = compile_matcher(MatchOptions(patterns=(pattern,), case="sensitive"))
    results, stats = [], BatchStats()
    assert search_files(((p, os.path.basename(p), None) for p in paths), matcher, SearchOptions(**opts),
                        None, lambda: False, results, stats)
    return {r.display: [e.line for e in r.events] for r in results}, stats


def test_a_shorter_file_never_sees_the_previous_files_bytes_in_the_reused_buffer(tmp_path):
    long = tmp_path / "a_long.txt"
    long.write_bytes(b"x" * 5000 + b"\nneedle here\n")
    short = tmp_path / "b_short.txt"
    short.write_bytes(b"x" * 10 + b"\n")
    binary = tmp_path / "c_binary.txt"
    binary.write_bytes(b"nothing\x00\n")
    after = tmp_path / "d_after.txt"
    after.write_bytes(b"plain\n")
    for pattern in ("needle", r"n[e]+dle\s\w+"):  # a required literal, and a regex checked by its DFA
        found, stats = _search_files([str(long), str(short), str(binary), str(after)], pattern)
        assert found == {"a_long.txt": [2]}
        assert stats.scanned == 4 and stats.binary == 1


def test_files_larger_than_the_read_buffer_are_searched_whole(tmp_path, monkeypatch):
    import sleuth.engine.file_scan as search

    monkeypatch.setattr(search, "READ_BUFFER_BYTES", 64)
    monkeypatch.setattr(search, "_LOCAL", threading.local())
    big = tmp_path / "big.txt"
    big.write_bytes(b"filler line\n" * 20 + b"the needle\n")
    shorter = tmp_path / "big_shorter.txt"  # read into the same big-file buffer after big.txt
    shorter.write_bytes(b"filler line\n" * 10)
    small = tmp_path / "small.txt"
    small.write_bytes(b"needle\n")
    for pattern in ("needle", r"\w+dle$"):
        found, stats = _search_files([str(big), str(shorter), str(small)], pattern)
        assert found == {"big.txt": [21], "small.txt": [1]} and stats.scanned == 3


def test_the_read_buffer_starts_small_and_grows_for_the_files_that_need_it(tmp_path, monkeypatch):
    """A 1 MiB buffer made up front was ~0.4 ms of a cold grep whose files all fit in 64 KiB (issue 30):
    it starts at FIRST_READ_BYTES and doubles for a file up to READ_BUFFER_BYTES, which is then read
    whole into it; the files after it are read into the grown buffer."""
    import sleuth.engine.file_scan as search

    monkeypatch.setattr(search, "FIRST_READ_BYTES", 16)
    monkeypatch.setattr(search, "READ_BUFFER_BYTES", 1024)
    monkeypatch.setattr(search, "_LOCAL", threading.local())
    (tmp_path / "a_small.txt").write_bytes(b"needle\n")
    (tmp_path / "b_mid.txt").write_bytes(b"filler line\n" * 20 + b"the needle\n")  # 251 bytes
    (tmp_path / "c_shorter.txt").write_bytes(b"filler line\n" * 10 + b"needle\n")
    (tmp_path / "d_big.txt").write_bytes(b"filler line\n" * 100 + b"needle\n")  # over READ_BUFFER_BYTES
    names = ["a_small.txt", "b_mid.txt", "c_shorter.txt", "d_big.txt"]
    found, stats = _search_files([str(tmp_path / n) for n in names[:1]], "needle")
    assert found == {"a_small.txt": [1]} and len(search._LOCAL.buffer[0]) == 17
    for pattern in ("needle", r"\w+dle$"):
        found, stats = _search_files([str(tmp_path / n) for n in names], pattern)
        assert found == {"a_small.txt": [1], "b_mid.txt": [21], "c_shorter.txt": [11], "d_big.txt": [101]}
        assert stats.scanned == 4 and len(search._LOCAL.buffer[0]) == 257


def test_a_file_handed_over_in_pieces_is_searched_whole(tmp_path, monkeypatch):
    """Some network file systems (9p, FUSE) answer a read with less than the file: the searcher
    must not take the first piece for the whole file."""
    real_readv = os.readv
    monkeypatch.setattr(os, "readv", lambda fd, buffers: real_readv(fd, [memoryview(buffers[0])[:7]]))
    (tmp_path / "a.txt").write_bytes(b"0123456789\n" * 50 + b"the needle\n")
    (tmp_path / "b.txt").write_bytes(b"needle\n")
    found, stats = _search_files([str(tmp_path / "a.txt"), str(tmp_path / "b.txt")], "needle")
    assert found == {"a.txt": [51], "b.txt": [1]} and stats.scanned == 2


def test_the_size_cap_counts_files_under_and_over_the_read_buffer(tmp_path, monkeypatch):
    import sleuth.engine.file_scan as search
    from sleuth.engine.file_scan import BatchStats, search_files

    monkeypatch.setattr(search, "READ_BUFFER_BYTES", 64)
    monkeypatch.setattr(search, "_LOCAL", threading.local())
    files = {"fits.txt": b"needle\n", "over_cap.txt": b"needle " * 5 + b"\n",
             "over_cap_and_buffer.txt": b"needle\n" * 20, "empty.txt": b""}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    matcher = compile_matcher(MatchOptions(patterns=("needle",)))
    results, stats = [], BatchStats()
    items = [(str(tmp_path / name), name, None) for name in sorted(files)]
    assert search_files(items, matcher, SearchOptions(), 20, lambda: False, results, stats)
    assert [r.display for r in results] == ["fits.txt"]
    assert stats.scanned == 4 and stats.too_large == 2


def test_a_file_that_cannot_be_opened_is_an_error_and_the_next_one_is_searched(tmp_path):
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "b.txt").write_bytes(b"needle\n")
    found, stats = _search_files([str(tmp_path / "gone" / "a.txt"), str(tmp_path / "ok" / "gone.txt"),
                                  str(tmp_path / "ok" / "b.txt")], "needle")
    assert found == {"a.txt": [], "gone.txt": [], "b.txt": [1]} and stats.scanned == 3


@given(st.lists(st.binary(max_size=200), min_size=1, max_size=6), st.sampled_from(["ab", r"a\w*b", r"\d{2}", "^$"]))
def test_search_files_equals_searching_each_file_alone(tmp_path_factory, contents, pattern):
    from sleuth.engine.file_scan import search_path

    folder = tmp_path_factory.mktemp("files")
    paths = []
    for i, data in enumerate(contents):
        path = folder / f"d{i % 3 // 2}" / f"f{i}.txt"  # files of two folders, the folder changing between them
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(data)
        paths.append(str(path))
    found, _ = _search_files(paths, pattern)
    matcher = compile_matcher(MatchOptions(patterns=(pattern,), case="sensitive"))
    alone = {}
    for path in paths:
        result = search_path(path, os.path.basename(path), matcher, SearchOptions())
        if result.matched_lines:
            alone[result.display] = [e.line for e in result.events]
    assert found == alone


class _CountingChecks:
    """The real matcher, counting ``may_match`` calls."""

    def __init__(self, pattern: str) -> None:
        self.real = compile_matcher(MatchOptions((pattern,)))
        self.checked: list[int] = []

    def may_match(self, data: bytes) -> bool:
        self.checked.append(len(data))
        return self.real.may_match(data)

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self.real, name)


def test_a_file_that_may_match_is_prefiltered_once(tmp_path) -> None:
    """The scan asks ``may_match`` and then searches; the search does not ask again (a second pass
    over every matching file)."""
    from sleuth.engine.file_scan import BatchStats, search_files

    path = tmp_path / "a.c"
    path.write_bytes(b"int x;\nif (PM_RESUME) {}\nint y;\n" * 50)
    matcher = _CountingChecks("PM_RESUME")
    results: list = []
    search_files([(str(path), "a.c", None)], matcher, SearchOptions(), None, lambda: False, results, BatchStats())
    assert results[0].matched_lines == 50 and len(matcher.checked) == 1


class _WithoutLineShortcut(Matcher):
    """The real matcher without its ``matched_lines`` shortcut (the protocol's default declines): the
    generic per-match path."""

    def __init__(self, real) -> None:  # type: ignore[no-untyped-def]
        self.real = real
        self.may_match = real.may_match

    def find_iter(self, data: bytes, start: int = 0, end: int | None = None):  # type: ignore[no-untyped-def]
        return self.real.find_iter(data, start, end)


@given(st.sampled_from(["[A-Z]+_RES", "x_RES[a-z]*", "_RES", "_RES(?:ab|c)+", r"\w+_RES\b", "a*_RES",
                        "_RES|bc a", r"[A-Z]+_RES|x\s+abc"]),
       st.lists(st.sampled_from(list("AZxab _RESc\n") + ["é", "_RES", "_RES\n"]), max_size=60).map("".join))
def test_lines_found_by_the_anchor_equal_the_generic_path(pattern: str, text: str) -> None:
    """A matcher with a line anchor hands over whole lines (``matched_lines``); what the search makes
    of them is exactly what it makes of the same matches found one by one."""
    from sleuth.engine.search import _matched_lines

    matcher = compile_matcher(MatchOptions((pattern,), case="sensitive"))
    data = text.encode()
    assert matcher.matched_lines(data) is not None  # the shortcut is really taken
    assert list(_matched_lines(data, matcher)) == list(_matched_lines(data, _WithoutLineShortcut(matcher)))


@pytest.mark.parametrize("pattern, case, prefiltered", [("[A-Z]+_RESUME", "sensitive", 0), ("pm_resume", "insensitive", 3)])
def test_candidate_pieces_are_prefiltered_only_for_a_matcher_without_literal_lines(tmp_path, pattern: str, case: str,
                                                                                   prefiltered: int) -> None:
    """An index's candidate pieces mostly match: a matcher that finds its lines by a literal searches
    them at once (the prefilter pass was spent for nothing); the others are still prefiltered. Both
    find what a search of the whole file finds."""
    from sleuth.engine.file_scan import FolderOpener, search_path
    from sleuth.engine.pieces import Pieces, search_pieces

    head = b"int a;\n" * 600  # 4,200 bytes: the pieces below start on line starts
    data = head + b"x = PM_RESUME;\n" + head + b"nothing here\n" + head + b"y = PM_RESUME + 1;\n"
    path = tmp_path / "f.c"
    path.write_bytes(data)
    stat = path.stat()
    second = 2 * len(head) + 15
    ranges = ((len(head), len(head) + 15), (second, second + 13), (3 * len(head) + 28, -1))
    pieces = Pieces(ranges, tuple(data.count(b"\n", 0, start) for start, _ in ranges), stat.st_size, stat.st_mtime_ns)
    matcher = _CountingChecks(pattern)
    matcher.real = compile_matcher(MatchOptions((pattern,), case=case))  # type: ignore[arg-type]
    opener = FolderOpener()
    try:
        found = search_pieces(str(path), "f.c", pieces, matcher, SearchOptions(), opener)  # type: ignore[arg-type]
    finally:
        opener.close()
    whole = search_path(str(path), "f.c", matcher.real, SearchOptions())
    assert found is not None and found.events == whole.events and [e.line for e in found.events] == [601, 1803]
    assert len(matcher.checked) == prefiltered


@given(st.binary(max_size=300).map(lambda b: b.replace(b"\0", b"")) | st.lists(st.sampled_from(
    [b"ab\n", b"\n", b"x\r\n", b"ab", b"zz", b"a\nb\n"]), max_size=12).map(b"".join),
       st.sampled_from(["ab", r"a\w*b", "^$", "b$", "x", "(?s)a.b"]), st.booleans())
def test_an_inverted_count_is_the_inverted_lines_shown(data, pattern, multiline):
    """``-v -c`` counts without visiting each line (every line but those with a match): the count
    equals the lines ``-v`` shows, with or without a final newline, with CRLF, under ``-U``."""
    matcher = compile_matcher(MatchOptions(patterns=(pattern,), case="sensitive", multiline=multiline))
    shown = search_buffer(data, matcher, SearchOptions(invert=True), "f.txt")
    counted = search_buffer(data, matcher, SearchOptions(invert=True, output="count"), "f.txt")
    assert counted.matched_lines == shown.matched_lines == len(shown.events)
