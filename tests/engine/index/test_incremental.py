"""Incremental updates: a notified change is searched from disk at once and re-indexed soon after;
open buffers are always candidates; the index only narrows (index/scan agreement, property-tested)."""

from __future__ import annotations

import os
import string
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sleuth.engine.index import IndexService
from sleuth.engine.index.trigram import And, Lit, Or
from sleuth.engine.types import WalkOptions
from tests.fixtures import index_service


def test_a_pending_change_is_a_candidate_before_it_is_indexed(tmp_path: Path, kit: SimpleNamespace) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    kit.write_tree(root, {"a.c": "nothing here\n", "b.c": "nor here\n"})
    service = kit.start(root, cache)
    try:
        (root / "a.c").write_text("now with fresh_token\n")
        with service.state.lock:  # hold the updater off: the change is pending, not yet indexed
            service.notify_changed([str(root / "a.c")])
            got = service.candidates(None, Lit(b"fresh_token"))
            assert got is not None and str((root / "a.c").resolve()) in got.paths
            assert service.status()["state"] == "stale" and service.status()["pending_updates"] == 1
        assert service.wait_idle()
        got = service.candidates(None, Lit(b"fresh_token"))
        assert got is not None and got.paths == [str((root / "a.c").resolve())] and not got.pending
        assert service.candidates(None, Lit(b"nothing here")).paths == []
        assert service.status()["state"] == "ready"
    finally:
        service.stop()


def test_created_and_deleted_files(tmp_path: Path, kit: SimpleNamespace) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    kit.write_tree(root, {"a.c": "alpha_token\n"})
    service = kit.start(root, cache)
    try:
        kit.write_tree(root, {"sub/new.c": "alpha_token again\n"})
        os.remove(root / "a.c")
        service.notify_changed([str(root / "sub/new.c"), str(root / "a.c")])
        assert service.wait_idle()
        got = service.candidates(None, Lit(b"alpha_token"))
        assert got is not None and [Path(p).name for p in got.paths] == ["new.c"]
        assert service.status()["files"] == 1
    finally:
        service.stop()


def test_open_buffers_are_always_candidates(tmp_path: Path, kit: SimpleNamespace) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    kit.write_tree(root, {"a.c": "plain\n", "b.c": "plain\n"})
    service = kit.start(root, cache)
    try:
        path = str((root / "b.c").resolve())
        service.notify_buffer(path, "unsaved buffer_token\n")
        got = service.candidates(None, Lit(b"buffer_token"))
        assert got is not None and got.paths == [path]
        service.notify_buffer(path, None)
        assert service.candidates(None, Lit(b"buffer_token")).paths == []
    finally:
        service.stop()


def test_the_index_declines_what_it_cannot_narrow(tmp_path: Path, kit: SimpleNamespace) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    kit.write_tree(root, {"a.c": "abc\n"})
    service = kit.start(root, cache)
    try:
        assert service.candidates(None, Lit(b"a")) is None  # shorter than a trigram
        assert service.candidates(None, Lit("\u00e9x".encode(), True)) is None  # a case-insensitive non-ASCII pair
        assert service.candidates(None, Lit(b"a\nb")) is None  # a pair across a line end
        assert service.candidates(None, Or((Lit(b"abcdef"), Lit(b"x")))) is None
        assert service.candidates(None, Lit(b"abc"), WalkOptions(hidden=True)) is None
        assert service.candidates(None, And((Lit(b"abc"), Lit(b"q")))) is not None
    finally:
        service.stop()


def test_not_ready_means_no_narrowing(tmp_path: Path) -> None:

    (tmp_path / "ws").mkdir()
    service = index_service(tmp_path / "ws", tmp_path / "cache")
    assert service.candidates(None, Lit(b"anything")) is None
    assert service.status()["state"] == "absent"


# -- index/scan agreement -------------------------------------------------------------------------
WORDS = ["foo", "Foo", "bar_baz", "QUUX", "ſtraße", "Kelvin", "x", "ab", "line\nbreak", "tab\tbed", "é", "日本語"]
text = st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join)
names = st.sampled_from(["a.txt", "b.c", "d/e.py", "d/f/g.md", "h.txt"])
edit = st.tuples(names, st.one_of(text, st.none()))  # None deletes
needles = st.one_of(st.sampled_from(WORDS), st.text(alphabet=string.ascii_letters + "_ ſ\u212aé", min_size=2, max_size=6))


@pytest.fixture(scope="module")
def agreement(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, IndexService]:

    root = tmp_path_factory.mktemp("agree")
    (root / "a.txt").write_text("seed foo\n")
    service = index_service(root, tmp_path_factory.mktemp("cache"))
    service.start()
    assert service.wait_ready(120)
    yield root, service
    service.stop()


def _scan(root: Path, needle: str, casei: bool) -> set[str]:
    found = set()
    for dirpath, _, filenames in os.walk(root):
        for name in filenames:
            path = os.path.join(dirpath, name)
            data = open(path, "rb").read().decode("utf-8", "replace")
            if (needle.casefold() in data.casefold()) if casei else (needle in data):
                found.add(os.path.realpath(path))
    return found


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(edit, max_size=5), queries=st.lists(st.tuples(needles, st.booleans()), min_size=1, max_size=4),
       wait=st.booleans())
def test_candidates_cover_every_real_match(agreement: tuple[Path, IndexService], edits: list[tuple[str, str | None]],
                                           queries: list[tuple[str, bool]], wait: bool) -> None:
    root, service = agreement
    changed = []
    for name, content in edits:
        path = root / name
        if content is None:
            if path.exists():
                path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
        changed.append(str(path))
    service.notify_changed(changed)
    if wait:
        assert service.wait_idle()
    for needle, casei in queries:
        got = service.candidates(None, Lit(needle.encode("utf-8"), casei))
        if got is None:
            continue
        assert _scan(root, needle, casei) <= set(got.paths), (needle, casei)


def test_utf16_and_case_folding_oddities_are_found(tmp_path: Path, kit: SimpleNamespace) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    big = "filler line\n" * 20000 + "needle_in_utf16\n"
    kit.write_tree(root, {"u16.txt": "\ufeff".encode("utf-16-le") + big.encode("utf-16-le"),
                          "kelvin.txt": "ERR_SY\u017f and \u212aELVIN\n"})
    service = kit.start(root, cache)
    try:
        got = service.candidates(None, Lit(b"needle_in_utf16"))
        assert got is not None and [Path(p).name for p in got.paths] == ["u16.txt"]
        for needle in (b"err_sys", b"kelvin"):  # rg -i matches LONG S and KELVIN SIGN by simple case folding
            got = service.candidates(None, Lit(needle, True))
            assert got is not None and [Path(p).name for p in got.paths] == ["kelvin.txt"], needle
    finally:
        service.stop()


def test_line_mode_narrows_big_files_to_chunk_ranges(tmp_path: Path, kit: SimpleNamespace) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    filler = "".join(f"filler line number {i}\n" for i in range(20000))  # ~460 KB: several chunks
    text = "alpha_needle\n" + filler + "beta_needle here\n" + filler + "alpha_needle beta_needle\n"
    kit.write_tree(root, {"big.txt": text, "small.txt": "alpha_needle\nbeta_needle\n"})
    service = kit.start(root, cache)
    try:
        data = (root / "big.txt").read_bytes()
        got = service.candidates(None, Lit(b"beta_needle"), line_mode=True).entries()
        big = next(i for i, e in enumerate(got) if e.path.endswith("big.txt"))
        narrowed = dict(got.pieces.items()) if got.pieces is not None else {}
        assert list(narrowed) == [big]  # small.txt is one chunk: read whole
        covered = [(s, len(data) if e == -1 else e) for s, e in narrowed[big].ranges]
        for at in (data.index(b"beta_needle"), data.rindex(b"beta_needle")):
            assert any(s <= at < e for s, e in covered)
        assert sum(e - s for s, e in covered) < len(data) / 2
        assert all(data[s - 1:s] == b"\n" for s, _ in covered if s)  # line-aligned
        both = And((Lit(b"alpha_needle"), Lit(b"beta_needle")))
        in_line = service.candidates(None, both, line_mode=True)
        entries = in_line.entries()
        big = next(i for i, e in enumerate(entries) if e.path.endswith("big.txt"))
        assert entries.pieces is not None and len(dict(entries.pieces.items())[big].ranges) == 1  # only the last chunk has both
        assert {Path(p).name for p in service.candidates(None, both).paths} == {"big.txt", "small.txt"}
        assert {Path(p).name for p in in_line.paths} == {"big.txt", "small.txt"}
    finally:
        service.stop()


def test_text_search_sees_buffers_and_pending_changes(tmp_path: Path, kit: SimpleNamespace) -> None:
    from sleuth.engine.text.search import search_text

    root, cache = tmp_path / "ws", tmp_path / "cache"
    kit.write_tree(root, {"a.py": "x = 1\n", "b.py": "y = 2\n"})
    service = kit.start(root, cache)
    try:
        service.notify_buffer(str((root / "a.py").resolve()), "def brand_new_helper():\n    pass\n")
        hits = search_text(service, "brand new helper")["results"]
        assert hits and hits[0]["path"] == "a.py" and hits[0]["line"] == 1
        (root / "b.py").write_text("class FreshlySaved:\n    pass\n")
        with service.state.lock:  # not yet re-indexed: found from disk
            service.notify_changed([str(root / "b.py")])
            assert [h["path"] for h in search_text(service, "FreshlySaved")["results"]] == ["b.py"]
    finally:
        service.stop()


def test_two_character_literals_narrow_soundly(tmp_path: Path, kit: SimpleNamespace) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    kit.write_tree(root, {"ascii.c": "int xAh = 1;\n", "start.c": "Ah, well\n", "wide.c": "caf\u00e9Ah\n",
                          "after.c": "Ah\u00e9\n", "tiny.c": "Ah", "tail.c": "x = 1;\nyAh", "lower.c": "int xah;\n",
                          "accents.c": "na\u00efve r\u00e9sum\u00e9 \u00c5h\n", "none.c": "nothing here at all\n"})
    service = kit.start(root, cache)
    try:
        got = service.candidates(None, Lit(b"Ah"))
        assert got is not None
        # Non-ASCII text alone no longer makes a file a candidate of every pair (accents.c).
        assert {Path(p).name for p in got.paths} == {"ascii.c", "start.c", "wide.c", "after.c", "tiny.c", "tail.c"}
        # Two characters but three bytes: a byte trigram, so files merely ending without a newline
        # (tiny.c, tail.c) are no longer candidates.
        assert {Path(p).name for p in service.candidates(None, Lit("\u00e9A".encode())).paths} == {"wide.c"}
    finally:
        service.stop()


def test_case_insensitive_two_character_literals(tmp_path: Path, kit: SimpleNamespace) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    kit.write_tree(root, {"upper.c": "AH\n", "mixed.c": "x aH y\n", "lower.c": "bah\n", "none.c": "a h\n",
                          "folds.c": "x\u017f\u212a y\n"})  # LONG S + KELVIN SIGN: "sk" ignoring case
    service = kit.start(root, cache)
    try:
        got = service.candidates(None, Lit(b"ah", True))
        assert got is not None and {Path(p).name for p in got.paths} == {"upper.c", "mixed.c", "lower.c"}
        got = service.candidates(None, Lit(b"SK", True))
        assert got is not None and {Path(p).name for p in got.paths} == {"folds.c"}
    finally:
        service.stop()


def test_changes_reported_through_a_symlinked_root_are_not_duplicated(tmp_path: Path, kit: SimpleNamespace) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    kit.write_tree(root, {"a.c": "old_text\n"})
    link = tmp_path / "link"
    link.symlink_to(root)
    service = kit.start(root, cache)
    try:
        (root / "a.c").write_text("new_text\n")
        service.notify_changed([str(link / "a.c")])
        assert service.wait_idle()
        assert service.status()["files"] == 1
        assert [Path(p).name for p in service.candidates(None, Lit(b"new_text")).paths] == ["a.c"]
    finally:
        service.stop()


def test_query_planning_keeps_the_rarest_trigrams() -> None:
    from sleuth.engine.index.evaluate import MAX_GROUPS, MIN_GROUPS, choose_groups

    groups = [[f"t{i:02d}"] for i in range(12)]
    counts = [900, 5, 40000, 7, 19, 21, 3000, 8, 6, 100, 10, 50000]
    chosen = [g[0] for g in choose_groups(groups, counts)]
    assert chosen == ["t01", "t08", "t03", "t07", "t10", "t04", "t05"]  # within 8x of the rarest (5), rarest first
    assert len(choose_groups(groups, [1] * 12)) == MAX_GROUPS
    assert len(choose_groups(groups[:5], [1, 100, 1000, 10000, 100000])) == MIN_GROUPS
    assert choose_groups([["abc"]], [0]) == [["abc"]]


def test_size_limits_filter_catalogue_and_pending_files(tmp_path: Path, kit: SimpleNamespace) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    kit.write_tree(root, {"small.c": "needle\n", "big.c": "needle\n" + "x" * 5000 + "\n"})
    service = kit.start(root, cache)
    try:
        def names(limit: int, literal: bool) -> set[str]:
            options = WalkOptions(max_file_size_bytes=limit)
            if literal:
                return {Path(p).name for p in service.candidates(None, Lit(b"needle"), options).paths}
            return {Path(e.path).name for e in service.catalogue_entries(service.workspace, None, options)}

        for literal in (False, True):
            assert names(1000, literal) == {"small.c"}
            assert names(100_000, literal) == {"small.c", "big.c"}  # no file is that big: no filter
        (root / "later.c").write_text("needle\n" + "y" * 200_000 + "\n")  # pending: its size is checked
        service.notify_changed([str(root / "later.c")])
        with service.state.lock:  # still pending while we ask
            for literal in (False, True):
                assert names(100_000, literal) == {"small.c", "big.c"}
    finally:
        service.stop()
