"""Persistence: a restart opens the published store (no rebuild) and catches up by size/mtime."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from types import SimpleNamespace

from sleuth.engine.index import store
from sleuth.engine.index.trigram import Lit
from sleuth.commands.config import Settings
from tests.fixtures import index_service



def test_store_lives_in_the_cache_dir_not_the_workspace(tmp_path: Path, kit: SimpleNamespace) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    kit.write_tree(root, {"a.c": "int alpha_beta(void) {}\n"})
    service = kit.start(root, cache)
    status = service.status()
    service.stop()
    assert status["state"] == "ready" and status["files"] == 1
    assert status["store_path"].startswith(str(cache))
    assert status["store_bytes"] > 0
    assert sorted(os.listdir(root)) == ["a.c"]


def test_a_build_and_a_later_open_report_the_same_build_time(tmp_path: Path, kit: SimpleNamespace,
                                                             monkeypatch) -> None:
    """The build's own status named the second its swap ended while the store recorded the second
    it was marked complete; across a second boundary ``index build --json`` and a later ``index
    status`` disagreed (a CI failure). The build's clock is moved a day back here so the two
    differ every time they are taken from different clocks."""
    from sleuth.engine.index import build

    day_ago = time.time() - 86400
    monkeypatch.setattr(build, "time", SimpleNamespace(time=lambda: day_ago, monotonic=time.monotonic,
                                                       time_ns=time.time_ns))
    root, cache = tmp_path / "ws", tmp_path / "cache"
    kit.write_tree(root, {"a.c": "int alpha_beta(void) {}\n"})
    first = kit.start(root, cache)
    built = first.status()["last_build"]
    first.stop()
    second = kit.start(root, cache)
    try:
        assert built == second.status()["last_build"] == time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(day_ago))
    finally:
        second.stop()


def test_restart_reuses_the_store(tmp_path: Path, kit: SimpleNamespace) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    kit.write_tree(root, {"a.c": "int alpha_beta(void) {}\n", "b/b.py": "def gamma_delta():\n    pass\n"})
    first = kit.start(root, cache)
    gen = first.status()["store_path"]
    first.stop()
    second = kit.start(root, cache)
    try:
        assert second.status()["store_path"] == gen  # opened, not rebuilt
        got = second.candidates(None, Lit(b"gamma_delta"))
        assert got is not None and [Path(p).name for p in got.paths] == ["b.py"]
    finally:
        second.stop()


def test_restart_catches_up_on_changes_made_while_down(tmp_path: Path, kit: SimpleNamespace) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    kit.write_tree(root, {"a.c": "old_name\n", "b.c": "keep_me\n", "c.c": "doomed\n"})
    kit.start(root, cache).stop()
    time.sleep(0.01)
    kit.write_tree(root, {"a.c": "fresh_name here\n", "d.c": "brand_new\n"})
    os.remove(root / "c.c")
    service = kit.start(root, cache)
    try:
        for needle in (b"fresh_name", b"brand_new", b"old_name", b"doomed", b"keep_me"):
            got = service.candidates(None, Lit(needle))
            assert got is not None
            assert kit.scan(root, needle) <= set(got.paths), needle
        assert not set(service.candidates(None, Lit(b"old_name")).paths)
        assert service.status()["files"] == 3
    finally:
        service.stop()


def test_settings_index_path_chooses_the_store_location(tmp_path: Path, kit: SimpleNamespace) -> None:
    root = tmp_path / "ws"
    kit.write_tree(root, {"x.txt": "hello world\n"})

    service = index_service(root, config=Settings(index_path=str(tmp_path / "elsewhere")).index_config())
    assert service.base.startswith(str(tmp_path / "elsewhere"))
    assert service.base == store.store_dir([str(root.resolve())], str(tmp_path / "elsewhere"))


def test_the_published_store_is_marked_complete(tmp_path: Path, kit: SimpleNamespace) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    kit.write_tree(root, {"x.txt": "hello world\n"})
    service = kit.start(root, cache)
    gen = service.status()["store_path"]
    service.stop()
    for name in ("catalog.db", "shard-0.db", "shard-1.db"):
        conn = sqlite3.connect(os.path.join(gen, name))
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        conn.close()
        assert meta["complete"] == "1" and meta["schema"] == store.SCHEMA


def test_full_rebuild_publishes_a_new_generation(tmp_path: Path, kit: SimpleNamespace) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    kit.write_tree(root, {"a.c": "alpha_token\n", "b.c": "beta_token\n"})
    service = kit.start(root, cache)
    try:
        before = service.status()["store_path"]
        status = service.build(full=True)
        assert status["state"] == "ready" and status["files"] == 2 and status["store_path"] != before
        assert not os.path.exists(before)  # the old generation is removed once the new one is live
        got = service.candidates(None, Lit(b"beta_token"))
        assert got is not None and [Path(p).name for p in got.paths] == ["b.c"]
    finally:
        service.stop()


def test_stopping_during_the_first_build_publishes_nothing(tmp_path: Path, kit: SimpleNamespace) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    body = "".join(f"int symbol_{i};\n" for i in range(400))
    kit.write_tree(root, {f"d{i % 20}/f{i}.c": body for i in range(1500)})
    service = index_service(root, cache)
    service.start()
    deadline = time.monotonic() + 60
    while not list(cache.glob("*/build-*")) and time.monotonic() < deadline:
        time.sleep(0.005)
    service.stop()
    assert not service.ready and service.candidates(None, Lit(b"symbol_1")) is None
    base = Path(service.base)
    assert not (base / "CURRENT").exists() and not list(base.glob("build-*")) and not list(base.glob("gen-*"))


def test_a_store_of_an_older_schema_is_rebuilt_not_read(tmp_path: Path, kit: SimpleNamespace) -> None:
    """A store written by an older Sleuth (other chunking, other posting format) is never read: the
    next start builds a new generation, and its answers are the new build's."""
    root, cache = tmp_path / "ws", tmp_path / "cache"
    body = "".join(f"int filler_{i};\n" for i in range(3000)) + "int old_schema_needle;\n"  # several chunks
    kit.write_tree(root, {"big.c": body, "small.c": "int other;\n"})
    service = kit.start(root, cache)
    old = service.status()["store_path"]
    service.stop()
    for name in ("catalog.db", "shard-0.db", "shard-1.db"):
        conn = sqlite3.connect(os.path.join(old, name))
        conn.execute("UPDATE meta SET value = 'sleuth-index-13' WHERE key = 'schema'")
        conn.commit()
        conn.close()
    service = kit.start(root, cache)
    try:
        assert service.status()["store_path"] != old
        got = service.candidates(None, Lit(b"old_schema_needle"), line_mode=True)
        assert got is not None and [Path(p).name for p in got.paths] == ["big.c"]
    finally:
        service.stop()
