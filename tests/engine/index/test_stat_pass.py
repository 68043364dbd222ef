"""The restart's ``stat`` pass in a bare interpreter (:mod:`sleuth.engine.index.stat_pass`) finds the
files changed, replaced or gone since the build, and declines when the catalogue it read is not the
caller's. (That a restart using it finds every change: ``test_restart_freshness.py``'s property.)"""

from __future__ import annotations

import os
from pathlib import Path

from sleuth.engine.index.stat_pass import StatPass, stated_paths
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
