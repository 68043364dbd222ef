"""The trigram posting store: extraction, de-duplication, encoding and reading, against plain Python."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sleuth.engine.index.builder import chunk_trigrams
from sleuth.engine.index.merge import merge_segments
from sleuth.engine.index.postings import (Postings, SegmentWriter, create_tables, directory_path, distinct, trigram_codes,
                                          write_directory)
from sleuth.engine.index.trigram import Lit, pair_spellings, spellings, trigram_code, trigram_groups


def _naive_codes(data: bytes) -> list[int]:
    return [trigram_code(data[i:i + 3]) for i in range(len(data) - 2)]


def _shard(tmp: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(tmp / "shard.db"), isolation_level=None)
    conn.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    create_tables(conn)
    return conn


def _write(tmp: Path, chunks: list[bytes], limit: int, flat: bool, updates: list[bytes] = (),
           directory: bool = False) -> Postings:
    """A shard holding ``chunks`` as rows 1.. (segments of ``limit`` pairs, in the flat file or in
    ``grams``), then each of ``updates`` as one more update segment, as an incremental update writes it.
    ``directory``: the ``segs`` rows also written as the mapped directory file, as a build does."""
    conn = _shard(tmp)
    with open(tmp / "shard.post", "wb") as handle:
        writer = SegmentWriter(conn, handle if flat else None, limit=limit)
        for row, chunk in enumerate(chunks, 1):
            writer.add(row, chunk_trigrams(chunk))
        writer.flush()
    if flat:  # as a build worker does: its segments merged into one
        merge_segments(conn, str(tmp / "shard.post"), writer.segments)
    if directory:
        write_directory(conn, str(tmp / "shard.db"))
    for row, chunk in enumerate(updates, len(chunks) + 1):
        update = SegmentWriter(conn)
        update.add(row, chunk_trigrams(chunk))
        update.flush()
    return Postings(conn, str(tmp / "shard.post"))


@settings(deadline=None)  # a loaded CI machine must not fail a correctness property on time
@given(st.binary(max_size=300))
def test_trigram_codes_are_every_three_byte_window(data: bytes) -> None:
    assert trigram_codes(data).tolist() == _naive_codes(data)


@settings(deadline=None)
@given(st.lists(st.integers(0, (1 << 24) - 1), max_size=200))
def test_distinct_keeps_each_code_once(codes: list[int]) -> None:
    assert distinct(np.array(codes, np.uint32)).tolist() == sorted(set(codes))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.binary(min_size=0, max_size=40), min_size=1, max_size=300), st.integers(1, 60), st.booleans(),
       st.lists(st.binary(min_size=3, max_size=20), max_size=3), st.booleans())
@example([b"\x00\x00\xc5\xbf"], 1, True, [], False)  # a long s: its fold variant's trigrams are written too
def test_every_chunk_trigram_is_read_back(chunks: list[bytes], limit: int, flat: bool, updates: list[bytes],
                                          directory: bool) -> None:
    """However the pairs are cut into segments (flat file or table, then update segments), and whether
    the build segments' directory is read from ``segs`` or mapped from its file, every trigram's rows
    come back sorted and complete; up to 300 chunks make gaps of 255 and more."""
    with tempfile.TemporaryDirectory() as tmp:
        post = _write(Path(tmp), chunks, limit, flat, updates, directory)
        assert post.directory_mapped == directory
        expected: dict[int, set[int]] = {}
        for row, chunk in enumerate([*chunks, *updates], 1):
            # what the writer was given: a chunk's trigrams plus those of its indexed fold variants
            # (``ſ`` is also indexed as ``s``), so a naive trigram list missed codes on such chunks
            for code in chunk_trigrams(chunk).tolist():
                expected.setdefault(code, set()).add(row)
        for code, rows in expected.items():
            assert post.rows(code).tolist() == sorted(rows)
            assert post.count(code) == len(rows)
        assert post.rows(trigram_code(b"\xff\xfe\xfd")).tolist() == ([] if trigram_code(b"\xff\xfe\xfd") not in expected
                                                                  else sorted(expected[trigram_code(b"\xff\xfe\xfd")]))
        everything = post.codes_between(0, 1 << 31)  # trigrams and underscore grams
        assert everything == sorted(expected)
        post.close()


def test_far_apart_rows_use_exceptions(tmp_path: Path) -> None:
    chunks = [b"needle" if i % 997 == 0 or i == 1 else b"hay" for i in range(1, 5000)]
    post = _write(tmp_path, chunks, 10**6, True)
    assert post.rows(trigram_code(b"eed")).tolist() == [1] + [i for i in range(1, 5000) if i % 997 == 0]
    assert len(post.rows(trigram_code(b"hay"))) == 4999 - 6


def test_kelvin_and_long_s_chunks_are_indexed_in_ascii_too() -> None:
    codes = set(chunk_trigrams("O\u212aS \u017fet\n".encode()).tolist())
    assert trigram_code(b"OkS") in codes  # KELVIN SIGN spelled k
    assert trigram_code(b"set") in codes  # LONG S spelled s
    assert trigram_code(b"\xc5\xbfe") in codes  # and the original bytes
    assert sorted(chunk_trigrams(b"a plain, plain line").tolist()) == sorted(set(_naive_codes(b"a plain, plain line")))


def test_case_insensitive_literals_use_ascii_spellings_only() -> None:
    groups = trigram_groups(Lit("Caf\u00e9x".encode(), folded=True))
    assert groups == [[trigram_code(s) for s in spellings(b"caf")]]  # trigrams touching é are dropped
    assert len(groups[0]) == 8
    assert trigram_groups(Lit(b"a\nbcd")) == [[trigram_code(b"bcd")]]  # none across a line end
    assert sorted(pair_spellings(Lit(b"Ah", folded=True)) or []) == sorted((a << 8) | b for a in b"aA" for b in b"hH")
    assert pair_spellings(Lit("\u00e9".encode())) is None  # two bytes, one character: not a pair of ASCII


def test_pair_ranges_read_every_neighbour(tmp_path: Path) -> None:
    post = _write(tmp_path, [b"xAh\n", "Ah\u00e9".encode(), b"ah!", b"Ahh"], 10**6, True)
    [pair] = pair_spellings(Lit(b"Ah")) or []
    codes = post.codes_between(pair << 8, (pair << 8) | 0xFF)
    assert post.any_rows(codes).tolist() == [1, 2, 4]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.binary(min_size=0, max_size=30), min_size=2, max_size=120), st.integers(1, 40),
       st.lists(st.integers(0, 3000), max_size=120))
def test_merging_a_builds_segments_keeps_every_list(chunks: list[bytes], limit: int, skips: list[int]) -> None:
    """One directory per shard after the merge, every number's rows as the segments held them (rows far
    apart, so first gaps and their exceptions are rebased in both directions)."""
    with tempfile.TemporaryDirectory() as tmp:
        conn = _shard(Path(tmp))
        flat = Path(tmp) / "shard.post"
        with open(flat, "wb") as handle:
            writer = SegmentWriter(conn, handle, limit=limit)
            row = 0
            for i, chunk in enumerate(chunks):
                row += 1 + (skips[i] if i < len(skips) else 0)
                writer.add(row, chunk_trigrams(chunk + b"abc"))
            writer.flush()
        every = sorted({c for chunk in chunks for c in chunk_trigrams(chunk + b"abc").tolist()})
        before = {c: r.tolist() for c, r in Postings(conn, str(flat)).lists(every).items()}
        merge_segments(conn, str(flat), writer.segments)
        assert conn.execute("SELECT count(*) FROM segs").fetchone()[0] == 1
        after = {c: r.tolist() for c, r in Postings(conn, str(flat)).lists(every).items()}
        assert after == before


def _spoil_token(tmp: Path) -> None:  # ``segs`` written again without a new file (or another shard's file)
    conn = sqlite3.connect(str(tmp / "shard.db"), isolation_level=None)
    conn.execute("UPDATE meta SET value = 'another' WHERE key = 'post_dir'")
    conn.close()


def _truncate(tmp: Path) -> None:
    path = directory_path(str(tmp / "shard.db"))
    with open(path, "r+b") as handle:
        handle.truncate(max(0, handle.seek(0, 2) - 8))


def _garble(tmp: Path) -> None:
    with open(directory_path(str(tmp / "shard.db")), "r+b") as handle:
        handle.write(b"\xff" * 16)


def _remove(tmp: Path) -> None:
    import os

    os.remove(directory_path(str(tmp / "shard.db")))


@pytest.mark.parametrize("spoil", [_spoil_token, _truncate, _garble, _remove])
def test_a_directory_file_not_the_shards_is_refused_and_segs_read(tmp_path: Path, spoil) -> None:
    """The mapped directory is used only while it is the one written with the shard's ``segs`` (same
    token, whole, of this format); else the rows are read from SQLite and the answers are the same."""
    chunks = [bytes([65 + i % 26, 66 + i % 20, 67 + i % 7]) * (1 + i % 5) for i in range(400)]
    first = _write(tmp_path, chunks, 50, True, [], directory=True)
    assert first.directory_mapped
    every = first.codes_between(0, 1 << 31)
    expected = {c: r.tolist() for c, r in first.lists(every).items()}
    assert expected
    conn = first.conn
    first.close()
    spoil(tmp_path)
    again = Postings(conn, str(tmp_path / "shard.post"))
    assert not again.directory_mapped
    assert {c: r.tolist() for c, r in again.lists(every).items()} == expected
    again.close()
