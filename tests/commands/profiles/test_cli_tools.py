"""``sleuth tools list|schema|describe|call`` as a user runs it: a real process per invocation.
Seed 004's ``acode tool ...`` scenarios map onto these commands (scenarios 4, 5, 6, 8)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_sleuth

from sleuth.cli.tools import parse_call_arguments
from sleuth.engine.errors import BadArgs


def sleuth(cwd: Path, *args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    return run_sleuth(cwd, "tools", *args, cache=cache)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "grep-test"
    root.mkdir()
    (root / "code.cs").write_text("// TODO: Implement validation\npublic class Handler\n{\n    // FIXME: broken\n}\n")
    return root


def test_scenario_8_list_schema_describe(repo, tmp_path):
    listed = sleuth(repo, "list", cache=tmp_path)
    assert listed.returncode == 0
    names = [line.split()[0] for line in listed.stdout.splitlines()]
    assert {"acode.search_text", "acode.search_files", "acode.grep", "forge.Search", "codex.grep_files"} <= set(names)
    as_json = json.loads(sleuth(repo, "list", "--profile", "forge", "--json", cache=tmp_path).stdout)
    assert [t["name"] for t in as_json["tools"]] == ["forge.search_files", "forge.Search"]
    schema = json.loads(sleuth(repo, "schema", "acode.search_text", cache=tmp_path).stdout)
    assert schema["required"] == ["query"] and "file_type" in schema["properties"]
    described = sleuth(repo, "describe", "acode.grep", cache=tmp_path).stdout
    assert "Search for a pattern" in described and "pattern: string (required)" in described


def test_call_prints_content_and_exit_codes(repo, tmp_path):
    done = sleuth(repo, "call", "acode.grep", "--args", '{"pattern": "TODO"}', cache=tmp_path)
    assert done.returncode == 0
    assert json.loads(done.stdout) == {"total": 1, "results": [{"path": "code.cs", "line": 1,
                                                                 "match": "// TODO: Implement validation"}]}
    pairs = sleuth(repo, "call", "acode.grep", "--pattern", "TODO:|FIXME:", "--regex", "true", cache=tmp_path)
    assert json.loads(pairs.stdout)["total"] == 2
    bad = sleuth(repo, "call", "acode.grep", "--pattern", "[invalid", "--regex", "true", cache=tmp_path)
    assert bad.returncode == 1 and json.loads(bad.stdout)["code"] == "ACODE-SRC-002"  # scenario 6 test 3
    unknown = sleuth(repo, "call", "nope.tool", cache=tmp_path)
    assert unknown.returncode == 2 and "sleuth.tools.list" in unknown.stderr
    envelope = json.loads(sleuth(repo, "call", "codex.grep_files", "--pattern", "Handler", "--json", cache=tmp_path).stdout)
    assert envelope == {"content": str(repo / "code.cs"), "is_error": False}


def test_scenario_5_rate_limit_across_invocations(repo, tmp_path):
    (repo / ".agent").mkdir()
    (repo / ".agent" / "config.yml").write_text("tools:\n  search:\n    rate_limit:\n      searches_per_minute: 3\n")
    for _ in range(3):
        assert sleuth(repo, "call", "acode.grep", "--pattern", "TODO", cache=tmp_path).returncode == 0
    fourth = sleuth(repo, "call", "acode.grep", "--pattern", "TODO", cache=tmp_path)
    err = json.loads(fourth.stdout)
    assert fourth.returncode == 1 and err["error"] == "rate_limit_exceeded" and err["retry_after_seconds"] > 0


def test_argument_parsing():
    assert parse_call_arguments(["--args", '{"a": 1}', "--b", "2", "--c=x", "--json", "--root", "/r"]) == (
        {"a": 1, "b": 2, "c": "x"}, ["/r"], True)
    for bad in (["stray"], ["--args", "[1]"], ["--lonely"]):
        with pytest.raises(BadArgs):
            parse_call_arguments(bad)
