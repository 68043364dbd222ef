"""One build segment per shard: a build worker's segments merged once it has written them all.

Why: the writer holds at most :data:`~sleuth.engine.index.postings.SEGMENT_PAIRS` (trigram, row) pairs
(its memory bound), so a worker writes several segments (8 per shard on the Linux tree), and each
repeats the directory entry (20 bytes) of every number it holds: 55.8 MB of directories on the Linux
tree for 0.83M distinct numbers (16.6 MB once), read at every store open and searched segment by
segment by every query. Merged, each number's lists lie end to end in segment order (rows ascend from
one segment to the next), and each later part's first gap, its absolute first row, becomes the gap
from the part before it (an exception fewer where that gap fits a byte). The lists hold the same rows:
the candidates of every query are the same.

All in numpy, the bytes moved in batches of :data:`BATCH_BYTES` (the flat file is mapped, not read).
"""

from __future__ import annotations

import mmap
import os
import sqlite3

import numpy as np

from sleuth.engine.index import native
from sleuth.engine.index.postings import EXC_WEIGHT, BuiltSegment

__all__ = ["merge_segments"]

BATCH_BYTES = 8 << 20
_ESCAPE = 255


def _concat(parts: list[np.ndarray], dtype: type) -> np.ndarray:
    return np.concatenate([p.astype(dtype, copy=False) for p in parts])


def merge_segments(conn: sqlite3.Connection, flat: str, segments: list[BuiltSegment]) -> None:
    """Replace the shard's build segments (``segs`` rows and the flat file ``flat``, closed) by one.
    The caller owns the transaction; nothing is done for fewer than two segments."""
    if len(segments) < 2:
        return
    codes = _concat([s.codes for s in segments], np.uint32)
    order = np.argsort(codes, kind="stable")  # stable: a number's parts stay in segment order
    codes = codes[order]
    lengths = _concat([np.diff(s.starts.astype(np.int64)) for s in segments], np.int64)[order]
    xlen = _concat([np.diff(s.exc_starts.astype(np.int64)) for s in segments], np.int64)[order]
    old_at = _concat([s.bytes_at + s.starts[:-1].astype(np.int64) for s in segments], np.int64)[order]
    old_xat = _concat([s.exc_at // 4 + s.exc_starts[:-1].astype(np.int64) for s in segments], np.int64)[order]
    first = _concat([s.first_rows for s in segments], np.int64)[order]
    last = _concat([s.last_rows for s in segments], np.int64)[order]
    sums = _concat([s.sums for s in segments], np.uint64)[order]

    later = np.zeros(len(codes), np.bool_)  # a part after the first of its number
    later[1:] = codes[1:] == codes[:-1]
    delta = np.zeros(len(codes), np.int64)
    delta[1:] = first[1:] - last[:-1]
    delta[~later] = first[~later]  # a first part keeps its absolute first row
    old_byte = np.minimum(first, _ESCAPE)
    new_byte = np.minimum(delta, _ESCAPE)
    drop = later & (first >= _ESCAPE)  # its first gap's exception goes...
    add = later & (delta >= _ESCAPE)  # ...and one for the new gap comes, where it does not fit a byte
    new_xlen = xlen - drop + add
    new_at = np.cumsum(lengths) - lengths
    new_xat = np.cumsum(new_xlen) - new_xlen
    total, total_x = int(lengths.sum()), int(new_xlen.sum())
    if max(total, total_x) >= 1 << 32:  # a directory's positions are 32-bit: such a shard keeps its segments
        return

    with open(flat, "rb") as handle:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        old_bytes = np.frombuffer(mapped, np.uint8)
        old_words = np.frombuffer(mapped, np.uint32, count=len(mapped) // 4)
        exceptions = np.empty(total_x, np.uint32)
        copied = xlen - drop
        shift = np.cumsum(copied) - copied
        src = np.repeat(old_xat + drop - shift, copied) + np.arange(int(copied.sum()))
        dst = np.repeat(new_xat + add - shift, copied) + np.arange(int(copied.sum()))
        exceptions[dst] = old_words[src]
        exceptions[new_xat[add]] = delta[add]
        merged = flat + ".merged"
        with open(merged, "wb") as out:
            i = 0  # numpy: the bytes by an index each, in batches
            if native.gather_runs is not None:  # compiled: a copy per run, then the first bytes set
                chunk = np.frombuffer(native.gather_runs(mapped, old_at, lengths), np.uint8)
                chunk[new_at] = new_byte
                out.write(chunk.data)
                i = len(codes)
            while i < len(codes):
                j = int(np.searchsorted(new_at, new_at[i] + BATCH_BYTES, "right"))
                j = max(j, i + 1)
                n = int(new_at[j - 1] + lengths[j - 1] - new_at[i])
                idx = np.repeat(old_at[i:j] - (new_at[i:j] - new_at[i]), lengths[i:j]) + np.arange(n)
                chunk = old_bytes[idx]
                chunk[new_at[i:j] - new_at[i]] = new_byte[i:j]
                out.write(chunk.data)
                i = j
            out.write(b"\0" * (-total % 4))
            exc_at = out.tell()
            out.write(exceptions.data)
        del old_bytes, old_words
    finally:
        try:
            mapped.close()
        except BufferError:  # a view still held after an error: the map closes when it is collected
            pass

    heads = np.flatnonzero(~later)  # each number's first part
    part_sums = (sums - old_byte.astype(np.uint64) + new_byte.astype(np.uint64)
                 + np.where(add, delta, 0).astype(np.uint64) * EXC_WEIGHT
                 - np.where(drop, first, 0).astype(np.uint64) * EXC_WEIGHT)
    running = np.zeros(len(part_sums) + 1, np.uint64)
    np.cumsum(part_sums, dtype=np.uint64, out=running[1:])
    bounds = np.append(heads, len(codes))
    list_sums = running[bounds[1:]] - running[bounds[:-1]]
    starts = np.append(new_at[heads], total).astype(np.uint32)
    exc_starts = np.append(new_xat[heads], total_x).astype(np.uint32)
    found = conn.execute("SELECT value FROM meta WHERE key = 'next_seg'").fetchone()
    seg = int(found[0]) if found else 0
    conn.execute("INSERT OR REPLACE INTO meta VALUES('next_seg', ?)", (str(seg + 1),))
    conn.execute("DELETE FROM segs")
    conn.execute("INSERT INTO segs VALUES(?, ?, ?, ?, ?, ?, ?)",
                 (seg, codes[heads].tobytes(), starts.tobytes(), exc_starts.tobytes(), 0, exc_at, list_sums.tobytes()))
    os.replace(merged, flat)
