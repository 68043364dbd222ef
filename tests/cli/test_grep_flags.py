"""``sleuth grep``'s flag table (:mod:`sleuth.cli.grep_flags`, issue 32 item 2): each flag is one row, from
which the parser, the help text and the ``sleuth.grep`` request are made."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from sleuth.cli import grep_flags
from sleuth.cli.grep_flags import FLAGS, Flag, add_flags, request_args
from sleuth.commands.files import FILES_ARGS
from sleuth.commands.grep import GREP_ARGS
from tests.conftest import run_sleuth, write_tree


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="grep", allow_abbrev=False)
    parser.add_argument("paths", nargs="*")
    add_flags(parser)
    return parser


def test_each_row_sets_an_argument_of_the_request_and_no_argument_is_set_twice() -> None:
    owners = [flag for flag in FLAGS if flag.request is not None]
    assert {flag.request for flag in owners} <= set(GREP_ARGS)
    assert {flag.request for flag in owners if flag.files} <= set(FILES_ARGS)
    assert len({flag.request for flag in owners}) == len(owners)
    assert len({flag.key for flag in owners}) == len(owners)  # one row of a dest says what it means


def _given(flag: Flag) -> list[str]:
    """A command line that sets ``flag``'s dest to something other than its default."""
    name = next(n for n in flag.names if n.startswith("--"))
    if flag.action in ("store", "append"):
        options = flag.options
        value = (options["choices"][-1] if "choices" in options else "1K" if name == "--max-filesize"
                 else "3" if options.get("type") is int else "x")
        return [f"{name}={value}"]
    return [name]


@pytest.mark.parametrize("flag", [f for f in FLAGS if f.request is not None], ids=lambda f: f.names[-1])
def test_each_rows_flag_reaches_the_request(flag: Flag, tmp_path: Path) -> None:
    ns = _parser().parse_args(_given(flag))
    before = request_args(_parser().parse_args([]))
    after = request_args(ns)
    assert flag.request in after and after.get(flag.request) != before.get(flag.request), (after, before)


def test_a_new_row_is_a_flag_with_its_help_and_its_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """Adding a flag is adding a row: argparse, the help and the request follow from it."""
    row = Flag(("--demo-flag",), "a flag made for this test", no=("--no-demo-flag",), dest="demo_flag",
               request="demo", options={"default": None}, group=grep_flags.SEMANTICS)
    monkeypatch.setattr(grep_flags, "FLAGS", (*FLAGS, row))
    parser = _parser()
    assert "--demo-flag" in parser.format_help() and "a flag made for this test" in parser.format_help()
    assert request_args(parser.parse_args(["--demo-flag"]))["demo"] is True
    assert request_args(parser.parse_args(["--demo-flag", "--no-demo-flag"]))["demo"] is False
    assert "demo" not in request_args(parser.parse_args([]))


def test_rgs_deprecated_regex_switches_are_accepted_as_rg_accepts_them(tmp_path: Path) -> None:
    """rg 15.2 takes ``--no-pcre2-unicode``, ``--pcre2-unicode``, ``--auto-hybrid-regex`` and its
    ``--no-`` form (deprecated, no effect); ``sleuth grep`` refused them as unknown (exit 2)."""
    ws = write_tree(tmp_path / "ws", {"a.txt": "needle\n"})
    for flag in ("--no-pcre2-unicode", "--pcre2-unicode", "--auto-hybrid-regex", "--no-auto-hybrid-regex"):
        done = run_sleuth(ws, "grep", "--no-server", flag, "needle", "a.txt")
        assert (done.returncode, done.stdout) == (0, "needle\n"), (flag, done.stderr)


# -- the lean reader (issue 30 item 1): the namespace argparse would make, without argparse ---------------

def _sample(name: str, flag: Flag) -> str:
    """A value argparse takes for ``flag`` (given as ``name``)."""
    options = flag.options
    return (options["choices"][0] if "choices" in options else "2M" if name == "--max-filesize"
            else "7" if options.get("type") is int else "-x,y")


def _lines() -> list[list[str]]:
    """Every spelling of every row (its ``--no-`` forms too), then mixes: later flags override earlier
    ones, clusters, values that look like flags, paths among the flags, ``-e`` with a positional path."""
    lines: list[list[str]] = [[], ["pat"], ["pat", "a", "b/"], ["-e", "p", "x"], ["-e", "p", "-e", "q", "--", "-e"]]
    for flag in FLAGS:
        for name in flag.names:
            lines.append([name, _sample(name, flag), "pat"] if flag.action in ("store", "append") else [name, "pat"])
            lines.append([name, _sample(name, flag), name, _sample(name, flag), "pat", "."]
                         if flag.action in ("store", "append") else [name, name, "pat", "."])
        for name in flag.no:
            lines.append([*flag.names[:1], name, "pat"] if flag.action not in ("store", "append") else
                         [flag.names[0], _sample(flag.names[0], flag), name, "pat"])
    lines += [["-nC1", "-ie", "foo", "p"], ["-s", "-i", "-S", "p"], ["-uuu", "-X", "-X", "p"], ["-e", "-test", "x"],
              ["test", "--sort", "path", "mylink", "-g", "!*.md", "--iglob=*.PY"], ["-t", "py", "-T", "md", "p"],
              ["--color", "always", "--colors", "match:fg:red", "--colors=path:none", "p"], ["-0", "-c", "p", "-"],
              ["-A", "-1", "p"], ["--context-separator=", "--no-context-separator", "-C", "2", "p"]]
    return lines


@pytest.mark.parametrize("words", _lines(), ids=" ".join)
def test_the_lean_reader_reads_a_command_line_as_argparse_does(words: list[str]) -> None:
    """:func:`sleuth.cli.grep_flags.read_flags` (a cold ``sleuth grep`` without argparse) gives exactly
    the namespace ``sleuth grep``'s argparse parser gives, or says it cannot (argparse then reads it)."""
    from sleuth.cli import _parser, _subparser
    from sleuth.cli.grep import read_argv, read_namespace

    split = read_argv(words)
    lean = read_namespace(split)
    parser = _parser("grep")
    try:
        full, unknown = parser.parse_known_args(["grep", *split.options, "--", *split.positionals])
    except SystemExit:  # argparse refused it (its message): the lean reader must have left it to argparse
        assert lean is None
        return
    full.regexp = split.patterns
    if unknown:
        assert lean is None
        return
    assert lean is not None, (split.options, split.positionals)
    assert vars(lean) == vars(full)
    assert _subparser(parser, "grep") is not None


@pytest.mark.parametrize("words", [["-h"], ["--help", "p"], ["--bogus", "p"], ["-C", "x", "p"], ["-C"],
                                   ["--sort", "nope", "p"], ["--json=yes", "p"], ["-Z", "p"], ["--", "--", "p"],
                                   ["--max-filesize", "3Q", "p"]])
def test_the_lean_reader_leaves_what_argparse_says_to_argparse(words: list[str]) -> None:
    from sleuth.cli.grep import read_argv, read_namespace

    assert read_namespace(read_argv(words)) is None
