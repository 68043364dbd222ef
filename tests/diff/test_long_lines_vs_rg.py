"""``-M`` (``--max-columns``) and a few printer details as rg 15.2 prints them (issue 30; found by a sweep
of 1,015 printer flag sets against rg 15.2, all also on the old main): a CRLF line's notice ends in
``\\n`` (Sleuth kept the line's ``\\r``) and its ``\\r`` counts toward the limit; a last line without
its end has none to count; ``-o`` counts the match alone; ``--vimgrep`` and ``--column`` say
``[Omitted long line with N matches]`` (N: the line's) and preview with ``[... N more matches]``;
``--crlf`` ends the notice and ``-l``'s paths with CRLF; ``--json -N`` writes ``"line_number": null``.
"""

from __future__ import annotations

import pathlib
import subprocess

import pytest

from tests.conftest import HANG_S, SLEUTH, write_tree
from tests.diff.rg import RG, needs_rg

pytestmark = [pytest.mark.rg, needs_rg]

FILES: dict[str, str | bytes] = {
    "a.txt": "hello world\nfoo bar\n",
    "crlf.txt": b"foo\r\nbar hello\r\n",
    "nonl.txt": "foo hello",
    "two.txt": "hello hello\n",
}

CASES = ["-M 5", "-M 5 --max-columns-preview", "-o -M 5", "-o -M 4", "--vimgrep -M 5",
         "--vimgrep -M 5 --max-columns-preview", "-M 9", "-M 10", "-M 11", "-M 12", "-r X -M 5", "--crlf -M 5",
         "--crlf -M 10", "--column -M 5", "--column -M 5 --max-columns-preview", "-n -M 5", "-b -M 5",
         "-C1 -M 9", "-M 5 --trim", "-l --crlf", "--files-without-match --crlf", "--json -N", "--json -N -C1"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return write_tree(tmp_path_factory.mktemp("long"), FILES)


@pytest.mark.parametrize("flags", CASES)
def test_printed_as_rg_prints_it(corpus: pathlib.Path, flags: str) -> None:
    argv = [*flags.split(), "--sort", "path", "hello", *FILES]

    def run(command: list[str]) -> tuple[int, list[bytes]]:
        proc = subprocess.run([*command, *argv], cwd=corpus, capture_output=True, stdin=subprocess.DEVNULL,
                              timeout=HANG_S)
        return proc.returncode, [line for line in proc.stdout.split(b"\n")
                                 if b'"type":"summary"' not in line and b'"type":"end"' not in line]

    want = run([RG, "--no-config"])
    assert run([SLEUTH, "grep", "--no-server"]) == want
