"""The index's background upkeep: open or build the store, catch up after a restart, apply changes.

One :class:`Maintenance` per index, beside the query side (:mod:`.narrowing`); both hold the
shared :class:`~sleuth.engine.index.state.IndexState`. This is the one thread that writes. Every write is
a small SQLite transaction on the live generation; a full rebuild writes a new generation and
swaps it in when complete (queries use the old one meanwhile).
"""

from __future__ import annotations

import gc
import os
import sqlite3
import threading
import time
from typing import IO, TYPE_CHECKING, Callable, Iterable, Iterator

from sleuth.engine import foreground, heap
from sleuth.engine.cancel import CancelToken, NullProgress, ProgressSink
from sleuth.engine.errors import Cancelled
from sleuth.engine.index import catalogue_map, freshness, store
from sleuth.engine.index.catalogue import Catalogue
from sleuth.engine.index.postings import Postings, flat_path
from sleuth.engine.index.read_only_open import ReadOnlyOpen
from sleuth.engine.index.location import current_name
from sleuth.engine.index.stat_pass import NativeStatPass, StatPass, start_stat_pass, stated_now, stated_of_sizes, stated_paths
from sleuth.engine.index.state import IndexState
from sleuth.engine.test_gates import CATCH_UP_GATE_ENV, INDEX_GATE_ENV, hold, held
from sleuth.engine.types import FileEntry, FileError, SkipCounts, WalkOptions
from sleuth.engine.workspace import Target, Workspace, sort_key

if TYPE_CHECKING:
    from sleuth.engine.ignore import IgnoreOracle

__all__ = ["Maintenance", "REBUILD_GARBAGE_RATIO", "CATCH_UP_REBUILD_RATIO"]

REBUILD_GARBAGE_RATIO = 0.5  # rows of replaced versions vs live rows before a background rebuild
CATCH_UP_REBUILD_RATIO = 0.3  # changed files vs all files on restart before a rebuild beats catching up
CATCH_UP_BATCH = 2048  # files the catch-up compares between two yields to searches


class Maintenance(ReadOnlyOpen):
    """The index's lifecycle and its one writing thread (see the module docstring)."""

    def __init__(self, state: IndexState, lister: Callable[[CancelToken], Iterable[FileEntry]] | None = None,
                 on_error: Callable[[str], None] | None = None) -> None:
        """``lister``: the index's file list (default: a walk of the roots); ``on_error(message)``: called
        once (on the index thread) when the index stops on an error."""
        self.state = state
        self._lister = lister or self._walk
        self._own_walk = lister is None  # only the index's own walk stamps folders (:mod:`.freshness`)
        self._stamps: freshness.FolderStamps | None = None  # the last complete walk's, for the build to save
        self.caught_up_by = ""  # how the last catch-up found the changes: "stamps" or "walk" (status, tests)
        self._on_error = on_error
        self._thread: threading.Thread | None = None
        self._oracle: IgnoreOracle | None = None  # the index's own path rule, for changed files
        self._hold: IO[bytes] | None = None  # the open generation's readers.lock (store.open_current)
        self._stat_pass: StatPass | NativeStatPass | None = None  # the opened store's files' stat, on the other core
        self._map = catalogue_map.Refresh()  # when to write the catalogue's mapped copy again
        self.catalogue_from = ""  # how the last open read the catalogue: "map" or "rows" (status, tests)

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self, progress: ProgressSink = NullProgress, token: CancelToken | None = None) -> None:
        """Open or build in the background; returns at once. Grep scans until :attr:`ready`."""
        with self.state.lock:
            if self._thread is not None:
                return
            self.state.progress = progress
            if token is not None:
                token.on_cancel(self.state.token.cancel)
            self.state.phase = "loading"  # opening a published store; "building" once it turns out a build is needed
            if current_name(self.state.base) is not None and not held(INDEX_GATE_ENV):
                self.state.open_settled.clear()  # a store to open: a grep sent now waits for it (state.py)
            self._thread = threading.Thread(target=self._run, name="sleuth-index", daemon=True)
            self._thread.start()

    def inspect(self) -> bool:
        """Open the published store, if there is one, and catch up (a walk comparing sizes and times,
        no file read): the status of what is on disk, in this thread, never a build. ``sleuth index
        status`` asks this: a status that built the index (seconds on a big tree, a ``last_build``
        inside the call) answered a question nobody asked. False when no usable store exists."""
        with self.state.lock:
            if self._thread is not None:
                return self.state.ready
            self.state.phase = "loading"
        if not self._open(checked=True):
            with self.state.lock:
                self.state.phase = "absent"
            return False
        self._catch_up()
        with self.state.lock:
            self.state.phase = "ready"
        return True

    def stop(self) -> None:
        """Cancel any build, stop the thread, close the store (it stays valid on disk)."""
        with self.state.lock:
            self.state.stopping = True
            self.state.token.cancel()
            self.state.wake.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=30)
        with self.state.lock:
            self._close()
            self.state.phase = "absent" if self.state.phase != "error" else "error"

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Block until the first load or build finished (tests, the CLI); True when ready."""
        self.state.build_done.wait(timeout)
        return self.state.ready

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Block until every notified change is applied (tests, benchmarks); True when idle."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.state.lock:
                busy = self.state.pending or self.state.want_rebuild or self.state.want_rescan or not self.state.build_done.is_set()
                if self.state.phase == "error" or self._thread is None or not self._thread.is_alive():
                    return not busy
            if not busy:
                return True
            time.sleep(0.01)
        return False

    def build(self, full: bool = False, progress: ProgressSink = NullProgress,
              token: CancelToken | None = None, wait: bool = True) -> None:
        """Incremental catch-up (rescan by size/mtime) or, with ``full``, a rebuild; ``wait``: until done.

        After an error (the index thread has ended) this starts over: the cause may be gone (disk
        space freed), and if not, the new attempt fails the same way and the status says so.
        """
        with self.state.lock:
            thread = self._thread
            if thread is not None and not thread.is_alive() and not self.state.stopping:
                self._thread = None
                self.state.build_done.clear()
                self.state.error = None
                if self.state.token.should_stop():
                    self.state.token = CancelToken()
        if self._thread is None:
            self.start(progress, token)
            if wait:
                self.wait_ready()
            if not full:
                return
        with self.state.lock:
            self.state.progress = progress
            self.state.build_done.clear()
            if full:
                self.state.want_rebuild = True
            else:
                self.state.want_rescan = True
            self.state.wake.notify_all()
        if wait:
            while not self.state.build_done.wait(0.1):
                if token is not None and token.should_stop():
                    break
                if self._thread is None or not self._thread.is_alive():
                    break  # the index thread ended (an error): nothing will finish this build

    # -- change notifications -------------------------------------------------------------------
    def notify_changed(self, paths: Iterable[str], files_only: bool = False) -> None:
        """Files (or folders) created, changed or deleted on disk: searched from disk until re-indexed.

        ``files_only``: the caller knows none of ``paths`` was a folder (the server's own watcher), so
        a path gone from disk and absent from the catalogue (an editor's temporary file) needs no rescan.
        """
        now = time.monotonic()
        with self.state.lock:
            self.state.changes += 1
            for path in paths:
                path = self.state.normal(path)
                if os.path.basename(path) in (".gitignore", ".ignore", ".rgignore"):
                    self.state.want_rescan = True
                if os.path.isdir(path) or (not files_only and self.state.cat is not None and path not in self.state.cat.by_path
                                           and not os.path.exists(path)):
                    self.state.want_rescan = True
                self.state.pending[path] = now
                if self._oracle is not None:
                    self._oracle.invalidate(path)
            self.state.wake.notify_all()

    def rescan(self) -> None:
        """Catch up again in the background (the stamps, else a walk), without waiting for it and
        without holding up :meth:`wait_ready`: what changed becomes pending meanwhile. Asked once a
        watcher is in place (:mod:`sleuth.core.index`), for the changes made before it was."""
        with self.state.lock:
            self.state.want_rescan = True
            self.state.wake.notify_all()

    def notify_buffer(self, path: str, text: str | None) -> None:
        """An open editor buffer's unsaved text (None when closed): always a candidate while open."""
        with self.state.lock:
            self.state.changes += 1
            path = self.state.normal(path)
            if text is None:
                self.state.buffers.pop(path, None)
            else:
                self.state.buffers[path] = text

    def _walk(self, token: CancelToken) -> Iterator[FileEntry]:
        """The index's file list; the folders it could not read are kept (:attr:`_unreadable`) and
        reported by every search the index answers, as the walk reports them (rg does too)."""
        from sleuth.engine.walk import walk

        targets = [Target(r, r.path, True) for r in self.state.workspace.roots]
        errors: list[FileError] = []
        stamps = freshness.FolderStamps()
        self._stamps = None
        yield from foreground.yielding(walk(self.state.workspace, targets, self.state.options, token, SkipCounts(),
                                            errors, on_folder=stamps), token.should_stop)  # (it holds the GIL)
        if not token.should_stop():
            with self.state.lock:
                self.state.unreadable = errors
            self._stamps = stamps if not errors else None

    def _searchable(self, path: str) -> bool:
        if not os.path.isfile(path) or not self.state.workspace.contains(path):
            return False
        if self._oracle is None:
            from sleuth.engine.ignore import IgnoreOracle

            self._oracle = IgnoreOracle(self.state.workspace, self.state.options)
        return bool(self._oracle.is_searchable(path))

    def _close(self) -> None:
        for conn in [self.state.catalog_db, *self.state.shards, *self.state.writers]:
            if conn is not None:
                try:
                    conn.close()
                except sqlite3.Error:
                    pass
        self.state.catalog_db, self.state.shards, self.state.writers, self.state.cat = None, [], [], None
        for post in self.state.postings:
            post.close()
        self.state.postings = []
        if self._hold is not None:
            self._hold.close()  # another process may now delete the generation, once it is not current
            self._hold = None

    def _meta(self) -> dict[str, str]:
        return {"roots": ascii("\0".join(r.path for r in self.state.workspace.roots)), "options": repr(self.state.options)}

    def _identity(self, catalog: sqlite3.Connection) -> dict[str, str] | None:
        """The generation's meta when it was built for these roots and walk options, else None."""
        meta = dict(catalog.execute("SELECT key, value FROM meta").fetchall())
        return None if any(meta.get(k) != v for k, v in self._meta().items()) else meta

    @staticmethod
    def _posting_readers(gen: str, shards: list[sqlite3.Connection]) -> list[Postings]:
        # The segment directories (~0.15 s on the Linux tree) are read here, before the index says
        # ready, not by the first search; nothing else uses these connections yet.
        return [Postings(conn, flat_path(os.path.join(gen, f"shard-{i}.db"))) for i, conn in enumerate(shards)]

    def _open(self, checked: bool = False) -> bool:
        """Open the published store to serve and keep it (``checked``: a catch-up follows, its ``stat``
        pass starts now, :mod:`.stat_pass`): its catalogue's columns mapped (:mod:`.catalogue_map`; else
        read from the rows), a file's record made when a search or an update first touches it
        (:mod:`.lazy_catalogue`), every change written through to the database as before. False, with
        nothing left open, when there is no trusted store for these roots and options."""
        from sleuth.engine.index.lazy_catalogue import of_columns

        opened = store.open_current(self.state.base, check_later=True)
        if opened is None:
            return False
        gen, catalog, shards, hold = opened
        db, check = os.path.join(gen, "catalog.db"), checked and self._own_walk
        intact = store.IntactCheck(db)  # (beside the work below; nothing is used before it answers)
        cat: Catalogue | None = None
        meta: dict[str, str] | None = None
        try:
            meta = self._identity(catalog)
            if meta is not None:
                gc.disable()  # ~100,000 objects that live as long as the store: no collection walks them meanwhile
                try:
                    cols, mapped = catalogue_map.open_columns(gen, catalog, self._yield)
                    self._stat_pass = start_stat_pass(db, cols) if check else None  # (on the other core from now on)
                    self.catalogue_from = "map" if mapped else "rows"
                    if not mapped:  # no copy, or not provably current: one is written once the index is ready
                        self._map.soon()
                    cat = of_columns(cols, len(shards))
                finally:
                    gc.enable()
        except sqlite3.DatabaseError:
            if intact.result():
                raise  # (not the damage the check finds: as before the check ran first)
        if not intact.result() or cat is None or meta is None:  # a damaged catalogue, or another one: not used
            if self._stat_pass is not None:
                self._stat_pass.cancel()
                self._stat_pass = None
            for conn in [catalog, *shards]:
                conn.close()
            hold.close()
            return False
        self._yield()
        self._install(gen, catalog, shards, hold, cat, self._posting_readers(gen, shards), meta, writers=True)
        return True

    def _install(self, gen: str, catalog: sqlite3.Connection, shards: list[sqlite3.Connection], hold: IO[bytes],
                 cat: Catalogue, postings: list[Postings], meta: dict[str, str], writers: bool) -> None:
        """Make an opened generation the live one (the previous one closed); ``writers``: with the
        upkeep thread's own shard connections (a read-only open has none)."""
        with self.state.lock:
            self._close()
            self.state.gen, self.state.catalog_db, self.state.shards, self.state.cat = gen, catalog, shards, cat
            self._hold = hold
            self.state.postings = postings  # a new generation: its own posting readers and statistics
            if writers:
                self.state.writers = [store.connect(os.path.join(gen, f"shard-{i}.db")) for i in range(len(shards))]
            self.state.garbage = int(meta.get("garbage", "0"))
            self.state.last_build = {"at": _iso(float(meta.get("built_at", "0"))), "seconds": float(meta.get("seconds", "0"))}

    def _full_build(self, adopt: bool = False) -> None:
        """Build and publish a new generation, holding the store's writer lock (one builder per store).

        ``adopt`` (the first open found no usable store): when another process published one while
        this one waited for the lock, open it and catch up instead of building the same again.
        """
        from sleuth.engine.index.build import full_build  # (not at import: a cold call's read-only open needs none)

        with self.state.lock:
            progress, token = self.state.progress, self.state.token
            if self.state.cat is None:
                self.state.phase = "building"
            self.state.rebuilding = True
        started_at = time.monotonic()
        try:
            with store.build_lock(self.state.base, token.should_stop):
                if adopt and self._open(checked=True):
                    self.state.rebuilding = False
                    self._catch_up()
                    with self.state.lock:
                        self.state.phase = "ready"
                    return
                progress(0, None, "listing files")
                entries = sorted(self._lister(token), key=lambda e: sort_key(e.display))
                if token.should_stop():
                    raise Cancelled("The index build was cancelled.")
                stamps, workspace, options = self._stamps, self.state.workspace, self.state.options
                full_build(self.state.base, entries, token, progress, self.state.max_bytes, self._meta(),
                           on_worker_start=self._set_workers,
                           before_complete=None if stamps is None else
                           lambda conn: freshness.save(conn, stamps, workspace, options))
                # Opened outside the service lock (loading the catalogue takes a while on a big tree):
                # status requests and queries go on meanwhile; until the swap they use the old state.
                if not self._open():
                    raise RuntimeError("the index just built could not be opened")
                with self.state.lock:
                    # Changes notified during the build may be missing from it: they stay pending and are re-applied.
                    self.state.pending = {p: t for p, t in self.state.pending.items() if t >= started_at - 1.0}
                    # (``last_build`` came with the opened generation: the time its build recorded,
                    # so the build's reply and a later ``index status`` name the same second)
                    self.state.phase = "ready"
        finally:
            self.state.rebuilding = False
        store.remove_unused_generations(self.state.base)  # the one this process just let go of, if no one else holds it

    def _yield(self) -> None:
        """Between steps of the load and the catch-up: wait while a person's search runs (it gets the
        cores and the interpreter lock; :mod:`sleuth.engine.foreground`). Never with the lock held."""
        foreground.yield_to_searches(self.state.token.should_stop)

    def _set_workers(self, pids: list[int]) -> None:
        self.state.worker_pids = pids

    def _catch_up(self) -> None:
        """Find what changed since the catalogue was written: from the folder stamps when they can
        tell (:mod:`.freshness`), else by a fresh walk compared by size and mtime. Differences become pending."""
        token = self.state.token
        with self.state.lock:
            cat = self.state.cat
        assert cat is not None
        if self._own_walk and self._quick_catch_up():
            return
        self.state.open_settled.set()  # the walk takes seconds on a big tree: a waiting grep scans instead
        self.caught_up_by = "walk"
        with self.state.lock:
            known = cat.stat_view()  # (only this thread changes the catalogue: it stays true during the walk)
        seen: set[str] = set()
        changed: list[str] = []
        for count, entry in enumerate(self._lister(token)):
            if not count % CATCH_UP_BATCH:
                self._yield()
            seen.add(entry.path)
            was = known.get(entry.path)
            if was is None or was[0] != entry.size or abs(was[1] / 1e9 - entry.mtime) > 2e-6 or not was[2]:
                changed.append(entry.path)
        if token.should_stop():
            return
        gone = [p for p in known if p not in seen]
        self._pend(cat, changed, gone)

    def _quick_catch_up(self) -> bool:
        """The catch-up from the folder stamps (:func:`freshness.quick_catch_up`): what changed becomes
        pending; False when the stamps cannot tell (nothing marked: the caller walks, or scans)."""
        with self.state.lock:
            cat, catalog = self.state.cat, self.state.catalog_db
        assert cat is not None and catalog is not None
        gc.disable()  # (78,000 entries made and dropped: no collection need walk the catalogue meanwhile)
        try:
            sizes = cat.stat_view()  # (from the stored rows: no record made)
            stated, self._stat_pass = stated_paths(self._stat_pass, cat), None
            if stated is None:  # (a rescan, or no check started: the compiled loop, when there is one)
                stated = stated_of_sizes(sizes)
            quick = freshness.quick_catch_up(catalog, self.state.workspace, self.state.options, sizes, self.state.token,
                                             stated)
        finally:
            gc.enable()
        if quick is None:
            return False
        self._pend(cat, quick.changed, quick.gone)
        with self.state.lock:
            self.state.unreadable = []
        self.caught_up_by = "stamps"
        return True

    def _pend(self, cat: Catalogue, changed: list[str], gone: list[str]) -> None:
        """Mark what a catch-up found as pending (read from disk until applied); a rebuild when most changed."""
        with self.state.lock:
            now = time.monotonic()
            for path in changed + gone:
                self.state.pending.setdefault(path, now)
            if len(changed) + len(gone) > CATCH_UP_REBUILD_RATIO * max(len(cat), 1) and len(cat) > 100:
                self.state.want_rebuild = True

    def _apply_pending(self, limit: int = 256) -> None:
        """Re-index up to ``limit`` pending paths, one small transaction each.

        The shard write (reading and tokenizing the file: seconds for a 24 MB header) runs on this
        thread's own connection without the service lock — WAL readers keep answering queries — and
        only the catalogue update takes the lock. Until then the path stays pending (read from disk).
        """
        from sleuth.engine.index.builder import index_file, next_row  # (not at import, as full_build)

        with self.state.lock:
            batch = sorted(self.state.pending.items(), key=lambda kv: kv[1])[:limit]
        for path, stamp in batch:
            if self.state.token.should_stop():
                return
            searchable = self._searchable(path)
            with self.state.lock:
                cat, gen, writers = self.state.cat, self.state.gen, self.state.writers
                if cat is None or self.state.catalog_db is None:
                    return
                old = cat.by_path.get(path)
                shard = old.shard if old is not None else cat.smallest_shard()
            indexed = None
            if searchable:
                conn = writers[shard]
                conn.execute("BEGIN IMMEDIATE")
                try:
                    indexed, row = index_file(conn, path, next_row(conn), self.state.max_bytes)
                    conn.execute("UPDATE meta SET value=? WHERE key='next_row'", (str(row),))
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:  # SQLite rolls back by itself on some errors (a full disk)
                        conn.execute("ROLLBACK")
                    raise
            with self.state.lock:
                if self.state.gen != gen or self.state.cat is not cat or self.state.catalog_db is None:
                    continue  # a rebuild swapped the store meanwhile: the path stays pending
                catalog = self.state.catalog_db
                old = cat.by_path.get(path)
                catalog.execute("BEGIN IMMEDIATE")
                # Another process on this store (a second window, the CLI) may have added files since
                # this one loaded it: a new file takes an id above every stored one, never one of theirs.
                (top,) = catalog.execute("SELECT coalesce(max(id), 0) FROM files").fetchone()
                cat.next_id = max(cat.next_id, int(top) + 1)
                if indexed is not None:
                    cat.put(catalog, None, path, self.state.workspace.display(path), shard, indexed)
                else:
                    cat.remove(catalog, path)
                if old is not None:
                    self.state.garbage += len(old.rows)
                catalog.execute("INSERT OR REPLACE INTO meta VALUES('garbage', ?)", (str(self.state.garbage),))
                catalog.execute("COMMIT")
                if self.state.pending.get(path) == stamp:
                    del self.state.pending[path]
                live = cat.live_rows
                if self.state.garbage > REBUILD_GARBAGE_RATIO * max(live, 1) and live > 1000:
                    self.state.want_rebuild = True

    def _run(self) -> None:
        try:
            hold(INDEX_GATE_ENV, self.state.token)
            store.remove_stale_builds(self.state.base)
            store.remove_unused_generations(self.state.base)  # left by processes that had them open
            opened = self._open(checked=True)
            if opened:
                hold(CATCH_UP_GATE_ENV, self.state.token)
                self._catch_up()
                with self.state.lock:
                    self.state.phase = "ready"
                self.state.open_settled.set()
            else:
                self.state.open_settled.set()  # a build: no grep waits for it
                self._full_build(adopt=True)
            heap.settle(collect=not opened)
            self.state.build_done.set()
            while True:
                with self.state.lock:
                    while not (self.state.stopping or self.state.pending or self.state.want_rebuild or self.state.want_rescan):
                        self.state.build_done.set()
                        if self._map.wait_s() == 0.0:
                            break
                        self.state.wake.wait(self._map.wait_s())
                    if self.state.stopping:
                        return
                    quiet = not (self.state.pending or self.state.want_rebuild or self.state.want_rescan)
                    gen = self.state.gen if quiet and self._map.take() else None
                if gen is not None:  # quiet since the last change: the mapped copy made current again
                    catalogue_map.write(gen, pause=self._yield)
                    continue
                with self.state.lock:
                    rebuild, rescan = self.state.want_rebuild, self.state.want_rescan
                    self.state.want_rebuild = self.state.want_rescan = False
                    if rebuild or rescan:
                        self.state.changes += 1  # it may find changes nobody notified: before and after
                if rebuild:
                    self._full_build()
                    heap.settle()
                elif rescan:
                    self._catch_up()
                else:
                    self._apply_pending()
                if not rebuild:
                    self._map.soon(catalogue_map.REFRESH_DELAY_S)
                if rebuild or rescan:
                    with self.state.lock:
                        self.state.changes += 1
        except Cancelled:
            with self.state.lock:
                if self.state.cat is None:
                    self.state.phase = "absent"
        except Exception as exc:  # noqa: BLE001 - the server keeps running on plain scans
            with self.state.lock:
                self.state.phase = "error"
                self.state.error = _describe(exc)
                on_error = self._on_error
            if on_error is not None:
                on_error(self.state.error)
        finally:
            self.state.open_settled.set()
            self.state.build_done.set()


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
