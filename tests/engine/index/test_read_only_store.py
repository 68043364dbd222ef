"""A one-shot process answers from a current store without writing it, and equals a cold scan (issue 34).

:func:`sleuth.core.index.current_store` is what the cold CLI asks: the published store of its roots
and settings, opened read-only, with every change made since the build (while no server ran) found
from the folder stamps and read from disk. The property: after any random changes, its ``grep`` and
``text`` answers equal the plain scan's, or (an ignore file edited: the stamps cannot tell) it
declines and the caller scans; and the store's bytes are as the build left them. The racy window
is zero here, as in test_restart_freshness.py (these trees are seconds old).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sleuth.commands import get_command
from sleuth.commands.config import Settings
from sleuth.commands.context import CommandContext, Services
from sleuth.core import cold_store as core_index
from sleuth.core.cold_store import current_store
from sleuth.engine.index import IndexService, freshness, native
from sleuth.engine.workspace import Workspace
from tests.conftest import needs_locks, under_fallback
from tests.fixtures import started_index
from tests.engine.index.test_random_operations import PATTERNS, _lines, operation
from tests.engine.index.test_restart_freshness import _tree, apply_while_down, ignore_edit, rules_edited
from tests.fixtures import index_service, indexed_and_plain

TEXT_QUERIES = ["needle_a", "haystack", "NEEDLE_B OR x"]


@pytest.fixture(autouse=True)
def any_store_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(freshness, "RACY_NS", 0)
    monkeypatch.setattr(core_index, "SMALL_STORE_FILES", 0)  # these trees hold a handful of files


def _store_bytes(cache: Path) -> str:
    """A digest of the store's databases and posting files (not SQLite's -shm/-wal reader files)."""
    digest = hashlib.sha256()
    for path in sorted(cache.rglob("*")):
        if path.is_file() and path.suffix in (".db", ".post") or path.name == "CURRENT":
            digest.update(str(path).encode() + path.read_bytes())
    return digest.hexdigest()


def _texts(ctx: CommandContext) -> list[list[tuple[str, int, str]]]:
    text = get_command("sleuth.text")
    out = []
    for query in TEXT_QUERIES:
        found = text({"query": query, "max_results": 1000}, ctx)
        out.append(sorted((r["path"], r["line"], r["snippet"]) for r in found["results"]))
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(st.one_of(operation, operation, ignore_edit), min_size=0, max_size=6))
def test_cold_store_answers_equal_a_cold_scan(tmp_path_factory: pytest.TempPathFactory, ops: list) -> None:
    root = tmp_path_factory.mktemp("cold") / "ws"
    root.mkdir()
    _tree(root)
    cache, away = tmp_path_factory.mktemp("cache"), tmp_path_factory.mktemp("away")
    started_index(root, cache).stop()
    built = _store_bytes(cache)
    apply_while_down(root, away, ops)
    workspace = Workspace([root])
    service = current_store(workspace, Settings(index_path=str(cache)))
    try:
        if rules_edited(root, ops):
            assert service is None  # which names are taken may differ anywhere: the scan answers
            return
        assert service is not None and service.ready
        grep = get_command("sleuth.grep")
        indexed, plain = indexed_and_plain(service)
        for pattern, extra in PATTERNS:
            args = {"pattern": pattern, "max_results": 1000, **extra}
            assert _lines(grep(args, indexed)) == _lines(grep(args, plain)), (pattern, extra)
        assert _texts(indexed) == _texts(plain)
        assert get_command("sleuth.text")({"query": "haystack"}, indexed)["source"] == "index"
    finally:
        if service is not None:
            service.stop()
    assert _store_bytes(cache) == built  # read, never written


def _built(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "ws"
    root.mkdir()
    _tree(root)
    cache = tmp_path / "cache"
    started_index(root, cache).stop()
    return root, cache


def _generation(cache: Path) -> Path:
    (gen,) = [p for p in cache.glob("*/gen-*")]
    return gen


def test_a_store_of_other_settings_is_not_used(tmp_path: Path) -> None:
    """Built without deny globs: a caller with some would be answered from files it denies."""
    root, cache = _built(tmp_path)
    assert current_store(Workspace([root]), Settings(index_path=str(cache), deny_globs=("*.c",))) is None
    assert current_store(Workspace([root]), Settings(index_path=str(cache), index_enabled=False)) is None
    opened = current_store(Workspace([root]), Settings(index_path=str(cache)))
    assert opened is not None
    opened.stop()


def _edit_catalogue(cache: Path, sql: str) -> None:
    conn = sqlite3.connect(_generation(cache) / "catalog.db")
    conn.execute(sql)
    conn.commit()
    conn.close()


def test_a_store_of_another_schema_is_not_used(tmp_path: Path) -> None:
    root, cache = _built(tmp_path)
    _edit_catalogue(cache, "UPDATE meta SET value = 'sleuth-index-0' WHERE key = 'schema'")
    assert current_store(Workspace([root]), Settings(index_path=str(cache))) is None


def test_a_damaged_store_is_not_used(tmp_path: Path) -> None:
    root, cache = _built(tmp_path)
    catalog = _generation(cache) / "catalog.db"
    with open(catalog, "r+b") as handle:  # the header and first pages overwritten: not a database
        handle.write(b"\xff" * 4096)
    assert current_store(Workspace([root]), Settings(index_path=str(cache))) is None


def _garbage_page(catalog: Path, table: str) -> None:
    """Overwrite the root page of ``table`` in the catalogue with garbage."""
    conn = sqlite3.connect(catalog)
    (page_size,) = conn.execute("PRAGMA page_size").fetchone()
    (page,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    conn.close()
    with open(catalog, "r+b") as handle:
        handle.seek((page - 1) * page_size)
        handle.write(b"\xff" * page_size)


def test_a_catalogue_whose_stamps_fail_their_quick_check_is_not_used(tmp_path: Path) -> None:
    """The columns come from catalog.map and the meta rows read well, but a page of ``folders`` (the
    stamps, which a read-only open reads from the database beside the map) is garbage: its
    ``quick_check`` of the tables it reads fails and the caller scans."""
    root, cache = _built(tmp_path)
    assert (_generation(cache) / "catalog.map").is_file()
    _garbage_page(_generation(cache) / "catalog.db", "folders")
    assert current_store(Workspace([root]), Settings(index_path=str(cache))) is None


def test_a_files_table_it_never_reads_is_not_checked_and_answers_hold(tmp_path: Path) -> None:
    """A garbage page of ``files``, whose rows a read-only open takes from catalog.map (checked by its own
    CRC-32 and the catalogue's id and epoch) and never from the database: the open checks the tables it
    reads (``meta``, ``folders``: ~1 ms, where the whole file's ``quick_check`` was ~25 ms of a cold call
    on the Linux tree), so the store is used, and its answers equal the scan's (a change made since the
    build included)."""
    root, cache = _built(tmp_path)
    _garbage_page(_generation(cache) / "catalog.db", "files")
    (root / "b.c").write_text("haystack NEEDLE_A since\n")  # changed since the build
    service = current_store(Workspace([root]), Settings(index_path=str(cache)))
    assert service is not None
    try:
        grep = get_command("sleuth.grep")
        indexed, plain = indexed_and_plain(service)
        for pattern, extra in PATTERNS:
            args = {"pattern": pattern, "max_results": 1000, **extra}
            assert _lines(grep(args, indexed)) == _lines(grep(args, plain)), (pattern, extra)
    finally:
        service.stop()


def test_a_store_without_stamps_is_not_used(tmp_path: Path) -> None:
    """Without the folder stamps nothing proves which files are new: the caller scans."""
    root, cache = _built(tmp_path)
    _edit_catalogue(cache, "DROP TABLE folders")
    assert current_store(Workspace([root]), Settings(index_path=str(cache))) is None


@needs_locks  # readers.lock: with locks forced off (SLEUTH_FORCE_FALLBACKS=no-locks) a reader holds nothing
def test_the_store_stays_open_for_reading_while_it_is_used(tmp_path: Path) -> None:
    """A reader holds its generation (readers.lock): a server's publish cannot delete it under the reads."""
    from sleuth.engine.index import store

    root, cache = _built(tmp_path)
    gen = _generation(cache)
    service = current_store(Workspace([root]), Settings(index_path=str(cache)))
    assert service is not None
    try:
        os.replace(os.path.join(gen.parent, "CURRENT"), os.path.join(gen.parent, "CURRENT.old"))
        store.remove_unused_generations(str(gen.parent))
        assert gen.is_dir()
    finally:
        service.stop()
    store.remove_unused_generations(str(gen.parent))
    assert not gen.exists()


def test_the_lazy_catalogue_equals_the_loaded_one(tmp_path: Path) -> None:
    """Chunked files (over 16 KiB), an unindexed one (too large), a wide one (no final newline), two
    shards: every column and record of :func:`lazy_catalogue` equals the eager load's."""
    import numpy as np

    from sleuth.engine.index.catalogue import Catalogue
    from sleuth.engine.index.config import IndexConfig
    from sleuth.engine.index.lazy_catalogue import lazy_catalogue
    from sleuth.engine.index.rowmap import RowMap

    root = tmp_path / "ws"
    root.mkdir()
    for i in range(12):
        (root / f"big{i}.c").write_text("".join(f"line {n} of {i}\n" for n in range(4000 * (i % 3 + 1))))
        (root / f"small{i}.txt").write_text(f"small {i}")
    (root / "huge.bin").write_bytes(b"x\n" * 600_000)
    service = index_service(root, tmp_path / "c", IndexConfig(max_file_size_bytes=1_000_000))
    service.start()
    assert service.wait_ready(120)
    with service.state.lock:
        rows = Catalogue.fetch(service.state.catalog_db)
    service.stop()
    eager, lazy = Catalogue.from_rows(rows, 2), lazy_catalogue(rows, 2)
    assert any(r.offsets for r in eager.by_id.values()) and eager.unindexed_ids and eager.wide_ids
    for name in ("live_rows", "next_id", "unindexed_ids", "wide_ids", "shard_bytes"):
        assert getattr(lazy, name) == getattr(eager, name), name
    assert lazy.largest() == eager.largest()
    assert dict(lazy.by_id) == dict(eager.by_id) and dict(lazy.by_path) == dict(eager.by_path)
    for shard in range(2):
        a, b = lazy.row_map(shard), eager.row_map(shard)
        for column in RowMap.__slots__:
            assert np.array_equal(getattr(a, column), getattr(b, column)), column


def test_a_cold_open_maps_the_posting_directories_a_build_wrote(tmp_path: Path) -> None:
    """A build writes each shard's ``segs`` as ``shard-N.dir``, and the read-only open maps it instead of
    reading the rows (:func:`sleuth.engine.index.postings.write_directory`)."""
    root, cache = _built(tmp_path)
    assert sorted(p.name for p in _generation(cache).glob("shard-*.dir")) == ["shard-0.dir", "shard-1.dir"]
    opened = current_store(Workspace([root]), Settings(index_path=str(cache)))
    assert opened is not None
    try:
        assert [p.directory_mapped for p in opened.state.postings] == [True, True]
    finally:
        opened.stop()


def test_the_early_check_is_used_only_for_the_map_it_read(tmp_path: Path) -> None:
    """The freshness check forked before the index stack is imported (:mod:`.early_check`) answers what
    changed, and its answer counts only for the very ``catalog.map`` the caller mapped (its source). With
    the map replaced while the child runs (whichever file it read: the old one, then the caller checks
    again itself, or the new one), the caller still finds the change."""
    from sleuth.engine.index.catalogue_map import read
    from sleuth.engine.index.config import IndexConfig
    from sleuth.engine.index.early_check import EarlyCheck
    from sleuth.engine.index.store import connect_read_only

    root, cache = _built(tmp_path)
    gen = str(_generation(cache))
    (root / "b.c").write_text("haystack and more\n")  # changed since the build
    conn = connect_read_only(os.path.join(gen, "catalog.db"))
    cols = read(gen, conn)
    conn.close()
    assert cols is not None and cols.source is not None
    workspace, options = Workspace([root]), IndexConfig().walk_options()
    used, quick = EarlyCheck(gen, workspace, options).result(cols.source)
    assert used and quick is not None and quick.changed == [str(root / "b.c")] and quick.gone == []
    other = (cols.source[0], cols.source[1] + 1, *cols.source[2:])
    assert EarlyCheck(gen, workspace, options).result(other) == (False, None)
    early = EarlyCheck(gen, workspace, options)
    os.replace(os.path.join(gen, "catalog.map"), os.path.join(gen, "catalog.old"))  # the child's file, gone from
    with open(os.path.join(gen, "catalog.old"), "rb") as src, open(os.path.join(gen, "catalog.map"), "wb") as dst:
        dst.write(src.read())  # ...its place: a copy, another inode (so another source)
    opened = IndexService(workspace, IndexConfig(index_path=str(cache)))
    try:
        assert opened.open_read_only(early)
        assert str(root / "b.c") in opened.state.pending
    finally:
        opened.stop()


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc")
def test_numpy_is_imported_without_a_blas_thread_pool_and_the_environment_given_back() -> None:
    """The cold call imports numpy with OpenBLAS told to start no thread pool (a quarter of the import's
    CPU here), and gives the environment back at once: a command it starts later sees none of it."""
    import subprocess
    import sys

    code = ("import os; from sleuth.core.cold_store import _import_numpy_single_threaded as f; f(); "
            "print(len(os.listdir('/proc/self/task')), os.environ.get('OPENBLAS_NUM_THREADS'))")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["1", "None"]
    env["OPENBLAS_NUM_THREADS"] = "3"  # a person's own setting stays theirs
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["1", "3"]


def test_the_index_stack_is_imported_with_no_collection_and_then_frozen() -> None:
    """A cold call imports numpy and the index stack with the collector off (their ~20,000 newest objects
    were walked by a young collection for nothing), then freezes what is alive (no later collection walks
    it) and gives the collector back as it was."""
    import subprocess
    import sys

    code = ("import gc; from sleuth.engine import heap; heap.tune(heap.ONE_SHOT_THRESHOLD); runs = []; "
            "gc.callbacks.append(lambda phase, info: phase == 'start' and runs.append(info['generation'])); "
            "from sleuth.core.cold_store import import_index_stack; import_index_stack(); "
            "import numpy, sleuth.engine.index.service; print(len(runs), gc.get_freeze_count() > 10000, gc.isenabled())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["0", "True", "True"]


def test_the_index_commands_fork_the_check_before_the_index_stack(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """``sleuth text`` and ``sleuth symbols`` (``cli/index.py``) start the store's freshness check before
    they import the index stack, as ``sleuth grep`` does, and their read-only open uses it."""
    from sleuth.cli.index import _index_context
    from sleuth.engine.index.early_check import EarlyCheck

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "ws"
    root.mkdir()
    _tree(root)
    started_index(root, tmp_path / "xdg" / "sleuth").stop()
    (root / "a.txt").write_text("NEEDLE_A and more\n")
    ctx, early = _index_context([str(root)], None, True)
    assert isinstance(early, EarlyCheck)
    index = ctx.services.index
    try:
        assert index.open_read_only(early)
        assert str(root / "a.txt") in index.state.pending
    finally:
        index.stop()
    assert _index_context([str(tmp_path / "elsewhere")], None, True)[1] is None  # no store there


def test_a_damaged_map_is_not_trusted_when_its_crc_is_left_to_the_early_check(tmp_path: Path) -> None:
    """With an early check the caller maps ``catalog.map`` without its CRC-32 (the child verifies the
    same file): a flipped byte in its columns fails the child's check, and the caller then checks the
    CRC itself and declines (the caller scans); an intact map is used."""
    root, cache = _built(tmp_path)
    path = _generation(cache) / "catalog.map"
    opened = current_store(Workspace([root]), Settings(index_path=str(cache)))
    assert opened is not None
    opened.stop()
    data = bytearray(path.read_bytes())
    data[-9] ^= 0x40  # in the last column (the displays' bytes): nothing parses it at the open
    path.write_bytes(bytes(data))
    assert current_store(Workspace([root]), Settings(index_path=str(cache))) is None



@under_fallback("no-compiled-stats", native.stat_changed is None, "the compiled stat loop in a thread")
def test_the_early_check_states_the_files_while_it_checks_the_folders(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The early check (:mod:`.early_check`) starts the ``stat`` of every file in a thread first and checks
    the map's CRC, the catalogue and the folder stamps meanwhile (those ran after the whole ``stat`` before,
    with the other core idle): here the ``stat`` waits until the folders are checked, which it could not
    if they came after it; its answer is still every change. When the stamps cannot tell (an ignore file
    edited) the check answers so, and only once the ``stat`` has ended: no thread is left running (without
    a fork the check runs in the caller, whose pool start depends on its thread count)."""
    import threading

    from sleuth.engine.index.config import IndexConfig
    from sleuth.engine.index.early_check import _check
    from tests.conftest import HANG_S

    root, cache = _built(tmp_path)
    gen = str(_generation(cache))
    (root / "b.c").write_text("haystack, longer now\n")  # changed since the build
    folders_checked, overlapped = threading.Event(), []
    real_stat, real_folders = native.stat_changed, freshness._stamped_folders_unchanged

    def stat_changed(*args: object) -> list[int]:
        overlapped.append(folders_checked.wait(HANG_S))
        try:
            return real_stat(*args)
        finally:
            overlapped.append("ended")

    def folders(rows: list) -> bool | None:
        unchanged = real_folders(rows)
        folders_checked.set()
        return unchanged

    monkeypatch.setattr(native, "stat_changed", stat_changed)
    monkeypatch.setattr(freshness, "_stamped_folders_unchanged", folders)
    answer = _check(gen, Workspace([root]), IndexConfig().walk_options())
    assert overlapped == [True, "ended"]
    assert answer is not None and answer[1] is not None
    assert answer[1].changed == [str(root / "b.c")] and answer[1].gone == []
    (root / "d" / ".ignore").write_text("*.txt\n", encoding="utf-8")  # the stamps cannot tell what this hides
    folders_checked.clear()
    overlapped.clear()
    answer = _check(gen, Workspace([root]), IndexConfig().walk_options())
    assert answer is not None and answer[1] is None and overlapped == [True, "ended"]


def test_a_forked_aside_runs_no_collection() -> None:
    """The forked side task (:class:`.aside.Aside`: a cold call's freshness check) runs with the collector
    off: it lives a tenth of a second and ends with ``os._exit``, and it inherited the parent's allocation
    count (a young collection of the parent's newest objects in the child, on the Linux tree's cold grep);
    the parent's collector is as it was."""
    import subprocess
    import sys

    code = ("import gc; from sleuth.engine.index.aside import Aside; from sleuth.engine.platform import fork_aside; "
            "print(fork_aside(), Aside(gc.isenabled).result(), gc.isenabled())")  # (a process of one thread: it forks)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    forks = out.split()[0] == "True"
    assert out.split() == (["True", "False", "True"] if forks else ["False", "True", "True"])


def _ranked(service: IndexService, root: Path, query: str) -> list[str]:
    """The paths ``sleuth.text`` ranks for ``query`` from ``service``."""
    ctx = CommandContext(Workspace([root]), services=Services(index=service))
    return sorted(r["path"] for r in get_command("sleuth.text")({"query": query}, ctx)["results"])


def test_an_answer_made_while_the_check_runs_holds_only_when_nothing_changed(tmp_path: Path) -> None:
    """``open_read_only(early, meanwhile)``: ``meanwhile`` runs on the store as built, ready and with
    nothing pending, before the freshness check's answer is taken; the change stamp it saw is still the
    service's afterwards only when the check found nothing changed. A file new since the build makes
    the stamp move (the cold CLI then asks again: the new file read from disk), and a check that
    cannot tell (an ignore file edited) closes the store again and says False."""
    from sleuth.engine.index.config import IndexConfig

    root, cache = _built(tmp_path)

    def opened_ahead() -> tuple[bool, IndexService, list[tuple[bool, int, object, list[str]]]]:
        service = IndexService(Workspace([root]), IndexConfig(index_path=str(cache)))
        seen: list[tuple[bool, int, object, list[str]]] = []

        def meanwhile() -> None:
            seen.append((service.ready, len(service.state.pending), service.change_stamp(),
                         _ranked(service, root, "haystack")))

        return service.open_read_only(None, meanwhile), service, seen

    ok, service, seen = opened_ahead()
    try:
        assert ok and seen == [(True, 0, service.change_stamp(), ["b.c", "h/j/k.c"])]  # it holds: nothing changed
    finally:
        service.stop()
    (root / "n.c").write_text("haystack too\n", encoding="utf-8")  # new since the build: no candidate yet
    ok, service, seen = opened_ahead()
    try:
        assert ok and len(seen) == 1 and seen[0][:2] == (True, 0) and seen[0][3] == ["b.c", "h/j/k.c"]
        assert seen[0][2] != service.change_stamp() and str(root / "n.c") in service.state.pending
        assert _ranked(service, root, "haystack") == ["b.c", "h/j/k.c", "n.c"]  # asked again: n.c from disk
    finally:
        service.stop()
    (root / "d" / ".ignore").write_text("*.txt\n", encoding="utf-8")  # the stamps cannot tell what this hides
    ok, service, seen = opened_ahead()
    assert not ok and len(seen) == 1 and not service.ready and service.state.cat is None
