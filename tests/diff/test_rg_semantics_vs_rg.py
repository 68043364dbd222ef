"""Differential tests of rg's search-semantics flags: ``sleuth grep`` prints what ``rg`` 15.2 prints.

Byte for byte on stdout, and the same exit code: ``-o``, ``-r`` (capture syntax), binary files
(``-a``, ``--binary``, named files, files in folders, a NUL past the first 64 KiB), standard input.
Both run with ``--sort path`` (rg's output order is otherwise its threads'), and rg with
``--no-config``. The big binary files run three ways, the same flag given to both: rg's default
(it memory-maps up to ten named files, and then sees a NUL past the first 64 KiB only on a line it
reports), ``--mmap`` and ``--no-mmap`` (its read path sees every NUL). Known
difference, not compared: ``-c``/``--binary`` on a binary file found in a folder (rg's read path
turns each NUL into a line break; Sleuth counts the lines as the file has them, as rg's
memory-map path does for a named file). CRLF lines print with their ``\r`` (events say ``cr``), as in rg.
"""

from __future__ import annotations

import subprocess
import sys
import bz2
import codecs
import gzip
import lzma
from pathlib import Path
from tests.conftest import SLEUTH  # the installed command, as users start it

import pytest

from tests.diff.rg import RG, needs_rg

pytestmark = [pytest.mark.rg, needs_rg]

FILES: dict[str, bytes] = {
    "a.txt": b"foo bar foo\nbaz\nqux foo\nzzz\nFOO food\n",
    "m.txt": b"foo\nbar\nbaz\n",
    "caps.txt": b"user=alice id=42\nuser=bob id=7\nnothing here\n",
    "uni.txt": "Ångström wörd café\nnaïve façade\n".encode(),
    "dollar.txt": b"price $5 and $10\n",
    "crlf.txt": b"one foo\r\ntwo\r\nthree foo\r\n",
    "bin/early.dat": b"hello one\nhello two\x00\x01 hello three\nhello four\n",
    "bin/t.txt": b"hello text\n",
    "bin/nomatch.dat": b"nothing\x00here\n",
    "big/late.dat": b"hello early\n" + b"x" * 200_000 + b"\n\x00\nhello late\n",
    "big/late2.dat": b"y" * 200_000 + b"\nhello a\n\x00\nhello b\n",
    "big/plain.txt": b"hello plain\n",
    "enc/u16le.txt": "line one\nwörd here\n".encode("utf-16-le"),
    "enc/u16bom.txt": codecs.BOM_UTF16_LE + "line one\nwörd here\n".encode("utf-16-le"),
    "enc/u16be.txt": codecs.BOM_UTF16_BE + "wörd be\n".encode("utf-16-be"),
    "enc/lat.txt": "café wörd\n".encode("latin-1"),
    "enc/bom8.txt": codecs.BOM_UTF8 + "wörd bom8\n".encode(),
    "enc/crlf.txt": b"foo\r\nbar foo\r\nfoo bar\r\nfoo\n",
    "zip/a.txt.gz": gzip.compress(b"hello gz\nbye\nhello again\n", mtime=0),
    "zip/b.bz2": bz2.compress(b"hello bz\n"),
    "zip/c.xz": lzma.compress(b"hello xz\n"),
    "zip/d.tgz": gzip.compress(b"hello tgz\n", mtime=0),
    "zip/e.lzma": lzma.compress(b"hello lzma\n", format=lzma.FORMAT_ALONE),
    "zip/f.txt": b"hello plain\n",
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sem")
    for rel, data in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _rg(cwd: Path, argv: list[str], stdin: bytes | None = None) -> tuple[int, bytes]:
    proc = subprocess.run([RG, "--no-config", "--sort", "path", *argv], cwd=cwd, capture_output=True,
                          input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL, timeout=120)
    return proc.returncode, proc.stdout


def _sleuth(cwd: Path, argv: list[str], stdin: bytes | None = None) -> tuple[int, bytes]:
    proc = subprocess.run([SLEUTH, "grep", "--no-server", "--sort", "path", *argv], cwd=cwd,
                          capture_output=True, input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL,
                          timeout=120)
    assert proc.returncode in (0, 1), proc.stderr.decode()
    return proc.returncode, proc.stdout


ONLY_MATCHING = [
    ["-o", "foo", "a.txt"],
    ["-o", "-n", "foo", "a.txt"],
    ["-o", "-n", "foo"],
    ["-o", "-C1", "-n", "foo", "a.txt"],
    ["-o", "-c", "foo", "a.txt"],
    ["-o", "-c", "foo"],
    ["-o", "-m1", "foo", "a.txt"],
    ["-o", "-i", "-n", "foo", "a.txt"],
    ["-o", "-w", "foo", "a.txt"],
    ["-o", "-U", "-n", "o\\nb", "m.txt"],
    ["-o", "-v", "foo", "a.txt"],
    ["-o", "-e", "user=\\w+", "-e", "id=\\d+", "caps.txt"],
    ["-o", "\\w+ö\\w*", "uni.txt"],
    ["-o", "-l", "foo"],
    ["--count-matches", "foo"],
    ["--count-matches", "-i", "foo", "a.txt"],
]

REPLACE = [
    ["-r", "X", "foo", "a.txt"],
    # --max-columns-preview counts the replacements past the cut in the replaced line (rg's f1078)
    ["-M", "8", "--max-columns-preview", "-r", "LONGER", "-n", "foo", "a.txt", "m.txt"],
    ["-M", "12", "--max-columns-preview", "-r", "", "-n", "foo|bar", "a.txt", "m.txt"],
    ["-r", "X$0Y", "foo", "a.txt"],
    ["-r", "[$0]", "-n", "foo", "a.txt", "m.txt"],
    ["-r", "$2:$1", "user=(\\w+) id=(\\d+)", "caps.txt"],
    ["-r", "${id}/${name}", "user=(?P<name>\\w+) id=(?P<id>\\d+)", "caps.txt"],
    ["-r", "$name-$1a-$$-$", "(?P<name>\\w+)=", "caps.txt"],
    ["-r", "<$1|$2>", "-e", "(f)oo", "-e", "(b)a", "a.txt"],
    ["-r", "", "foo", "a.txt"],
    ["-o", "-r", "<$0>", "-n", "foo", "a.txt"],
    ["-o", "-r", "$1", "user=(\\w+)", "caps.txt"],
    ["-r", "Z", "-i", "-w", "foo", "a.txt"],
    ["-r", "€", "ö", "uni.txt"],
    ["-r", "$1", "(\\$\\d+)", "dollar.txt"],
    ["-r", "X", "-C1", "-n", "baz", "a.txt"],
    ["-r", "X", "-v", "foo", "a.txt"],
    ["-F", "-r", "[$1]", "$5", "dollar.txt"],
    # -U: a match over line ends is replaced once, its lines shown as the replaced text's (rg's region)
    ["-U", "-n", "-r", "X", "o\\nb", "m.txt"],
    ["-U", "-n", "-r", "<$0>", "-C1", "ar\\nbaz", "m.txt", "a.txt"],
    ["-U", "-n", "-r", "?", "\\n", "m.txt"],
    ["-U", "-n", "-r", "[$1]", "(o)\\n|b", "m.txt"],
    ["-U", "-r", "1\n2\n", "bar", "m.txt"],
    ["-U", "-n", "-r", "Q", "foo\\nbar\\n", "m.txt"],
    ["-U", "-o", "-n", "-r", "<$0>", "o\\nb", "m.txt", "a.txt"],  # -o: each match's replacement, rg's numbering
    ["-U", "-o", "-n", "--column", "-r", "[$0]", "o\\nb|z", "m.txt"],
]

BINARY = [
    ["-n", "hello", "bin"],
    ["-n", "hello", "bin/early.dat"],
    ["-n", "--binary", "hello", "bin"],
    ["-n", "-a", "hello", "bin"],
    ["-n", "-a", "hello", "bin/early.dat"],
    ["-c", "hello", "bin/early.dat"],
    ["-l", "hello", "bin/early.dat"],
    ["-n", "three", "bin/early.dat"],
    ["-n", "nothing", "bin"],
    ["-n", "nothing", "bin/nomatch.dat"],
    *[[*mmap, *argv] for mmap in ([], ["--mmap"], ["--no-mmap"]) for argv in [
        ["-n", "hello", "big"],
        ["-n", "--binary", "hello", "big"],
        ["-n", "hello", "big/late.dat"],
        ["-n", "hello", "big/late2.dat"],
        ["-n", "-a", "hello", "big"],
        ["-c", "hello", "big/late.dat", "big/late2.dat"],
        ["-n", "hello", "big/late.dat", "big/plain.txt"],
        ["-n", "-g", "late*", "hello"],
    ]],
    ["-o", "--binary", "hello", "bin"],
    ["-n", "--binary", "-C1", "hello", "bin"],
]


def _check(corpus: Path, argv: list[str], stdin: bytes | None = None) -> None:
    expected = _rg(corpus, argv, stdin)
    got = _sleuth(corpus, argv, stdin)
    assert got == expected, (got[1].decode(errors="replace"), expected[1].decode(errors="replace"))


@pytest.mark.parametrize("argv", ONLY_MATCHING, ids=" ".join)
def test_only_matching_prints_what_rg_prints(corpus: Path, argv: list[str]) -> None:
    _check(corpus, argv)


@pytest.mark.parametrize("argv", REPLACE, ids=" ".join)
def test_replace_prints_what_rg_prints(corpus: Path, argv: list[str]) -> None:
    _check(corpus, argv)


@pytest.mark.parametrize("argv", BINARY, ids=" ".join)
def test_binary_files_print_what_rg_prints(corpus: Path, argv: list[str]) -> None:
    _check(corpus, argv)


STDIN = [
    (["foo"], b"foo\nbar\nfood\n"),
    (["-n", "foo"], b"foo\nbar\nfood\n"),
    (["-o", "-r", "<$0>", "fo+"], b"foo\nbar\nfood\n"),
    (["foo"], b"foo\x00bar\n"),
    (["-a", "foo"], b"foo\x00bar\n"),
    (["-c", "foo"], b"foo\nfoo\n"),
    (["nothing"], b"foo\n"),
    (["foo", "-", "a.txt"], b"foo from stdin\n"),
    (["-n", "foo", "m.txt", "-"], b"x\nfoo\n"),
]


@pytest.mark.parametrize("argv,data", STDIN, ids=[" ".join(a) for a, _ in STDIN])
def test_standard_input_is_searched_as_rg_searches_it(corpus: Path, argv: list[str], data: bytes) -> None:
    _check(corpus, argv, data)


def test_no_path_and_no_piped_input_searches_the_folder(corpus: Path) -> None:
    """stdin is /dev/null (a device): rg, and Sleuth, search the current folder."""
    _check(corpus, ["-c", "hello"])


ENCODING = [
    ["-n", "w.rd", "enc"],
    ["-n", "-E", "utf-16le", "w.rd", "enc"],
    ["-n", "-E", "utf-16", "w.rd", "enc"],
    ["-n", "-E", "utf-16be", "w.rd", "enc"],
    ["-n", "-E", "latin1", "w.rd", "enc"],
    ["-n", "-E", "none", "w.rd", "enc"],
    ["-n", "-E", "utf-8", "w.rd", "enc"],
    ["-n", "-E", "auto", "w.rd", "enc"],
    ["-n", "-E", "latin1", "-o", "caf.", "enc/lat.txt"],
    ["-c", "-E", "none", "line", "enc"],
]

CRLF = [
    ["-n", "foo$", "enc/crlf.txt"],
    ["-n", "--crlf", "foo$", "enc/crlf.txt"],
    ["-n", "--crlf", "^bar", "enc/crlf.txt"],
    ["--crlf", "-o", "o.", "enc/crlf.txt"],
    ["--crlf", "-o", "-n", "fo+$", "enc/crlf.txt"],
    ["--crlf", "-r", "X", "foo$", "enc/crlf.txt"],
    ["--crlf", "-c", "(?m)bar$", "enc/crlf.txt"],
]


@pytest.mark.parametrize("argv", ENCODING, ids=" ".join)
def test_encodings_print_what_rg_prints(corpus: Path, argv: list[str]) -> None:
    _check(corpus, argv)


@pytest.mark.parametrize("argv", CRLF, ids=" ".join)
def test_crlf_matches_what_rg_matches(corpus: Path, argv: list[str]) -> None:
    _check(corpus, argv)  # a CRLF line's events say "cr": the CLI prints the CR back, as rg


def test_an_unknown_encoding_is_an_error_as_in_rg(corpus: Path) -> None:
    assert _rg(corpus, ["-E", "bogus", "x"])[0] == 2
    proc = subprocess.run([SLEUTH, "grep", "--no-server", "-E", "bogus", "x"], cwd=corpus,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert proc.returncode == 2 and "unknown encoding: bogus" in proc.stderr


ZIP = [
    ["-z", "-n", "hello", "zip"],
    ["-z", "-c", "hello", "zip"],
    ["-z", "-o", "-r", "<$0>", "hel+o \\w+", "zip"],
    ["-z", "again", "zip/a.txt.gz"],
    ["-n", "hello", "zip"],
    ["-z", "-l", "bz|xz", "zip"],
]


@pytest.mark.parametrize("argv", ZIP, ids=" ".join)
def test_search_zip_prints_what_rg_prints(corpus: Path, argv: list[str]) -> None:
    _check(corpus, argv)
