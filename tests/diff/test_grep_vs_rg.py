"""Differential tests: ``sleuth grep`` finds exactly the lines ``rg`` finds on tricky trees.

Documented differences (docs/SPEC.md deliberately differs), so not compared here: ``--sort modified``
is newest first. (Binary files, ``-o``, ``-r``, encodings and the rest of rg's search semantics are
compared in ``test_rg_semantics_vs_rg.py``.)
"""

from __future__ import annotations

import codecs
import os
import subprocess
from tests.conftest import SLEUTH  # the installed command, as users start it

import pytest

from tests.diff.rg import needs_rg, rg_events, sleuth_events

pytestmark = [pytest.mark.rg, needs_rg]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    files: dict[str, bytes] = {
        ".gitignore": b"build/\n*.log\n!keep.log\n/anchored.txt\n",
        "src/.gitignore": b"generated_*\n",
        "src/main.c": b"#define PM_RESUME 1\nint pm_resume(void) {\n  return PM_RESUME;\n}\n/* PM_RESUME_EXTRA */\n",
        "src/generated_table.c": b"PM_RESUME in a generated file\n",
        "src/sub/anchored.txt": b"anchored only at the top: PM_RESUME here is searched\n",
        "anchored.txt": b"PM_RESUME ignored at the top\n",
        "build/out.c": b"PM_RESUME in build\n",
        "debug.log": b"PM_RESUME in a log\n",
        "keep.log": b"PM_RESUME in a kept log\n",
        ".hidden/secret.txt": b"PM_RESUME hidden\n",
        ".dotfile": b"PM_RESUME dot\n",
        "bin/blob.bin": b"PM_RESUME\x00\x01\x02 binary\n",
        "enc/utf16.txt": codecs.BOM_UTF16_LE + "line one\nPM_RESUME utf16 wörd\n".encode("utf-16-le"),
        "enc/latin1.txt": "caf\xe9 PM_RESUME\n".encode("latin-1"),
        "enc/crlf.txt": b"first\r\nPM_RESUME crlf\r\nlast\r\n",
        "enc/unicode.txt": "Ångström ÅAh wordAh _Ah 9Ah\n\u00e9Ah end\nno match\n".encode(),
        "long/minified.js": b"var a=1;" * 2000 + b"PM_RESUME" + b";b=2" * 2000 + b"\n",
        "ctx/ctx.txt": b"".join(b"line %d%s\n" % (i, b" hit" if i in (5, 7, 20) else b"") for i in range(1, 31)),
        "words/w.txt": b"PM_RESUME\nXPM_RESUME\nPM_RESUMEX\n(PM_RESUME)\npm_resume\nPm_Resume here\n",
        "alt/a.txt": b"ERR_SYS one\nPME_TURN_OFF two\nlink_req_rst three\nnone\n",
        "multi/m.txt": b"foo\nbar\nbaz foo\nbar end\n",
        "empty.txt": b"",
        "noeol.txt": b"last line PM_RESUME",
    }
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    os.symlink("src/main.c", root / "link_to_main.c")
    return root


QUERIES = [
    ["PM_RESUME"],
    ["-i", "PM_RESUME"],
    ["-w", "PM_RESUME"],
    ["[A-Z]+_RESUME"],
    ["ERR_SYS|PME_TURN_OFF|LINK_REQ_RST"],
    ["-i", "ERR_SYS|PME_TURN_OFF|LINK_REQ_RST"],
    [r"\wAh"],
    [r"\w{4}\s+\w{3}"],
    ["-F", "(PM_RESUME)"],
    ["--hidden", "PM_RESUME"],
    ["--no-ignore", "PM_RESUME"],
    ["-L", "PM_RESUME"],
    ["-v", "PM_RESUME", "words"],
    ["-C", "2", "hit", "ctx"],
    ["-A", "1", "-B", "3", "hit", "ctx"],
    ["-m", "1", "PM_RESUME"],
    ["-g", "*.c", "PM_RESUME"],
    ["-g", "!src/**", "PM_RESUME"],
    ["-t", "c", "resume", "-i"],
    ["--max-depth", "1", "PM_RESUME"],
    ["-e", "foo", "-e", "end"],
    ["-U", r"foo\nbar"],
    ["^line 1"],
    ["RESUME$"],
]


@pytest.mark.parametrize("argv", QUERIES, ids=[" ".join(q) for q in QUERIES])
def test_same_lines_as_rg(corpus, argv):
    expected = rg_events(corpus, *argv)
    got = sleuth_events(corpus, *argv)
    assert sorted(got) == sorted(expected)
    assert got == sorted(got, key=lambda e: (e[1].encode(), e[2], e[0] == "match"))


@pytest.fixture(scope="module")
def big_corpus(tmp_path_factory):
    """Enough files, deep enough, that grep uses its process pool and hands subtrees to workers."""
    root = tmp_path_factory.mktemp("big")
    (root / ".gitignore").write_text("*.o\nskip_me/\n")
    for a in range(6):
        for b in range(5):
            folder = root / f"pkg{a}" / f"mod{b}" / "src"
            folder.mkdir(parents=True)
            if b == 2:
                (root / f"pkg{a}" / f"mod{b}" / ".gitignore").write_text("gen_*\n!gen_keep.c\n")
            for c in range(12):
                body = "".join(f"static int value_{a}_{b}_{c}_{i} = {i};\n" for i in range(20))
                if (a + b + c) % 7 == 0:
                    body += f"#define PM_RESUME_{a}{b}{c} 1\n"
                (folder / f"file{c}.c").write_text(body)
                (folder / f"file{c}.o").write_text("PM_RESUME in an object file\n")
            (folder / "gen_table.c").write_text("PM_RESUME generated\n")
            (folder / "gen_keep.c").write_text("PM_RESUME kept\n")
            (folder / "skip_me").mkdir()
            (folder / "skip_me" / "x.c").write_text("PM_RESUME skipped\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


@pytest.mark.parametrize("argv", [["PM_RESUME"], ["-i", "pm_resume_1"], ["-w", "value_1_2_3_4"], ["-C", "1", "PM_RESUME"],
                                  ["-c", "value"]], ids=str)
def test_same_lines_as_rg_when_the_pool_and_subtrees_are_used(big_corpus, argv):
    if "-c" in argv:
        import json
        import sys
        from tests.diff.rg import RG
        expected = subprocess.run([RG, *argv], cwd=big_corpus, capture_output=True, text=True).stdout.split()
        got = subprocess.run([SLEUTH, "grep", *argv], cwd=big_corpus, capture_output=True,
                             text=True).stdout.split()
        assert sorted(got) == sorted(expected) and got == sorted(got, key=lambda s: s.rsplit(":", 1)[0].encode())
        return
    expected = rg_events(big_corpus, *argv)
    got = sleuth_events(big_corpus, *argv)
    assert sorted(got) == sorted(expected)
    assert got == sorted(got, key=lambda e: (e[1].encode(), e[2], e[0] == "match"))
