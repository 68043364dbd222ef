"""Differential tests of ``sleuth grep --json`` (issue 30 item 6): rg 14.1's JSON Lines, with
``absolute_offset`` (the line's first byte in the file, after decoding) and ``bytes_searched`` (per
file and in the summary) as rg prints them. Before, both were printed as 0; tools that read rg's
JSON (editors, ``delta``, scripts) place lines by them.

Compared on the search-semantics corpus (:data:`tests.diff.test_rg_semantics_vs_rg.FILES`: CRLF,
BOMs, UTF-16, binary files, compressed files) with times and ``bytes_printed`` taken out. Known
differences, not compared: ``-U`` (a match spanning lines is one rg message, one event per line in
Sleuth's result), ``--binary`` on a file found in a folder (rg's read path turns each NUL into a line
break, see that module), and ``-m`` with context that holds another match (rg reads on).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SLEUTH
from tests.diff.rg import RG, needs_rg
from tests.diff.test_rg_semantics_vs_rg import corpus  # noqa: F401  (the module's tree, a fixture)

pytestmark = [pytest.mark.rg, needs_rg]

LINES = [
    ["foo", "a.txt", "m.txt"],
    ["-B1", "-A1", "baz", "a.txt", "m.txt"],
    ["-C1", "foo"],
    ["-m1", "foo", "a.txt"],
    ["-m1", "-A1", "foo", "a.txt"],
    ["-v", "foo", "a.txt"],
    ["-o", "foo", "a.txt"],
    ["-i", "foo", "crlf.txt", "enc/crlf.txt"],
    ["--crlf", "foo$", "crlf.txt"],
    ["wörd", "enc"],
    ["-E", "latin1", "wörd", "enc/lat.txt"],
    ["hello", "bin/early.dat"],
    ["-a", "hello", "bin/early.dat"],
    ["hello", "bin"],
    ["hello", "big"],
    ["-z", "hello", "zip"],
    ["--stats", "foo", "m.txt", "caps.txt"],
    ["-r", "X", "foo", "a.txt"],
]


def _comparable(out: bytes) -> list[Any]:
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in ("elapsed", "elapsed_total", "bytes_printed")}
        return [strip(v) for v in value] if isinstance(value, list) else value
    return [strip(json.loads(line)) for line in out.splitlines()]


@pytest.mark.parametrize("argv", LINES, ids=" ".join)
def test_json_offsets_and_bytes_searched_are_rgs(corpus: Path, argv: list[str]) -> None:  # noqa: F811
    mmap = ["--no-mmap"] if any(a.startswith("big") for a in argv) else []  # (see test_rg_semantics_vs_rg)
    rg = subprocess.run([RG, "--no-config", "--json", "--sort", "path", *mmap, *argv], cwd=corpus,
                        capture_output=True, stdin=subprocess.DEVNULL, timeout=120)
    got = subprocess.run([SLEUTH, "grep", "--no-server", "--json", "--sort", "path", *argv], cwd=corpus,
                         capture_output=True, stdin=subprocess.DEVNULL, timeout=120)
    assert got.returncode == rg.returncode, got.stderr.decode()
    assert _comparable(got.stdout) == _comparable(rg.stdout)
