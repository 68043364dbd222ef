"""Index candidate lists and the catalogue are packed into the same pool units as any other file list."""

from __future__ import annotations

import random

from sleuth.engine import grep
from sleuth.engine.cancel import CancelToken
from sleuth.engine.index.candidates import RangedEntry
from sleuth.engine.index.pieces import Pieces
from sleuth.engine.types import FileEntry


def _entries(seed: int) -> list[FileEntry]:
    rng = random.Random(seed)
    out: list[FileEntry] = []
    for i in range(rng.randrange(1, 3000)):
        size = rng.choice([0, 10, 5_000, 40_000, 3 << 20, 17 << 20])
        if rng.random() < 0.1:
            out.append(RangedEntry(f"/r/f{i}", f"f{i}", size, 1.0, Pieces(((0, 16),), (0,), size, 1)))
        else:
            out.append(FileEntry(f"/r/f{i}", f"f{i}", size, 1.0))
    return out


def test_list_units_equal_the_general_packing() -> None:
    for seed in range(30):
        entries = _entries(seed)
        for line_mode in (True, False):
            fast = list(grep._units(entries, None, CancelToken(), line_mode))
            general = list(grep._units(iter(entries), None, CancelToken(), line_mode))  # not a list: the loop
            assert [len(u) for u in general] == [len(u) for u in fast] or grep._unit_files(entries) != grep.CHUNK_FILES
            assert [item for unit in fast for item in unit] == [item for unit in general for item in unit]
            most = grep._unit_files(entries)
            for unit in fast[:-1]:  # every unit but the last is full by count or by bytes
                assert len(unit) == most or sum(item[3] for item in unit) >= grep.CHUNK_BYTES
                assert sum(item[3] for item in unit[:-1]) < grep.CHUNK_BYTES
            assert all(item[4] is None for unit in fast for item in unit) or line_mode


def test_a_plain_scan_packs_big_units_and_candidates_several_per_core() -> None:
    low, high = grep.LIST_UNIT_FILES
    assert grep._unit_files([FileEntry("/a", "a", 1, 1.0)] * 78_000) == high
    assert low <= grep._unit_files([FileEntry("/a", "a", 1, 1.0)] * 2_400) < 2_400 // 2
    assert grep._unit_files(iter([])) == grep.CHUNK_FILES
