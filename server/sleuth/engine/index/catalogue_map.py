"""The catalogue as flat columns, and as one mapped file beside ``catalog.db``: a store opened in milliseconds.

Reading the catalogue's 78,000 rows of the Linux tree out of SQLite and turning them into columns cost
a restarted server, and every cold CLI call, ~0.35 CPU-s before anything could be answered (the rows
decoded into Python tuples, their comma-separated chunk offsets split one by one). The same columns,
written once as flat arrays (ids, sizes, times, shards, first rows, chunk bounds, paths), are mapped and
viewed by numpy instead: no row is decoded, and a record is still made only when a query touches its file
(:mod:`.lazy_catalogue`).

The file is a copy, so it is trusted only while it provably holds what ``files`` holds:

- **stale**: triggers on ``files`` (stored in the database, so every writer fires them, an older Sleuth
  too) count each insert, update and delete in ``meta('catalogue_epoch')``; the file records the epoch
  its columns were read at, in the same read transaction as the rows, and is refused once they differ;
- **foreign**: it records the catalogue's own random id (``meta('catalogue_id')``), so a file copied from
  another generation or store, even at the same epoch, is refused;
- **truncated or damaged**: magic, format version, the exact size and a CRC-32 of the columns are checked.

A refused or missing file is no error: the caller reads the rows as before (and a server writes the file
again once it is ready: :func:`write`). Nothing here is needed for correctness, only for speed.
"""

from __future__ import annotations

import json
import os
import sqlite3
import struct
import time
import zlib
from typing import Callable, Sequence

import numpy as np

from sleuth.engine.index.map_file import (ARRAYS, FILE_NAME, HEAD, MAGIC, VERSION, PathList, Source, StatMapping,
                                          crc_holds, identity, mapped, verified_body)

__all__ = ["Columns", "StatMapping", "Refresh", "FILE_NAME", "columns_of_store", "identity", "open_columns", "read", "write", "seal"]

REFRESH_DELAY_S = 10.0  # quiet seconds after a server's last applied change before it writes the copy again
_ALIGN = 8
Row = tuple[object, ...]

_TRIGGERS = [
    f"CREATE TRIGGER IF NOT EXISTS files_epoch_{what.lower()} AFTER {what} ON files BEGIN"
    " UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'catalogue_epoch'; END"
    for what in ("INSERT", "UPDATE", "DELETE")
]


class Columns:
    """The catalogue's stored rows as columns (what :class:`~.lazy_catalogue.LazyCatalogue` reads):
    numeric arrays, the decoded paths, and each file's chunk offsets and newline counts as slices
    of two flat arrays. ``displays`` stays encoded until a record asks for its own."""

    __slots__ = ("ids", "sizes", "mtimes", "shards", "firsts", "wide", "plain", "bounds", "offsets", "lines",
                 "paths", "_display_at", "_displays", "_path_bytes", "source", "_unchecked")

    def __init__(self, arrays: dict[str, np.ndarray], paths: Sequence[str], path_bytes: np.ndarray | None = None) -> None:
        self.ids, self.sizes, self.mtimes = arrays["ids"], arrays["sizes"], arrays["mtimes"]
        self.shards, self.firsts = arrays["shards"], arrays["firsts"]
        self.wide, self.plain = arrays["wide"], arrays["plain"]
        self.bounds, self.offsets, self.lines = arrays["bounds"], arrays["offsets"], arrays["lines"]
        self.paths = paths
        self._display_at, self._displays = arrays["display_at"], arrays["displays"]
        self._path_bytes: np.ndarray | bytes | None = path_bytes
        self.source: Source | None = None  # the mapped file's, when mapped (:func:`.map_file.source_of`)
        self._unchecked: memoryview | None = None  # the mapped file, when read without its CRC (:meth:`intact`)

    def __len__(self) -> int:
        return len(self.ids)

    def display(self, at: int) -> str:
        return bytes(self._displays[self._display_at[at]:self._display_at[at + 1]]).decode("utf-8", "surrogatepass")

    def chunk_offsets(self, at: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """File ``at``'s chunk offsets after the first, and the newlines before each."""
        low, high = int(self.bounds[at]), int(self.bounds[at + 1])
        if low == high:
            return (), ()
        return tuple(self.offsets[low:high].tolist()), tuple(self.lines[low:high].tolist())

    def path_bytes(self) -> np.ndarray | bytes:
        """The paths encoded and joined by NUL (the mapped file's own bytes, when mapped)."""
        if self._path_bytes is None:
            self._path_bytes = b"\0".join(map(os.fsencode, self.paths))
        return self._path_bytes

    def stat_view(self) -> dict[str, tuple[int, int, bool]]:
        """``path -> (size, mtime_ns, indexed)``: what a freshness check compares."""
        return dict(zip(self.paths, zip(self.sizes.tolist(), self.mtimes.tolist(), (self.firsts >= 0).tolist())))

    def intact(self) -> bool:
        """Whether the file these columns were mapped from has its recorded CRC-32: True unless they
        were read without it (``read(..., crc=False)``) and it fails now."""
        return self._unchecked is None or crc_holds(self._unchecked)

    def stat_mapping(self) -> StatMapping:
        """What :meth:`stat_view` holds, made per path as it is asked for (:class:`.map_file.StatMapping`)."""
        return StatMapping(self)

    def arrays(self) -> dict[str, np.ndarray]:
        """Every array, by its name in the file (the paths encoded again)."""
        paths = np.frombuffer(self.path_bytes(), np.uint8)
        return {"ids": self.ids, "sizes": self.sizes, "mtimes": self.mtimes, "shards": self.shards,
                "firsts": self.firsts, "wide": self.wide, "plain": self.plain, "bounds": self.bounds,
                "offsets": self.offsets, "lines": self.lines, "paths": paths,
                "display_at": self._display_at, "displays": self._displays}

    @classmethod
    def of_rows(cls, rows: Sequence[Row], paths: list[str]) -> "Columns":
        """The columns of :meth:`Catalogue.fetch`'s rows (``paths``: their decoded paths). A chunked file
        whose stored newline counts do not match its offsets (a store written before they were kept)
        gets zeros, as :meth:`RowMap.of` gives such a record; :func:`write` refuses to copy such rows."""
        n = len(rows)
        columns: list[tuple[object, ...]] = list(zip(*rows)) if n else [()] * 11
        offsets, lines = columns[7], columns[9]
        chunked = [at for at, o in enumerate(offsets) if o]
        counts = np.zeros(n, np.int64)
        counts[chunked] = [offsets[at].count(",") + 1 for at in chunked]  # type: ignore[attr-defined]
        bounds = np.zeros(n + 1, np.int64)
        np.cumsum(counts, out=bounds[1:])
        display_at, displays = _blob([str(d).encode("utf-8", "surrogatepass") for d in columns[2]])
        arrays = {
            "ids": np.array(columns[0], np.int64), "sizes": np.array(columns[3], np.int64),
            "mtimes": np.array(columns[4], np.int64), "shards": np.array(columns[5], np.int64),
            "firsts": np.array(columns[6], np.int64), "wide": np.array(columns[8], np.bool_),
            "plain": np.array(columns[10], np.bool_), "bounds": bounds,
            "offsets": _flat([offsets[at] for at in chunked]),  # type: ignore[misc]
            "lines": _flat([_lines_of(offsets[at], lines[at]) for at in chunked]),  # type: ignore[arg-type]
            "display_at": display_at, "displays": displays,
        }
        return cls(arrays, paths)


def _flat(texts: list[str]) -> np.ndarray:
    """Several files' stored comma-separated numbers as one array (one split, not one per file)."""
    return np.fromiter(map(int, ",".join(texts).split(",")), np.int64) if texts else np.zeros(0, np.int64)


def _lines_of(offsets: str, lines: str) -> str:
    return lines if lines and lines.count(",") == offsets.count(",") else ",".join("0" * (offsets.count(",") + 1))


def _blob(items: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    """Byte strings as (start of each, plus the end; their concatenation)."""
    at = np.zeros(len(items) + 1, np.int64)
    np.cumsum(np.fromiter(map(len, items), np.int64, len(items)), out=at[1:])
    return at, np.frombuffer(b"".join(items), np.uint8)


def columns_of_store(conn: sqlite3.Connection, pause: Callable[[], None] = lambda: None) -> Columns | None:
    """The columns of ``conn``'s catalogue rows, or None for a store written before newline counts were
    kept (its records' ``lines`` could not be given back from the columns as stored)."""
    from sleuth.engine.index.catalogue import Catalogue

    rows = Catalogue.fetch(conn, pause)
    if any(o and (not r or r.count(",") != o.count(",")) for o, r in ((row[7], row[9]) for row in rows)):  # type: ignore[union-attr]
        return None
    return Columns.of_rows(rows, Catalogue.paths_of(rows))


def seal(conn: sqlite3.Connection) -> None:
    """Make ``conn``'s catalogue count its writes (idempotent): the triggers, its id, epoch 0. Inside
    the caller's transaction when there is one (the build's), else in one of its own."""
    import secrets  # (here: it loads OpenSSL's hashes, ~5 ms of every cold call that opens a store)

    own = not conn.in_transaction
    if own:
        conn.execute("BEGIN IMMEDIATE")
    try:
        for trigger in _TRIGGERS:
            conn.execute(trigger)
        conn.execute("INSERT OR IGNORE INTO meta VALUES('catalogue_id', ?)", (secrets.token_hex(16),))
        conn.execute("INSERT OR IGNORE INTO meta VALUES('catalogue_epoch', '0')")
        if own:
            conn.execute("COMMIT")
    except BaseException:
        if own and conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def write(gen: str, pause: Callable[[], None] = lambda: None, conn: sqlite3.Connection | None = None) -> bool:
    """Write the mapped copy of generation ``gen``'s catalogue (atomically: a reader sees the old file or
    the new one), on a connection of its own (or ``conn``, inside its transaction: a build's). The rows
    are read in the same read transaction as the epoch, so the file holds exactly the rows of that epoch;
    ``pause`` is called between batches of rows (a server yields to searches). False when it could not be
    written (a read-only store, a full disk, an old store's rows): nothing is lost, the next open reads
    the rows."""
    from sleuth.engine.index.store import connect

    try:
        own = conn is None
        db = connect(os.path.join(gen, "catalog.db")) if conn is None else conn
        try:
            if identity(db) is None:
                seal(db)
            if own:
                db.execute("BEGIN")  # one read snapshot for the epoch and the rows
            try:
                ident = identity(db)
                cols = columns_of_store(db, pause)
            finally:
                if own:
                    db.execute("COMMIT")
        finally:
            if own:
                db.close()
        if ident is None or cols is None:
            return False
        if _written_at(os.path.join(gen, FILE_NAME)) == ident:
            return True  # (the copy is current already: a rescan that found nothing)
        _write_file(os.path.join(gen, FILE_NAME), cols.arrays(), ident)
        return True
    except (sqlite3.Error, OSError, ValueError):
        return False


def _write_file(path: str, arrays: dict[str, np.ndarray], ident: tuple[str, int]) -> None:
    table, offset, parts = [], 0, []
    for name, dtype in ARRAYS:
        data = np.ascontiguousarray(arrays[name], np.dtype(dtype)).tobytes()
        table.append([name, offset, len(data)])
        parts.append(data + b"\0" * (-len(data) % _ALIGN))
        offset += len(parts[-1])
    body = b"".join(parts)
    header = json.dumps({"id": ident[0], "epoch": ident[1], "files": len(arrays["ids"]), "arrays": table,
                         "body": len(body), "crc": zlib.crc32(body)}).encode("ascii")
    header += b" " * (-(len(header) + HEAD.size) % _ALIGN)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as out:
            out.write(HEAD.pack(MAGIC, VERSION, len(header)) + header + body)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _written_at(path: str) -> tuple[str, int] | None:
    """The (id, epoch) a copy's header claims (its columns unchecked), or None."""
    try:
        with open(path, "rb") as handle:
            magic, version, length = HEAD.unpack(handle.read(HEAD.size))
            header = json.loads(handle.read(length)) if magic == MAGIC and version == VERSION else None
    except (OSError, ValueError, struct.error):
        return None
    return None if header is None else (header["id"], header["epoch"])


def read(gen: str, conn: sqlite3.Connection, crc: bool = True) -> Columns | None:
    """The mapped columns of generation ``gen``'s catalogue when its file is there and provably current
    (this catalogue's id and epoch, intact), else None: the caller reads the rows. ``crc=False``: the
    CRC-32 is left to the caller (:meth:`Columns.intact`, or the same file verified elsewhere)."""
    found = mapped(gen, conn)
    if found is None:
        return None
    view, ident, source = found
    try:
        cols = _columns(view, ident, crc)
    except (ValueError, KeyError, TypeError, struct.error, UnicodeError):
        return None
    if cols is not None:
        cols.source = source
        cols._unchecked = None if crc else view
    return cols


def _columns(view: memoryview, ident: tuple[str, int], crc: bool = True) -> Columns | None:
    verified = verified_body(view, ident, crc)
    if verified is None:
        return None
    header, body = verified
    arrays: dict[str, np.ndarray] = {}
    for (name, dtype), (_, offset, size) in zip(ARRAYS, header["arrays"]):  # type: ignore[call-overload]
        arrays[name] = np.frombuffer(body, np.dtype(dtype), count=size // np.dtype(dtype).itemsize, offset=offset)
    n = int(header["files"])  # type: ignore[call-overload]
    if any(len(arrays[k]) != n for k in ("ids", "sizes", "mtimes", "shards", "firsts", "wide", "plain")):
        return None
    bounds, display_at = arrays["bounds"], arrays["display_at"]
    for at, flat in ((bounds, len(arrays["offsets"])), (display_at, len(arrays["displays"]))):
        if len(at) != n + 1 or at[0] != 0 or at[-1] != flat or (n and bool((np.diff(at) < 0).any())):
            return None
    if len(arrays["lines"]) != len(arrays["offsets"]):
        return None
    blob = arrays["paths"]
    ends = np.flatnonzero(blob == 0)  # (each path's end: ~3 ms where decoding them all took ~15)
    if len(ends) != max(n - 1, 0):
        raise ValueError("another number of paths than of files")
    starts = np.empty(n + 1, np.int64)
    starts[0], starts[1:n], starts[n:] = 0, ends + 1, len(blob) + 1
    return Columns(arrays, PathList(blob.data, n, starts), blob)



def open_columns(gen: str, conn: sqlite3.Connection, pause: Callable[[], None] = lambda: None,
                 crc: bool = True) -> tuple[Columns, bool]:
    """The catalogue's columns, and whether they are the mapped copy's (else read from the rows:
    ``pause`` between batches of them; ``crc``: as :func:`read`'s)."""
    from sleuth.engine.index.catalogue import Catalogue

    cols = read(gen, conn, crc)
    if cols is not None:
        return cols, True
    rows = Catalogue.fetch(conn, pause)
    return Columns.of_rows(rows, Catalogue.paths_of(rows)), False


class Refresh:
    """When a server writes the mapped copy again: at once after an open that could not use it, else
    :data:`REFRESH_DELAY_S` after its last applied change (a burst of saves writes it once)."""

    def __init__(self) -> None:
        self.due: float | None = None

    def soon(self, delay: float = 0.0) -> None:
        self.due = time.monotonic() + delay

    def wait_s(self) -> float | None:
        """How long the idle upkeep may sleep (None: until woken), 0 when the copy is due."""
        return None if self.due is None else max(0.0, self.due - time.monotonic())

    def take(self) -> bool:
        """Whether the copy is due now (then no longer)."""
        if self.due is None or self.due > time.monotonic():
            return False
        self.due = None
        return True
