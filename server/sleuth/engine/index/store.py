"""The on-disk store: where it lives, its schema, and how a generation is published and trusted.

Layout under the cache directory (never inside a workspace folder)::

    <cache>/sleuth/<hash of the roots>/
        CURRENT              name of the live generation, replaced atomically (temp file + rename)
        build.lock           held (flock, exclusive) while a process builds and publishes: one writer at a time
        gen-<stamp>/         catalog.db (files, meta) + shard-<i>.db (trigram postings of chunks, definition keys, symbols)
                             + readers.lock, held shared by every process that has the generation open
        build-<stamp>-<pid>/ a build in progress: never opened for queries, removed when found stale

A build writes a private ``build-*`` directory with journaling off (fast; it is disposable), sets
``complete=1`` in every database's ``meta`` last, fsyncs, renames the directory to ``gen-*`` and
then points ``CURRENT`` at it. A reader trusts a generation only when ``CURRENT`` names it, every
database has the current :data:`SCHEMA` and ``complete=1``, and the catalogue passes
``PRAGMA quick_check``; anything else is discarded and rebuilt. Incremental updates then run on
the live generation in WAL mode, one SQLite transaction per change.

Several processes (two editor windows, the CLI) may share a store. Building and publishing take
``build.lock``, so two servers starting on an empty cache build once: the second waits, then
opens what the first published. A generation is deleted only when no process holds its
``readers.lock`` (a reader keeps the generation it opened until it closes it), so publishing never
pulls the files from under another process's queries. File paths are stored as bytes
(``os.fsencode``): a name that is not UTF-8 round-trips.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from typing import IO, Callable, Iterable, Iterator

from sleuth.engine.platform import lock_file
from sleuth.engine.index.location import StoreInsideWorkspace, current_name, default_cache_dir, store_dir

__all__ = [
    "SCHEMA",
    "SHARDS",
    "default_cache_dir",
    "store_dir",
    "StoreInsideWorkspace",
    "connect",
    "connect_read_only",
    "create_catalog",
    "create_shard",
    "mark_complete",
    "publish",
    "open_current",
    "build_lock",
    "READERS",
    "remove_unused_generations",
    "directory_size",
    "remove_stale_builds",
]

SCHEMA = "sleuth-index-18"  # 18: underscore grams in the postings; 17: workspace symbols (symkeys, symbols); 16: a check sum per posting list; 10: "wide" = no final newline or a NUL; 11: 16/4 KiB chunks; 12: lines, plain; 13: byte trigram postings; 14: 8 KiB chunks in files over 16 KiB; 15: paths as bytes, readers.lock
SHARDS = 2  # one per core: each build worker owns one shard database
READERS = "readers.lock"  # in every generation: held shared while a process has it open


def connect(path: str, *, building: bool = False) -> sqlite3.Connection:
    """A connection tuned for the build (no journal: the directory is disposable) or for live use (WAL)."""
    conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
    if building:
        conn.execute("PRAGMA journal_mode=OFF")
        conn.execute("PRAGMA synchronous=OFF")
    else:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA cache_size=-16000")
    return conn


def _meta(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute("INSERT OR REPLACE INTO meta VALUES('schema', ?)", (SCHEMA,))
    conn.execute("INSERT OR REPLACE INTO meta VALUES('complete', '0')")


def create_catalog(conn: sqlite3.Connection) -> None:
    """Files (one row per file, its chunk rows) and meta. ``first_row`` -1 = known but not indexed."""
    _meta(conn)
    conn.execute(
        "CREATE TABLE files(id INTEGER PRIMARY KEY, path BLOB NOT NULL UNIQUE, display TEXT NOT NULL,"
        " size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, shard INTEGER NOT NULL,"
        " first_row INTEGER NOT NULL, offsets TEXT NOT NULL, wide INTEGER NOT NULL, lines TEXT NOT NULL,"
        " plain INTEGER NOT NULL)"
    )


def create_shard(conn: sqlite3.Connection) -> None:
    """The chunks' trigram postings (no positions: the searcher confirms), per-file definition keys and symbols."""
    _meta(conn)
    conn.execute("INSERT OR REPLACE INTO meta VALUES('next_row', '1')")
    from sleuth.engine.index import postings

    postings.create_tables(conn)
    conn.execute("CREATE VIRTUAL TABLE defs USING fts5(keys, tokenize='unicode61', detail=none, content='')")
    from sleuth.engine.index import symbols  # (its definition patterns compile at import: only a build needs them)

    symbols.create_tables(conn)


def mark_complete(conn: sqlite3.Connection, **extra: str) -> None:
    for key, value in extra.items():
        conn.execute("INSERT OR REPLACE INTO meta VALUES(?, ?)", (key, value))
    conn.execute("INSERT OR REPLACE INTO meta VALUES('complete', '1')")


def _fsync_dir(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def publish(base: str, build: str) -> str:
    """Make the finished ``build`` directory the live generation; returns its new path.

    Order matters for crash safety: files fsynced, directory renamed, CURRENT replaced atomically,
    then older generations no process has open removed. A crash at any step leaves either the old
    or the new one live. The caller holds :func:`build_lock`.
    """
    for name in os.listdir(build):
        with open(os.path.join(build, name), "rb+") as handle:
            os.fsync(handle.fileno())
    gen = os.path.join(base, f"gen-{time.time_ns()}")
    os.rename(build, gen)
    _fsync_dir(base)
    tmp = os.path.join(base, f"CURRENT.tmp-{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(os.path.basename(gen))
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, os.path.join(base, "CURRENT"))
    _fsync_dir(base)
    remove_unused_generations(base)
    return gen


def _lock(handle: IO[bytes], exclusive: bool) -> bool:
    """Take the lock without waiting; True when taken (:func:`sleuth.engine.platform.lock_file`)."""
    return lock_file(handle, exclusive)


def _hold(gen: str) -> IO[bytes] | None:
    """A shared hold on ``gen`` (its readers.lock, open): None when the generation is gone or being deleted."""
    try:
        handle = open(os.path.join(gen, READERS), "rb")
    except OSError:
        return None
    if not _lock(handle, False):
        handle.close()
        return None
    return handle


def remove_unused_generations(base: str) -> None:
    """Delete every generation but the current one that no process holds open (a reader's generation
    stays until it lets go; the next publish or start removes it)."""
    import shutil  # (here: a cold call's read-only open never deletes, and need not load it)

    current = current_name(base)
    try:
        names = os.listdir(base)
    except OSError:
        return
    for name in names:
        if not name.startswith("gen-") or name == current:
            continue
        gen = os.path.join(base, name)
        try:
            handle = open(os.path.join(gen, READERS), "rb")
        except OSError:
            shutil.rmtree(gen, ignore_errors=True)  # no readers file: an older schema's, or half deleted
            continue
        with handle:
            if _lock(handle, True):
                shutil.rmtree(gen, ignore_errors=True)


@contextlib.contextmanager
def build_lock(base: str, should_stop: Callable[[], bool], poll: float = 0.05) -> Iterator[None]:
    """Hold the store's writer lock (``build.lock``, flock) while building and publishing.

    Waits for another process's build without blocking a cancel: ``should_stop`` is polled, and
    when it turns true the wait ends with :class:`~sleuth.engine.errors.Cancelled`.
    """
    from sleuth.engine.errors import Cancelled

    os.makedirs(base, exist_ok=True)
    with open(os.path.join(base, "build.lock"), "ab") as handle:
        while not _lock(handle, True):
            if should_stop():
                raise Cancelled("The index build was cancelled.")
            time.sleep(poll)
        yield  # closing the file releases the lock


def _check(conn: sqlite3.Connection) -> bool:
    rows = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    return rows.get("schema") == SCHEMA and rows.get("complete") == "1"


# What a read-only open still reads from ``catalog.db`` when the files' rows come from the mapped copy
# (``catalog.map``, checked by its own CRC-32 and the catalogue's id and epoch): the meta rows, the stamps.
MAPPED_TABLES = ("meta", "folders")


def catalogue_intact(conn: sqlite3.Connection, mapped: bool = False) -> bool:
    """SQLite's ``quick_check`` of an opened catalogue: what :func:`open_current` requires, except of a
    read-only caller, which runs it itself while its freshness check runs in a child, or has that child
    run it. ``mapped``: the caller reads the files' rows from the mapped copy, never from the database,
    so only the tables it does read (:data:`MAPPED_TABLES`) are checked: ~1 ms instead of ~25 ms of
    reading the Linux tree's 21 MB ``catalog.db`` whole, a tenth of a cold call's forked check
    (SQLite 3.33 checks one table; an older one checks them all). A table that is not there fails."""
    if mapped and sqlite3.sqlite_version_info >= (3, 33, 0):
        try:
            return all(conn.execute(f"PRAGMA quick_check({table})").fetchone()[0] == "ok" for table in MAPPED_TABLES)
        except sqlite3.Error:
            return False
    return conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"


def connect_read_only(path: str) -> sqlite3.Connection:
    """A connection that cannot write (``mode=ro``): a one-shot process reading a store that a server
    may be writing (WAL: it reads the last commit, the server goes on). It changes no setting of the
    database either (:func:`connect` would switch a fresh build's journal to WAL: a write)."""
    from urllib.parse import quote

    return sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True, check_same_thread=False, isolation_level=None,
                           timeout=30)


Opened = tuple[str, sqlite3.Connection, list[sqlite3.Connection], IO[bytes]]  # (generation, catalogue, shards, hold)


class IntactCheck:
    """:func:`catalogue_intact` (the whole file) of catalogue ``db``, started now in a thread on a read-only
    connection of its own: SQLite releases the interpreter lock while it reads, so a server's open makes
    its catalogue's columns and row maps meanwhile instead of first reading the Linux tree's 21 MB
    ``catalog.db`` whole (~40 ms of a restart before ``ready``). :meth:`result` waits; any error is a
    failed check."""

    def __init__(self, db: str) -> None:
        self._intact = False
        self._thread = threading.Thread(target=self._run, args=(db,), name="sleuth-quick-check", daemon=True)
        self._thread.start()

    def _run(self, db: str) -> None:
        try:
            conn = connect_read_only(db)
            try:
                self._intact = catalogue_intact(conn)
            finally:
                conn.close()
        except sqlite3.Error:
            self._intact = False

    def result(self) -> bool:
        self._thread.join()
        return self._intact


def open_current(base: str, read_only: bool = False, check_later: bool = False) -> Opened | None:
    """The live generation's (path, catalogue, shards, hold) when it can be trusted, else None (rebuild).

    ``hold`` keeps the generation from being deleted by another process's publish while it is open:
    close it with the connections. When the generation changes while it is being opened (another
    process published and removed it), the new one is tried. ``read_only``: connections of
    :func:`connect_read_only` (the cold CLI), the same checks but the catalogue's ``quick_check``, which
    the caller owes (:func:`catalogue_intact`) before it trusts the catalogue. ``check_later``: the same,
    for a caller that runs it beside its open (:class:`IntactCheck`) and trusts nothing before it answers.
    """
    for _ in range(5):
        name = current_name(base)
        if name is None or not name.startswith("gen-"):
            return None
        opened = _open_generation(os.path.join(base, name), read_only, check_later)
        if opened is not None or current_name(base) == name:
            return opened
    return None


def _open_generation(gen: str, read_only: bool, check_later: bool = False) -> Opened | None:
    from sleuth.engine.index import postings  # (numpy: not at import, which a cold call's forked check makes)

    hold = _hold(gen)
    if hold is None:
        return None
    conns: list[sqlite3.Connection] = []
    try:
        for db in ["catalog.db"] + [f"shard-{i}.db" for i in range(SHARDS)]:
            path = os.path.join(gen, db)
            if not os.path.isfile(path) or (db.startswith("shard-") and not os.path.isfile(postings.flat_path(path))):
                raise sqlite3.DatabaseError(f"{db} or its postings missing")
            conn = connect_read_only(path) if read_only else connect(path)
            conns.append(conn)
            if not _check(conn):
                raise sqlite3.DatabaseError(f"{db} incomplete or of another schema")
            if db.startswith("shard-"):
                (size,) = conn.execute("SELECT value FROM meta WHERE key = 'post_bytes'").fetchone() or ("-1",)
                if os.path.getsize(postings.flat_path(path)) != int(size):
                    raise sqlite3.DatabaseError(f"{db}'s postings file is not the one it was built with")
        if not read_only and not check_later and not catalogue_intact(conns[0]):  # (else the caller's, later)
            raise sqlite3.DatabaseError("catalog.db failed quick_check")
        for conn in conns[1:]:
            conn.execute("SELECT tri, seg, n, rows FROM grams LIMIT 1").fetchall()
            # (a statement that names a missing column fails when it is prepared: no row need be read, and a
            # segment's row is ~3 MB of directory on the Linux tree, which ``LIMIT 1`` read on every open)
            conn.execute("SELECT seg, codes, starts, exc_starts, bytes_at, exc_at FROM segs LIMIT 0").fetchall()
            conn.execute("SELECT rowid FROM defs WHERE defs MATCH 'abc' LIMIT 1").fetchall()
            conn.execute("SELECT rowid FROM symkeys WHERE symkeys MATCH 'abc' LIMIT 1").fetchall()
            conn.execute("SELECT row, data FROM symbols LIMIT 1").fetchall()
            conn.execute("SELECT term FROM defvocab WHERE term >= 'a' AND term < 'b' LIMIT 1").fetchall()
    except (sqlite3.Error, OSError):
        for conn in conns:
            conn.close()
        hold.close()
        return None
    return gen, conns[0], conns[1:], hold


def directory_size(path: str) -> int:
    total = 0
    try:
        for entry in os.scandir(path):
            if entry.is_file(follow_symlinks=False):
                total += entry.stat(follow_symlinks=False).st_size
    except OSError:
        pass
    return total


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def remove_stale_builds(base: str) -> None:
    """Delete build directories whose process is gone (interrupted builds are never trusted)."""
    import shutil

    try:
        names = os.listdir(base)
    except OSError:
        return
    for name in names:
        if name.startswith("build-"):
            try:
                pid = int(name.rsplit("-", 1)[1])
            except ValueError:
                pid = -1
            if pid != os.getpid() and not _pid_alive(pid):
                shutil.rmtree(os.path.join(base, name), ignore_errors=True)
        elif name.startswith("CURRENT.tmp-"):
            try:
                os.remove(os.path.join(base, name))
            except OSError:
                pass
