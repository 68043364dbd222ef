"""Differential tests of the inner-literal strategy (issue 29): the benchsuite's literal-suffix shapes
(``[A-Z]+_RESUME``, ``\\w+_RESUME``), whose matches each hold a literal, print byte for byte what rg
15.2 prints, with every option that changes what a line is or which lines are shown: ``-w``, ``-v``,
context, counts and limits, ``-o``, ``-M``, ``-b``, ``--crlf``, ``-U`` (where the strategy is not
used), binary and non-UTF-8 files, CRLF line ends, a line with many literals, a last line without
its newline."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import write_tree
from tests.diff.rg import needs_rg
from tests.diff.test_rg_semantics_vs_rg import _rg, _sleuth

pytestmark = [pytest.mark.rg, needs_rg]

FILES: dict[str, bytes] = {
    "a.c": b"int x;\nif (PM_RESUME) return;\nDPM_RESUME and SUSPEND_RESUME, _RESUME alone\n"
           b"XX_RESUME_RESUME twice glued\npm_resume lower\nA_RESUMEB_RESUME\n\nlast PM_RESUMEX\n",
    "crlf.c": b"first\r\nPM_RESUME crlf\r\nAB_RESUME\r\n\r\nend_RESUME\r\n",
    "latin1.c": b"caf\xe9 PM_RESUME\n\xffPM_RESUME\xfe\nQ\xe9_RESUME\n",
    "unicode.c": "ÅPM_RESUME here\nĐ_RESUME\nwörd_RESUME ok\n".encode(),
    "bin/late.dat": b"PM_RESUME before\n" + b"x" * 70000 + b"\nAB_RESUME\x00after\n",
    "bin/early.dat": b"AB_RESUME\x00\n",
    "long.js": b"var a=1;" * 300 + b"PM_RESUME" + b";b=2" * 300 + b"X_RESUME" + b";" * 50 + b"\n",
    "noeol.c": b"one\nlast line QQ_RESUME",
    "noeol_crlf.c": b"one\r\nlast QQ_RESUME",
    "ctx.c": b"".join(b"line %d%s\n" % (i, b" HIT_RESUME" if i in (3, 5, 12) else b"") for i in range(1, 20)),
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_tree(tmp_path_factory.mktemp("inner"), FILES)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


SUFFIX = "[A-Z]+_RESUME"
WORD = r"\w+_RESUME"
QUERIES = [
    ["-n", SUFFIX],
    ["-n", WORD],
    ["-n", "-w", SUFFIX],
    ["-n", "-w", WORD],
    ["-n", "-v", SUFFIX, "a.c", "ctx.c"],
    ["-n", "-C1", SUFFIX, "ctx.c", "a.c"],
    ["-n", "-A2", "-B1", WORD, "ctx.c"],
    ["-c", SUFFIX],
    ["--count-matches", SUFFIX],  # (rg drops a binary file its search quit on)
    ["-c", "-m1", SUFFIX],  # (...unless its cap came first)
    ["-o", "-n", SUFFIX],
    ["-o", "-n", WORD],
    ["-n", "-m1", SUFFIX],  # (rg stops at the match before the NUL, and says nothing of it)
    ["-n", "-M", "40", SUFFIX],
    ["-n", "-b", SUFFIX],
    ["--vimgrep", SUFFIX],
    ["-n", "--crlf", SUFFIX + "$"],  # (rg ends a last line that has no end by CRLF)
    ["-n", "--crlf", "-B1", "last"],
    ["-n", SUFFIX + "$"],
    # (rg searches a file whole when its pattern can match a line end, a NUL past the first 64 KiB then
    # counting only on a printed line, as with --mmap; Sleuth does not tell such a pattern from another yet)
    ["-n", "-U", SUFFIX + r"\s+\w+", "-g", "!bin"],
    ["-n", "-U", SUFFIX, "bin"],  # (one that cannot: rg searches it line by line and stops at the NUL's block)
    ["-n", SUFFIX + r"\s*"],
    ["-n", r"[A-Z]+_RESUME|PM_[A-Z]+"],
    ["-n", r"\b[A-Z]+_RESUME\b"],
    ["-n", "-a", SUFFIX, "bin"],
    ["-n", "--binary", SUFFIX, "bin"],
    ["-n", "-r", "<$0>", SUFFIX, "a.c"],
    ["-l", SUFFIX],
]
# Lines that are not UTF-8 print with U+FFFD in Sleuth (SPEC), raw in rg: their matches are compared.
NOT_UTF8 = [
    ["-o", "-n", "--column", SUFFIX, "latin1.c"],
    ["-o", "-n", "--column", WORD, "latin1.c"],
    ["-o", "-n", "--column", "-w", SUFFIX, "latin1.c"],
    ["-c", WORD, "latin1.c"],
]


@pytest.mark.parametrize("argv", [[*q, "-g", "!latin1.c"] for q in QUERIES] + NOT_UTF8, ids=" ".join)
def test_suffix_shapes_print_what_rg_prints(corpus: Path, argv: list[str]) -> None:
    expected = _rg(corpus, argv)
    got = _sleuth(corpus, argv)
    assert got == expected, (got[1].decode(errors="replace"), expected[1].decode(errors="replace"))
