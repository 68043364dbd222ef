"""``--passthru`` shows every file's lines, matched or not, as rg 15.2 does (issue 30): ``cat log | sleuth
grep --passthru ERROR`` printed nothing when the log held no ERROR, and a folder's files without a
match were left out (found by a sweep of printer flag sets; also on the old main).
"""

from __future__ import annotations

import pathlib
import subprocess

import pytest

from tests.conftest import HANG_S, SLEUTH, write_tree
from tests.diff.rg import RG, needs_rg

pytestmark = [pytest.mark.rg, needs_rg]

FILES = {"a.txt": "hello world\nfoo bar\n", "b.md": "Foo\nfoo\n", "c.txt": "", "d.txt": "no end"}
CASES = ["--passthru", "--passthru -n", "--passthru -v", "--passthru --json", "--passthru -m1", "--passthru -o",
         "--passthru --stats", "--passthru -n --heading", "--passthru -c", "--passthru -b"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    root = write_tree(tmp_path_factory.mktemp("passthru"), FILES)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _run(command: list[str], cwd: pathlib.Path, argv: list[str], stdin: bytes | None = None) -> tuple[int, list[bytes]]:
    proc = subprocess.run([*command, *argv], cwd=cwd, capture_output=True, input=stdin, timeout=HANG_S,
                          stdin=None if stdin is not None else subprocess.DEVNULL)
    return proc.returncode, [line for line in proc.stdout.split(b"\n") if b"seconds" not in line
                             and b'"type":"summary"' not in line and b'"type":"end"' not in line]


@pytest.mark.parametrize("flags", CASES)
def test_every_files_lines_are_shown(corpus: pathlib.Path, flags: str) -> None:
    argv = [*flags.split(), "--sort", "path", "hello"]
    assert _run([SLEUTH, "grep", "--no-server"], corpus, argv) == _run([RG, "--no-config"], corpus, argv)


@pytest.mark.parametrize("stdin", [b"x\ny\n", b"x\nhello\n"], ids=["no match", "a match"])
def test_standard_input_is_shown_whether_or_not_it_matches(corpus: pathlib.Path, stdin: bytes) -> None:
    argv = ["--passthru", "-n", "hello"]
    assert _run([SLEUTH, "grep", "--no-server"], corpus, argv, stdin) == _run([RG, "--no-config"], corpus, argv, stdin)
