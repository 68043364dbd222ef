"""The warm CLI (issue 16.3): ``sleuth grep|files|text`` answered by a running ``sleuth serve`` on the
same folders, over the private socket of :mod:`sleuth.core.warm`.

Each case runs the CLI twice against one server, ``--no-server`` (cold) and without (warm), and
compares stdout, stderr and the exit code byte for byte; the server's metrics prove the warm run
reached it. The socket's refusals (other roots, other settings, another user) are tested on the wire.
"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
from typing import Any, AsyncIterator, Iterator

import pytest
import pytest_asyncio

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "lsp"))
from harness import Session, start_session  # noqa: E402

from sleuth.core import warm  # noqa: E402
from sleuth.engine.index.store import store_dir  # noqa: E402

FILES = {
    "src/UserController.cs": "class UserController {\n  // find the user\n  void GetUser() {}\n}\n",
    "src/app.py": "import os\n\ndef get_user_by_id(uid):\n    return os.environ.get(uid)\n# user lookup\n",
    "docs/guide.md": "# Guide\n\nThe user controller finds a user.\nSee x.y for details.\n",
    "notes.txt": "alpha\nbeta user\ngamma\n",
}


@pytest.fixture
def runtime_dir(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[pathlib.Path]:
    """A private XDG_RUNTIME_DIR shared by the server and the CLI of one test (the server inherits it);
    directly under the system temp folder, so the other-user test can open a path to it."""
    run = pathlib.Path(tempfile.mkdtemp(prefix="sleuth-run-"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("SLEUTH_NO_SERVER", raising=False)
    yield run
    shutil.rmtree(run, ignore_errors=True)


@pytest_asyncio.fixture
async def server(tmp_path: pathlib.Path, runtime_dir: pathlib.Path) -> AsyncIterator[tuple[Session, pathlib.Path]]:
    """``sleuth serve`` on a small tree, its index ready, its warm socket listening."""
    root = tmp_path / "ws"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    session = await start_session("vscode", [root], init_options={"cacheDir": str(tmp_path / "server-cache")})
    try:
        status = await session.execute("sleuth.index.build", {"wait": True})
        assert status["state"] == "ready"
        path = warm.socket_path([os.path.realpath(root)])
        assert path is not None
        for _ in range(200):  # `initialized` opens it; bounded poll, not a sleep-and-hope
            if os.path.exists(path):
                break
            await asyncio.sleep(0.05)
        assert os.path.exists(path), f"no warm socket at {path}"
        yield session, root
    finally:
        try:
            await asyncio.wait_for(session.client.shutdown_session(), 30)
        except Exception:
            pass
        await session.client.stop()


def cli(cwd: pathlib.Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sleuth", *argv], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env=dict(os.environ))


async def served(session: Session, command: str) -> int:
    metrics = await session.execute("sleuth.metrics", {})
    return metrics["by_name"].get(command, {}).get("invocations", 0)


CASES = [
    ("grep", ["grep", "user"]),
    ("grep", ["grep", "-n", "-i", "USER", "src", "docs"]),
    ("grep", ["grep", "-w", "-C", "1", "user"]),
    ("grep", ["grep", "-F", "x.y", "--heading", "-n"]),
    ("grep", ["grep", "-l", "user"]),
    ("grep", ["grep", "-c", "-g", "*.py", "user"]),
    ("grep", ["grep", "-v", "-n", "user", "notes.txt"]),
    ("grep", ["grep", "-e", "get_\\w+", "-e", "Guide", "--color", "always"]),
    ("grep", ["grep", "nothing-matches-this"]),
    ("grep", ["grep", "-e", "(unclosed"]),  # a bad regex: the same message and exit code
    ("grep", ["grep", "user", "../outside"]),  # outside the sandbox: refused the same way
    # rg's command lines (issue 19): what the CLI makes of the result, warm or cold alike
    ("grep", ["grep", "--vimgrep", "-C1", "user", "./src"]),
    ("grep", ["grep", "-t", "py", "--trim", "-M", "20", "--max-columns-preview", "--column", "user"]),
    ("grep", ["grep", "--files-without-match", "--null", "user"]),
    ("grep", ["grep", "--count-matches", "--include-zero", "-i", "user"]),
    ("grep", ["grep", "--no-ignore-dot", "-x", "-F", "-e", "", "notes.txt"]),
    ("files", ["grep", "--files", "--sortr", "path"]),
    ("files", ["files", "*.py", "*.md"]),
    ("files", ["files", "-q", "usrctl"]),
    ("text", ["text", "user controller"]),
    ("text", ["text", "get_user", "-C", "0"]),
    ("symbols", ["symbols", "getuser"]),
    ("symbols", ["symbols", "user", "--kind", "class"]),
    ("symbols", ["symbols", "user", "--kind", "gadget"]),  # a bad kind: the same message and exit code
]


@pytest.mark.parametrize("command,argv", CASES, ids=[" ".join(a) for _, a in CASES])
async def test_warm_output_is_the_cold_output(server: tuple[Session, pathlib.Path], command: str,
                                              argv: list[str]) -> None:
    session, root = server
    before = await served(session, f"sleuth.{command}")
    cold = await asyncio.to_thread(cli, root, *argv, "--no-server")
    warm_run = await asyncio.to_thread(cli, root, *argv)
    assert (warm_run.returncode, warm_run.stdout, warm_run.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    for _ in range(200):  # the server records the warm call on its event loop, just after answering
        if await served(session, f"sleuth.{command}") > before:
            break
        await asyncio.sleep(0.05)
    assert await served(session, f"sleuth.{command}") > before, "the warm run did not reach the server"


async def test_json_results_match_but_for_timing(server: tuple[Session, pathlib.Path]) -> None:
    session, root = server
    for argv in (["grep", "--result-json", "-n", "user"], ["files", "--json", "-q", "guide"], ["text", "--json", "user"]):
        cold = json.loads((await asyncio.to_thread(cli, root, *argv, "--no-server")).stdout)
        hot = json.loads((await asyncio.to_thread(cli, root, *argv)).stdout)
        for result in (cold, hot):
            result.pop("elapsed_ms", None)
            result.pop("files_in_workspace", None)  # the server's index knows it, the cold CLI has none
        assert hot == cold


def _ask_raw(path: str, request: dict[str, Any]) -> dict[str, Any]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(30)
        sock.connect(path)
        sock.sendall(json.dumps(request).encode() + b"\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return json.loads(data)


async def test_the_socket_keeps_requests_inside_the_servers_roots(server: tuple[Session, pathlib.Path],
                                                                  tmp_path: pathlib.Path) -> None:
    session, root = server
    real = os.path.realpath(root)
    path = warm.socket_path([real])
    assert path is not None
    from sleuth.cli.common import workspace_settings

    good = {"v": warm.PROTOCOL, "command": "sleuth.grep", "args": {"pattern": "user"}, "roots": [real],
            "guards": warm.guards(workspace_settings([real]))}
    assert "result" in await asyncio.to_thread(_ask_raw, path, good)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("user secret\n")
    answers = [await asyncio.to_thread(_ask_raw, path, {**good, **change}) for change in (
        {"roots": [str(outside)]},                       # another folder's request on this socket
        {"roots": [real, str(outside)]},                 # the server's roots plus one
        {"guards": {**good["guards"], "deny_globs": []} if good["guards"]["deny_globs"] else
         {**good["guards"], "redaction": not good["guards"]["redaction"]}},  # other safeguards
        {"command": "sleuth.index.build"},               # not a read-only search
        {"command": "sleuth.tools.call"},
        {"v": 0},
    )]
    assert all("refused" in a for a in answers), answers
    escape = await asyncio.to_thread(_ask_raw, path, {**good, "args": {"pattern": "user", "path": str(outside)}})
    assert escape["error"]["code"] == "sandbox_violation"
    dotdot = await asyncio.to_thread(_ask_raw, path, {**good, "args": {"pattern": "user", "path": "../outside"}})
    assert dotdot["error"]["code"] == "sandbox_violation"


def test_socket_is_named_like_the_index_store(tmp_path: pathlib.Path) -> None:
    roots = [str(tmp_path / "b"), str(tmp_path / "a")]
    assert os.path.basename(store_dir(roots, str(tmp_path / "cache"))) == warm.roots_key(roots)


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0 or not shutil.which("setpriv"),
                    reason="needs root and setpriv to run a client as another user")
async def test_another_user_is_refused(server: tuple[Session, pathlib.Path], runtime_dir: pathlib.Path) -> None:
    """Even with the folder and socket opened to everyone (a mistake), SO_PEERCRED keeps nobody out."""
    session, root = server
    path = warm.socket_path([os.path.realpath(root)])
    assert path is not None
    for folder in (runtime_dir, pathlib.Path(path).parent):
        os.chmod(folder, 0o755)
    os.chmod(path, 0o777)
    request = json.dumps({"v": warm.PROTOCOL, "command": "sleuth.grep", "args": {"pattern": "user"},
                          "roots": [os.path.realpath(root)], "guards": {}})
    script = ("import socket,sys\ns=socket.socket(socket.AF_UNIX)\ns.settimeout(30)\ns.connect(sys.argv[1])\n"
              "try: s.sendall(sys.argv[2].encode()+b'\\n')\nexcept (BrokenPipeError, ConnectionResetError): pass\nd=b''\nwhile True:\n try: c=s.recv(65536)\n except ConnectionResetError: break\n if not c: break\n d+=c\n"
              "print('CONNECTED', len(d))\n")
    proc = await asyncio.to_thread(
        subprocess.run, ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c", script,
                         path, request], capture_output=True, text=True, timeout=60)
    assert "CONNECTED 0" in proc.stdout, (proc.stdout, proc.stderr)  # connected, then closed (or reset) without a byte
    # and the owner is still served
    from sleuth.cli.common import workspace_settings

    real = os.path.realpath(root)
    answer = await asyncio.to_thread(_ask_raw, path, {"v": warm.PROTOCOL, "command": "sleuth.grep",
                                                      "args": {"pattern": "user"}, "roots": [real],
                                                      "guards": warm.guards(workspace_settings([real]))})
    assert "result" in answer


async def test_sleuth_mcp_answers_the_warm_cli_for_its_roots(tmp_path: pathlib.Path, runtime_dir: pathlib.Path) -> None:
    """``sleuth mcp`` listens too, for the roots its host shares, once it knows them (the first call)."""
    mcp = pytest.importorskip("mcp")
    from mcp_types import ListRootsResult, Root

    root = tmp_path / "ws"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    real = os.path.realpath(root)

    async def roots(ctx: Any) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=pathlib.Path(real).as_uri(), name="ws")])

    params = mcp.StdioServerParameters(command=sys.executable, args=["-m", "sleuth", "mcp"], cwd=str(tmp_path),
                                       env=dict(os.environ))
    async with mcp.Client(params, mode="legacy", list_roots_callback=roots, read_timeout_seconds=60) as client:
        await client.call_tool("grep", {"pattern": "user"})
        path = warm.socket_path([real])
        assert path is not None and os.path.exists(path)
        from sleuth.cli.common import workspace_settings

        answer = await asyncio.to_thread(_ask_raw, path, {
            "v": warm.PROTOCOL, "command": "sleuth.grep", "args": {"pattern": "user"}, "roots": [real],
            "guards": warm.guards(workspace_settings([real]))})
        assert answer["result"]["count"] > 0
        for argv in (["grep", "-n", "user"], ["files", "*.py"]):
            cold = await asyncio.to_thread(cli, root, *argv, "--no-server")
            hot = await asyncio.to_thread(cli, root, *argv)
            assert (hot.returncode, hot.stdout, hot.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    # However the host ended the server, a socket left behind answers nobody: the CLI runs cold.
    for _ in range(200):
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(path)
        except OSError:
            break
        finally:
            probe.close()
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the socket still answers after its server ended")
    cold = await asyncio.to_thread(cli, root, "grep", "-n", "user", "--no-server")
    after = await asyncio.to_thread(cli, root, "grep", "-n", "user")
    assert (after.returncode, after.stdout, after.stderr) == (cold.returncode, cold.stdout, cold.stderr)


def test_an_older_server_that_lacks_an_argument_leaves_the_search_cold(tmp_path: pathlib.Path,
                                                                        runtime_dir: pathlib.Path) -> None:
    """A server started before a flag existed answers 'unknown argument': the CLI searches cold, as if
    no server ran, instead of reporting the new flag as an error."""
    import threading

    from sleuth.cli import warm as cli_warm
    from sleuth.cli.common import workspace_settings

    root = tmp_path / "ws"
    root.mkdir()
    real = os.path.realpath(root)
    path = warm.socket_path([real])
    assert path is not None
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(2)
    replies = iter([{"error": {"code": "bad_args", "message": "sleuth.grep: unknown argument 'only_matching'."}},
                    {"error": {"code": "bad_args", "message": "sleuth.grep: 'pattern' must not be empty."}}])

    def serve() -> None:
        for reply in replies:
            conn, _ = listener.accept()
            with conn:
                conn.recv(65536)
                conn.sendall(json.dumps(reply).encode() + b"\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        settings = workspace_settings([real])
        assert cli_warm.ask("sleuth.grep", {"pattern": "x", "only_matching": True}, [real], settings) is None
        other = cli_warm.ask("sleuth.grep", {"pattern": " "}, [real], settings)
        assert other is not None and other.error is not None  # the server's other errors are still reported
    finally:
        thread.join(10)
        listener.close()
