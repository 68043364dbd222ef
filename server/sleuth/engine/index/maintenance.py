"""The index's background upkeep: open or build the store, catch up after a restart, apply changes.

A mixin of :class:`sleuth.engine.index.service.IndexService` (it shares the service's lock and
state): the service holds the query side, this module the one thread that writes. Every write is
a small SQLite transaction on the live generation; a full rebuild writes a new generation and
swaps it in when complete (queries use the old one meanwhile).
"""

from __future__ import annotations

import gc
import os
import sqlite3
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from sleuth.engine import foreground
from sleuth.engine.cancel import CancelToken, ProgressSink
from sleuth.engine.errors import Cancelled
from sleuth.engine.index import store
from sleuth.engine.index.build import full_build
from sleuth.engine.index.builder import index_file, next_row
from sleuth.engine.index.catalogue import Catalogue
from sleuth.engine.index.postings import Postings, flat_path
from sleuth.engine.types import FileEntry, FileError, SkipCounts, WalkOptions
from sleuth.engine.workspace import Target, Workspace, sort_key

__all__ = ["Maintenance", "REBUILD_GARBAGE_RATIO", "CATCH_UP_REBUILD_RATIO"]

REBUILD_GARBAGE_RATIO = 0.5  # rows of replaced versions vs live rows before a background rebuild
CATCH_UP_REBUILD_RATIO = 0.3  # changed files vs all files on restart before a rebuild beats catching up
CATCH_UP_BATCH = 2048  # files the catch-up compares between two yields to searches


class Maintenance:
    """Background-thread methods of the index service (see the module docstring)."""

    if TYPE_CHECKING:  # state owned by IndexService.__init__
        workspace: Workspace
        options: WalkOptions
        max_bytes: int | None
        base: str
        _lister: Callable[[CancelToken], Iterable[FileEntry]]
        _lock: threading.RLock
        _cat: Catalogue | None
        _catalog_db: sqlite3.Connection | None
        _shards: list[sqlite3.Connection]
        _postings: list[Any]
        _writers: list[sqlite3.Connection]  # the upkeep thread's own shard connections (WAL writer)
        _gen: str | None
        _pending: dict[str, float]
        _state: str
        _error: str | None
        _garbage: int
        _want_rebuild: bool
        _want_rescan: bool
        _stopping: bool
        _token: CancelToken
        _progress: ProgressSink
        _last_build: dict[str, Any]
        _build_done: threading.Event
        _wake: threading.Condition
        _oracle: Any
        _rebuilding: bool
        _hold: Any
        _unreadable: list[FileError]
        _on_error: Callable[[str], None] | None
        worker_pids: list[int]

    def _walk(self, token: CancelToken) -> Iterator[FileEntry]:
        """The index's file list; the folders it could not read are kept (:attr:`_unreadable`) and
        reported by every search the index answers, as the walk reports them (rg does too)."""
        from sleuth.engine.walk import walk

        targets = [Target(r, r.path, True) for r in self.workspace.roots]
        errors: list[FileError] = []
        yield from walk(self.workspace, targets, self.options, token, SkipCounts(), errors)
        if not token.should_stop():
            with self._lock:
                self._unreadable = errors

    def _searchable(self, path: str) -> bool:
        if not os.path.isfile(path) or not self.workspace.contains(path):
            return False
        if self._oracle is None:
            from sleuth.engine.ignore import IgnoreOracle

            self._oracle = IgnoreOracle(self.workspace, self.options)
        return bool(self._oracle.is_searchable(path))

    def _close(self) -> None:
        for conn in [self._catalog_db, *self._shards, *self._writers]:
            if conn is not None:
                try:
                    conn.close()
                except sqlite3.Error:
                    pass
        self._catalog_db, self._shards, self._writers, self._cat = None, [], [], None
        for post in self._postings:
            post.close()
        self._postings = []
        if self._hold is not None:
            self._hold.close()  # another process may now delete the generation, once it is not current
            self._hold = None

    def _meta(self) -> dict[str, str]:
        return {"roots": ascii("\0".join(r.path for r in self.workspace.roots)), "options": repr(self.options)}

    def _open(self) -> bool:
        opened = store.open_current(self.base)
        if opened is None:
            return False
        gen, catalog, shards, hold = opened
        meta = dict(catalog.execute("SELECT key, value FROM meta").fetchall())
        if any(meta.get(k) != v for k, v in self._meta().items()):
            for conn in [catalog, *shards]:
                conn.close()
            hold.close()
            return False
        cat = Catalogue.load(catalog, len(shards), self._yield)
        self._yield()
        # The posting readers (segment directories: ~0.15 s on the Linux tree) are made here, before
        # the index says ready, not by the first search; nothing else uses these connections yet.
        postings = [Postings(conn, flat_path(os.path.join(gen, f"shard-{i}.db"))) for i, conn in enumerate(shards)]
        with self._lock:
            self._close()
            self._gen, self._catalog_db, self._shards, self._cat = gen, catalog, shards, cat
            self._hold = hold
            self._postings = postings  # a new generation: its own posting readers and statistics
            self._writers = [store.connect(os.path.join(gen, f"shard-{i}.db")) for i in range(len(shards))]
            self._garbage = int(meta.get("garbage", "0"))
            self._last_build = {"at": _iso(float(meta.get("built_at", "0"))), "seconds": float(meta.get("seconds", "0"))}
        return True

    def _full_build(self, adopt: bool = False) -> None:
        """Build and publish a new generation, holding the store's writer lock (one builder per store).

        ``adopt`` (the first open found no usable store): when another process published one while
        this one waited for the lock, open it and catch up instead of building the same again.
        """
        with self._lock:
            progress, token = self._progress, self._token
            if self._cat is None:
                self._state = "building"
            self._rebuilding = True
        started_at = time.monotonic()
        try:
            with store.build_lock(self.base, token.should_stop):
                if adopt and self._open():
                    self._rebuilding = False
                    self._catch_up()
                    with self._lock:
                        self._state = "ready"
                    return
                progress(0, None, "listing files")
                entries = sorted(self._lister(token), key=lambda e: sort_key(e.display))
                if token.should_stop():
                    raise Cancelled("The index build was cancelled.")
                result = full_build(self.base, entries, token, progress, self.max_bytes, self._meta(),
                                    on_worker_start=self._set_workers)
                # Opened outside the service lock (loading the catalogue takes a while on a big tree):
                # status requests and queries go on meanwhile; until the swap they use the old state.
                if not self._open():
                    raise RuntimeError("the index just built could not be opened")
                with self._lock:
                    # Changes notified during the build may be missing from it: they stay pending and are re-applied.
                    self._pending = {p: t for p, t in self._pending.items() if t >= started_at - 1.0}
                    self._last_build = {"at": _iso(time.time()), "seconds": round(result.seconds, 2)}
                    self._state = "ready"
        finally:
            self._rebuilding = False
        store.remove_unused_generations(self.base)  # the one this process just let go of, if no one else holds it

    def _yield(self) -> None:
        """Between steps of the load and the catch-up: wait while a person's search runs (it gets the
        cores and the interpreter lock; :mod:`sleuth.engine.foreground`). Never with the lock held."""
        foreground.yield_to_searches(self._token.should_stop)

    def _set_workers(self, pids: list[int]) -> None:
        self.worker_pids = pids

    def _catch_up(self) -> None:
        """Compare a fresh walk with the catalogue by size and mtime; differences become pending."""
        token = self._token
        seen: set[str] = set()
        changed: list[str] = []
        with self._lock:
            cat = self._cat
        assert cat is not None
        for count, entry in enumerate(self._lister(token)):
            if not count % CATCH_UP_BATCH:
                self._yield()
            seen.add(entry.path)
            rec = cat.by_path.get(entry.path)
            if rec is None or rec.size != entry.size or abs(rec.mtime_ns / 1e9 - entry.mtime) > 2e-6 or not rec.indexed:
                changed.append(entry.path)
        if token.should_stop():
            return
        with self._lock:
            gone = [p for p in cat.by_path if p not in seen]
            now = time.monotonic()
            for path in changed + gone:
                self._pending.setdefault(path, now)
            if len(changed) + len(gone) > CATCH_UP_REBUILD_RATIO * max(len(cat), 1) and len(cat) > 100:
                self._want_rebuild = True

    def _apply_pending(self, limit: int = 256) -> None:
        """Re-index up to ``limit`` pending paths, one small transaction each.

        The shard write (reading and tokenizing the file: seconds for a 24 MB header) runs on this
        thread's own connection without the service lock — WAL readers keep answering queries — and
        only the catalogue update takes the lock. Until then the path stays pending (read from disk).
        """
        with self._lock:
            batch = sorted(self._pending.items(), key=lambda kv: kv[1])[:limit]
        for path, stamp in batch:
            if self._token.should_stop():
                return
            searchable = self._searchable(path)
            with self._lock:
                cat, gen, writers = self._cat, self._gen, self._writers
                if cat is None or self._catalog_db is None:
                    return
                old = cat.by_path.get(path)
                shard = old.shard if old is not None else cat.smallest_shard()
            indexed = None
            if searchable:
                conn = writers[shard]
                conn.execute("BEGIN IMMEDIATE")
                try:
                    indexed, row = index_file(conn, path, next_row(conn), self.max_bytes)
                    conn.execute("UPDATE meta SET value=? WHERE key='next_row'", (str(row),))
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:  # SQLite rolls back by itself on some errors (a full disk)
                        conn.execute("ROLLBACK")
                    raise
            with self._lock:
                if self._gen != gen or self._cat is not cat or self._catalog_db is None:
                    continue  # a rebuild swapped the store meanwhile: the path stays pending
                catalog = self._catalog_db
                old = cat.by_path.get(path)
                catalog.execute("BEGIN IMMEDIATE")
                # Another process on this store (a second window, the CLI) may have added files since
                # this one loaded it: a new file takes an id above every stored one, never one of theirs.
                (top,) = catalog.execute("SELECT coalesce(max(id), 0) FROM files").fetchone()
                cat.next_id = max(cat.next_id, int(top) + 1)
                if indexed is not None:
                    cat.put(catalog, None, path, self.workspace.display(path), shard, indexed)
                else:
                    cat.remove(catalog, path)
                if old is not None:
                    self._garbage += len(old.rows)
                catalog.execute("INSERT OR REPLACE INTO meta VALUES('garbage', ?)", (str(self._garbage),))
                catalog.execute("COMMIT")
                if self._pending.get(path) == stamp:
                    del self._pending[path]
                live = cat.live_rows
                if self._garbage > REBUILD_GARBAGE_RATIO * max(live, 1) and live > 1000:
                    self._want_rebuild = True

    def _run(self) -> None:
        try:
            _test_gate(self._token)
            store.remove_stale_builds(self.base)
            store.remove_unused_generations(self.base)  # left by processes that had them open
            if self._open():
                self._catch_up()
                with self._lock:
                    self._state = "ready"
            else:
                self._full_build(adopt=True)
            _settle_heap()
            self._build_done.set()
            while True:
                with self._lock:
                    while not (self._stopping or self._pending or self._want_rebuild or self._want_rescan):
                        self._build_done.set()
                        self._wake.wait()
                    if self._stopping:
                        return
                    rebuild, rescan = self._want_rebuild, self._want_rescan
                    self._want_rebuild = self._want_rescan = False
                if rebuild:
                    self._full_build()
                    _settle_heap()
                elif rescan:
                    self._catch_up()
                else:
                    self._apply_pending()
        except Cancelled:
            with self._lock:
                if self._cat is None:
                    self._state = "absent"
        except Exception as exc:  # noqa: BLE001 - the server keeps running on plain scans
            with self._lock:
                self._state = "error"
                self._error = _describe(exc)
                on_error = self._on_error
            if on_error is not None:
                on_error(self._error)
        finally:
            self._build_done.set()


TEST_GATE_ENV = "SLEUTH_TEST_INDEX_GATE"


def _test_gate(token: CancelToken) -> None:
    """Test hook: while the file named by ``$SLEUTH_TEST_INDEX_GATE`` exists, the index waits before it
    loads or builds (state ``loading``), so an end-to-end test can send queries that must not wait
    for it and check they are answered first. Unset in normal use: returns at once."""
    gate = os.environ.get(TEST_GATE_ENV)
    while gate and os.path.exists(gate) and not token.should_stop():
        time.sleep(0.02)


def _settle_heap() -> None:
    """Collect once, then move every object alive into the collector's permanent generation.

    The catalogue and its views are ~100,000 container objects that live as long as the store, and
    every search allocates tens of thousands of short-lived ones: without this each collection of
    the older generations walks the whole catalogue again. Measured in-process on the Linux tree,
    30 indexed ``-i PM_RESUME`` searches: the collector's time 153 -> 64 ms. Done after each build or
    load (``unfreeze`` first, so the collection finds a replaced catalogue's cycles; ~25 ms).
    """
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def _describe(exc: BaseException) -> str:
    """An index failure as a person should read it: the OS's words when there are any
    ("No space left on device", "Read-only file system"), with the path."""
    if isinstance(exc, OSError) and exc.strerror:
        where = f" ({exc.filename})" if exc.filename else ""
        return f"{type(exc).__name__}: {exc.strerror}{where}"
    return f"{type(exc).__name__}: {exc}"


def _iso(stamp: float) -> str | None:
    if not stamp:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp))
