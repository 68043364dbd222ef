"""Differential tests of ``sleuth grep --json`` (issue 30 items 6 and 7): rg 15.2's JSON Lines, with
``absolute_offset`` (the line's first byte in the file, after decoding) and ``bytes_searched`` (per
file and in the summary) as rg prints them. Before, both were printed as 0; tools that read rg's
JSON (editors, ``delta``, scripts) place lines by them.

Compared on the search-semantics corpus (:data:`tests.diff.test_rg_semantics_vs_rg.FILES`: CRLF,
BOMs, UTF-16, binary files, compressed files) with times and ``bytes_printed`` taken out. Known
differences, not compared: ``-U`` (a match spanning lines is one rg message, one event per line in
Sleuth's result), ``--binary`` on a file found in a folder (rg's read path turns each NUL into a line
break, see that module), and ``-m`` with context that holds another match (rg reads on). The summary's ``searches`` and
``bytes_searched`` are not compared: since 15.0 (its bug 3178) rg counts there every file it searched,
matched or not; Sleuth counts the files it reports (a warm call's index reads no file that cannot
match, so it has no such count). With ``-r`` each submatch has its ``replacement`` (rg 15).
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
    ["hello", "big/late.dat"], ["--mmap", "hello", "big"],  # rg maps named files: it sees no NUL off a printed line
    ["-z", "hello", "zip"],
    ["--stats", "foo", "m.txt", "caps.txt"],
    ["-r", "X", "foo", "a.txt"],
    ["-r", "<$1>", "-o", "(o+)", "a.txt", "m.txt"],  # rg 15: each submatch replaced, -o or not
    ["-r", "", "-B1", "baz", "a.txt"],
]


def _comparable(out: bytes) -> list[Any]:
    def strip(value: Any, summary: bool) -> Any:
        if isinstance(value, dict):
            left_out = ("elapsed", "elapsed_total", "bytes_printed") + (("searches", "bytes_searched") if summary else ())
            return {k: strip(v, summary) for k, v in value.items() if k not in left_out}
        return [strip(v, summary) for v in value] if isinstance(value, list) else value
    messages = [json.loads(line) for line in out.splitlines()]
    return [strip(m, m.get("type") == "summary") for m in messages]


@pytest.mark.parametrize("argv", LINES, ids=" ".join)
def test_json_offsets_and_bytes_searched_are_rgs(corpus: Path, argv: list[str]) -> None:  # noqa: F811
    rg = subprocess.run([RG, "--no-config", "--json", "--sort", "path", *argv], cwd=corpus,
                        capture_output=True, stdin=subprocess.DEVNULL, timeout=120)
    got = subprocess.run([SLEUTH, "grep", "--no-server", "--json", "--sort", "path", *argv], cwd=corpus,
                         capture_output=True, stdin=subprocess.DEVNULL, timeout=120)
    assert got.returncode == rg.returncode, got.stderr.decode()
    assert _comparable(got.stdout) == _comparable(rg.stdout)
