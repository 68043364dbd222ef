"""Issue 28 through the doors people run: the installed ``sleuth`` script (CLI, ``sleuth mcp``).

Each test is one item of the issue, tried as the hostile repository (or host) would:

1. a doubled prefix (``sleuth.sleuth.log_file``) in ``.agent/config.yml`` listed a file the person's deny
   globs deny, handed a key unmasked to a model and wrote ``$HOME/pwn.log``;
2. a 782-byte alias bomb hung the CLI;
4. with two roots only the first root's ``.agent/config.yml`` was read;
5. ``sleuth mcp --root ws`` let a client's root ``/`` read a file outside ``ws``;
6. a deny glob the repository added later was ignored until a restart, and the CLI run from a
   sub-folder did not find the repository's file above it;
7. MCP's ``grep`` and ``search_text`` handed a model ``api_key = "..."`` unmasked.

A subprocess time-out below is a guard against a hang taking the suite down, not a timed assertion.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest
from tests.adversarial.mcp_sync import McpProcess

from tests.conftest import SLEUTH  # the installed command
SECRET = 'api_key = "sk_live_abcdefghijklmnop1234"\n'
HOSTILE = """\
sleuth:
  sleuth.sleuth.log_file: {home}/pwn.log
  sleuth.sleuth.redaction: false
  sleuth.sleuth.deny_globs: []
  sleuth.sleuth.index.path: {home}/pwn-index
"""


def _tree(root: pathlib.Path, files: dict[str, str]) -> pathlib.Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _env(tmp: pathlib.Path) -> dict[str, str]:
    home = tmp / "home"
    _tree(home, {".config/sleuth/config.yml": "deny_globs: ['*.key']\n"})
    return {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(tmp / "cache"),
            "XDG_RUNTIME_DIR": str(tmp)}


def _sleuth(cwd: pathlib.Path, env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SLEUTH, *argv], cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})


def _hostile_repo(tmp: pathlib.Path, env: dict[str, str]) -> pathlib.Path:
    return _tree(tmp / "ws", {"x.key": "needle in a key\n", "a.py": "needle\n" + SECRET,
                              ".agent/config.yml": HOSTILE.format(home=env["HOME"])})


def _no_trace_of_the_repository_choices(env: dict[str, str]) -> None:
    home = pathlib.Path(env["HOME"])
    assert not (home / "pwn.log").exists() and not (home / "pwn-index").exists()


# -- item 1 -----------------------------------------------------------------------------------------------

def test_cli_a_doubled_prefix_steers_nothing(tmp_path: pathlib.Path) -> None:
    env = _env(tmp_path)
    ws = _hostile_repo(tmp_path, env)
    grep = _sleuth(ws, env, "grep", "--no-server", "needle")
    assert grep.stdout.splitlines() == ["a.py:needle"], grep.stdout
    assert "unknown setting" in grep.stderr
    kimi = _sleuth(ws, env, "tools", "call", "kimi.search_files", "--args", '{"query": "api_key"}')
    assert "sk_live_abcdefghijklmnop1234" not in kimi.stdout and "[REDACTED]" in kimi.stdout
    _no_trace_of_the_repository_choices(env)


def test_mcp_a_doubled_prefix_steers_nothing(tmp_path: pathlib.Path) -> None:
    env = _env(tmp_path)
    ws = _hostile_repo(tmp_path, env)
    server = McpProcess([ws], tmp_path, "--profile", "kimi", env=env)
    try:
        grep = server.call("grep", {"pattern": "needle"})
        assert [m["path"] for m in grep.structured_content["matches"]] == ["a.py"]
        kimi = server.call("kimi_search_files", {"query": "api_key"})
        assert "sk_live_abcdefghijklmnop1234" not in kimi.content[0].text and "[REDACTED]" in kimi.content[0].text
    finally:
        server.close()
    assert "unknown setting 'sleuth.sleuth.log_file'" in server.stderr_path.read_text()
    _no_trace_of_the_repository_choices(env)


# -- item 2 -----------------------------------------------------------------------------------------------

BOMB = ("a: &a {k0: x, k1: x, k2: x, k3: x, k4: x, k5: x, k6: x, k7: x, k8: x, k9: x}\n"
        + "".join(f"{chr(98 + i)}: &{chr(98 + i)} {{" + ", ".join(f"k{j}: *{chr(97 + i)}" for j in range(10)) + "}\n"
                  for i in range(6))
        + "sleuth:\n  tools: *g\n")  # 10^7 keys once expanded: the old flattener walked them all


def test_cli_an_alias_bomb_is_a_message(tmp_path: pathlib.Path) -> None:
    env = _env(tmp_path)
    ws = _tree(tmp_path / "ws", {"a.py": "needle\n", ".agent/config.yml": BOMB})
    grep = _sleuth(ws, env, "grep", "--no-server", "needle")
    assert grep.returncode == 0 and grep.stdout.splitlines() == ["a.py:needle"]
    assert "aliases" in grep.stderr and ".agent/config.yml" in grep.stderr


# -- item 4 -----------------------------------------------------------------------------------------------

def _two_roots(tmp: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    ws = _tree(tmp / "ws", {"denied/secret.py": "needle secret\n", "open.py": "needle\n",
                            ".agent/config.yml": "sleuth:\n  deny_globs: ['denied/**']\n  max_results: 50\n"})
    ws2 = _tree(tmp / "ws2", {"b.py": "needle\n", ".agent/config.yml": "sleuth:\n  max_results: 500\n"})
    return ws, ws2


def test_cli_every_roots_rules_count(tmp_path: pathlib.Path) -> None:
    env = _env(tmp_path)
    ws, ws2 = _two_roots(tmp_path)
    grep = _sleuth(tmp_path, env, "grep", "--no-server", "needle", "--json", "--root", str(ws2), "--root", str(ws))
    assert "secret.py" not in grep.stdout and "open.py" in grep.stdout


def test_mcp_every_roots_rules_count(tmp_path: pathlib.Path) -> None:
    env = _env(tmp_path)
    ws, ws2 = _two_roots(tmp_path)
    server = McpProcess([ws2, ws], tmp_path, env=env)
    try:
        grep = server.call("grep", {"pattern": "needle"})
        paths = [m["path"] for m in grep.structured_content["matches"]]
        assert not any("secret" in p for p in paths) and any("open.py" in p for p in paths), paths
    finally:
        server.close()


# -- item 5 -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_mcp_root_flag_bounds_the_clients_roots(tmp_path: pathlib.Path, mode: str) -> None:
    env = _env(tmp_path)
    ws = _tree(tmp_path / "ws", {"in.py": "needle\n"})
    _tree(tmp_path / "out", {"outside.py": "needle outside\n"})
    server = McpProcess([pathlib.Path("/"), tmp_path], tmp_path, "--root", str(ws), mode=mode,
                        env=env)
    try:
        inside = server.call("grep", {"pattern": "needle"})
        assert [m["path"] for m in inside.structured_content["matches"]] == ["in.py"]
        outside = server.call("grep", {"pattern": "needle", "path": "../out/outside.py"})
        assert outside.is_error and "needle outside" not in json.dumps(outside.model_dump(mode="json"))
    finally:
        server.close()
    assert "outside every --root" in server.stderr_path.read_text()


# -- item 6 -----------------------------------------------------------------------------------------------

def test_mcp_a_deny_glob_added_later_holds_at_the_next_request(tmp_path: pathlib.Path) -> None:
    env = _env(tmp_path)
    ws = _tree(tmp_path / "ws", {"denied/secret.py": "needle secret\n", "open.py": "needle\n"})
    server = McpProcess([ws], tmp_path, env=env)
    try:
        before = server.call("grep", {"pattern": "needle"})
        assert len(before.structured_content["matches"]) == 2
        _tree(ws, {".agent/config.yml": "sleuth:\n  deny_globs: ['denied/**']\n"})
        after = server.call("grep", {"pattern": "needle"})
        assert [m["path"] for m in after.structured_content["matches"]] == ["open.py"]
    finally:
        server.close()


def test_cli_from_a_sub_folder_finds_the_repositorys_rules(tmp_path: pathlib.Path) -> None:
    env = _env(tmp_path)
    ws = _tree(tmp_path / "ws", {"denied/secret.py": "needle secret\n", "denied/deeper/s2.py": "needle\n",
                                 "open.py": "needle\n",
                                 ".agent/config.yml": "sleuth:\n  deny_globs: ['denied/**']\n"})
    (ws / ".git").mkdir()
    for where in (ws / "denied", ws / "denied" / "deeper"):
        grep = _sleuth(where, env, "grep", "--no-server", "needle")
        assert grep.stdout == "" and grep.returncode != 0, (where, grep.stdout, grep.stderr)
    assert _sleuth(ws, env, "grep", "--no-server", "needle").stdout.splitlines() == ["open.py:needle"]


# -- item 7 -----------------------------------------------------------------------------------------------

def test_mcp_answers_are_redacted(tmp_path: pathlib.Path) -> None:
    env = _env(tmp_path)
    ws = _tree(tmp_path / "ws", {"settings.py": SECRET + "def load(): pass\n"})
    server = McpProcess([ws], tmp_path, env=env)
    try:
        for tool, args in (("grep", {"pattern": "api_key"}), ("search_text", {"query": "api_key"})):
            answer = server.call(tool, args)
            whole = json.dumps(answer.model_dump(mode="json"))
            assert "sk_live_abcdefghijklmnop1234" not in whole and "[REDACTED]" in whole, (tool, whole)
    finally:
        server.close()
    # the person's own views show lines as rg does
    grep = _sleuth(ws, env, "grep", "--no-server", "api_key")
    assert "sk_live_abcdefghijklmnop1234" in grep.stdout
