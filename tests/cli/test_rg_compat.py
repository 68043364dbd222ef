"""The ``sleuth grep`` bugs found by running ripgrep's own tests (issue 19), one test each: what rg 14.1
prints for the command line is what Sleuth must print (the whole port: tests/diff/test_rg_suite.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import run_sleuth, write_tree


def grep(cwd: Path, *argv: str):
    return run_sleuth(cwd, "grep", "--no-server", *argv, cache=cwd.parent / "cache")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "ws", {"file.py": "a -test line\nplain\n", "dir/x.txt": "test in dir\n"})


def test_a_pattern_that_starts_with_a_dash(ws: Path) -> None:
    proc = grep(ws, "-e", "-test", "file.py")
    assert (proc.returncode, proc.stdout) == (0, "a -test line\n"), proc.stderr


def test_a_path_after_options(ws: Path) -> None:
    os.symlink(ws / "dir", ws / "mylink")
    proc = grep(ws, "test", "--no-ignore", "--sort", "path", "mylink")
    assert (proc.returncode, proc.stdout) == (0, "mylink/x.txt:test in dir\n"), proc.stderr


def test_paths_are_shown_as_typed(ws: Path) -> None:
    assert grep(ws, "test", "./dir").stdout == "./dir/x.txt:test in dir\n"
    assert grep(ws, "-n", "test", "dir/").stdout == "dir/x.txt:1:test in dir\n"


def test_parent_ignore_files_apply_outside_a_repository(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "top", {".ignore": "sub/skipped.txt\n", "sub/skipped.txt": "needle\n",
                                         "sub/kept.txt": "needle\n"})
    proc = grep(root / "sub", "needle")
    assert (proc.returncode, proc.stdout) == (0, "kept.txt:needle\n"), proc.stderr


def test_type_all_and_an_unknown_type(ws: Path) -> None:
    (ws / "notype").write_text("test without a type\n")
    assert grep(ws, "-t", "all", "test").stdout == "dir/x.txt:test in dir\nfile.py:a -test line\n"
    proc = grep(ws, "-t", "nosuchtype", "test")
    assert proc.returncode == 2 and "unrecognized file type: nosuchtype" in proc.stderr


def test_an_empty_pattern_matches_every_line_and_nul_is_refused(ws: Path) -> None:
    assert grep(ws, "-e", "", "file.py").stdout == "a -test line\nplain\n"
    assert grep(ws, "-F", "-e", "", "-e", "a.b", "file.py").stdout == "a -test line\nplain\n"
    (ws / "patterns").write_bytes(b"foo\x00?\n")  # a NUL cannot be passed in argv: -f can pass one
    proc = grep(ws, "-f", "patterns", "file.py")
    assert proc.returncode == 2 and "NUL" in proc.stderr


def test_nothing_searched_is_reported(ws: Path) -> None:
    proc = grep(ws, "-g", "*.nothing", "test")
    assert proc.returncode == 2 and "No files were searched" in proc.stderr


def test_a_missing_path_does_not_hide_the_others(ws: Path) -> None:
    proc = grep(ws, "plain", "file.py", "no-such-file")
    assert (proc.returncode, proc.stdout) == (2, "file.py:plain\n")
    assert "no-such-file" in proc.stderr


def test_rg_flag_values_and_overrides(ws: Path) -> None:
    assert grep(ws, "--max-filesize", "45k", "test").returncode == 2  # rg: K, M or G, upper case
    assert grep(ws, "--max-filesize", "45K", "plain", "file.py").stdout == "plain\n"
    assert grep(ws, "-i", "-s", "PLAIN", "file.py").returncode == 1  # the last of -i/-s/-S wins
    assert grep(ws, "-s", "-i", "PLAIN", "file.py").stdout == "plain\n"
    proc = grep(ws, "-m0", "plain")
    assert (proc.returncode, proc.stdout) == (1, "")


def test_json_is_rgs_json_lines_and_result_json_the_command_result(ws: Path) -> None:
    lines = [json.loads(line) for line in grep(ws, "--json", "plain", "file.py").stdout.splitlines()]
    assert [m["type"] for m in lines] == ["begin", "match", "end", "summary"]
    match = lines[1]["data"]
    assert match["path"] == {"text": "file.py"} and match["lines"] == {"text": "plain\n"}
    assert match["line_number"] == 2 and match["submatches"] == [{"match": {"text": "plain"}, "start": 0, "end": 5}]
    result = json.loads(grep(ws, "--result-json", "plain", "file.py").stdout)
    assert result["count"] == 1 and result["matches"][0]["path"] == "file.py"
