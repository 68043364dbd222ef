"""Every door started the way the README starts it: the installed ``sleuth`` command, on trees deep
enough that a search runs on the worker pool (issue 27).

The suite used to start ``python -m sleuth`` only, which hid that the installed script, the
program's ``__main__``, was run again by the pool's fork server in every worker: each scanning
search in ``sleuth serve`` and ``sleuth mcp`` failed with ``BrokenProcessPool``. Here the servers are
started as hosts start them (``sleuth mcp``, as ``claude mcp add sleuth -- sleuth mcp`` and the other
hosts' entries do; ``sleuth serve``, as Neovim's ``cmd = {'sleuth', 'serve'}``), once more from a
wheel installed into a fresh environment, and a cancelled search that is stuck inside one regex call
must give the workers back to the next search.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time
from typing import Any

import pytest

from tests.adversarial.lsp_sync import RecordingServer, start_server
from lsp_client import descendants  # noqa: E402,I001  (bench/, put on the path by lsp_sync)
from tests.adversarial.mcp_sync import McpProcess
from sleuth.engine.grep.loop import IN_PROCESS_FILES
from tests.conftest import HANG_S, SLEUTH, write_tree  # HANG_S only stops a hang: every wait is for an event

PATTERN = r"w\w+d \d"  # no literal an index could narrow by: the search scans, on the pool
SUBTREES = 6
MATCHING = 20  # files with a match in each subtree (an MCP answer holds them all)
FILES_EACH = IN_PROCESS_FILES // SUBTREES + 10  # a server's search over more files than that goes to its pool


def _pool_tree(root: pathlib.Path) -> pathlib.Path:
    """Folders two levels deep (handed to the pool's workers as subtrees), more files in all than a
    server's search takes in its own process (``IN_PROCESS_FILES``, the folders' depth aside)."""
    files = {f"pkg{i}/sub/f{j}.txt": f"world {j} in pkg{i}\nnothing here\n" if j < MATCHING else "nothing here\n"
             for i in range(SUBTREES) for j in range(FILES_EACH)}
    return write_tree(root, files)


def _expected() -> set[str]:
    return {f"pkg{i}/sub/f{j}.txt" for i in range(SUBTREES) for j in range(MATCHING)}


def _assert_mcp_grep_finds_everything(server: McpProcess) -> None:
    """One ``grep`` tools/call that scans (on the pool): every match of the tree, no error."""
    result = server.call("grep", {"pattern": PATTERN, "max_results": 1000})
    assert not result.is_error, result.content
    assert {m["path"] for m in result.structured_content["matches"]} == _expected()


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_sleuth_mcp_as_hosts_start_it_scans_on_the_pool(tmp_path: pathlib.Path, mode: str) -> None:
    """``sleuth mcp`` with the host's roots (Claude Code, Gemini CLI), in both protocol eras."""
    ws = _pool_tree(tmp_path / "ws")
    server = McpProcess([ws], tmp_path, mode=mode, timeout=HANG_S)
    try:
        for _ in range(2):  # the second search reuses the pool the first one started
            _assert_mcp_grep_finds_everything(server)
        assert "BrokenProcessPool" not in server.stderr()
    finally:
        server.close()


@pytest.mark.parametrize("command", [[SLEUTH], [sys.executable, "-m", "sleuth"]], ids=["sleuth", "python-m"])
def test_sleuth_mcp_with_root_and_no_client_roots(tmp_path: pathlib.Path, command: list[str]) -> None:
    """``sleuth mcp --root DIR`` (hosts that share no roots: Codex, the Inspector line), and what the
    extension offers VS Code's chat: ``<interpreter> -m sleuth mcp --root <folder>``."""
    ws = _pool_tree(tmp_path / "ws")
    server = McpProcess([], tmp_path, argv=[*command, "mcp", "--root", str(ws)], timeout=HANG_S)
    try:
        _assert_mcp_grep_finds_everything(server)
    finally:
        server.close()


def test_sleuth_serve_as_editors_start_it_scans_on_the_pool(tmp_path: pathlib.Path) -> None:
    ws = _pool_tree(tmp_path / "ws")
    server = start_server([ws], tmp_path / "lsp", {"index": {"enabled": False}})
    try:
        for _ in range(2):
            result = server.execute("sleuth.grep", {"pattern": PATTERN, "max_results": 1000}, HANG_S).result
            assert {m["path"] for m in result["matches"]} == _expected()
        assert "BrokenProcessPool" not in server.stderr()
    finally:
        server.close()


README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def _readme_host_entries() -> list[tuple[str, list[str]]]:
    """Each MCP host's command line as the README's set-up list gives it: the ``… mcp add … -- CMD``
    lines and the JSON entries (``"command": …, "args": […]``), in order."""
    text = README.read_text(encoding="utf-8")
    setup = text[text.index("Set-up (the command must be on the host's"):text.index("What each set-up looked like")]
    entries: list[tuple[str, list[str]]] = []
    for host, line in re.findall(r"\*\*([^*]+)\*\*:(.*?)(?=\n\* \*\*|\Z)", setup, re.S):
        for added in re.findall(r"`(?:claude|codex) mcp add \S+ -- ([^`]+)`", line):
            entries.append((host, added.split()))
        for added in re.findall(r"`gemini mcp add -s user \S+ ([^`]+)`", line):
            entries.append((host, added.split()))
        for command, args in re.findall(r'"command": "([^"]+)", "args": (\[[^\]]*\])', line):
            entries.append((host, [command, *json.loads(args)]))
    return entries


def test_the_readme_names_each_hosts_set_up() -> None:
    hosts = {host for host, _ in _readme_host_entries()}
    assert {"Claude Code", "Cursor", "Gemini CLI", "OpenAI Codex", "Zed"} <= hosts, hosts


@pytest.mark.parametrize("argv", sorted({tuple(a) for _, a in _readme_host_entries()}), ids=" ".join)
@pytest.mark.parametrize("shares_roots", [True, False], ids=["roots", "no-roots"])
def test_each_readme_host_entry_starts_a_working_server(tmp_path: pathlib.Path, argv: tuple[str, ...],
                                                        shares_roots: bool) -> None:
    """The entry as the host runs it: ``sleuth`` found on ``PATH`` (the venv's folder, as the README
    asks), started in the project folder, with the project as its root or with none (Codex)."""
    ws = _pool_tree(tmp_path / "ws")
    path = f"{pathlib.Path(SLEUTH).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    server = McpProcess([ws] if shares_roots else [], tmp_path, argv=list(argv), cwd=ws, path=path,
                        timeout=HANG_S)
    try:
        _assert_mcp_grep_finds_everything(server)
    finally:
        server.close()


# ------------------------------------------------------------------ cancelling a search stuck in one call

STUCK = r"^(\w|\w\w)+\1$"  # a back-reference: the backtracking engine, exponential on a line of 'a's
STUCK_LINE = "a" * 80 + "!"  # never matches; one call would run until the search's deadline


def _stuck_tree(root: pathlib.Path) -> pathlib.Path:
    """In each subtree a quick file that matches (searched first: its match streams at once) and then
    a file on which the pattern never finishes; more subtrees than this machine has workers."""
    count = 4 * (os.cpu_count() or 1) + 2
    files: dict[str, str] = {}
    for i in range(count):
        files[f"d{i:03d}/s/a.txt"] = "abab\n"
        files[f"d{i:03d}/s/b.txt"] = STUCK_LINE + "\n"
        files[f"d{i:03d}/s/c.txt"] = "world 1 here\n"
    return write_tree(root, files)


def _wait_for_partial(server: RecordingServer, token: str) -> None:
    """Until a ``$/progress`` with matches for ``token`` has arrived: a worker has searched its
    subtree's first file and moved on to the file it cannot finish."""
    deadline = time.monotonic() + HANG_S
    while time.monotonic() < deadline:
        for body in list(server.bodies):
            message = json.loads(body)
            assert "error" not in message, message  # the stuck search refused: nothing to wait for
            if message.get("method") == "$/progress" and message["params"].get("token") == token \
                    and message["params"].get("value", {}).get("matches"):
                return
        time.sleep(0.01)
    raise TimeoutError("no partial result from the stuck search")


def test_a_cancelled_search_stuck_in_one_regex_call_frees_the_workers(tmp_path: pathlib.Path) -> None:
    """Proved by order: with a 5-minute budget (the cap), the stuck search, uncancelled, holds every
    worker for 5 minutes; after the cancel, a search that needs the workers is answered (within the hang
    guard, far below those 5 minutes)."""
    ws = _stuck_tree(tmp_path / "ws")
    server = start_server([ws], tmp_path / "lsp", {"index": {"enabled": False}})
    try:
        stuck = server.send("sleuth/grep", {"pattern": STUCK + "|abab", "timeout_ms": 300_000,
                                            "partialResultToken": "stuck"})
        _wait_for_partial(server, "stuck")
        server.cancel(stuck)
        answer = server.answer(stuck, HANG_S)
        assert answer.get("error", {}).get("code") == -32800, answer  # RequestCancelled
        nxt = server.execute("sleuth.grep", {"pattern": PATTERN, "max_results": 1000}, HANG_S).result
        assert len(nxt["matches"]) == len(list(ws.glob("*/s/c.txt")))
    finally:
        server.close()


def test_a_server_killed_outright_leaves_no_worker_behind(tmp_path: pathlib.Path) -> None:
    """SIGKILL (a host that gives up on a server) runs no shutdown: the pool's workers, its fork server
    and its resource tracker used to live on forever, one set per killed server. The workers leave once
    they see their server gone, and the others follow them."""
    ws = _pool_tree(tmp_path / "ws")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.Popen([SLEUTH, "mcp", "--root", str(ws)], cwd=ws, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        reply = _mcp_exchange(proc)
        assert len(reply["structuredContent"]["matches"]) == len(_expected())
        left = descendants(proc.pid)
        assert left, "the search started no worker process"
    finally:
        proc.kill()
        proc.wait(HANG_S)
    deadline = time.monotonic() + HANG_S
    while any(_alive(pid) for pid in left) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in left if _alive(pid)], _commands(left)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has left
    except OSError:
        return False


def _commands(pids: list[int]) -> list[str]:
    out = []
    for pid in pids:
        try:
            out.append(pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:120])
        except OSError:
            pass
    return out


# ------------------------------------------------------------------ installed from a built wheel


@pytest.fixture(scope="module")
def wheel_env(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A fresh environment with Sleuth installed from a wheel built from a copy of this checkout (not
    editable); its dependencies are this environment's (no network), through a ``.pth`` file."""
    base = tmp_path_factory.mktemp("wheel")
    checkout = pathlib.Path(__file__).resolve().parents[2]
    source = base / "src"  # a copy: the build writes build/ and *.egg-info beside the sources it reads
    shutil.copytree(checkout / "server", source / "server", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(checkout / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(base / "dist"), str(source)],
                   check=True, timeout=600)
    wheels = list((base / "dist").glob("sleuth-*.whl"))
    assert len(wheels) == 1, wheels
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    deps = subprocess.run([sys.executable, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    # Dependencies from this environment, but not its editable Sleuth: the .pth names a folder, and only
    # a site folder's own .pth files (the editable finder) run, so `import sleuth` finds the wheel's.
    # The new environment's own pip installs it: `pip install --prefix` from this one would uninstall
    # this environment's Sleuth first.
    pathlib.Path(site, "deps.pth").write_text(deps + "\n")
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheels[0])],
                   check=True, timeout=600)
    return venv


def test_the_wheel_installs_a_working_sleuth_command(wheel_env: pathlib.Path, tmp_path: pathlib.Path) -> None:
    sleuth = wheel_env / "bin" / "sleuth"
    assert sleuth.read_text().startswith("#!" + str(wheel_env / "bin" / "python"))  # the installer rewrote it
    where = subprocess.run([str(wheel_env / "bin" / "python"), "-c", "import sleuth; print(sleuth.__file__)"],
                           check=True, capture_output=True, text=True).stdout
    assert where.startswith(str(wheel_env)), where  # the wheel's package, not this checkout's
    ws = _pool_tree(tmp_path / "ws")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    cli = subprocess.run([str(sleuth), "grep", "-c", "--no-server", PATTERN], cwd=ws, capture_output=True, text=True,
                         env=env, timeout=HANG_S)
    assert cli.returncode == 0, cli.stderr
    assert len(cli.stdout.splitlines()) == len(_expected())
    reply = _mcp_grep_over_stdio([str(sleuth), "mcp", "--root", str(ws)], ws, env)
    assert not reply.get("isError"), reply
    assert len(reply["structuredContent"]["matches"]) == len(_expected())


def _mcp_grep_over_stdio(argv: list[str], cwd: pathlib.Path, env: dict[str, str]) -> dict[str, Any]:
    """One ``grep`` tools/call to a server started for it."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        return _mcp_exchange(proc)
    finally:
        proc.kill()
        proc.wait(30)


def _mcp_exchange(proc: "subprocess.Popen[str]") -> dict[str, Any]:
    """One ``grep`` tools/call with hand-written JSON-RPC lines (2025-11-25), as a minimal host does."""
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "grep", "arguments": {"pattern": PATTERN, "max_results": 1000}}},
    ]
    assert proc.stdin is not None and proc.stdout is not None
    for message in messages:
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        if "id" in message:
            while True:
                reply = json.loads(proc.stdout.readline())
                if reply.get("id") == message["id"]:
                    break
    return reply["result"]
