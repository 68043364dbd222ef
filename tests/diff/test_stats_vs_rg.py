"""``sleuth grep --stats``: the bytes searched and printed as rg 15.2 counts them (issue 30,
``regression::r2944_incorrect_bytes_searched``). Sleuth printed neither line before.

rg counts a file whole, up to the end of the line its ``-m`` cap stopped at, and a binary file up to
where it stopped (the lines before the 64 KiB block holding the NUL it quits at; a named file up to
the NUL of a printed line), and the bytes its standard printer wrote (its ``-c``/``-l`` printers
count none).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import SLEUTH, write_tree
from tests.diff.rg import RG, needs_rg

pytestmark = [pytest.mark.rg, needs_rg]

FILES: dict[str, str | bytes] = {
    "haystack": "foo1\nfoo2\nfoo3\nfoo4\nfoo5\n",
    "a.c": "int x;\nif (foo) return;\nbar foo\n\nlast foo",
    "crlf.c": b"first\r\nfoo crlf\r\n",
    "bin/late.dat": b"foo before\n" + b"x" * 70000 + b"\nfoo\x00after\n",
    "bin/early.dat": b"foo\x00\n",
    "sub/none.txt": "nothing here\n",
    "twice.txt": "foo foo\nfoo\nno\n",
}

CASES: list[list[str]] = [
    ["-m2", "foo", "."],
    ["-m2", "foo", "haystack"],
    ["foo"],
    ["zzz"],
    ["-m1", "foo"],
    ["foo", "bin"],
    ["zzz", "bin"],
    ["foo", "bin/late.dat"],
    ["zzz", "bin/late.dat"],
    ["-c", "foo"],
    ["-l", "foo"],
    ["-v", "foo", "a.c"],
]


def _bytes_lines(out: bytes) -> list[bytes]:
    return [line for line in out.splitlines() if re.fullmatch(rb"\d+ bytes (searched|printed)", line)]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_tree(tmp_path_factory.mktemp("stats"), FILES)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


@pytest.mark.parametrize("argv", CASES, ids=" ".join)
def test_stats_count_bytes_as_rg_does(corpus: Path, argv: list[str]) -> None:
    def run(command: list[str]) -> list[bytes]:
        proc = subprocess.run([*command, "--stats", "--sort", "path", *argv], cwd=corpus, capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=120)
        return _bytes_lines(proc.stdout)

    want = run([RG, "--no-config"])
    assert len(want) == 2 and run([SLEUTH, "grep", "--no-server"]) == want


def _count_lines(out: bytes) -> list[bytes]:
    return [line for line in out.splitlines()
            if re.fullmatch(rb"\d+ (matches|matched lines|files contained matches|files searched)", line)]


@pytest.mark.parametrize("argv", [["-c", "foo"], ["-l", "foo"], ["--files-without-match", "foo"], ["-o", "foo"],
                                  ["-c", "-o", "foo"], ["--count-matches", "foo"], ["-q", "foo"], ["-c", "-v", "foo"],
                                  ["-l", "-m1", "foo"], ["-c", "-m1", "foo", "twice.txt"], ["-o", "-w", "foo"],
                                  ["-v", "foo"], ["-v", "-o", "foo"], ["-v", "-C1", "foo"], ["-v", "-l", "foo"]],
                         ids=" ".join)
def test_stats_count_every_match_in_every_mode(corpus: Path, argv: list[str]) -> None:
    """rg's ``-c``, ``-l`` and ``--files-without-match`` keep searching when ``--stats`` asks for the
    matches (Sleuth printed 0 matches), and ``-o``'s matched lines are lines, not matches; with ``-v``
    the standard printer counts no match in the lines it prints (Sleuth counted one a line), ``-l`` one."""
    def run(command: list[str]) -> list[bytes]:
        proc = subprocess.run([*command, "--stats", *argv], cwd=corpus, capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=120)
        return _count_lines(proc.stdout)

    want = run([RG, "--no-config"])
    assert len(want) == 4 and run([SLEUTH, "grep", "--no-server"]) == want


@pytest.mark.parametrize("argv", [["-l", "foo"], ["-l", "foo", "bin"], ["-c", "foo"]], ids=" ".join)
def test_stats_list_the_files_rg_lists(corpus: Path, argv: list[str]) -> None:
    """``-l --stats`` reads every match, so a binary file's search reaches its NUL and quits: rg lists
    no such file (``bin/late.dat``), and Sleuth printed it."""
    def run(command: list[str]) -> list[bytes]:
        proc = subprocess.run([*command, "--stats", "--sort", "path", *argv], cwd=corpus, capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=120)
        lines = proc.stdout.split(b"\n")
        return lines[:lines.index(b"")]  # (the output before the stats block's blank line)

    want = run([RG, "--no-config"])
    assert run([SLEUTH, "grep", "--no-server"]) == want
