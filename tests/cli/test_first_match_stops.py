"""``sleuth grep -l``, ``-q`` and ``--files-without-match`` stop reading a file at its first match, as
rg's do (issue 30). Shown by what the search read (``bytes_searched``, rg's count, which ``-b`` asks
for), not by a time: the end of the first matching line, where it was the whole file before."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import HANG_S, SLEUTH

FIRST = b"foo first\n"
REST = b"bar foo\n" * 20000


@pytest.mark.parametrize("mode", [["-l"], ["-q"], ["--files-without-match"], ["-l", "-v"]], ids=" ".join)
def test_a_file_is_read_up_to_its_first_match(tmp_path: Path, mode: list[str]) -> None:
    (tmp_path / "big.txt").write_bytes(FIRST + REST)
    pattern = "zzz" if "-v" in mode else "foo"  # (-v: every line is a match of its own)
    proc = subprocess.run([SLEUTH, "grep", "--no-server", "--result-json", "-b", *mode, pattern, "big.txt"],
                          cwd=tmp_path, capture_output=True, timeout=HANG_S, stdin=subprocess.DEVNULL)
    result = json.loads(proc.stdout)
    assert result["files_matched"] == 1 and result["bytes_searched"] == len(FIRST), result


def test_count_still_reads_the_whole_file(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_bytes(FIRST + REST)
    proc = subprocess.run([SLEUTH, "grep", "--no-server", "--result-json", "-b", "-c", "foo", "big.txt"],
                          cwd=tmp_path, capture_output=True, timeout=HANG_S, stdin=subprocess.DEVNULL)
    result = json.loads(proc.stdout)
    assert result["matches"] == [{"type": "count", "path": "big.txt", "count": 20001}]
    assert result["bytes_searched"] == len(FIRST + REST)
