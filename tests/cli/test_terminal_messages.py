"""The CLI speaks to a person at a terminal (issue 30 item 3): errors and hints name its flags, not
the commands' argument names; a usage error is rg's one line and a one-line usage; every flag has a
one-line help. ``--json``'s error object keeps the argument names (scripts read it as the other
doors' errors)."""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_sleuth, write_tree
from tests.diff.rg import RG


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "ws", {"a.py": "def run():\n    return 1\n"})


def _lines(text: str) -> list[str]:
    return text.splitlines()


def test_a_bad_regex_names_dash_f_not_the_argument(ws: Path) -> None:
    proc = run_sleuth(ws, "grep", "--no-server", "(")
    assert proc.returncode == 2
    assert "use -F to search for literal text" in proc.stderr and "fixed_strings" not in proc.stderr
    assert "call again" not in proc.stderr and "hint: Fix PATTERN and run again." in proc.stderr
    as_json = json.loads(run_sleuth(ws, "grep", "--no-server", "--result-json", "(").stdout)
    assert "set fixed_strings" in as_json["error"]["message"]  # the object every door returns, unchanged


def test_files_names_its_flags_and_gives_a_command_line_as_the_example(ws: Path) -> None:
    proc = run_sleuth(ws, "files", "--no-server", "-q", "grep", "run")
    assert proc.returncode == 2
    assert _lines(proc.stderr) == [
        "sleuth: pass either GLOB (globs) or -q (fuzzy), not both.",
        "  hint: Use sleuth files '**/*.py' to list by glob or sleuth files -q usrctl to rank by name."]


def test_a_bad_value_names_the_flag(ws: Path) -> None:
    proc = run_sleuth(ws, "grep", "--no-server", "--timeout-ms", "0", "run")
    assert proc.returncode == 2 and "--timeout-ms must be at least 1" in proc.stderr and "timeout_ms" not in proc.stderr


@pytest.mark.parametrize("argv, first", [
    (["--foo", "x"], "sleuth grep: unrecognized flag --foo"),
    (["-C", "x", "run"], "sleuth grep: error parsing flag -C: 'x' is not a valid number"),
    (["--sort", "bogus", "run"], "sleuth grep: error parsing flag --sort: choice 'bogus' is unrecognized"),
])
def test_a_usage_error_is_one_line_and_a_one_line_usage(ws: Path, argv: list[str], first: str) -> None:
    proc = run_sleuth(ws, "grep", *argv)
    lines = _lines(proc.stderr)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(lines) == 2 and lines[0].startswith(first), lines
    assert lines[1] == "usage: sleuth grep [OPTIONS] [PATTERN] [PATH ...] (flags: sleuth grep --help)"
    if RG is not None:  # rg words the same error the same way and exits 2 too
        rg = subprocess.run([RG, *argv], cwd=ws, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        assert rg.returncode == 2 and first.split(": ", 1)[1].split(":")[0] in rg.stderr


def test_other_subcommands_report_their_own_usage(ws: Path) -> None:
    proc = run_sleuth(ws, "text")
    assert proc.returncode == 2
    assert _lines(proc.stderr)[-1] == "usage: sleuth text [OPTIONS] QUERY (flags: sleuth text --help)"
    assert run_sleuth(ws, "files", "--bogus").stderr.startswith("sleuth files: unrecognized flag --bogus\n")


def _every_parser() -> list[argparse.ArgumentParser]:
    from sleuth.cli import _parser

    found: list[argparse.ArgumentParser] = []

    def walk(parser: argparse.ArgumentParser) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for child in action.choices.values():
                    found.append(child)
                    walk(child)
    walk(_parser(None))
    return found


def test_every_flag_has_a_one_line_help() -> None:
    undescribed = [(p.prog, a.option_strings or a.dest) for p in _every_parser() for a in p._actions if not a.help]
    assert undescribed == []
    hidden = [s for p in _every_parser() for a in p._actions if a.help == argparse.SUPPRESS for s in a.option_strings]
    assert all(s.startswith("--ignore-") for s in hidden), hidden  # rg's negations of --no-ignore-X only


def test_grep_help_is_short_usage_then_one_line_per_flag(ws: Path) -> None:
    proc = run_sleuth(ws, "grep", "--help", env={"COLUMNS": "200"})
    lines = _lines(proc.stdout)
    assert proc.returncode == 0 and lines[0] == "usage: sleuth grep [OPTIONS] [PATTERN] [PATH ...]"
    assert "  -F, --fixed-strings" in proc.stdout and "  -C, --context NUM" in proc.stdout
    flags = [line for line in lines if line.startswith("  -")]
    assert flags and [line for line in flags if "  " not in line.strip()] == []  # the help beside the flag


def test_the_flag_table_is_the_parsers() -> None:
    """The messages' argument -> flag table comes from the flag definitions (each subcommand's
    ARGUMENT_DESTS only says which dest sets an argument of another name)."""
    import importlib

    from sleuth.cli import SUBCOMMANDS
    from sleuth.cli.terminal import flag_table

    parsers = {p.prog.split()[-1]: p for p in _every_parser()}
    for name, module in SUBCOMMANDS.items():
        dests = getattr(importlib.import_module(module), "ARGUMENT_DESTS", None)
        if dests is None:
            continue
        known = {a.dest for a in parsers[name]._actions}
        assert set(dests.values()) <= known, (name, set(dests.values()) - known)
    grep = flag_table(parsers["grep"], importlib.import_module("sleuth.cli.grep").ARGUMENT_DESTS)
    assert {k: grep[k] for k in ("fixed_strings", "include_globs", "exclude_globs", "file_types", "max_results",
                                 "timeout_ms", "pattern", "path", "max_matches_per_file", "before", "word")} == {
        "fixed_strings": "-F", "include_globs": "-g", "exclude_globs": "-g", "file_types": "-t",
        "max_results": "--max-results", "timeout_ms": "--timeout-ms", "pattern": "PATTERN", "path": "PATH",
        "max_matches_per_file": "-m", "before": "-B", "word": "-w"}
