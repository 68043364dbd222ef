"""Crash recovery: an interrupted build or a damaged store is detected and rebuilt, never trusted."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

from sleuth.engine.index import store
from sleuth.engine.index.trigram import Lit

BUILDER = """
import sys, time
from sleuth.engine.index import IndexService
from sleuth.engine.workspace import Workspace
service = IndexService(Workspace([sys.argv[1]]), cache_dir=sys.argv[2])
service.start()
service.wait_ready()
print("READY", flush=True)
time.sleep(60)
"""


def _big_tree(root: Path, kit: SimpleNamespace, files: int = 1500) -> None:
    body = "".join(f"static int function_{i}_body(void) {{ return {i}; }}\n" for i in range(60))
    kit.write_tree(root, {f"d{i % 30}/f{i}.c": body + f"unique_marker_{i}\n" for i in range(files)})


def test_kill_9_during_a_build_leaves_nothing_trusted(tmp_path: Path, kit: SimpleNamespace) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    _big_tree(root, kit)
    proc = subprocess.Popen([sys.executable, "-c", BUILDER, str(root), str(cache)], stdout=subprocess.PIPE)
    base = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # wait until the build directory exists, then kill mid-build
        dirs = [d for d in cache.glob("*/build-*")] if cache.exists() else []
        if dirs:
            base = dirs[0].parent
            break
        time.sleep(0.005)
    assert base is not None, "the build never started"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (base / "CURRENT").exists()  # nothing was published
    service = kit.start(root, cache)
    try:
        status = service.status()
        assert status["state"] == "ready" and status["files"] == 1500
        assert not list(base.glob("build-*"))  # the dead build was removed
        got = service.candidates(None, Lit(b"unique_marker_1234"))
        assert got is not None and kit.scan(root, b"unique_marker_1234") <= set(got.paths)
    finally:
        service.stop()


def _built_generation(kit: SimpleNamespace, root: Path, cache: Path) -> Path:
    """A two-file tree's store, built and closed: its generation folder."""
    kit.write_tree(root, {"a.c": "int needle_one;\n", "b.c": "int needle_two;\n"})
    first = kit.start(root, cache)
    gen = Path(first.status()["store_path"])
    first.stop()
    return gen


def _assert_rebuilt(kit: SimpleNamespace, root: Path, cache: Path, damaged: Path) -> None:
    """A restart builds a new generation in place of ``damaged``, and answers from it."""
    second = kit.start(root, cache)
    try:
        assert Path(second.status()["store_path"]) != damaged
        got = second.candidates(None, Lit(b"needle_two"))
        assert got is not None and [Path(p).name for p in got.paths] == ["b.c"]
    finally:
        second.stop()


def test_a_corrupt_catalogue_is_rebuilt(tmp_path: Path, kit: SimpleNamespace) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    gen = _built_generation(kit, root, cache)
    with open(gen / "catalog.db", "r+b") as handle:  # scribble over the SQLite header and first pages
        handle.write(b"\xde\xad\xbe\xef" * 4096)
    _assert_rebuilt(kit, root, cache, gen)


def test_a_catalogue_failing_its_quick_check_is_rebuilt_though_its_map_holds(tmp_path: Path, kit: SimpleNamespace) -> None:
    """A garbage page of ``files`` only: the meta rows and the mapped copy read well, so the open gets as far
    as making the catalogue's columns; the whole file's ``quick_check``, run beside that work (a thread:
    :class:`store.IntactCheck`), fails, and the server builds a new generation instead of using it."""
    import sqlite3

    root, cache = tmp_path / "ws", tmp_path / "cache"
    gen = _built_generation(kit, root, cache)
    assert (gen / "catalog.map").is_file()
    conn = sqlite3.connect(gen / "catalog.db")
    (page_size,) = conn.execute("PRAGMA page_size").fetchone()
    (page,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'files'").fetchone()
    conn.close()
    with open(gen / "catalog.db", "r+b") as handle:
        handle.seek((page - 1) * page_size)
        handle.write(b"\xff" * page_size)
    _assert_rebuilt(kit, root, cache, gen)


def test_an_incomplete_generation_is_not_trusted(tmp_path: Path, kit: SimpleNamespace) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    kit.write_tree(root, {"a.c": "int needle_one;\n"})
    first = kit.start(root, cache)
    gen = first.status()["store_path"]
    first.stop()
    conn = store.connect(os.path.join(gen, "shard-1.db"))
    conn.execute("UPDATE meta SET value='0' WHERE key='complete'")
    conn.close()
    assert store.open_current(os.path.dirname(gen)) is None
    second = kit.start(root, cache)
    try:
        assert second.status()["store_path"] != gen and second.status()["files"] == 1
    finally:
        second.stop()


def test_a_missing_shard_is_not_trusted(tmp_path: Path, kit: SimpleNamespace) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    kit.write_tree(root, {"a.c": "int needle_one;\n"})
    first = kit.start(root, cache)
    gen = first.status()["store_path"]
    first.stop()
    os.remove(os.path.join(gen, "shard-0.db"))
    assert store.open_current(os.path.dirname(gen)) is None


def test_a_truncated_or_missing_postings_file_is_not_trusted(tmp_path: Path, kit: SimpleNamespace) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    kit.write_tree(root, {"a.c": "int needle_one;\n", "b.c": "int needle_two;\n"})
    first = kit.start(root, cache)
    gen = first.status()["store_path"]
    first.stop()
    base = os.path.dirname(gen)
    opened = store.open_current(base)
    assert opened is not None
    for conn in [opened[1], *opened[2]]:
        conn.close()
    posts = sorted((os.path.join(gen, name) for name in os.listdir(gen) if name.endswith(".post")), key=os.path.getsize)
    assert posts and os.path.getsize(posts[-1]) > 0
    posts = posts[-1:]
    with open(posts[0], "r+b") as handle:
        handle.truncate(max(os.path.getsize(posts[0]) - 1, 0))
    assert store.open_current(base) is None
    os.remove(posts[0])
    assert store.open_current(base) is None
    second = kit.start(root, cache)  # rebuilt, and found again
    try:
        assert [os.path.basename(p) for p in second.candidates(None, Lit(b"needle_two")).paths] == ["b.c"]
    finally:
        second.stop()
