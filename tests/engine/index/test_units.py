"""Index candidate lists, the catalogue and walks are packed into pool units of one encoding."""

from __future__ import annotations

import random

import numpy as np

from sleuth.engine.grep import units as grep
from sleuth.engine.cancel import CancelToken
from sleuth.engine.index.candidates import CandidateList
from sleuth.engine.pieces import Pieces, unpack
from sleuth.engine.index.rowmap import PieceTable
from sleuth.engine.types import FileEntry


def _pieces(seed: int) -> tuple[list[FileEntry], dict[int, Pieces]]:
    rng = random.Random(seed)
    entries: list[FileEntry] = []
    pieces: dict[int, Pieces] = {}
    for i in range(rng.randrange(1, 3000)):
        size = rng.choice([0, 10, 5_000, 40_000, 3 << 20, 17 << 20])
        if rng.random() < 0.1:
            ranges = tuple((k * 4096, k * 4096 + 100) for k in range(rng.randrange(1, 4)))
            pieces[i] = Pieces(ranges, tuple(range(len(ranges))), size, rng.randrange(1 << 62))
        entries.append(FileEntry(f"/r/f{i}", f"f{i}", size, 1.0))
    return entries, pieces


def _table(pieces: dict[int, Pieces]) -> PieceTable:
    """A table of Python :class:`Pieces` by position (the index builds its tables from arrays)."""
    items = sorted(pieces.items())

    def ints(values) -> np.ndarray:  # type: ignore[no-untyped-def]
        return np.array(list(values), np.int64)

    return PieceTable(ints(i for i, _ in items), ints(p.size for _, p in items), ints(p.mtime_ns for _, p in items),
                      ints(len(p.ranges) for _, p in items), ints(s for _, p in items for s, _ in p.ranges),
                      ints(e for _, p in items for _, e in p.ranges), ints(b for _, p in items for b in p.lines))


def _entries(seed: int) -> CandidateList:
    entries, pieces = _pieces(seed)
    return CandidateList(entries, _table(pieces) if pieces else None)


def _files(unit: grep.Unit) -> list[tuple[str, str, object, object]]:
    """(path, display, pieces, open-buffer text) of every file of a unit."""
    ranged = unpack(unit.pieces)
    texts = unit.texts or {}
    files = list(unit.files())
    assert len(files) == unit.count
    return [(path, display, ranged.get(i), texts.get(i)) for i, (path, display) in enumerate(files)]


def test_list_units_cut_by_count_and_bytes_with_or_without_open_buffers() -> None:
    for seed in range(30):
        entries = _entries(seed)
        size = {e.path: e.size for e in entries}
        for line_mode in (True, False):
            plain = [_files(u) for u in grep.units(entries, None, CancelToken(), line_mode)]
            buffers = {entries[0].path: "open", "/elsewhere": "an open buffer none of them is"}
            opened = [_files(u) for u in grep.units(entries, buffers, CancelToken(), line_mode)]
            assert [len(u) for u in opened] == [len(u) for u in plain]
            flat_plain = [item for unit in plain for item in unit]
            flat_opened = [item for unit in opened for item in unit]
            assert [item[:3] for item in flat_opened] == [item[:3] for item in flat_plain]
            assert [item[3] for item in flat_opened] == ["open"] + [None] * (len(entries) - 1)
            assert all(item[3] is None for item in flat_plain)
            most = grep.unit_files(entries)
            for unit in plain[:-1]:  # every unit but the last is full by count or by bytes
                assert len(unit) == most or sum(size[item[0]] for item in unit) >= grep.CHUNK_BYTES
                assert sum(size[item[0]] for item in unit[:-1]) < grep.CHUNK_BYTES
            assert all(item[2] is None for item in flat_plain) or line_mode
            if line_mode:
                assert {i: item[2] for i, item in enumerate(flat_plain) if item[2] is not None} == _pieces(seed)[1]


def test_list_units_travel_as_two_strings_and_packed_pieces() -> None:
    entries = _entries(3)
    for line_mode in (True, False):
        units = list(grep.units(entries, None, CancelToken(), line_mode))
        assert all(type(unit) is grep.Unit and unit.subtrees is None for unit in units)
        assert any(unit.pieces for unit in units) == line_mode  # pieces serve line mode only


def test_walked_units_hold_subtrees_in_place_with_the_open_buffers_under_them() -> None:
    from sleuth.engine.walk import Subtree
    from sleuth.engine.workspace import Target

    def sub(name: str) -> Subtree:
        return Subtree(Target(None, f"/r/{name}", True), name, 1)  # type: ignore[arg-type]

    items = [FileEntry("/r/a", "a", 1, 1.0), sub("d"), FileEntry("/r/e", "e", 1, 1.0), sub("f")]
    buffers = {"/r/a": "A", "/r/d/x": "X", "/r/g/y": "Y"}
    (unit,) = grep.units(iter(items), buffers, CancelToken(), True)
    assert list(unit.files()) == [("/r/a", "a"), ("/r/d", "d"), ("/r/e", "e"), ("/r/f", "f")]
    assert unit.subtrees == {1: items[1], 3: items[3]}
    assert unit.texts == {0: "A"} and unit.walk_buffers == {"/r/d/x": "X"}
    cut = list(grep.units(iter([sub(str(i)) for i in range(20)]), None, CancelToken(), True))
    assert [u.count for u in cut] == [8, 8, 4]  # a subtree weighs SUBTREE_WEIGHT files


def test_packed_pieces_come_back_equal() -> None:
    _, pieces = _pieces(7)
    table = _table(pieces)
    assert pieces and dict(table.items()) == pieces
    last = max(pieces) + 1
    for low, high in ((0, last), (3, 900), (last - 1, last), (last, last + 5)):
        assert unpack(table.blob(low, high)) == {i - low: p for i, p in pieces.items() if low <= i < high}
    assert unpack(b"") == {}


def test_a_piece_table_follows_its_files_when_some_are_dropped() -> None:
    _, pieces = _pieces(11)
    kept = [i for i in range(max(pieces) + 1) if i % 3 != 1]
    renumbered = {kept.index(i): p for i, p in pieces.items() if i in kept}
    assert dict(_table(pieces).take(kept).items()) == renumbered


def test_a_plain_scan_packs_big_units_and_candidates_several_per_core() -> None:
    low, high = grep.LIST_UNIT_FILES
    assert grep.unit_files([FileEntry("/a", "a", 1, 1.0)] * 78_000) == high
    assert low <= grep.unit_files([FileEntry("/a", "a", 1, 1.0)] * 2_400) < 2_400 // 2
    assert grep.unit_files(iter([])) == grep.CHUNK_FILES


def test_pieces_follow_their_files_when_pending_files_are_merged_in() -> None:
    from types import SimpleNamespace

    from sleuth.engine.index.candidates import CandidateSet

    a, c, e = (FileEntry(f"/r/{n}", n, 10, 1.0) for n in "ace")
    narrowed = {0: Pieces(((0, 4),), (0,), 10, 1), 2: Pieces(((4, 8), (12, -1)), (1, 3), 10, 2)}
    pending = [FileEntry("/r/b", "b", 5, 1.0), FileEntry("/r/d", "d", 5, 1.0), FileEntry("/r/e", "e", 5, 1.0)]
    indexed = [SimpleNamespace(path=x.path) for x in (a, c, e)]
    got = CandidateSet(indexed, [a, c, e], pending, _table(narrowed)).entries()  # type: ignore[arg-type]
    assert [x.display for x in got] == ["a", "b", "c", "d", "e"]  # e, indexed, is not repeated
    assert got.pieces is not None and dict(got.pieces.items()) == {0: narrowed[0], 4: narrowed[2]}
