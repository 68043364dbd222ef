"""Trigram posting lists of a shard: which chunk rows hold each 3-byte sequence.

Why not SQLite FTS5's ``trigram`` tokenizer (the first design, see ``bench/README.md``): it hashes
every character position of every chunk one at a time and indexed about 10 MB/s per core here, so
the Linux tree took 250 CPU-seconds and two minutes of wall time on two cores. Here a chunk's
trigrams are computed for all positions at once with numpy (a trigram is the 24-bit number of three
consecutive bytes) and de-duplicated per chunk, and a worker's (trigram, row) pairs are sorted in
batches (numpy's SIMD sort) and written as *segments*: the gaps between a trigram's rows as one byte
each (255 escapes to a list of 32-bit exceptions), in a flat file beside the shard database, with
the segment's directory (trigrams, where each list starts) in the database.

Bytes, not characters: a literal's UTF-8 bytes contain the trigrams of any text containing it, so
byte trigrams narrow non-ASCII literals too (one three-byte character is a trigram), and no
decoding or case folding happens at build time. Case-insensitive literals use the ASCII case
spellings of their all-ASCII trigrams (see :mod:`sleuth.engine.index.trigram`). The same lists
hold the chunks' *underscore grams* (:func:`gram_codes`, numbered above every trigram).

Segments accumulate: a build writes a few per shard (bounded memory), each incremental update one
more as rows of the ``grams`` table (its rows are fresh, above every earlier row), so reading a
trigram's segments in order yields its rows sorted. A file's replaced rows stay as garbage until a
rebuild (the catalogue no longer maps them).
"""

from __future__ import annotations

import json
import mmap
import os
import sqlite3
import struct
from dataclasses import dataclass
from typing import BinaryIO, Iterable

import numpy as np

from sleuth.engine.index import native
from sleuth.engine.index.trigram import GRAM_BASE, GRAM_BITS, GRAM_MULTIPLIER

__all__ = [
    "CorruptPostings",
    "SEGMENT_PAIRS",
    "create_tables",
    "flat_path",
    "directory_path",
    "write_directory",
    "trigram_codes",
    "gram_codes",
    "distinct",
    "union",
    "SegmentWriter",
    "BuiltSegment",
    "EXC_WEIGHT",
    "Postings",
]

SEGMENT_PAIRS = 16_000_000  # (trigram, row) pairs a writer holds before writing a segment (13 bytes each)
_ESCAPE = 255  # a gap byte of 255: the gap is the next value of the segment's exception list
_EMPTY = np.empty(0, np.uint32)


EXC_WEIGHT = np.uint64(1_000_003)  # odd, so any change of an exception sum changes the list's sum


@dataclass(frozen=True, slots=True)
class BuiltSegment:
    """What a build's segment writer knows of a segment it wrote to the flat file (its ``segs`` row,
    and each list's first and last row, which the merge needs and the store does not keep)."""

    codes: np.ndarray  # uint32, sorted
    starts: np.ndarray  # uint32, one more than codes: each list's first gap byte, then the segment's bytes
    exc_starts: np.ndarray  # uint32, the same for the exceptions
    bytes_at: int
    exc_at: int
    sums: np.ndarray  # uint64 check sums
    first_rows: np.ndarray  # uint32
    last_rows: np.ndarray  # uint32


class CorruptPostings(sqlite3.DatabaseError):
    """A posting list whose bytes no longer add up to the sum written with it (a bad disk, a stray
    write): a list with a flipped byte names other rows, and a candidate it drops is a match missed.
    A ``sqlite3.DatabaseError``, so the service's existing handler takes it: the query scans and the
    index is rebuilt."""


def list_sums(gap_bytes: np.ndarray, starts: np.ndarray, exceptions: np.ndarray, exc_starts: np.ndarray,
              scratch: np.ndarray | None = None) -> np.ndarray:
    """One check sum per list of a segment: its gap bytes' sum plus its exceptions' sum times an odd
    weight (mod 2**64). Vectorised at build time (running sums read at the list bounds); one ``sum``
    per list read at query time.

    ``scratch``: a uint32 array at least as long as ``gap_bytes`` that may be overwritten (the segment
    writer's gap buffer, free by then). The running sum of the gap bytes then goes there, in 32 bits
    (exact: no segment's bytes add up to 2**32 unless it holds 16.8M pairs, checked), instead of a fresh
    64-bit array: memory touched for the first time costs more here than the sum (~0.4 s a segment of
    16M pairs; ``reduceat`` over its hundreds of thousands of short lists took as long)."""
    lists = len(starts) - 1
    if lists <= 0:
        return np.empty(0, np.uint64)
    n = len(gap_bytes)
    bounds = starts.astype(np.int64)
    if scratch is not None and len(scratch) >= n and 255 * n < (1 << 32):
        running32 = scratch[:n]
        np.cumsum(gap_bytes, dtype=np.uint32, out=running32)  # inclusive: running32[i] = bytes[0..i]
        ends = running32[bounds[1:] - 1]
        begins = np.where(bounds[:-1] > 0, running32[np.maximum(bounds[:-1] - 1, 0)], 0)
        gap_sums = (ends - begins).astype(np.uint64)
    else:
        gap_running = np.zeros(n + 1, np.uint64)
        np.cumsum(gap_bytes, dtype=np.uint64, out=gap_running[1:])
        gap_sums = gap_running[bounds[1:]] - gap_running[bounds[:-1]]
    running = np.zeros(len(exceptions) + 1, np.uint64)
    np.cumsum(exceptions, dtype=np.uint64, out=running[1:])
    exc_sums = running[exc_starts[1:].astype(np.int64)] - running[exc_starts[:-1].astype(np.int64)]
    return gap_sums + exc_sums * EXC_WEIGHT


def _sums(parts: list[np.ndarray]) -> np.ndarray:
    """The sum of each of ``parts`` (uint64, an empty one 0), from one running sum over them all."""
    lengths = np.fromiter(map(len, parts), np.int64, len(parts))
    running = np.zeros(int(lengths.sum()) + 1, np.uint64)
    if len(running) > 1:
        np.cumsum(np.concatenate(parts), dtype=np.uint64, out=running[1:])
    ends = np.cumsum(lengths)
    return running[ends] - running[ends - lengths]


def create_tables(conn: sqlite3.Connection) -> None:
    """``segs``: a build segment's directory (its gap bytes and exceptions live in the flat file, with
    one check sum per list, :func:`list_sums`); ``grams``: an update segment's posting lists, one row
    per trigram (gap bytes, then exceptions)."""
    conn.execute("CREATE TABLE segs(seg INTEGER PRIMARY KEY, codes BLOB NOT NULL, starts BLOB NOT NULL,"
                 " exc_starts BLOB NOT NULL, bytes_at INTEGER NOT NULL, exc_at INTEGER NOT NULL,"
                 " sums BLOB NOT NULL)")
    conn.execute("CREATE TABLE grams(tri INTEGER NOT NULL, seg INTEGER NOT NULL, n INTEGER NOT NULL,"
                 " rows BLOB NOT NULL, PRIMARY KEY(tri, seg)) WITHOUT ROWID")


def flat_path(db_path: str) -> str:
    """The flat file of a shard database's build segments (``shard-0.db`` -> ``shard-0.post``)."""
    return (db_path[:-3] if db_path.endswith(".db") else db_path) + ".post"


def directory_path(db_path: str) -> str:
    """The mapped copy of a shard's ``segs`` (``shard-0.db`` -> ``shard-0.dir``): :func:`write_directory`."""
    return (db_path[:-3] if db_path.endswith(".db") else db_path) + ".dir"


# The directory file: magic, version, length of a JSON header (the token, and per segment its numbers and
# where its four arrays lie in the body), then the arrays, each 8-aligned. Read mapped (:class:`Postings`).
_DIR_MAGIC = b"SLTHPDIR"
_DIR_VERSION = 1
_DIR_HEAD = struct.Struct("<8sII")
_DIR_FIELDS = ("codes", "starts", "exc_starts", "sums")


def write_directory(conn: sqlite3.Connection, db_path: str) -> None:
    """Write the shard's ``segs`` rows as a file beside it, mapped at an open instead of read: on the Linux
    tree the directories are 56 MB, and reading them through SQLite at every open (a cold call's too) cost
    ~25,000 page reads and copies. Called in the transaction that wrote ``segs`` (a build's, before it
    commits): a random token goes to the file and to ``meta('post_dir')`` together, and a reader trusts
    the file only while both hold the same one (a later ``segs`` write without a new file, another
    shard's file, a half-written one: read from SQLite as before). ``segs`` changes only in a build."""
    rows = conn.execute("SELECT seg, codes, starts, exc_starts, bytes_at, exc_at, sums FROM segs ORDER BY seg").fetchall()
    token = os.urandom(12).hex()
    table, parts, at = [], [], 0
    for seg, codes, starts, exc_starts, bytes_at, exc_at, sums in rows:
        spans = []
        for blob in (codes, starts, exc_starts, sums):
            spans.append([at, len(blob)])
            parts.append(bytes(blob) + b"\0" * (-len(blob) % 8))
            at += len(parts[-1])
        table.append([seg, bytes_at, exc_at, spans])
    header = json.dumps({"token": token, "segments": table, "body": at}).encode("ascii")
    header += b" " * (-(len(header) + _DIR_HEAD.size) % 8)
    path = directory_path(db_path)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as out:
            out.write(_DIR_HEAD.pack(_DIR_MAGIC, _DIR_VERSION, len(header)) + header)
            for part in parts:
                out.write(part)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    conn.execute("INSERT OR REPLACE INTO meta VALUES('post_dir', ?)", (token,))


def _mapped_directory(conn: sqlite3.Connection, db_path: str) -> tuple[mmap.mmap, list[tuple[object, ...]]] | None:
    """The ``segs`` rows as views of the mapped directory file, when it is there and this shard's
    (:func:`write_directory`'s token), else None."""
    found = conn.execute("SELECT value FROM meta WHERE key = 'post_dir'").fetchone()
    if found is None:
        return None
    try:
        with open(directory_path(db_path), "rb") as handle:
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    try:
        view = memoryview(mapped)
        magic, version, length = _DIR_HEAD.unpack_from(view)
        if magic != _DIR_MAGIC or version != _DIR_VERSION:
            return None
        header = json.loads(bytes(view[_DIR_HEAD.size:_DIR_HEAD.size + length]))
        body = view[_DIR_HEAD.size + length:]
        if header["token"] != found[0] or len(body) != header["body"]:
            return None
        rows: list[tuple[object, ...]] = []
        for _, bytes_at, exc_at, spans in header["segments"]:
            arrays = [body[a:a + n] for a, n in spans]
            if len(arrays) != len(_DIR_FIELDS) or any(a + n > len(body) for a, n in spans):
                return None
            rows.append((*arrays[:3], int(bytes_at), int(exc_at), arrays[3]))
        return mapped, rows
    except (ValueError, KeyError, TypeError, struct.error):
        return None


def trigram_codes(data: bytes) -> np.ndarray:
    """The trigram number of every position of ``data`` (uint32, ``len(data) - 2`` of them, repeats kept)."""
    if len(data) < 3:
        return _EMPTY
    a = np.frombuffer(data, np.uint8)
    codes = a[:-2].astype(np.uint32)
    codes <<= 8
    codes |= a[1:-1]
    codes <<= 8
    codes |= a[2:]
    return codes


_FOLD = np.arange(256, dtype=np.uint8)
_FOLD[ord("A"):ord("Z") + 1] += 32
_UNDERSCORE = ord("_")
_GRAM_OFFSETS = np.array([0, 1, 3, 4], np.int64)  # a gram's bytes around its "_" (offset 2)


def gram_codes(data: bytes) -> np.ndarray:
    """The number of the underscore gram around every ``_`` of ``data`` with two bytes each side
    (uint32, repeats kept), as :func:`sleuth.engine.index.trigram.gram_code` numbers one: the outer
    four of the five bytes case-folded (ASCII) as one big-endian 32-bit value, hashed to
    ``GRAM_BITS`` bits above every trigram number. Few numpy calls (one gather of the four bytes of
    every gram): the calls, not the arithmetic, are what a chunk's grams cost."""
    if len(data) < 5 or data.find(b"_", 2, len(data) - 2) < 0:
        return _EMPTY
    a = np.frombuffer(data, np.uint8)
    at = np.flatnonzero(a[2:-2] == _UNDERSCORE)  # each gram's first byte
    value = _FOLD[a[at[:, None] + _GRAM_OFFSETS]].view(">u4").ravel().astype(np.uint32)
    value *= np.uint32(GRAM_MULTIPLIER)  # wraps modulo 2**32, as the scalar version masks
    value >>= np.uint32(32 - GRAM_BITS)
    value += np.uint32(GRAM_BASE)
    return value


def distinct(codes: np.ndarray) -> np.ndarray:
    """The distinct values of ``codes``, sorted (numpy's SIMD sort: 3x faster here than ``np.unique``
    and than a scatter/gather over a 16M-entry table, whose cache misses cost more than sorting)."""
    if len(codes) < 2:
        return codes
    ordered = np.sort(codes)
    keep = np.empty(len(ordered), np.bool_)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def union(lists: list[np.ndarray], distinct_rows: bool = True) -> np.ndarray:
    """Rows in any of ``lists`` (each sorted), sorted and distinct unless ``distinct_rows`` is False
    (then unordered, and a row in two lists repeats)."""
    if not lists:
        return _EMPTY
    if len(lists) == 1:
        return lists[0]
    rows = np.concatenate(lists)
    return distinct(rows) if distinct_rows else rows


def _decode(gaps: list[np.ndarray], exceptions: list[np.ndarray]) -> np.ndarray:
    """Rows from posting lists given as their gap bytes (each list's first gap is its first row) and
    exceptions, in one pass whatever their number: each list's first value is lowered by the previous
    list's sum (its last row), so one running sum over the concatenation restarts at every list. Rows of
    each list ascend; the lists are concatenated. In uint32 throughout (rows are uint32, and the
    running sum is exact modulo 2**32): a case-insensitive query decodes millions of rows, and 64-bit
    temporaries doubled the memory traffic that dominates it."""
    joined = gaps[0] if len(gaps) == 1 else np.concatenate(gaps)
    values = joined.astype(np.uint32)
    escaped = exceptions[0] if len(exceptions) == 1 else np.concatenate(exceptions)
    if len(escaped):
        values[joined == _ESCAPE] = escaped
    if len(gaps) > 1:
        lengths = np.fromiter(map(len, gaps), np.int64, len(gaps))
        starts = np.cumsum(lengths) - lengths
        totals = np.add.reduceat(values, starts, dtype=np.uint32)  # every list holds one row or more
        values[starts[1:]] -= totals[:-1]
    np.cumsum(values, out=values)
    return values


class SegmentWriter:
    """Collects ``(row, distinct trigrams)`` in increasing row order and writes them as segments:
    to the flat file ``flat`` (a build) or, without one, as rows of ``grams`` (an incremental update).

    Memory first touched costs ~3.5 ms/MB on these machines (more than the arithmetic), so the pairs
    live in one arena allocated once and reused by every segment, and a flush works inside it.
    Segment numbers come from the shard's ``meta`` counter ``next_seg`` (the caller owns the transaction).
    """

    def __init__(self, conn: sqlite3.Connection, flat: BinaryIO | None = None, limit: int = SEGMENT_PAIRS) -> None:
        self.conn = conn
        self.flat = flat
        self.limit = limit
        self._keys = np.empty(0, np.uint64)  # (trigram << 32) | row; allocated on first use, then reused
        self._gaps = np.empty(0, np.uint32)
        self._flags = np.empty(0, np.bool_)
        self._pairs = 0
        self.segments: list[BuiltSegment] = []  # those written to ``flat``, for :func:`.merge.merge_segments`

    def add(self, row: int, codes: np.ndarray) -> None:
        count = len(codes)
        if not count:
            return
        if self._pairs + count > self.limit and self._pairs:
            self.flush()
        start, end = self._pairs, self._pairs + count
        if end > len(self._keys):
            grown = np.empty(max(end, min(self.limit, 2 * len(self._keys) + (1 << 16))), np.uint64)
            grown[:start] = self._keys[:start]
            self._keys = grown
        halves = self._keys.view(np.uint32)  # little-endian: [row, trigram] per key
        halves[2 * start + 1:2 * end:2] = codes
        halves[2 * start:2 * end:2] = row
        self._pairs = end

    def flush(self) -> None:
        n = self._pairs
        if not n:
            return
        self._pairs = 0
        if len(self._gaps) < n:
            self._gaps = np.empty(len(self._keys), np.uint32)
            self._flags = np.empty(len(self._keys), np.bool_)
        keys, gaps, flags = self._keys[:n], self._gaps[:n], self._flags[:n]
        # Distinct pairs, added in row order: two counting passes over the trigram keep each trigram's rows in
        # order (compiled, :mod:`.native`: ~6x faster than numpy's 64-bit sort, which beat numpy radix passes 5x).
        if native.sort_pairs is None or not native.sort_pairs(keys):
            keys.sort()
        halves = keys.view(np.uint32)
        codes, rows = halves[1::2], halves[0::2]
        flags[0] = True
        np.not_equal(codes[1:], codes[:-1], out=flags[1:])
        starts = np.flatnonzero(flags)
        if self.flat is not None:  # the merge's (:mod:`.merge`): copies, the keys' memory is reused below
            first_rows, last_rows = rows[starts], rows[np.append(starts[1:], n) - 1]
        gaps[0] = rows[0]
        np.subtract(rows[1:], rows[:-1], out=gaps[1:])
        gaps[starts] = rows[starts]  # each list starts with its first row itself
        distinct_codes = codes[starts]  # a copy: the keys' memory is reused below
        np.greater_equal(gaps, _ESCAPE, out=flags)
        escaped = np.flatnonzero(flags)
        exceptions = gaps[escaped]
        np.minimum(gaps, _ESCAPE, out=gaps)
        gap_bytes = keys.view(np.uint8)[:n]  # the keys are no longer needed: their memory takes the bytes
        gap_bytes[:] = gaps
        bounds = np.append(starts, n).astype(np.uint32)
        exc_bounds = np.searchsorted(escaped, bounds).astype(np.uint32)
        found = self.conn.execute("SELECT value FROM meta WHERE key = 'next_seg'").fetchone()
        seg = int(found[0]) if found else 0
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES('next_seg', ?)", (str(seg + 1),))
        if self.flat is not None:
            sums = list_sums(gap_bytes, bounds, exceptions, exc_bounds, scratch=gaps)  # gaps: free by now
            bytes_at = self.flat.tell()
            self.flat.write(gap_bytes.data)
            self.flat.write(b"\0" * (-n % 4))
            exc_at = self.flat.tell()
            self.flat.write(exceptions.data)
            self.conn.execute("INSERT INTO segs VALUES(?, ?, ?, ?, ?, ?, ?)",
                              (seg, distinct_codes.tobytes(), bounds.tobytes(), exc_bounds.tobytes(), bytes_at, exc_at,
                               sums.tobytes()))
            self.segments.append(BuiltSegment(distinct_codes, bounds, exc_bounds, bytes_at, exc_at, sums, first_rows,
                                              last_rows))
        else:
            raw, exc_raw = gap_bytes.tobytes(), exceptions.tobytes()
            b, x = bounds.tolist(), exc_bounds.tolist()
            self.conn.executemany("INSERT INTO grams(tri, seg, n, rows) VALUES(?, ?, ?, ?)",
                                  ((code, seg, b[i + 1] - b[i], raw[b[i]:b[i + 1]] + exc_raw[4 * x[i]:4 * x[i + 1]])
                                   for i, code in enumerate(distinct_codes.tolist())))


class _FlatSegment:
    """A build segment's directory in memory and its lists in the mapped flat file."""

    def __init__(self, view: memoryview, codes: bytes | memoryview, starts: bytes | memoryview,
                 exc_starts: bytes | memoryview, bytes_at: int, exc_at: int, sums: bytes | memoryview) -> None:
        self.codes = np.frombuffer(codes, np.uint32)
        self.sums = np.frombuffer(sums, np.uint64)
        # Views of the stored bytes, not int64 copies: a segment's positions fit 32 bits (SEGMENT_PAIRS; a build's
        # merged one only where they do, :mod:`.merge`), and the copies were ~64 MB of the Linux tree's store,
        # made at every open (a cold call's too).
        self.starts = np.frombuffer(starts, np.uint32)
        self.exc_starts = np.frombuffer(exc_starts, np.uint32)
        pairs = int(self.starts[-1]) if len(self.starts) else 0
        escaped = int(self.exc_starts[-1]) if len(self.exc_starts) else 0
        self.gaps = np.frombuffer(view, np.uint8, count=pairs, offset=bytes_at)
        self.exceptions = np.frombuffer(view, np.uint32, count=escaped, offset=exc_at)

    def find(self, codes: np.ndarray) -> np.ndarray:
        """Directory index of each of ``codes`` (uint32), -1 where this segment lacks it."""
        at = np.searchsorted(self.codes, codes)
        at[at >= len(self.codes)] = 0
        hit = self.codes[at] == codes if len(self.codes) else np.zeros(len(codes), np.bool_)
        return np.where(hit, at, -1)

    def slices(self, entries: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Directory entries ``entries``' gap bytes and exceptions, checked against their sums all at once:
        two numpy sums a list cost ~15 ms of a cold ``sleuth text`` (726 lists of ``PM_RESUME``'s
        identifier trigrams in every case), one running sum over them all a fraction of that."""
        begin, end = self.starts[entries].tolist(), self.starts[entries + 1].tolist()
        exc_begin, exc_end = self.exc_starts[entries].tolist(), self.exc_starts[entries + 1].tolist()
        gaps = [self.gaps[a:b] for a, b in zip(begin, end)]
        exceptions = [self.exceptions[a:b] for a, b in zip(exc_begin, exc_end)]
        found = _sums(gaps) + _sums(exceptions) * EXC_WEIGHT  # (modulo 2**64, as list_sums wrote them)
        wrong = np.flatnonzero(found != self.sums[entries])
        if len(wrong):
            code = int(self.codes[entries[wrong[0]]])
            raise CorruptPostings(f"the posting list of trigram {code:#08x} does not match its check sum")
        return gaps, exceptions


class Postings:
    """Reading one shard's posting lists: build segments from the mapped flat file, update segments
    from ``grams``. Lookups take several trigrams at once (one directory search per segment for
    all of them: a numpy call costs microseconds, so per-trigram calls dominated case-insensitive
    queries of 8 spellings a trigram). Callers hold the service lock (connections are not shared)."""

    def __init__(self, conn: sqlite3.Connection, flat: str) -> None:
        self.conn = conn
        self._counts: dict[int, int] = {}
        self._segments: list[_FlatSegment] = []
        self._map: mmap.mmap | None = None
        mapped = _mapped_directory(conn, flat[:-len(".post")] + ".db") if flat.endswith(".post") else None
        self._directory: mmap.mmap | None = None if mapped is None else mapped[0]  # (the views below hold it)
        self.directory_mapped = mapped is not None
        rows = mapped[1] if mapped is not None else \
            conn.execute("SELECT codes, starts, exc_starts, bytes_at, exc_at, sums FROM segs ORDER BY seg").fetchall()
        if rows and os.path.getsize(flat):
            with open(flat, "rb") as handle:
                self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
            view = memoryview(self._map)
            self._segments = [_FlatSegment(view, *row) for row in rows]

    def _updates(self, codes: list[int], what: str) -> list[tuple[int, int, bytes]]:
        """``(trigram, n, rows)`` of the update segments holding ``codes``, in segment order."""
        if not codes:
            return []
        marks = ",".join("?" * len(codes))
        return self.conn.execute(f"SELECT tri, n, {what} FROM grams WHERE tri IN ({marks}) ORDER BY seg",
                                 codes).fetchall()

    def lists(self, codes: Iterable[int]) -> dict[int, np.ndarray]:
        """The rows of each of ``codes`` that some chunk holds (sorted; live or garbage: the catalogue
        decides). One directory search per segment and one decoding pass serve all of them: a query
        reads tens of lists (a case-insensitive alternation: ~40 groups of up to 8 spellings), and
        per-list numpy calls cost more than the decoding."""
        wanted = sorted(set(codes))
        if not wanted:
            return {}
        keys = np.array(wanted, np.uint32)
        owners: list[int] = []  # per list read: its code
        gaps: list[np.ndarray] = []
        exceptions: list[np.ndarray] = []
        for segment in self._segments:
            at = segment.find(keys)
            hit = np.flatnonzero(at >= 0)
            if len(hit):
                g, x = segment.slices(at[hit])
                owners += [wanted[k] for k in hit.tolist()]
                gaps += g
                exceptions += x
        for code, n, blob in self._updates(wanted, "rows"):  # update segments come after the build's
            owners.append(code)
            gaps.append(np.frombuffer(blob, np.uint8, count=n))
            exceptions.append(np.frombuffer(blob, np.uint32, offset=n))
        if not gaps:
            return {}
        rows = _decode(gaps, exceptions)
        if len(gaps) == 1:
            return {owners[0]: rows}
        pieces: dict[int, list[np.ndarray]] = {}
        at = 0
        for code, g in zip(owners, gaps):  # a code's lists in segment order: its rows ascend
            pieces.setdefault(code, []).append(rows[at:at + len(g)])
            at += len(g)
        return {code: part[0] if len(part) == 1 else np.concatenate(part) for code, part in pieces.items()}

    def any_rows(self, codes: Iterable[int], distinct_rows: bool = True) -> np.ndarray:
        """Chunk rows holding any of ``codes`` (live or garbage: the catalogue decides), sorted and
        distinct unless ``distinct_rows`` is False (then a row holding two of them may repeat)."""
        return union(list(self.lists(codes).values()), distinct_rows)

    def rows(self, code: int) -> np.ndarray:
        """Chunk rows holding trigram ``code``, sorted."""
        return self.any_rows((code,))

    def counts(self, codes: Iterable[int]) -> list[int]:
        """Rows holding each of ``codes``, cached: a planning statistic (it may lag behind updates)."""
        codes = list(codes)
        missing = sorted({c for c in codes if c not in self._counts})
        if missing:
            if len(self._counts) > 200_000:
                self._counts.clear()
            keys = np.array(missing, np.uint32)
            total = np.zeros(len(missing), np.int64)
            for segment in self._segments:
                at = segment.find(keys)
                hit = at >= 0
                total[hit] += segment.starts[at[hit] + 1] - segment.starts[at[hit]]
            found = dict(zip(missing, total.tolist()))
            for code, n, _ in self._updates(missing, "NULL"):
                found[code] += n
            self._counts.update(found)
        return [self._counts[c] for c in codes]

    def count(self, code: int) -> int:
        return self.counts((code,))[0]

    def codes_between(self, low: int, high: int) -> list[int]:
        """The trigrams in ``[low, high]`` that some chunk holds."""
        found: set[int] = set()
        for segment in self._segments:
            a, b = np.searchsorted(segment.codes, np.array([low, high + 1], np.uint32))
            found.update(segment.codes[a:b].tolist())
        found.update(c for (c,) in self.conn.execute("SELECT DISTINCT tri FROM grams WHERE tri BETWEEN ? AND ?",
                                                     (low, high)))
        return sorted(found)

    def close(self) -> None:
        self._segments = []
        for mapped in (self._map, self._directory):
            if mapped is not None:
                try:
                    mapped.close()
                except BufferError:  # a caller still holds a view; the map closes when it is collected
                    pass
        self._map = self._directory = None
