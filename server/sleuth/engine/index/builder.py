"""Indexing files into a shard: the per-file step (shared by full builds and incremental updates)
and the build worker process (``python -m sleuth.engine.index.worker``, one per shard, so a
build uses both cores; a plain subprocess, so it never re-imports the server's ``__main__``).

Per file: read the bytes once (``fstat`` on the same descriptor, so size/mtime describe exactly
what was indexed), cut them into line-aligned chunks, give each chunk a row number and its distinct
trigrams to a :class:`~sleuth.engine.index.postings.SegmentWriter`, and insert one row of definition
keys and one of symbols (:mod:`sleuth.engine.index.symbols`). Rows get fresh ids from the shard's
``next_row`` counter and are never rewritten: a changed
file's old rows are simply no longer referenced by the catalogue (counted as garbage; a full
rebuild reclaims them).
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from typing import Any

import numpy as np

from sleuth.engine.index import store, symbols
from sleuth.engine.index.catalogue import Indexed
from sleuth.engine.index.postings import SegmentWriter, distinct, flat_path, gram_codes, trigram_codes, write_directory
from sleuth.engine.decode import transcoded
from sleuth.engine.index.trigram import chunks, indexed_variants
from sleuth.engine.definitions.extract import definitions_and_symbols
from sleuth.engine.index import native
from sleuth.engine.index.build_pause import WorkerPause
from sleuth.engine.index.merge import merge_segments

__all__ = ["index_file", "next_row", "worker_main", "chunk_trigrams"]

BATCH_FILES = 64
BATCH_BYTES = 4 << 20


def next_row(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT value FROM meta WHERE key='next_row'").fetchone()[0])


def _read(path: str) -> tuple[bytes, int, int]:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        parts = []
        while True:
            part = os.read(fd, max(st.st_size + 1, 1 << 16))
            if not part:
                break
            parts.append(part)
        return b"".join(parts), st.st_size, st.st_mtime_ns
    finally:
        os.close(fd)


def chunk_trigrams(chunk: bytes) -> np.ndarray:
    """The distinct numbers a chunk is indexed under: its trigrams and underscore grams
    (:data:`sleuth.engine.index.trigram.GRAM_BASE`), of each of its :func:`indexed_variants`; in no
    particular order (the segment writer sorts its pairs).

    The compiled loop (:mod:`.native`) marks each number in a bitmap as it is first seen: ~7x less
    CPU than numpy's per-chunk sort, which was a quarter of the build (``bench/build_profile.py``)."""
    variants = indexed_variants(chunk)
    if native.chunk_codes is not None and len(variants) == 1:
        return np.frombuffer(native.chunk_codes(chunk, 0, len(chunk)), np.uint32)
    if len(variants) > 1:
        return distinct(np.concatenate([part for v in variants for part in (trigram_codes(v), gram_codes(v))]))
    # Every gram number is above every trigram number: two sorts joined, not one of a joint copy.
    # This step over every 20th file of the Linux tree (65 MB): 0.36 CPU-s with trigrams alone, 0.61 now.
    trigrams, grams = distinct(trigram_codes(chunk)), gram_codes(chunk)
    return np.concatenate((trigrams, distinct(grams))) if len(grams) else trigrams


def index_file(conn: sqlite3.Connection, path: str, row: int, max_bytes: int | None,
               writer: SegmentWriter | None = None) -> tuple[Indexed, int]:
    """Index ``path`` into the shard at rows ``row...``; returns the record and the next free row.

    The caller owns the transaction. Trigrams go to ``writer`` (a build's, written in big
    segments), else to a segment of their own written here (an incremental update).
    Unreadable and over-size files are recorded unindexed.
    """
    try:
        st = os.stat(path)
        if max_bytes is not None and st.st_size > max_bytes:
            return Indexed(st.st_size, st.st_mtime_ns, -1, (), "too large to index"), row
        data, size, mtime_ns = _read(path)
    except OSError as exc:
        return Indexed(0, 0, -1, (), exc.strerror or str(exc)), row
    own = writer is None
    writer = writer or SegmentWriter(conn)
    raw = data
    data = transcoded(data)
    first = row
    offsets: list[int] = []
    lines: list[int] = []
    newlines = previous = 0
    for start, end in chunks(data):
        if start:
            newlines += data.count(b"\n", previous, start)
            previous = start
            offsets.append(start)
            lines.append(newlines)
        writer.add(row, chunk_trigrams(data[start:end]))
        row += 1  # chunks() yields one (empty) chunk for an empty file: it still owns a row
    if own:
        writer.flush()
    keys, found = definitions_and_symbols(os.path.basename(path), data)
    if keys:
        conn.execute("INSERT INTO defs(rowid, keys) VALUES(?, ?)", (first, " ".join(sorted(keys))))
    symbols.write(conn, first, found, keys, size)
    nul = b"\0" in data
    wide = (bool(data) and not data.endswith(b"\n")) or nul
    plain = not nul and data is raw and raw[:3] != b"\xef\xbb\xbf"
    return Indexed(size, mtime_ns, first, tuple(offsets), None, wide, tuple(lines), plain), row


def worker_main(argv: list[str]) -> int:
    """Build process body: ``DB LIST MAX_BYTES SHARD``; index the ``file_id\tpath`` lines of LIST into DB.

    Writes one JSON line per batch to stdout, ``["batch", [[file_id, size, mtime_ns, first_row,
    offsets, error, wide, lines, plain], ...], bytes]``, then ``["done"]`` once the shard is optimized and marked
    complete; ``["paused"]`` and ``["resumed"]`` around a wait while a search runs
    (:mod:`.build_pause`). Any failure exits non-zero after ``["error", "<type>: <message>"]``, so the parent can
    say why (a full disk is "No space left on device", not an exit status); the parent abandons the
    build, never publishes it.
    """
    try:
        return _index_shard(argv)
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which fails the build with it
        try:
            sys.stdout.write(json.dumps(["error", f"{type(exc).__name__}: {exc}"]) + "\n")
            sys.stdout.flush()
        except OSError:
            pass
        raise


def _index_shard(argv: list[str]) -> int:
    db_path, list_path, max_arg, _shard = argv
    max_bytes = int(max_arg) if int(max_arg) >= 0 else None
    out = sys.stdout
    conn = store.connect(db_path, building=True)
    store.create_shard(conn)
    row = 1
    flat = open(flat_path(db_path), "wb")
    writer = SegmentWriter(conn, flat)
    conn.execute("BEGIN")
    results: list[list[Any]] = []
    total = 0
    parent = os.getppid()
    pause = WorkerPause(os.path.dirname(db_path))
    with open(list_path, encoding="utf-8", errors="surrogateescape") as listing:
        for line in listing:
            if not results and os.getppid() != parent:
                return 3  # orphaned: the server died; its build directory is never published
            if pause.paused():
                out.write(json.dumps(["paused"]) + "\n")
                out.flush()
                if not pause.wait(lambda: os.getppid() == parent):
                    return 3
                out.write(json.dumps(["resumed"]) + "\n")
                out.flush()
            file_id, path = line.rstrip("\n").split("\t", 1)
            record, row = index_file(conn, path, row, max_bytes, writer)
            results.append([int(file_id), record.size, record.mtime_ns, record.first_row, list(record.offsets),
                            record.error, record.wide, list(record.lines), record.plain])
            total += record.size
            if len(results) >= BATCH_FILES or total >= BATCH_BYTES:
                out.write(json.dumps(["batch", results, total]) + "\n")
                out.flush()
                results, total = [], 0
    if results:
        out.write(json.dumps(["batch", results, total]) + "\n")
    writer.flush()
    flat.close()
    merge_segments(conn, flat.name, writer.segments)  # one directory per shard
    write_directory(conn, db_path)  # (mapped at an open: :class:`.postings.Postings`)
    conn.execute("INSERT OR REPLACE INTO meta VALUES('next_row', ?)", (str(row),))
    conn.execute("INSERT OR REPLACE INTO meta VALUES('post_bytes', ?)", (str(os.path.getsize(flat.name)),))
    conn.execute("COMMIT")
    conn.execute("INSERT INTO defs(defs) VALUES('optimize')")
    conn.execute("INSERT INTO symkeys(symkeys) VALUES('optimize')")
    conn.execute("VACUUM")  # 'optimize' leaves the merged segments' pages free: ~6 MB a shard on the Linux tree
    store.mark_complete(conn)
    conn.close()
    out.write(json.dumps(["done"]) + "\n")
    out.flush()
    return 0

