"""The ``sleuth`` CLI as a user runs it: a real process in a real temporary tree."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_sleuth, write_tree


sleuth = run_sleuth


@pytest.fixture
def tree(make_tree):
    return make_tree({
        "src/app.py": "def main():\n    return helper()\n\n\ndef helper():\n    return 42\n",
        "src/util.py": "HELPER = 'x'\n",
        "README.md": "# Demo\nrun main\n",
    })


def test_grep_pipe_output_is_path_line_text(tree):
    proc = sleuth(tree, "grep", "-n", "def main")
    assert proc.returncode == 0
    assert proc.stdout == "src/app.py:1:def main():\n"


def test_grep_exit_code_one_when_nothing_matches(tree):
    proc = sleuth(tree, "grep", "no-such-text-anywhere")
    assert proc.returncode == 1 and proc.stdout == ""


def test_grep_exit_code_two_on_bad_regex_with_a_hint(tree):
    proc = sleuth(tree, "grep", "(unclosed")
    assert proc.returncode == 2
    assert "hint:" in proc.stderr


def test_grep_json_is_the_command_result(tree):
    proc = sleuth(tree, "grep", "--result-json", "-i", "helper")
    result = json.loads(proc.stdout)
    assert {"matches", "count", "truncated", "timed_out", "files_scanned", "skipped", "errors"} <= set(result)
    assert [(m["path"], m["line"]) for m in result["matches"]] == [
        ("src/app.py", 2), ("src/app.py", 5), ("src/util.py", 1)]


def test_grep_outside_the_sandbox_is_refused(tree):
    proc = sleuth(tree, "grep", "--result-json", "x", "..")
    assert proc.returncode == 2
    assert json.loads(proc.stdout)["error"]["code"] == "sandbox_violation"


def test_grep_context_separators_like_rg(tree):
    proc = sleuth(tree, "grep", "-n", "-A1", "return", "src/app.py")
    assert proc.stdout == "2:    return helper()\n3-\n--\n6:    return 42\n"


def test_grep_files_with_matches_and_count(tree):
    assert sleuth(tree, "grep", "-l", "return").stdout == "src/app.py\n"
    assert sleuth(tree, "grep", "-c", "return").stdout == "src/app.py:2\n"


def test_files_by_glob(tree):
    proc = sleuth(tree, "files", "*.py")
    assert proc.stdout.splitlines() == ["src/app.py", "src/util.py"]


def test_cli_start_does_not_import_the_lsp_stack(tree):
    code = ("import sys\nfrom sleuth.cli import main\nrc = main(['grep', '-q-not-a-flag'] if False else "
            "['grep', 'main', '--result-json'])\nassert 'pygls' not in sys.modules and 'lsprotocol' not in sys.modules, "
            "sorted(m for m in sys.modules if m.startswith(('pygls', 'lsprotocol')))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tree, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_cold_grep_does_not_import_the_index_builders_numpy(tree):
    """numpy costs ~130 ms at every start here; only building or querying an index needs it."""
    code = ("import sys\nfrom sleuth.cli import main\nmain(['grep', 'main', '--result-json'])\n"
            "assert 'numpy' not in sys.modules and 'sleuth.engine.index.service' not in sys.modules\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tree, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_index_build_then_ranked_text_finds_the_definition(tree):
    built = json.loads(sleuth(tree, "index", "build", "--json").stdout)
    assert built["state"] == "ready" and built["files"] == 3
    assert str(tree) not in built["store_path"]  # the store never lives in the workspace
    proc = sleuth(tree, "text", "--json", "helper")
    first = json.loads(proc.stdout)["results"][0]
    assert (first["path"], first["line"]) == ("src/app.py", 5)
    status = sleuth(tree, "index", "status")
    assert "ready" in status.stdout


def test_symbols_finds_definitions_by_name_and_kind(tree):
    proc = sleuth(tree, "symbols", "helper")
    assert (proc.returncode, proc.stdout) == (0, "src/app.py:5: function helper\nsrc/util.py:1: variable HELPER\n")
    only = json.loads(sleuth(tree, "symbols", "--json", "--kind", "variable", "helper").stdout)
    assert [(r["name"], r["kind"], r["line"], r["match"]) for r in only["results"]] == [("HELPER", "variable", 1, "same_key")]
    assert sleuth(tree, "symbols", "Demo").stdout == "README.md:1: string Demo\n"
    assert sleuth(tree, "symbols", "zzzqqqxxx").returncode == 1


def test_text_exit_code_one_when_nothing_matches(tree):
    assert sleuth(tree, "text", "zzzqqqxxx").returncode == 1


def test_grep_json_over_several_paths_keeps_a_later_paths_truncation_reason(tree):
    """Only the second path is cut: the merged answer says why (it used to keep the first path's None)."""
    proc = sleuth(tree, "grep", "--result-json", "--max-results", "1", "-i", "helper", "src/util.py", "src/app.py")
    result = json.loads(proc.stdout)
    assert result["truncated"] is True and result["truncated_reason"] is not None


def test_the_cold_cli_runs_under_the_core_policy_and_writes_the_log_line(tmp_path: Path) -> None:
    """The CLI runs a command through the core's Session.run like every other door: the person's
    ``log_file`` gets the same sanitised line (before, the CLI wrote none), tagged ``cli``."""
    log = tmp_path / "sleuth.log"
    config = write_tree(tmp_path / "config", {"sleuth/config.yml": f"log_file: {log}\n"})
    ws = write_tree(tmp_path / "ws", {"a.txt": "needle\n"})
    env = {"XDG_CONFIG_HOME": str(config), "SLEUTH_NO_SERVER": "1"}
    assert run_sleuth(ws, "grep", "needle", env=env).returncode == 0
    assert run_sleuth(ws, "grep", "(", env=env).returncode == 2
    assert run_sleuth(ws, "tools", "call", "codex.grep_files", "--args", '{"pattern": "needle"}', env=env).returncode == 0
    lines = log.read_text().splitlines()
    assert [line.split(" ", 1)[1].split(" in ")[0] for line in lines] == [
        'cli sleuth.grep query="needle" -> 1 result', 'cli sleuth.grep query="(" -> bad_args',
        'cli sleuth.tools.call query="codex.grep_files needle" -> ok'], lines


def test_index_status_reports_without_building(tree, tmp_path: Path) -> None:
    """Issue 30 item 5: ``status`` built the index (seconds on a big tree, a ``last_build`` inside the
    call) and printed Python's ``None``. It reads what is on disk; its exit status says whether there
    is an index: 1 none, 0 one (ready, or stale once the tree changed)."""
    cache = tmp_path / "status-cache"
    before = sleuth(tree, "index", "status", cache=cache)
    assert before.returncode == 1, before.stderr
    assert before.stdout.splitlines()[0].split() == ["state", "absent"]
    assert "None" not in before.stdout and "sleuth index build" in before.stderr
    assert not list(cache.rglob("gen-*")), "status built an index"
    as_json = json.loads(sleuth(tree, "index", "status", "--json", cache=cache).stdout)
    assert (as_json["state"], as_json["last_build"]) == ("absent", None)
    built = json.loads(sleuth(tree, "index", "build", "--json", cache=cache).stdout)
    after = sleuth(tree, "index", "status", cache=cache)
    assert after.returncode == 0 and "None" not in after.stdout
    lines = dict(line.split(None, 1) for line in after.stdout.splitlines())
    assert (lines["state"], lines["last_build"]) == ("ready", built["last_build"])  # the build's, not a new one
    (tree / "new.txt").write_text("changed\n")
    stale = json.loads(sleuth(tree, "index", "status", "--json", cache=cache).stdout)
    assert (stale["state"], stale["pending_updates"], stale["last_build"]) == ("stale", 1, built["last_build"])
