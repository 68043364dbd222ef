"""Two processes on one store (issue 14.5): what one adds is never overwritten by the other.

Each service keeps the catalogue in memory and gave a new file the next id *it* knew of, so a file
added by one window and another added by a second window got the same id, and the second
``INSERT OR REPLACE`` deleted the first from the store on disk.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sleuth.engine.index import IndexService
from tests.conftest import write_tree
from tests.fixtures import started_index


def _start(root: Path, cache: Path) -> IndexService:
    service = started_index(root, cache)
    return service


def test_files_added_by_two_services_on_one_store_both_stay(tmp_path: Path) -> None:
    root, cache = write_tree(tmp_path / "ws", {"a.txt": "alpha\n"}), tmp_path / "cache"
    first, second = _start(root, cache), _start(root, cache)
    try:
        assert first.status()["store_path"] == second.status()["store_path"]
        (root / "one.txt").write_text("from the first window\n")
        (root / "two.txt").write_text("from the second window\n")
        first.notify_changed([str(root / "one.txt")])
        assert first.wait_idle(60)
        second.notify_changed([str(root / "two.txt")])
        assert second.wait_idle(60)
        catalog = sqlite3.connect(f"file:{first.status()['store_path']}/catalog.db?mode=ro", uri=True)
        rows = dict(catalog.execute("SELECT CAST(path AS TEXT), id FROM files").fetchall())
        catalog.close()
    finally:
        first.stop()
        second.stop()
    names = {p.rsplit("/", 1)[-1]: i for p, i in rows.items()}
    assert set(names) == {"a.txt", "one.txt", "two.txt"} and len(set(names.values())) == 3
