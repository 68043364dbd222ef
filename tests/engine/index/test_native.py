"""The build's compiled loops (:mod:`sleuth.engine.index.native`) against the numpy paths they replace."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sleuth.engine.index import native
from sleuth.engine.index.postings import distinct, gram_codes, list_sums, trigram_codes
from tests.conftest import under_fallback

compiled = under_fallback("no-compiled-grams", native.chunk_codes is None, "the compiled n-gram loop")

_CODE_BYTES = st.binary(max_size=400) | st.text(alphabet="aZ_\n\t ;Kk\u212a\u017fé", max_size=300).map(str.encode)


def _numpy_codes(chunk: bytes) -> list[int]:
    return sorted(set(trigram_codes(chunk).tolist()) | set(gram_codes(chunk).tolist()))


@compiled
def test_the_extension_is_built_by_the_install() -> None:
    """``pip install -e .`` compiles ``_grams.c`` where a compiler exists (setup.py): the build's fast path."""
    assert native.chunk_codes is not None and native.sort_pairs is not None


@compiled
@settings(max_examples=300, deadline=None)
@given(_CODE_BYTES, st.integers(0, 20), st.integers(0, 20))
@example(b"PM_RESUME pm_runtime_resume", 0, 0)
@example(b"ab_de", 0, 0)
def test_chunk_codes_are_numpys_distinct_trigrams_and_grams(data: bytes, lead: int, tail: int) -> None:
    start, end = min(lead, len(data)), max(min(lead, len(data)), len(data) - tail)
    got = np.frombuffer(native.chunk_codes(data, start, end), np.uint32).tolist()
    assert len(got) == len(set(got))  # each once
    assert sorted(got) == _numpy_codes(data[start:end])


@compiled
def test_chunk_codes_leave_no_number_marked_for_the_next_chunk() -> None:
    first = set(np.frombuffer(native.chunk_codes(b"abcdef_ghij", 0, 11), np.uint32).tolist())
    again = set(np.frombuffer(native.chunk_codes(b"abcdef_ghij", 0, 11), np.uint32).tolist())
    assert first == again and first


@compiled
@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.integers(0, (1 << 24) + (1 << 14) - 1), max_size=30, unique=True), max_size=40))
def test_sort_pairs_equals_numpys_sort_when_rows_ascend(rows: list[list[int]]) -> None:
    keys = np.array([(code << 32) | row for row, codes in enumerate(rows, 1) for code in codes], np.uint64)
    expected = np.sort(keys)
    assert native.sort_pairs(keys) is True
    assert keys.tolist() == expected.tolist()


@compiled
def test_sort_pairs_refuses_rows_out_of_order_and_leaves_them() -> None:
    keys = np.array([(5 << 32) | 2, (3 << 32) | 1], np.uint64)
    assert native.sort_pairs(keys) is False
    assert keys.tolist() == [(5 << 32) | 2, (3 << 32) | 1]


def test_distinct_still_sorts() -> None:  # the numpy path the fallback runs
    assert distinct(np.array([3, 1, 3, 2], np.uint32)).tolist() == [1, 2, 3]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.integers(0, 255), min_size=1, max_size=20), min_size=1, max_size=30))
def test_list_sums_in_the_writers_scratch_equal_the_64_bit_sums(lists: list[list[int]]) -> None:
    """The segment writer sums its lists in its free 32-bit gap buffer (no fresh 64-bit array)."""
    gap_bytes = np.array([b for one in lists for b in one], np.uint8)
    starts = np.cumsum([0] + [len(one) for one in lists]).astype(np.uint32)
    escaped = np.flatnonzero(gap_bytes == 255)
    exceptions = np.arange(len(escaped), dtype=np.uint32) * 1000
    exc_starts = np.searchsorted(escaped, starts).astype(np.uint32)
    scratch = np.full(len(gap_bytes), 7, np.uint32)
    fresh = list_sums(gap_bytes, starts, exceptions, exc_starts)
    assert list_sums(gap_bytes, starts, exceptions, exc_starts, scratch=scratch).tolist() == fresh.tolist()
    assert fresh.tolist() == [sum(one) + sum(int(e) for e in exceptions[exc_starts[i]:exc_starts[i + 1]]) * 1_000_003
                              for i, one in enumerate(lists)]


@compiled
@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200), st.lists(st.tuples(st.integers(0, 200), st.integers(0, 50)), max_size=30))
def test_gather_runs_joins_the_runs(data: bytes, runs: list[tuple[int, int]]) -> None:
    runs = [(a, min(n, len(data) - a)) for a, n in runs if a <= len(data)]
    starts = np.array([a for a, _ in runs], np.int64)
    lengths = np.array([n for _, n in runs], np.int64)
    assert bytes(native.gather_runs(data, starts, lengths)) == b"".join(data[a:a + n] for a, n in runs)
