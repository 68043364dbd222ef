"""The symbol index: stored with each file's chunks by the incremental build, looked up by name key.

Per shard, keyed like ``defs`` by the file's first chunk row (so a replaced file's old symbols are
garbage the catalogue no longer points at, reclaimed by the next rebuild):

- the name keys (``pack.fast_key``) of a file's symbols are its ``defs`` keys (the definition
  keys ``sleuth.text`` ranks by) plus, in ``symkeys`` (FTS5, no content), the keys ``defs`` lacks:
  members, enumerators, methods. Storing only the difference halves what the keys cost; ``defvocab``
  and ``symvocab`` (``fts5vocab``) list the keys in order, so a prefix is a range of them;
- ``symbols``: the symbols of a file of :data:`~sleuth.engine.definitions.pack.STORED_MIN_BYTES` or
  more, packed; a smaller file is extracted again when a query needs it.

A lookup turns the query into keys (the query's own key, then keys it prefixes, then keys it
matches in order, shortest first), the keys into files, and unpacks or extracts only those files.
Files with a change pending and open buffers are read from disk or memory instead, so a function is
found the moment it is saved (:func:`disk_symbols`; the search is :mod:`sleuth.engine.symbols.search`).
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

from sleuth.engine.decode import transcoded
from sleuth.engine.definitions.extract import Symbol, extract
from sleuth.engine.definitions.pack import STORED_MIN_BYTES, fast_key, name_keys, pack, unpack

if TYPE_CHECKING:
    from sleuth.engine.index.catalogue import Catalogue

__all__ = ["create_tables", "write", "SymbolFile", "SymbolStore", "SymbolShards", "disk_symbols", "MAX_FILES"]

MAX_FILES = 120  # files unpacked or extracted for one tier of a query, shortest paths first
MAX_KEYS = 300  # prefix or in-order keys tried per query, shortest first
_RANGE_SCAN = 20000  # vocabulary entries read for one prefix
_KEY_BATCH = 32  # keys ORed into one FTS5 query
_VOCABS = ("defvocab", "symvocab")
_KEY_TABLES = ("defs", "symkeys")
VOCAB_REFRESH_S = 5.0  # the in-order vocabulary is read again at most this often after a change
FIRST_LOAD_WAIT_S = 0.5  # the first in-order query waits this long for the vocabulary, then answers without


def create_tables(conn: sqlite3.Connection) -> None:
    """After ``defs``: the symbol tables and the two key vocabularies (virtual, nothing stored)."""
    conn.execute("CREATE VIRTUAL TABLE symkeys USING fts5(keys, tokenize='unicode61', detail=none, content='')")
    conn.execute("CREATE VIRTUAL TABLE symvocab USING fts5vocab(symkeys, 'row')")
    conn.execute("CREATE VIRTUAL TABLE defvocab USING fts5vocab(defs, 'row')")
    conn.execute("CREATE TABLE symbols(row INTEGER PRIMARY KEY, data BLOB NOT NULL)")


def write(conn: sqlite3.Connection, row: int, symbols: list[Symbol], definition_keys: set[str], size: int) -> None:
    """Store ``symbols`` of the file (``size`` bytes) whose first chunk row is ``row``; ``definition_keys``
    are its ``defs`` keys, already stored. The caller owns the transaction."""
    if not symbols:
        return
    keyed = name_keys(symbols)  # once per name, for both uses
    extra = set(keyed.values()) - definition_keys
    extra.discard("")
    if extra:
        conn.execute("INSERT INTO symkeys(rowid, keys) VALUES(?, ?)", (row, " ".join(sorted(extra))))
    if size >= STORED_MIN_BYTES:
        conn.execute("INSERT INTO symbols(row, data) VALUES(?, ?)", (row, pack(symbols, keyed)))


@dataclass(frozen=True, slots=True)
class SymbolFile:
    """One file's symbols as a query sees them."""

    path: str
    display: str
    symbols: Sequence[Symbol]


class SymbolShards:
    """The live shards as the symbol lookup sees them (made by ``IndexService.read_symbols`` under its lock)."""

    def __init__(self, connections: Sequence[sqlite3.Connection], cat: "Catalogue", covers: Callable[[str], bool],
                 stamp: object) -> None:
        self.connections = connections
        self.covers = covers
        self.stamp = stamp  # changes with the generation, the file count or an update
        self._cat = cat

    def owners(self, shard: int, rows: list[int]) -> list[tuple[str, str]]:
        """``(path, display)`` per row, ``("", "")`` for a row no live file starts with (a replaced version)."""
        found = {row: fid for fid, row in self._cat.owners(shard, rows)}
        by_id = self._cat.by_id
        out = []
        for row in rows:
            rec = by_id.get(found.get(row, 0))
            out.append((rec.path, rec.display) if rec is not None and rec.first_row == row else ("", ""))
        return out


def _db_path(conn: sqlite3.Connection) -> str:
    return str(conn.execute("PRAGMA database_list").fetchone()[2])


def _escape(key: str) -> str:
    return '"' + key.replace('"', '""') + '"'


class SymbolStore:
    """Lookups against one index service's shards. In-order matches need every key, which no index
    answers by range: the whole vocabulary (a few million keys on the Linux tree, ~40 MB as one sorted
    bytes string) is read once in the background on the first such query — reading it costs seconds,
    as ``fts5vocab`` walks every key's document list — and again, at most every
    :data:`VOCAB_REFRESH_S`, after the store changed. Until it is there (the first query waits
    :data:`FIRST_LOAD_WAIT_S`: enough for a project, not for the Linux tree), that tier is empty."""

    def __init__(self) -> None:
        self._keys: bytes = b""
        self._stamp: object = None
        self._loaded_at = 0.0
        self._loading = False
        self._lock = threading.Lock()

    def prefixed(self, shards: SymbolShards, prefix: str, limit: int = MAX_KEYS) -> list[str]:
        """Keys starting with ``prefix`` (itself excluded), shortest first."""
        found: set[str] = set()
        upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        for conn in shards.connections:
            for vocab in _VOCABS:
                found.update(t for (t,) in conn.execute(
                    f"SELECT term FROM {vocab} WHERE term > ? AND term < ? LIMIT ?", (prefix, upper, _RANGE_SCAN)))
        return sorted(found, key=lambda k: (len(k), k))[:limit]

    def in_order(self, shards: SymbolShards, key: str, limit: int = MAX_KEYS) -> list[str]:
        """Keys that hold ``key``'s characters in order from their start (word starts: ``gubi``), or hold
        ``key`` whole further in (``resume`` in ``pmruntimeresume``); shortest first."""
        keys = self._vocabulary(shards)
        if not keys and self.wait_loaded(FIRST_LOAD_WAIT_S):  # a small tree's is there in milliseconds
            keys = self._keys
        found: set[bytes] = set()
        cap = 20 * limit
        first = key[0].encode("utf-8", "surrogateescape")
        start = keys.find(b"\n" + first)
        if start >= 0:
            end = keys.find(b"\n" + bytes([first[0] + 1]), start) if len(first) == 1 and first[0] < 0x7F else -1
            # one deterministic pass: each gap takes anything but the next wanted character
            gaps = "".join(f"[^{re.escape(c)}\n]*+{re.escape(c)}" for c in key[1:])  # possessive: linear
            pattern = re.compile(("\n" + re.escape(key[0]) + gaps + "[^\n]*").encode("utf-8", "surrogateescape"))
            for m in pattern.finditer(keys, start, end if end > 0 else len(keys)):
                found.add(m.group(0)[1:])
                if len(found) >= cap:
                    break
        needle = key.encode("utf-8", "surrogateescape")
        at = keys.find(needle)
        while at >= 0 and len(found) < 2 * cap:
            begin = keys.rfind(b"\n", 0, at) + 1
            stop = keys.find(b"\n", at)
            found.add(keys[begin:stop])
            at = keys.find(needle, stop)
        ordered = sorted((f.decode("utf-8", "surrogateescape") for f in found), key=lambda k: (len(k), k))
        return [k for k in ordered if k != key][:limit]

    def _vocabulary(self, shards: SymbolShards) -> bytes:
        """The sorted keys as ``\nkey\nkey...\n`` (empty until the first load finished)."""
        with self._lock:
            stale = self._stamp != shards.stamp and time.monotonic() - self._loaded_at > VOCAB_REFRESH_S
            if stale and not self._loading:
                self._loading = True
                paths = [_db_path(conn) for conn in shards.connections]
                threading.Thread(target=self._load, args=(paths, shards.stamp), name="sleuth-symbol-vocab",
                                 daemon=True).start()
            return self._keys

    def _load(self, paths: list[str], stamp: object) -> None:
        terms: set[str] = set()
        try:
            for path in paths:  # own connections: the service's are used under its lock
                conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
                try:
                    for vocab in _VOCABS:
                        terms.update(t for (t,) in conn.execute(f"SELECT term FROM {vocab}"))
                finally:
                    conn.close()
            blob = ("\n" + "\n".join(sorted(terms)) + "\n").encode("utf-8", "surrogateescape")
        except sqlite3.Error:
            blob = None  # a generation replaced meanwhile: the next query starts another load
        with self._lock:
            if blob is not None:
                self._keys, self._stamp, self._loaded_at = blob, stamp, time.monotonic()
            self._loading = False

    def wait_loaded(self, timeout: float) -> bool:
        """Tests and benchmarks: wait until no load runs (True when the vocabulary is there)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if not self._loading:
                    return bool(self._keys)
            time.sleep(0.02)
        return False

    def files(self, shards: SymbolShards, keys: Sequence[str], limit: int = MAX_FILES) -> list[SymbolFile]:
        """The indexed files defining any of ``keys`` (looked up in order, a batch at a time, until
        ``limit`` files), unpacked; files the index cannot vouch for (``covers``) are the caller's."""
        seen: set[tuple[int, int]] = set()
        picked: list[tuple[int, int, str, str]] = []
        for start in range(0, len(keys), _KEY_BATCH):
            if len(picked) >= limit:
                break
            expression = " OR ".join(_escape(k) for k in keys[start:start + _KEY_BATCH])
            for shard, conn in enumerate(shards.connections):
                rows = sorted({r for table in _KEY_TABLES for (r,) in conn.execute(
                    f"SELECT rowid FROM {table} WHERE {table} MATCH ?", (expression,)) if (shard, r) not in seen})
                if not rows:
                    continue
                for row, (path, display) in zip(rows, shards.owners(shard, rows)):
                    seen.add((shard, row))
                    if path and not shards.covers(path):
                        picked.append((shard, row, path, display))
        picked.sort(key=lambda p: len(p[3]))  # over the cap, the shorter paths (they rank first among equals)
        del picked[limit:]
        wanted = set(keys)  # a file's other names are looked up under their own keys
        out: list[SymbolFile] = []
        for shard, conn in enumerate(shards.connections):
            mine = {row: (path, display) for s, row, path, display in picked if s == shard}
            if not mine:
                continue
            marks = ",".join("?" * len(mine))
            for row, data in conn.execute(f"SELECT row, data FROM symbols WHERE row IN ({marks})", list(mine)):
                path, display = mine.pop(row)
                out.append(SymbolFile(path, display, unpack(data, wanted)))
            for path, display in mine.values():  # small files: extracted again
                found = disk_symbols(path, display, None)
                out.append(SymbolFile(path, display, [s for s in found.symbols if fast_key(s.name) in wanted]))
        return out


def disk_symbols(path: str, display: str, text: str | None) -> SymbolFile:
    """A file the index cannot vouch for, extracted now: an open buffer's text, else the file on disk."""
    if text is not None:
        data = text.encode("utf-8", "surrogateescape")
    else:
        try:
            with open(path, "rb") as handle:
                data = transcoded(handle.read())
        except OSError:
            data = b""
    return SymbolFile(path, display, extract(os.path.basename(path), data))

