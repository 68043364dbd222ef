"""Binary files searched whole (rg's "convert": a named file with ``--no-mmap``, or ``--binary``): rg's
line buffer turns each NUL it reads into a line end, so ``-v`` and ``--json`` see the lines the NULs
make (``hello\\0bin`` is the lines ``hello`` and ``bin``), and line numbers count them (issue 30;
found by a sweep of 960 flag sets against rg 15.2). A memory map (a named file by default) is
searched as it is. Sleuth searched the NUL as an ordinary byte everywhere.
"""

from __future__ import annotations

import pathlib
import subprocess

import pytest

from tests.conftest import HANG_S, SLEUTH, write_tree
from tests.diff.rg import RG, needs_rg

pytestmark = [pytest.mark.rg, needs_rg]

FILES: dict[str, str | bytes] = {
    "bin/x.dat": b"hello\x00bin\nnext hello\x00\x00tail\n",
    "bin/late.dat": b"hello first\n" + (b"y" * 99 + b"\n") * 700 + b"hello\x00bin\n",
    "a.txt": "hello text\n",
}

CASES: list[list[str]] = [
    ["--json", "--no-mmap", "hello", "bin/x.dat"],
    ["--json", "--binary", "hello", "bin"],
    ["-n", "--binary", "--no-mmap", "-v", "hello", "bin/x.dat"],
    ["-c", "--binary", "--no-mmap", "-v", "hello", "bin/x.dat"],
    ["-c", "--binary", "-v", "hello", "bin"],
    ["--json", "--binary", "-v", "hello", "bin/late.dat", "--no-mmap"],
    ["-n", "--binary", "-v", "hello", "bin/x.dat"],  # (mapped: the NULs stay in their line)
    ["--json", "hello", "bin/x.dat"],
    ["-n", "--binary", "bin", "bin"],
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    root = write_tree(tmp_path_factory.mktemp("convert"), FILES)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


@pytest.mark.parametrize("argv", CASES, ids=" ".join)
def test_a_nul_is_a_line_end_where_rg_reads_the_file_through_its_buffer(corpus: pathlib.Path,
                                                                          argv: list[str]) -> None:
    def run(command: list[str]) -> tuple[int, list[bytes]]:
        proc = subprocess.run([*command, "--sort", "path", *argv], cwd=corpus, capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=HANG_S)
        return proc.returncode, [line for line in proc.stdout.split(b"\n")
                                 if b'"type":"summary"' not in line and b'"type":"end"' not in line]

    want = run([RG, "--no-config"])
    assert run([SLEUTH, "grep", "--no-server"]) == want
