"""Indexed files of several chunks are read only in their candidate pieces, with the same lines as a full scan."""

from __future__ import annotations

import codecs
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from sleuth.commands import get_command
from sleuth.commands.args import parse_args
from sleuth.commands.context import CommandContext
from sleuth.commands.grep import GREP_ARGS, build_request
from tests.fixtures import context

grep = get_command("sleuth.grep")
FILLER = "".join(f"filler line number {i}\n" for i in range(20000))  # ~460 KB: many chunks


def _lines(result: dict) -> list[tuple[str, int, int, str]]:
    return [(m["path"], m["line"], m.get("column"), m["text"]) for m in result["matches"]]


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Byte counts of every piece read (grep runs in this process for small trees)."""
    import sleuth.engine.pieces as pieces

    lengths: list[int] = []
    real = os.pread

    def pread(fd: int, length: int, offset: int) -> bytes:
        lengths.append(length)
        return real(fd, length, offset)

    monkeypatch.setattr(pieces.os, "pread", pread)
    return lengths


def _contexts(root: Path, service) -> tuple[CommandContext, CommandContext]:
    return context(service.workspace, index=service), context(root)


def test_candidate_chunks_of_a_big_file_give_the_full_scans_lines(tmp_path: Path, reads: list[int],
                                                                  kit: SimpleNamespace) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    lines = [f"#define REG_{i:06d}_MASK 0x{i:08x}" for i in range(20_000)]  # ~700 KB
    lines[12_345] = "#define PM_RESUME_MASK 0x1"
    lines[12_346] = "#define ERR_SYS_SHIFT 3"
    lines[19_999] = "#define LAST_PM_RESUME 9"  # the last chunk, which has no newline at its end
    (root / "big_sh_mask.h").write_text("\n".join(lines))
    (root / "small.c").write_text("int x = PM_RESUME;\n")
    size = (root / "big_sh_mask.h").stat().st_size
    service = kit.start(root, tmp_path / "cache")
    try:
        indexed, plain = _contexts(root, service)
        for args in ({"pattern": "PM_RESUME"}, {"pattern": "ERR_SYS|PM_RESUME", "case": "insensitive"},
                     {"pattern": "PM_RESUME", "max_matches_per_file": 1}, {"pattern": "PM_RESUME", "word": True},
                     {"pattern": "[A-Z]+_SHIFT"}):
            request = build_request(parse_args("sleuth.grep", args, GREP_ARGS, indexed.settings), indexed)
            entries = service.candidate_entries(service.workspace, request)
            big = [i for i, e in enumerate(entries) if e.display == "big_sh_mask.h"]
            assert big and dict(entries.pieces.items())[big[0]].ranges, args  # the index narrowed the file
            reads.clear()
            assert _lines(grep(args, indexed)) == _lines(grep(args, plain)), args
            assert reads and sum(reads) < size / 4, args  # only candidate pieces were read
        # Context lines may lie outside the pieces: the file is read whole, same lines.
        args = {"pattern": "PM_RESUME", "context": 2}
        assert _lines(grep(args, indexed)) == _lines(grep(args, plain))
        # Changed on disk before the index caught up: the pieces no longer hold, the whole file is searched.
        with open(root / "big_sh_mask.h", "a") as handle:
            handle.write("\n#define PM_RESUME_LATE 2\n")
        os.utime(root / "big_sh_mask.h", ns=(1, 1))
        assert _lines(grep({"pattern": "PM_RESUME"}, indexed)) == _lines(grep({"pattern": "PM_RESUME"}, plain))
    finally:
        service.stop()


def test_pieces_without_the_literal_yield_nothing_and_read_little(tmp_path: Path, reads: list[int],
                                                                  kit: SimpleNamespace) -> None:
    root = tmp_path / "ws"
    kit.write_tree(root, {"decoy.txt": FILLER + "beta_ a_needle\n" + FILLER,  # every trigram, not the literal
                          "real.txt": FILLER + "the beta_needle\n" + FILLER,
                          "lower.txt": FILLER + "err_sys\n" + FILLER,
                          "longs.txt": FILLER + "ERR_\u017fYS\n" + FILLER,  # rg -i: LONG S matches s
                          "trigrams.txt": FILLER + "ERR_ and_SYS\n" + FILLER})
    size = (root / "decoy.txt").stat().st_size
    service = kit.start(root, tmp_path / "cache")
    try:
        indexed, plain = _contexts(root, service)
        result = grep({"pattern": "beta_needle"}, indexed)
        assert _lines(result) == _lines(grep({"pattern": "beta_needle"}, plain)) == [
            ("real.txt", 20001, 5, "the beta_needle")]
        assert sum(reads) < 2 * size / 8  # a chunk or two of each of the two candidates
        args = {"pattern": "ERR_SYS", "case": "insensitive"}
        assert [m[0] for m in _lines(grep(args, indexed))] == ["longs.txt", "lower.txt"]
        assert _lines(grep(args, indexed)) == _lines(grep(args, plain))
    finally:
        service.stop()


def test_files_that_are_not_plain_are_searched_whole(tmp_path: Path, kit: SimpleNamespace) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    text = FILLER + "the beta_needle\n" + FILLER
    (root / "u16.txt").write_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))  # offsets of transcoded text
    (root / "bom.txt").write_bytes(codecs.BOM_UTF8 + text.encode())
    (root / "nul.txt").write_bytes(text.encode() + b"\0")  # binary past its match's 64 KiB block: found, marked (rg)
    (root / "plain.txt").write_text(text)
    service = kit.start(root, tmp_path / "cache")
    try:
        indexed, plain = _contexts(root, service)
        got = service.candidates(None, _literal(b"beta_needle"), line_mode=True).entries()
        narrowed = {got[i].path for i, _ in got.pieces.items()} if got.pieces is not None else set()
        assert narrowed == {str((root / "plain.txt").resolve())}
        result = _lines(grep({"pattern": "beta_needle"}, indexed))
        assert result == _lines(grep({"pattern": "beta_needle"}, plain))
        assert [m[0] for m in result] == ["bom.txt", "nul.txt", "plain.txt", "u16.txt"]
        found = grep({"pattern": "beta_needle"}, indexed)["matches"]
        assert [m.get("binary_offset") for m in found] == [None, len(text.encode()), None, None]
    finally:
        service.stop()


def _literal(data: bytes) -> object:
    from sleuth.engine.index.trigram import Lit

    return Lit(data)


def test_candidate_pieces_serve_only_matching_and_replace(tmp_path: Path, reads: list[int],
                                                          kit: SimpleNamespace) -> None:
    """-o makes several events of a line: the per-file cap (-m) still counts lines across pieces."""
    root = tmp_path / "ws"
    root.mkdir()
    lines = [f"#define REG_{i:06d}_MASK 0x{i:08x}" for i in range(20_000)]
    lines[5_000] = "PM_RESUME = PM_RESUME_A | PM_RESUME_B"
    lines[12_345] = "#define PM_RESUME_MASK PM_RESUME"
    lines[19_000] = "PM_RESUME again"
    (root / "big.h").write_text("\n".join(lines))
    size = (root / "big.h").stat().st_size
    service = kit.start(root, tmp_path / "cache")
    try:
        indexed, plain = _contexts(root, service)
        for args in ({"pattern": "PM_RESUME", "only_matching": True},
                     {"pattern": "PM_(RESUME)(_\\w)?", "only_matching": True, "replace": "<$1$2>"},
                     {"pattern": "PM_RESUME", "only_matching": True, "max_matches_per_file": 2},
                     {"pattern": "PM_RESUME", "only_matching": True, "output": "count"},
                     {"pattern": "PM_(RESUME)", "replace": "$1", "max_matches_per_file": 1}):
            reads.clear()
            got = grep(args, indexed)["matches"]
            assert got == grep(args, plain)["matches"], args
            assert reads and sum(reads) < size / 4, args
        capped = grep({"pattern": "PM_RESUME", "only_matching": True, "max_matches_per_file": 2}, indexed)
        assert [(m["line"], m["column"]) for m in capped["matches"]] == [(5001, 1), (5001, 13), (5001, 27),
                                                                         (12346, 9), (12346, 24)]
    finally:
        service.stop()
