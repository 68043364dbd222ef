"""The restart's ``stat`` pass in a bare interpreter (:mod:`sleuth.engine.index.stat_pass`) finds the
files changed, replaced or gone since the build, and declines when the catalogue it read is not the
caller's. (That a restart using it finds every change: ``test_restart_freshness.py``'s property.)"""

from __future__ import annotations

import os
from pathlib import Path

from sleuth.engine.index import catalogue_map, native
from sleuth.engine.index.lazy_catalogue import LazyCatalogue
from sleuth.engine.index.stat_pass import NativeStatPass, StatPass, stated_of_sizes, stated_paths
from tests.conftest import under_fallback
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
