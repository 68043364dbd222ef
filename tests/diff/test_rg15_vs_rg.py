"""Differential tests of what rg 15 changed (issue 30 item 7): ``sleuth grep`` against rg 15.2.

One test per behaviour of the 15.0-15.2 CHANGELOG that ``sleuth grep``'s flags cover: Jujutsu
repositories read like git's, nested glob alternates and the globs rg refuses, ``-vf`` with an
empty pattern file, ``-q --files-without-match``'s exit status, "nothing searched" only without a
path, ``--hyperlink-format`` checked as rg checks it, ``italic`` and ``highlight`` in ``--colors``, a BOM in a
``.gitignore``; the flags the port of rg's tests found missing (``--ignore-file-case-insensitive``,
``--stop-on-nonmatch``, ``-b``); and ``-X/--index`` (rg's coming index flag, which rg 15.2 refuses)
accepted with no effect. ``-r`` with ``--json``, ``-r --crlf``'s line ends, ``-U -r`` and ``--mmap``
are in ``test_json_vs_rg.py`` and ``test_rg_semantics_vs_rg.py``; rg's own cases in
``test_rg_suite.py``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import SLEUTH
from tests.diff.rg import RG, needs_rg

pytestmark = [pytest.mark.rg, needs_rg]


def _rg(cwd: Path, argv: list[str]) -> tuple[int, bytes, bytes]:
    proc = subprocess.run([RG, "--no-config", *argv], cwd=cwd, capture_output=True, stdin=subprocess.DEVNULL,
                          timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def _sleuth(cwd: Path, argv: list[str]) -> tuple[int, bytes, bytes]:
    proc = subprocess.run([SLEUTH, "grep", "--no-server", *argv], cwd=cwd, capture_output=True,
                          stdin=subprocess.DEVNULL, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def _same(cwd: Path, argv: list[str]) -> None:
    """Same exit status and output; rg's message (if any) word for word after the program's name."""
    want, got = _rg(cwd, argv), _sleuth(cwd, argv)
    assert got[:2] == want[:2], (argv, got, want)
    if want[2]:
        assert got[2].replace(b"sleuth grep: ", b"rg: ") == want[2], (argv, got[2], want[2])


def _tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, text in files.items():
        path = root / rel
        if rel.endswith("/"):  # a folder
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode() if isinstance(text, str) else text)
    return root


@pytest.fixture
def jj(tmp_path: Path) -> Path:
    """A Jujutsu repository (``.jj``, no ``.git``) whose ``.gitignore`` ignores a file, inside a
    folder with a ``.gitignore`` of its own that jj's root stops."""
    return _tree(tmp_path, {
        ".gitignore": "kept-by-jj.txt\n",
        "repo/.jj/repo/store/x": "",
        "repo/.gitignore": "ignored.txt\n*.log\n",
        "repo/ignored.txt": "hit\n",
        "repo/a.log": "hit\n",
        "repo/kept.txt": "hit\n",
        "repo/kept-by-jj.txt": "hit\n",
        "repo/sub/x.txt": "hit\n",
        "repo/sub/.gitignore": "!a.log\n",
        "repo/sub/a.log": "hit\n",
    })


@pytest.mark.parametrize(("where", "argv"), [
    ("repo", ["--sort", "path", "hit"]),
    ("repo", ["--sort", "path", "--files"]),
    ("repo/sub", ["--sort", "path", "hit"]),
    ("repo", ["--sort", "path", "--no-ignore-vcs", "hit"]),
    ("repo", ["--sort", "path", "-c", "hit", "sub", "kept-by-jj.txt"]),
])
def test_a_jj_repository_is_read_like_a_git_one(jj: Path, where: str, argv: list[str]) -> None:
    _same(jj / where, argv)


@pytest.mark.parametrize("glob", [
    "*.{txt,{md,rs}}", "{a,{b,c}}*", "*.{t{x,y}t,log}",  # rg 15: alternates nest
    "[abc", "{a", "a}", "a\\", "[z-a]", "{a,{b,c}", "[]", "![abc",  # refused, in rg's words
])
def test_globs_nest_and_bad_ones_are_refused_as_rg_does(tmp_path: Path, glob: str) -> None:
    _tree(tmp_path, {"a.txt": "x\n", "b.md": "x\n", "c.rs": "x\n", "d.py": "x\n", "a.log": "x\n", "e.tyt": "x\n"})
    _same(tmp_path, ["--sort", "path", "--files", "-g", glob])
    _same(tmp_path, ["--sort", "path", "--iglob", glob, "x"])


@pytest.mark.parametrize("argv", [
    ["-f", "zero", "hay"], ["-vf", "zero", "hay"], ["-f", "one", "hay"], ["-vf", "one", "hay"],
    ["-vcf", "zero", "hay"], ["--json", "-vf", "zero", "hay"],
])
def test_invert_with_no_pattern_matches_every_line(tmp_path: Path, argv: list[str]) -> None:
    _tree(tmp_path, {"zero": "", "one": "\n", "hay": "one\ntwo\nthree\n"})
    if "--json" in argv:  # (times differ: compare the lines only)
        want, got = _rg(tmp_path, argv), _sleuth(tmp_path, argv)
        assert got[0] == want[0] and got[1].count(b'"type":"match"') == want[1].count(b'"type":"match"') == 3
        return
    _same(tmp_path, argv)


@pytest.mark.parametrize("argv", [
    ["-q", "--files-without-match", "abc", "non-match"], ["-q", "--files-without-match", "abc", "yes-match"],
    ["-q", "--files-without-match", "abc"], ["--files-without-match", "-q", "zzz"],
    ["--files-without-match", "abc", "non-match"],
])
def test_quiet_files_without_match_exits_as_rg_15(tmp_path: Path, argv: list[str]) -> None:
    _tree(tmp_path, {"yes-match": "abc\n", "non-match": "xyz\n"})
    _same(tmp_path, argv)


@pytest.mark.parametrize("argv", [["Sample", "a"], ["Sample", "a", "a/b"], ["Sample"]])
def test_nothing_searched_is_an_error_only_without_a_path(tmp_path: Path, argv: list[str]) -> None:
    _tree(tmp_path, {".ignore": "/a/b\n", "a/b/test.txt": "Sample text\n"})
    want, got = _rg(tmp_path, argv), _sleuth(tmp_path, argv)
    assert got[:2] == want[:2], (got, want)
    assert bool(got[2]) == bool(want[2])  # the warning, in Sleuth's words, exactly when rg gives it


@pytest.mark.parametrize("fmt", [
    "default", "none", "vscode", "cursor", "file://{host}{path}#{line}", "", "x://{path}:{line}:{column}",
    "bogus", "x{line}", "ab{path}{column}", "file://{path}}", "x://{path", "x://{nope}", "{path}",
])
def test_hyperlink_format_is_checked_as_rg_checks_it(tmp_path: Path, fmt: str) -> None:
    _tree(tmp_path, {"f.txt": "foo bar\n"})
    _same(tmp_path, ["--hyperlink-format", fmt, "foo", "f.txt"])


def test_italic_is_a_style_and_bom_in_gitignore_is_skipped(tmp_path: Path) -> None:
    _tree(tmp_path, {".git/": "", ".gitignore": b"\xef\xbb\xbfignored.txt\n", "ignored.txt": "hit\n", "k.txt": "hit\n"})
    assert b"ignored" not in _rg(tmp_path, ["hit"])[1]
    _same(tmp_path, ["--sort", "path", "hit"])
    for spec in ("match:style:italic", "match:style:noitalic", "path:style:italic"):
        _same(tmp_path, ["--color", "always", "--colors", spec, "--sort", "path", "hit"])


def test_index_flag_is_accepted_and_changes_nothing(tmp_path: Path) -> None:
    """rg 15.2 does not know ``-X`` yet (its coming index flag): Sleuth takes it, and prints what rg
    prints without it; its help line says why it changes nothing."""
    _tree(tmp_path, {"f.txt": "foo\n", "g.txt": "foo bar\n"})
    want = _rg(tmp_path, ["--sort", "path", "-n", "foo"])
    for flags in (["-X"], ["--index"], ["-XX"], ["-Xn"]):
        assert _sleuth(tmp_path, [*flags, "--sort", "path", "-n", "foo"]) == want
    help_text = _sleuth(tmp_path, ["-h"])[1].decode()
    line = next(line for line in help_text.splitlines() if "--index" in line)
    assert "-X" in line and "index" in line.split("--index", 1)[1]
    assert "always" in help_text.split("--index", 1)[1].split("\n  -", 1)[0]


@pytest.mark.parametrize("argv", [
    ["--ignore-file-case-insensitive", "test"], ["--ignore-file-case-insensitive", "--no-ignore-file-case-insensitive",
                                                 "test"],
    ["--ignore-file-case-insensitive", "--files"], ["--ignore-file-case-insensitive", "-l", "test", "sub"],
])
def test_ignore_files_read_case_insensitively(tmp_path: Path, argv: list[str]) -> None:
    """``--ignore-file-case-insensitive`` (a flag the port of rg's tests found missing)."""
    _tree(tmp_path, {".git/": "", ".gitignore": "myfile\n*.LOG\n", "MYFILE": "test\n", "a.log": "test\n",
                     "keep.txt": "test\n", "sub/.ignore": "Other\n", "sub/other": "test\n", "sub/x": "test\n"})
    _same(tmp_path, ["--sort", "path", *argv])


@pytest.mark.parametrize("argv", [
    [], ["-A1"], ["-A2", "-n"], ["-B1", "-n"], ["-c"], ["-v"], ["-o"], ["-l"], ["-n", "a", "so", "all"],
])
def test_stop_on_nonmatch_reads_to_the_first_line_after_a_run(tmp_path: Path, argv: list[str]) -> None:
    """``--stop-on-nonmatch`` (a flag the port of rg's tests found missing)."""
    _tree(tmp_path, {"so": "x\na1\na2\nb\na3\nc\n", "all": "a\na\n"})
    _same(tmp_path, ["--sort", "path", "--stop-on-nonmatch", *(argv if len(argv) > 2 else [*argv, "a", "so"])])


@pytest.mark.parametrize("argv", [
    ["-b"], ["-b", "-n", "--column"], ["-b", "-o", "-n"], ["-b", "-C1", "-n"], ["-b", "--vimgrep"], ["-b", "-o"],
    ["-b", "-H", "--no-heading"], ["-b", "--no-byte-offset"],
])
def test_byte_offset_is_rgs(tmp_path: Path, argv: list[str]) -> None:
    """``-b/--byte-offset`` (a flag the port of rg's tests found missing): the line's offset, the match's with -o."""
    _tree(tmp_path, {"sh": "For the Doctor Sherlock\nnothing\nxx Sherlock yy Sherlock\n", "t": "\ufeffSherlock\n"})
    _same(tmp_path, ["--sort", "path", *argv, "Sherlock", "sh", "t"])


@pytest.mark.parametrize("which", ["GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"])
def test_git_config_variables_name_the_global_excludes(tmp_path: Path, which: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """rg 15.2 reads ``core.excludesFile`` from $GIT_CONFIG_GLOBAL, and last from the system config
    ($GIT_CONFIG_SYSTEM, else /etc/gitconfig); a home without a git config of its own here."""
    work = _tree(tmp_path / "w", {".git/": "", "foo1": "hit\n", "foo2": "hit\n", "bar": "hit\n"})
    _tree(tmp_path, {"excludes": "foo2\n", "config": f"[core]\n\texcludesFile = {tmp_path / 'excludes'}\n"})
    for name, value in {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
                        "GIT_CONFIG_GLOBAL": "", "GIT_CONFIG_SYSTEM": str(tmp_path / "none")}.items():
        monkeypatch.setenv(name, value)
    _same(work, ["--sort", "path", "hit"])  # nothing excluded
    monkeypatch.setenv(which, str(tmp_path / "config"))
    want = _rg(work, ["--sort", "path", "hit"])
    assert b"foo2" not in want[1]
    _same(work, ["--sort", "path", "hit"])


@pytest.mark.parametrize("argv", [
    ["--colors", "highlight:bg:yellow"], ["-n", "--colors", "highlight:fg:green", "--colors", "highlight:style:bold"],
    ["-o", "--colors", "highlight:bg:yellow"], ["--colors", "highlight:none"], ["-C1", "--colors", "highlight:bg:blue"],
    ["--vimgrep", "--colors", "highlight:bg:yellow"], ["--colors", "highlight:style:nobold"],
    ["--colors", "highlight:style:bogus"], ["--colors", "match:style:"],
])
def test_highlight_colours_the_rest_of_a_matching_line(tmp_path: Path, argv: list[str]) -> None:
    """rg 15's ``highlight`` colour type, and its list of styles (with ``italic``) in a bad spec's message."""
    _tree(tmp_path, {"hl": "aa hit bb hit cc\nzz\n"})
    _same(tmp_path, ["--color", "always", *argv, "hit", "hl"])


@pytest.mark.parametrize("argv", [
    ["-l", "-c"], ["-c", "-l"], ["-lc"], ["-cl"], ["-l", "--count-matches"], ["--count-matches", "-l"],
    ["--files-without-match", "-l"], ["-l", "--files-without-match"], ["--files-without-match", "-c"],
    ["-c", "--count-matches"], ["--count-matches", "-c"], ["--json", "-c"], ["--json", "-l"],
    ["-l", "-c", "--no-config"],  # (a flag that is no mode between: the last mode still wins)
], ids=" ".join)
def test_the_last_search_mode_wins_as_in_rg_15(tmp_path: Path, argv: list[str]) -> None:
    """rg 15's ``-l``, ``-c``, ``--count-matches``, ``--files-without-match`` and ``--json`` replace each
    other, the last one given winning; Sleuth let ``-l`` win whatever the order."""
    _tree(tmp_path, {"a.txt": "foo bar\nbaz foo\n", "b.txt": "foo foo\n", "c.txt": "nothing\n"})
    _same(tmp_path, ["--sort", "path", *argv, "foo"])


@pytest.mark.parametrize("mode", ["-c", "-l", "--count-matches", "--files-without-match"])
def test_json_after_a_mode_prints_the_matches(tmp_path: Path, mode: str) -> None:
    """``-c --json`` is rg's JSON of every match (Sleuth printed begin/end records without the matches)."""
    import json

    _tree(tmp_path, {"a.txt": "foo bar\nbaz foo\n", "b.txt": "foo foo\n", "c.txt": "nothing\n"})

    def records(out: bytes) -> list[tuple[str, str, int | None]]:
        rows = [json.loads(line) for line in out.splitlines()]
        return [(r["type"], r["data"].get("path", {}).get("text", ""), r["data"].get("line_number"))
                for r in rows if r["type"] != "summary"]

    want, got = _rg(tmp_path, ["--sort", "path", mode, "--json", "foo"]), _sleuth(tmp_path, ["--sort", "path", mode, "--json", "foo"])
    assert got[0] == want[0] and records(got[1]) == records(want[1])


@pytest.mark.parametrize("argv", [["--json", "foo("], ["--json", "foo(", "a.txt", "b.txt"], ["-c", "foo(", "a.txt", "b.txt"],
                                  ["--stats", "foo("], ["--json", "foo", "missing"]], ids=" ".join)
def test_a_refused_pattern_is_said_once_and_prints_nothing(tmp_path: Path, argv: list[str]) -> None:
    """A bad regex stops rg before any output: no ``--json`` summary (Sleuth printed one), one message
    however many paths (Sleuth said it once a path). A missing path is not that: the rest still runs."""
    _tree(tmp_path, {"a.txt": "foo bar\n", "b.txt": "foo\n"})
    want, got = _rg(tmp_path, argv), _sleuth(tmp_path, argv)
    assert got[0] == want[0]
    if want[1]:  # (the summary of the missing path's run: its timings differ)
        assert got[1].count(b'"type":"summary"') == want[1].count(b'"type":"summary"') == 1
    else:
        assert got[1] == b""
    assert got[2].count(b"sleuth: ") == want[2].count(b"rg: ") == 1


@pytest.mark.parametrize("argv", [
    ["-n", "-m1", "-A1"], ["-n", "-m1", "-A3"], ["-n", "-m2", "-A2"], ["-n", "-m1", "-C1"], ["-n", "-m3", "-B1", "-A1"],
    ["-m1", "-A2", "-o"], ["-m1", "-A2", "-b"], ["-c", "-m1", "-A2"], ["-c", "-m1", "-C1"], ["--count-matches", "-m1", "-A2"],
    ["-c", "-m2", "-A5"], ["-n", "-m1", "-A1", "-v"],
], ids=" ".join)
def test_a_line_that_matches_in_the_last_after_context_is_a_match(tmp_path: Path, argv: list[str]) -> None:
    """rg reads the after-context of ``-m``'s last match on: a line there that matches is printed as a
    match (``2:foo``) and counted by ``-c``, without counting for ``-m`` or widening the context; Sleuth
    printed it as context (``2-foo``) and ``-c -m1 -A2`` said 1."""
    _tree(tmp_path, {"q.txt": "foo\nfoo\nx\nfoo\ny\nz\nw\nfoo\nfoo\n"})
    _same(tmp_path, [*argv, "foo", "q.txt"])
