"""The restart's ``stat`` pass in a bare interpreter (:mod:`sleuth.engine.index.stat_pass`) finds the
files changed, replaced or gone since the build, and declines when the catalogue it read is not the
caller's. (That a restart using it finds every change: ``test_restart_freshness.py``'s property.)"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sleuth.engine.index import catalogue_map, native
from sleuth.engine.index.freshness import MTIME_SLACK_NS
from sleuth.engine.index.lazy_catalogue import LazyCatalogue
from sleuth.engine.index.stat_pass import NativeStatPass, StatPass, stated_of_sizes, stated_paths
from tests.conftest import HANG_S, under_fallback
from tests.fixtures import started_index
from tests.engine.index.test_restart_freshness import _tree


def test_the_stat_pass_finds_what_changed(tmp_path: Path) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    root.mkdir()
    _tree(root)
    service = started_index(root, cache)
    try:
        with service.state.lock:
            cat, gen = service.state.cat, service.state.gen
        assert cat is not None and gen is not None
        (root / "b.c").write_text("haystack, longer now\n")  # changed
        os.remove(root / "h/i.txt")  # gone
        os.remove(root / "d/e.txt")
        (root / "d/e.txt").mkdir()  # no longer a regular file
        db = os.path.join(gen, "catalog.db")
        gone, changed = stated_paths(StatPass(db), cat)  # type: ignore[misc]
        assert gone == {str(root / "h/i.txt"), str(root / "d/e.txt")}
        assert changed == {str(root / "b.c")}
        assert StatPass(db).result(len(cat) + 1) is None  # another catalogue than the caller's
    finally:
        service.stop()


@under_fallback("no-compiled-stats", native.stat_changed is None, "the compiled stat loop")
def test_the_compiled_stat_loop_answers_as_the_bare_interpreter(tmp_path: Path) -> None:
    """Every kind of difference, through both ways into the loop (a restart's mapped columns, a rescan's
    catalogue view), against the second interpreter's answer; and a loop given other columns than the
    catalogue's declines."""
    root, cache = tmp_path / "ws", tmp_path / "cache"
    root.mkdir()
    _tree(root)
    (root / "same.txt").write_text("same\n")
    service = started_index(root, cache)
    try:
        with service.state.lock:
            cat, gen = service.state.cat, service.state.gen
        assert isinstance(cat, LazyCatalogue) and gen is not None
        (root / "b.c").write_text("haystack, longer now\n")  # size
        st = os.stat(root / "a.txt")
        os.utime(root / "a.txt", ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000))  # time only
        os.remove(root / "h/i.txt")  # gone
        os.remove(root / "d/e.txt")
        (root / "d/e.txt").mkdir()  # a folder now
        os.remove(root / "d/f/g.txt")
        os.symlink(root / "same.txt", root / "d/f/g.txt")  # a link now (not followed)
        db = os.path.join(gen, "catalog.db")
        expected = stated_paths(StatPass(db), cat)
        assert expected == ({str(root / p) for p in ("h/i.txt", "d/e.txt", "d/f/g.txt")},
                            {str(root / "b.c"), str(root / "a.txt")})
        conn = service.state.catalog_db
        cols = catalogue_map.read(gen, conn)  # type: ignore[arg-type]
        assert cols is not None
        assert stated_paths(NativeStatPass(cols), cat) == expected
        assert stated_of_sizes(cat.stat_view()) == expected
        assert stated_paths(NativeStatPass(cols), LazyCatalogue(2, catalogue_map.Columns.of_rows([], []))) is None
    finally:
        service.stop()


def _stat_reference(paths: list[str], sizes: list[int], mtimes: list[int], firsts: list[int]) -> list[int]:
    """The loop's answer made with ``os.lstat`` of each whole path."""
    import stat

    found = []
    for i, path in enumerate(paths):
        try:
            st = os.lstat(path)
        except OSError:
            found.append(-(i + 1))
            continue
        if not stat.S_ISREG(st.st_mode):
            found.append(-(i + 1))
        elif st.st_size != sizes[i] or abs(st.st_mtime_ns - mtimes[i]) > MTIME_SLACK_NS or firsts[i] < 0:
            found.append(i + 1)
    return found


@under_fallback("no-compiled-stats", native.stat_changed is None, "the compiled stat loop")
def test_the_compiled_loop_states_from_each_folder_as_lstat_does(tmp_path: Path) -> None:
    """The loop states each file from its folder, opened once for a run of its files and split over
    threads: files of folders interleaved, through a linked folder (followed, as lstat follows a path's
    folders), in a folder gone or now a file, a file now a link or a folder: the answer of an ``lstat``
    of every whole path, in path order."""
    import numpy as np

    for name in ("a", "b", "c", "d", "a/deep"):
        (tmp_path / name).mkdir()
    os.symlink(tmp_path / "a", tmp_path / "link")
    paths: list[str] = []
    for i in range(40):  # interleaved: a folder's files do not always follow each other
        for folder in ("a", "b", "link", "c", "d", "a/deep", "b"):
            path = tmp_path / folder / f"f{i}.txt"
            if not path.exists():
                path.write_text("x" * i)
            paths.append(str(path))
    paths.append("/")  # a path without a folder part: a folder, so gone
    stats = [os.lstat(p) for p in paths]
    sizes, mtimes = [st.st_size for st in stats], [st.st_mtime_ns for st in stats]
    firsts = [0 if i % 11 else -1 for i in range(len(paths))]  # some never indexed
    shutil.rmtree(tmp_path / "c")  # a folder gone
    shutil.rmtree(tmp_path / "d")
    (tmp_path / "d").write_text("now a file\n")  # a folder now a file
    (tmp_path / "a/f3.txt").write_text("longer now\n")  # (also seen through link/)
    st = os.stat(tmp_path / "b/f5.txt")
    os.utime(tmp_path / "b/f5.txt", ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000))
    os.remove(tmp_path / "a/deep/f7.txt")
    (tmp_path / "a/deep/f7.txt").mkdir()
    os.remove(tmp_path / "b/f9.txt")
    os.symlink(tmp_path / "a/f9.txt", tmp_path / "b/f9.txt")
    expected = _stat_reference(paths, sizes, mtimes, firsts)
    assert len(expected) > 40 and any(n < 0 for n in expected) and any(n > 0 for n in expected)
    blob = b"\0".join(map(os.fsencode, paths))
    found = native.stat_changed(blob, np.array(sizes, np.int64), np.array(mtimes, np.int64),  # type: ignore[misc]
                                np.array(firsts, np.int64), MTIME_SLACK_NS)
    assert found == expected


def _runs_reference(paths: list[str]) -> list[tuple[str, int]]:
    """Each run of consecutive paths sharing a folder (``rpartition('/')[0] or '/'``), in Python."""
    runs: list[tuple[str, int]] = []
    for at, path in enumerate(paths):
        folder = path.rpartition("/")[0] or "/"
        if not runs or runs[-1][0] != folder:
            runs.append((folder, at))
    return runs


@under_fallback("no-compiled-stats", native.folder_runs is None, "the compiled folder loops")
@settings(max_examples=200, deadline=None)
@given(paths=st.lists(st.text(alphabet="ab/é", min_size=1, max_size=8).filter(lambda p: "\0" not in p), max_size=30))
def test_folder_runs_group_paths_as_rpartition_does(paths: list[str]) -> None:
    """The freshness check looks each catalogued file's folder up among the stamps once a run of files
    sharing it (:meth:`.map_file.StatMapping.strays`): the runs are those Python's ``rpartition`` makes,
    paths without a folder part and at the root included."""
    found = native.folder_runs(b"\0".join(p.encode() for p in paths), len(paths))  # type: ignore[misc]
    assert [(f.decode(), at) for f, at in found] == _runs_reference(paths)


@under_fallback("no-compiled-stats", native.stat_folders is None, "the compiled folder loops")
def test_the_compiled_folder_check_answers_as_lstat(tmp_path: Path) -> None:
    """The stamped folders' check (:func:`.freshness._stamped_folders_unchanged`): a folder unchanged, one
    whose listing changed (its times moved), one gone, one now a file, one now a link to a folder (lstat:
    no longer a folder), and a wrong count of paths refused."""
    from array import array

    names = ["same", "added", "gone", "file", "link", "ctime"]
    for name in names:
        (tmp_path / name).mkdir()
    paths = [str(tmp_path / n) for n in names]
    stats = [os.lstat(p) for p in paths]
    mtimes, ctimes = array("q", [s.st_mtime_ns for s in stats]), array("q", [s.st_ctime_ns for s in stats])
    (tmp_path / "added/new.txt").write_text("new\n")
    os.rmdir(tmp_path / "gone")
    os.rmdir(tmp_path / "file")
    (tmp_path / "file").write_text("a file now\n")
    os.rmdir(tmp_path / "link")
    os.symlink(tmp_path / "same", tmp_path / "link")
    os.chmod(tmp_path / "ctime", 0o700)  # the change time alone
    blob = b"\0".join(map(os.fsencode, paths))
    assert native.stat_folders(blob, mtimes, ctimes) == [2, -3, -4, -5, 6]  # type: ignore[misc]
    with pytest.raises(ValueError):
        native.stat_folders(blob + b"\0extra", mtimes, ctimes)  # type: ignore[misc]


def test_the_catalogue_view_of_an_unchanged_open_is_its_columns(tmp_path: Path) -> None:
    """A restart's catch-up reads the stored columns as they are (no 78,000-entry dict built before
    ``ready``) while nothing changed since the open, and the catalogue's own view once something did:
    both equal the loaded catalogue's."""
    from sleuth.engine.index.map_file import StatMapping

    root, cache = tmp_path / "ws", tmp_path / "cache"
    root.mkdir()
    _tree(root)
    service = started_index(root, cache)
    try:
        with service.state.lock:
            cat = service.state.cat
        assert isinstance(cat, LazyCatalogue)
        eager = {p: (r.size, r.mtime_ns, r.first_row >= 0) for p, r in cat.by_path.items()}
        view = cat.stat_view()
        assert isinstance(view, StatMapping) and dict(view) == eager
        (root / "b.c").write_text("haystack, longer now\n")
        service.notify_changed([str(root / "b.c")])
        assert service.wait_idle(HANG_S)
        with service.state.lock:
            changed = cat.stat_view()
            eager = {p: (r.size, r.mtime_ns, r.first_row >= 0) for p, r in cat.by_path.items()}
        assert not isinstance(changed, StatMapping) and dict(changed) == eager
        assert changed[str(root / "b.c")][0] == len("haystack, longer now\n")
    finally:
        service.stop()
