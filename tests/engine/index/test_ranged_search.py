"""Big indexed files are searched only in their candidate chunks, with the same lines as a full scan."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

from sleuth.commands import get_command
from sleuth.commands.args import parse_args
from sleuth.commands.context import CommandContext, Services
from sleuth.commands.grep import GREP_ARGS, build_request
from sleuth.engine.index.candidates import RangedEntry
from sleuth.engine.workspace import Workspace

grep = get_command("sleuth.grep")


def _lines(result: dict) -> list[tuple[str, int, int, str]]:
    return [(m["path"], m["line"], m["column"], m["text"]) for m in result["matches"]]


def test_candidate_chunks_of_a_big_file_give_the_full_scans_lines(tmp_path: Path, monkeypatch,
                                                                  kit: SimpleNamespace) -> None:
    import sleuth.engine.search as search

    ranged_calls: list[str] = []
    real = search.search_ranges
    monkeypatch.setattr(search, "search_ranges", lambda data, ranges, display, *rest: (
        ranged_calls.append(display), real(data, ranges, display, *rest))[1])
    root = tmp_path / "ws"
    root.mkdir()
    lines = [f"#define REG_{i:06d}_MASK 0x{i:08x}" for i in range(20_000)]  # ~700 KB: about 11 chunks
    lines[12_345] = "#define PM_RESUME_MASK 0x1"
    lines[12_346] = "#define ERR_SYS_SHIFT 3"
    (root / "big_sh_mask.h").write_text("\n".join(lines) + "\n")
    (root / "small.c").write_text("int x = PM_RESUME;\n")
    service = kit.start(root, tmp_path / "cache")
    try:
        indexed = CommandContext(service.workspace, services=Services(index=service))
        plain = CommandContext(Workspace([root]))
        for args in ({"pattern": "PM_RESUME"}, {"pattern": "ERR_SYS|PM_RESUME", "case": "insensitive"},
                     {"pattern": "PM_RESUME", "max_matches_per_file": 1}):
            request = build_request(parse_args("sleuth.grep", args, GREP_ARGS, indexed.settings), indexed)
            entries = service.candidate_entries(service.workspace, request)
            big = [e for e in entries if e.display == "big_sh_mask.h"]
            assert big and isinstance(big[0], RangedEntry) and big[0].ranges, args  # the index narrowed the file
            assert _lines(grep(args, indexed)) == _lines(grep(args, plain)), args
        assert "big_sh_mask.h" in ranged_calls  # the searcher used the ranges
        # Changed on disk before the index caught up: the ranges no longer hold, the whole file is searched.
        with open(root / "big_sh_mask.h", "a") as handle:
            handle.write("#define PM_RESUME_LATE 2\n")
        os.utime(root / "big_sh_mask.h", ns=(1, 1))
        assert _lines(grep({"pattern": "PM_RESUME"}, indexed)) == _lines(grep({"pattern": "PM_RESUME"}, plain))
    finally:
        service.stop()
