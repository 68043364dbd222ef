"""The catalogue's mapped copy (:mod:`sleuth.engine.index.catalogue_map`): the same catalogue as the rows,
used only while provably current, and refused (the rows read instead) when stale, truncated, damaged
or another store's.

The property: after random changes written through by a server, the copy written then reads back as a
catalogue equal, record for record and row map for row map, to the one made from the rows. The refusals
are checked on the copy itself and through a restart, whose answers must then still equal a scan's."""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sleuth.engine.index import IndexService, catalogue_map
from sleuth.engine.index.catalogue import Catalogue
from sleuth.engine.index.lazy_catalogue import of_columns
from tests.conftest import HANG_S
from tests.fixtures import started_index
from tests.engine.index.test_random_operations import _agree, apply, operation
from tests.engine.index.test_restart_freshness import _tree


def _gen_and_db(service: IndexService) -> tuple[str, sqlite3.Connection]:
    with service.state.lock:
        gen, conn = service.state.gen, service.state.catalog_db
    assert gen is not None and conn is not None
    return gen, conn


def _assert_same_catalogue(mapped: Catalogue, rows: Catalogue) -> None:
    assert {p: Catalogue.row_values(r) for p, r in mapped.by_path.items()} == \
        {p: Catalogue.row_values(r) for p, r in rows.by_path.items()}
    assert {i: r.path for i, r in mapped.by_id.items()} == {i: r.path for i, r in rows.by_id.items()}
    assert mapped.stat_view() == rows.stat_view()
    assert (mapped.live_rows, mapped.next_id, mapped.unindexed_ids, mapped.wide_ids, mapped.shard_bytes, mapped.largest()) == \
        (rows.live_rows, rows.next_id, rows.unindexed_ids, rows.wide_ids, rows.shard_bytes, rows.largest())
    for shard in range(2):
        a, b = mapped.row_map(shard), rows.row_map(shard)
        for name in ("fid", "chunks", "start", "end", "before"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), name


def _chunked_tree(root: Path) -> None:
    """:func:`_tree`, plus files of several chunks (their offsets and newline counts are stored) and a
    name that is not UTF-8."""
    _tree(root)
    (root / "big.c").write_text("".join(f"line {i} NEEDLE_A {'x' * (i % 70)}\n" for i in range(3000)), encoding="utf-8")
    (root / "d" / "wide.txt").write_bytes(b"no final newline NEEDLE_B" * 900)
    os.makedirs(os.fsencode(root / "odd"), exist_ok=True)
    with open(os.path.join(os.fsencode(root / "odd"), b"caf\xe9.txt"), "wb") as out:
        out.write(b"NEEDLE_A in a Latin-1 name\n")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(operation, min_size=0, max_size=6))
def test_the_mapped_catalogue_equals_the_rows(tmp_path_factory: pytest.TempPathFactory, ops: list) -> None:
    root = tmp_path_factory.mktemp("map") / "ws"
    root.mkdir()
    _chunked_tree(root)
    cache, away = tmp_path_factory.mktemp("cache"), tmp_path_factory.mktemp("away")
    service = started_index(root, cache)
    try:
        reported: list[str] = []
        for op in ops:
            reported += [str(p) for p in apply(root, away, op)]
        service.notify_changed(reported)
        assert service.wait_idle(60)
        gen, _ = _gen_and_db(service)
        assert catalogue_map.write(gen)
        conn = sqlite3.connect(os.path.join(gen, "catalog.db"))
        try:
            cols = catalogue_map.read(gen, conn)
            assert cols is not None
            _assert_same_catalogue(of_columns(cols, 2), Catalogue.from_rows(Catalogue.fetch(conn), 2))
        finally:
            conn.close()
    finally:
        service.stop()


def test_a_build_writes_the_map_and_a_restart_reads_it(tmp_path: Path) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    root.mkdir()
    _chunked_tree(root)
    started_index(root, cache).stop()
    again = started_index(root, cache)
    try:
        assert again.upkeep.catalogue_from == "map"
        assert _agree(again) == []
    finally:
        again.stop()


def test_a_write_to_the_catalogue_makes_the_map_stale(tmp_path: Path) -> None:
    """Every writer of ``files`` fires the triggers, one that knows nothing of the map too (an older Sleuth
    on the same store): here a bare SQL update of one file's size, the other file's row left as it was."""
    root, cache = tmp_path / "ws", tmp_path / "cache"
    root.mkdir()
    _chunked_tree(root)
    service = started_index(root, cache)
    try:
        gen, _ = _gen_and_db(service)
        conn = sqlite3.connect(os.path.join(gen, "catalog.db"))
        try:
            assert catalogue_map.read(gen, conn) is not None
            for statement in ("UPDATE files SET size = size WHERE id = 1", "DELETE FROM files WHERE id = 2",
                              "INSERT INTO files SELECT 1000, path || 'x', display, size, mtime_ns, shard, first_row, "
                              "offsets, wide, lines, plain FROM files WHERE id = 1"):
                catalogue_map.write(gen)
                assert catalogue_map.read(gen, conn) is not None
                conn.execute(statement)
                conn.commit()
                assert catalogue_map.read(gen, conn) is None, statement
        finally:
            conn.close()
    finally:
        service.stop()


def _truncated(path: str, other: str) -> None:
    os.truncate(path, os.path.getsize(path) - 1)


def _flipped(path: str, other: str) -> None:
    with open(path, "r+b") as handle:
        handle.seek(os.path.getsize(path) // 2)
        byte = handle.read(1)
        handle.seek(-1, os.SEEK_CUR)
        handle.write(bytes([byte[0] ^ 0x40]))


def _foreign(path: str, other: str) -> None:
    shutil.copyfile(other, path)  # the same tree's store built again: same rows, same epoch, another catalogue


def _other_version(path: str, other: str) -> None:
    with open(path, "r+b") as handle:
        handle.seek(8)
        handle.write((catalogue_map.VERSION + 1).to_bytes(4, "little"))


def _empty(path: str, other: str) -> None:
    open(path, "wb").close()


@pytest.mark.parametrize("spoil", [_truncated, _flipped, _foreign, _other_version, _empty])
def test_a_spoilt_map_is_refused_and_the_rows_are_read(tmp_path: Path, spoil) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    _chunked_tree(root)
    started_index(root, tmp_path / "other").stop()
    (other_gen,) = [d for d in (tmp_path / "other").glob("*/gen-*")]
    started_index(root, tmp_path / "cache").stop()
    (gen,) = [d for d in (tmp_path / "cache").glob("*/gen-*")]
    spoil(str(gen / catalogue_map.FILE_NAME), str(other_gen / catalogue_map.FILE_NAME))
    conn = sqlite3.connect(gen / "catalog.db")
    try:
        assert catalogue_map.read(str(gen), conn) is None
    finally:
        conn.close()
    (root / "b.c").write_text("haystack NEEDLE_B now\n", encoding="utf-8")  # changed while down
    again = started_index(root, tmp_path / "cache")
    try:
        assert again.upkeep.catalogue_from == "rows"
        assert _agree(again) == []
    finally:
        again.stop()


def test_a_server_writes_a_missing_map_once_it_is_ready(tmp_path: Path) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    root.mkdir()
    _chunked_tree(root)
    started_index(root, cache).stop()
    (gen,) = [d for d in cache.glob("*/gen-*")]
    os.remove(gen / catalogue_map.FILE_NAME)  # (a store built before the map existed)
    service = started_index(root, cache)
    try:
        assert service.upkeep.catalogue_from == "rows"
        deadline = time.monotonic() + HANG_S  # (an upper bound for a hang: the event is the file appearing)
        while not (gen / catalogue_map.FILE_NAME).exists():
            assert time.monotonic() < deadline
            time.sleep(0.02)
    finally:
        service.stop()
    again = started_index(root, cache)
    try:
        assert again.upkeep.catalogue_from == "map"
        assert _agree(again) == []
    finally:
        again.stop()


def test_the_stat_mapping_holds_what_the_stat_view_holds(tmp_path: Path) -> None:
    """A cold call's freshness check reads ``path -> (size, mtime_ns, indexed)`` through a mapping made
    per path as asked (:meth:`Columns.stat_mapping`): the same pairs as the whole dict."""
    root, cache = tmp_path / "ws", tmp_path / "cache"
    root.mkdir()
    _chunked_tree(root)
    service = started_index(root, cache)
    try:
        gen, conn = _gen_and_db(service)
        cols = catalogue_map.read(gen, conn)
        assert cols is not None
        view, mapping = cols.stat_view(), cols.stat_mapping()
        assert len(mapping) == len(view) > 0 and list(mapping) == list(view)
        assert dict(mapping.items()) == view
        some = next(iter(view))
        assert some in mapping and mapping[some] == view[some]
        assert str(root / "no such file") not in mapping
    finally:
        service.stop()


def test_the_file_count_is_read_from_the_maps_header_else_counted(tmp_path: Path) -> None:
    """Whether a cold call opens a store at all depends on its file count: read from ``catalog.map``'s
    header (no scan of ``files``), and counted in SQLite when there is no map."""
    from sleuth.engine.index.location import catalogue_files
    from sleuth.engine.index.map_file import header_files

    root, cache = tmp_path / "ws", tmp_path / "cache"
    root.mkdir()
    _chunked_tree(root)
    started_index(root, cache).stop()
    (gen,) = cache.glob("*/gen-*")
    count = sqlite3.connect(gen / "catalog.db").execute("SELECT count(*) FROM files").fetchone()[0]
    assert count > 0 and header_files(str(gen)) == count == catalogue_files(str(gen))
    os.remove(gen / catalogue_map.FILE_NAME)
    assert header_files(str(gen)) is None and catalogue_files(str(gen)) == count
