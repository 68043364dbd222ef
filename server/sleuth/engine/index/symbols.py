"""The symbol index: stored with each file's chunks by the incremental build, looked up by name key.

Per shard two tables, keyed like ``defs`` by the file's first chunk row (so a replaced file's old
symbols are garbage the catalogue no longer points at, reclaimed by the next rebuild):

- ``symkeys``: FTS5, one document per file holding its names' keys (``pack.fast_key``), no content;
  ``symvocab`` (``fts5vocab``) lists every key, in order, so a prefix is a range of it;
- ``symbols``: the file's symbols, packed (:mod:`sleuth.engine.symbols.pack`).

A lookup turns the query into keys (the query's own key, then keys it prefixes, then keys it
matches in order, shortest first), the keys into files, and unpacks only those files. Files with a
change pending and open buffers are read from disk or memory instead, so a function is found the
moment it is saved (:func:`disk_symbols`; the search itself is :mod:`sleuth.engine.symbols.search`).
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence, TYPE_CHECKING

from sleuth.engine.symbols.extract import Symbol, extract
from sleuth.engine.symbols.pack import name_keys, pack, unpack

if TYPE_CHECKING:
    from sleuth.engine.index.catalogue import Catalogue

__all__ = ["create_tables", "write", "SymbolFile", "SymbolStore", "SymbolShards", "disk_symbols", "MAX_FILES"]

MAX_FILES = 600  # files unpacked for one query (a file holds a few hundred symbols at most, typically)
MAX_KEYS = 300  # prefix or in-order keys tried per query, shortest first
_RANGE_SCAN = 20000  # vocabulary entries read for one prefix


def create_tables(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE VIRTUAL TABLE symkeys USING fts5(keys, tokenize='unicode61', detail=none, content='')")
    conn.execute("CREATE VIRTUAL TABLE symvocab USING fts5vocab(symkeys, 'row')")
    conn.execute("CREATE TABLE symbols(row INTEGER PRIMARY KEY, data BLOB NOT NULL)")


def write(conn: sqlite3.Connection, row: int, symbols: list[Symbol]) -> None:
    """Store ``symbols`` for the file whose first chunk row is ``row`` (the caller owns the transaction)."""
    if not symbols:
        return
    conn.execute("INSERT INTO symkeys(rowid, keys) VALUES(?, ?)", (row, name_keys(symbols)))
    conn.execute("INSERT INTO symbols(row, data) VALUES(?, ?)", (row, pack(symbols)))


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



def _escape(key: str) -> str:
    return '"' + key.replace('"', '""') + '"'


class SymbolStore:
    """Lookups against one index service's shards, with a per-letter cache of the key vocabulary
    (for in-order matches, which no index answers): rebuilt when the store changed."""

    def __init__(self) -> None:
        self._vocab: dict[str, tuple[object, bytes]] = {}
        self._lock = threading.Lock()

    def prefixed(self, shards: SymbolShards, prefix: str, limit: int = MAX_KEYS) -> list[str]:
        """Keys starting with ``prefix`` (itself excluded), shortest first."""
        found: set[str] = set()
        upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        for conn in shards.connections:
            found.update(t for (t,) in conn.execute(
                "SELECT term FROM symvocab WHERE term > ? AND term < ? LIMIT ?", (prefix, upper, _RANGE_SCAN)))
        return sorted(found, key=lambda k: (len(k), k))[:limit]

    def in_order(self, shards: SymbolShards, key: str, limit: int = MAX_KEYS) -> list[str]:
        """Keys that hold ``key``'s characters in order, starting with its first one, shortest first."""
        blob = self._letter(shards, key[0])
        pattern = re.compile(("^" + "[^\n]*?".join(re.escape(c) for c in key) + "[^\n]*$").encode(), re.M)
        found: list[bytes] = []
        for m in pattern.finditer(blob):
            found.append(m.group(0))
            if len(found) >= 20 * limit:
                break
        keys = sorted({f.decode("utf-8", "replace") for f in found}, key=lambda k: (len(k), k))
        return [k for k in keys if k != key][:limit]

    def _letter(self, shards: SymbolShards, letter: str) -> bytes:
        with self._lock:
            cached = self._vocab.get(letter)
            if cached is not None and cached[0] == shards.stamp:
                return cached[1]
        terms: set[str] = set()
        upper = chr(ord(letter) + 1)
        for conn in shards.connections:
            terms.update(t for (t,) in conn.execute(
                "SELECT term FROM symvocab WHERE term >= ? AND term < ?", (letter, upper)))
        blob = "\n".join(sorted(terms)).encode("utf-8", "surrogateescape")
        with self._lock:
            self._vocab[letter] = (shards.stamp, blob)
        return blob

    def files(self, shards: SymbolShards, keys: Iterable[str], limit: int = MAX_FILES) -> list[SymbolFile]:
        """The indexed files defining any of ``keys`` (tried in order until ``limit`` files), unpacked;
        files the index cannot vouch for (``covers``) are left to the caller."""
        seen: set[tuple[int, int]] = set()
        picked: list[tuple[int, int, str, str]] = []
        for key in keys:
            if len(picked) >= limit:
                break
            for shard, conn in enumerate(shards.connections):
                rows = [r for (r,) in conn.execute("SELECT rowid FROM symkeys WHERE symkeys MATCH ?", (_escape(key),))]
                rows = [r for r in rows if (shard, r) not in seen]
                if not rows:
                    continue
                for row, (path, display) in zip(rows, shards.owners(shard, rows)):
                    seen.add((shard, row))
                    if path and not shards.covers(path):
                        picked.append((shard, row, path, display))
        out: list[SymbolFile] = []
        for shard, conn in enumerate(shards.connections):
            mine = {row: (path, display) for s, row, path, display in picked if s == shard}
            if not mine:
                continue
            wanted = list(mine)
            for start in range(0, len(wanted), 500):
                part = wanted[start:start + 500]
                marks = ",".join("?" * len(part))
                for row, data in conn.execute(f"SELECT row, data FROM symbols WHERE row IN ({marks})", part):
                    path, display = mine[row]
                    out.append(SymbolFile(path, display, unpack(data)))
        return out


def disk_symbols(path: str, display: str, text: str | None) -> SymbolFile:
    """A file the index cannot vouch for, extracted now: an open buffer's text, else the file on disk."""
    if text is not None:
        data = text.encode("utf-8", "surrogateescape")
    else:
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            data = b""
    return SymbolFile(path, display, extract(os.path.basename(path), data))

