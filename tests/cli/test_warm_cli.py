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
from sleuth.engine.platform import fork_server_available, warm_door  # noqa: E402
from tests.conftest import HANG_S, SLEUTH, needs_fork_server, needs_unix_door  # noqa: E402  (the installed command, as users start it)

FILES = {
    "src/UserController.cs": "class UserController {\n  // find the user\n  void GetUser() {}\n}\n",
    "src/app.py": "import os\n\ndef get_user_by_id(uid):\n    return os.environ.get(uid)\n# user lookup\n",
    "docs/guide.md": "# Guide\n\nThe user controller finds a user.\nSee x.y for details.\n",
    "notes.txt": "alpha\nbeta user\ngamma\n",
    "many.txt": "".join(f"filler line {n}\n" for n in range(20_000)),  # more than a pipe holds
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


@pytest.fixture
def folder_name() -> str | None:
    """The name the editor gives the folder (None: its base name, as VS Code does by default)."""
    return None


@pytest_asyncio.fixture
async def server(tmp_path: pathlib.Path, runtime_dir: pathlib.Path,
                 folder_name: str | None) -> AsyncIterator[tuple[Session, pathlib.Path]]:
    """``sleuth serve`` on a small tree, its index ready, its warm socket listening."""
    root = tmp_path / "ws"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    session = await start_session("vscode", [root], init_options={"cacheDir": str(tmp_path / "server-cache")},
                                  names=[folder_name] if folder_name else None)
    try:
        status = await session.execute("sleuth.index.build", {"wait": True})
        assert status["state"] == "ready"
        path = door_path(root)
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


def door_path(*folders: pathlib.Path) -> str:
    """The warm door's file for a server of ``folders``: its UNIX socket, or its loopback file where the
    platform (or ``SLEUTH_FORCE_FALLBACKS=loopback-warm``) has no UNIX socket that names its peer."""
    roots = [os.path.realpath(folder) for folder in folders]
    path = warm.loopback_path(roots) if warm_door() == "loopback" else warm.socket_path(roots)
    assert path is not None
    return path


def cli(cwd: pathlib.Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SLEUTH, *argv], cwd=cwd, capture_output=True, text=True,
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


async def test_a_warm_grep_that_matches_nothing_asks_for_no_listing(server: tuple[Session, pathlib.Path]) -> None:
    """A grep that matched nothing (and read no file: the index had no candidate) tells "nothing
    searched" from "nothing found" by the server's index size, not by a ``sleuth.files`` call, whose
    count of the Linux tree took 0.9 s of a 1.2 s call. Its output and status stay the cold one's."""
    session, root = server
    grep_before, files_before = await served(session, "sleuth.grep"), await served(session, "sleuth.files")
    cold = await asyncio.to_thread(cli, root, "grep", "nothing-matches-this", "--no-server")
    for _ in range(2):  # the second call's record comes after whatever the first one asked
        warm_run = await asyncio.to_thread(cli, root, "grep", "nothing-matches-this")
        assert (warm_run.returncode, warm_run.stdout, warm_run.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    assert cold.returncode == 1
    for _ in range(200):
        if await served(session, "sleuth.grep") >= grep_before + 2:
            break
        await asyncio.sleep(0.05)
    assert await served(session, "sleuth.grep") >= grep_before + 2, "the warm runs did not reach the server"
    assert await served(session, "sleuth.files") == files_before


@pytest.mark.parametrize("folder_name", ["The user's project"])
async def test_a_folder_the_editor_renamed_is_still_answered_from_the_index(server: tuple[Session, pathlib.Path]) -> None:
    """VS Code lets a person name a workspace folder; the CLI names it by its base name. One folder's
    name is in no result, so the server's index must answer (before, it compared names too and every
    warm call scanned the whole tree, as slow as the cold CLI)."""
    session, root = server
    hot = json.loads((await asyncio.to_thread(cli, root, "grep", "--result-json", "GetUser")).stdout)
    cold = json.loads((await asyncio.to_thread(cli, root, "grep", "--result-json", "GetUser", "--no-server")).stdout)
    assert hot["matches"] == cold["matches"] and hot["count"] == 1
    assert hot["files_scanned"] == 1 < cold["files_scanned"]  # the index's one candidate, not the whole tree


async def test_json_results_match_but_for_timing(server: tuple[Session, pathlib.Path]) -> None:
    session, root = server
    for argv in (["grep", "--result-json", "-n", "user"], ["files", "--json", "-q", "guide"], ["text", "--json", "user"]):
        cold = json.loads((await asyncio.to_thread(cli, root, *argv, "--no-server")).stdout)
        hot = json.loads((await asyncio.to_thread(cli, root, *argv)).stdout)
        for result in (cold, hot):
            result.pop("elapsed_ms", None)
            result.pop("files_scanned", None)  # the index's candidates, against every file cold
        assert hot == cold


def _door_answers(path: str) -> bool:
    """Whether anything accepts a connection at the warm door ``path`` (a UNIX socket or a loopback file)."""
    loopback = warm.read_loopback(path) if path.endswith(".tcp") else None
    if path.endswith(".tcp") and loopback is None:
        return False
    probe = socket.socket(socket.AF_INET if loopback else socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(("127.0.0.1", loopback[0]) if loopback else path)
    except OSError:
        return False
    finally:
        probe.close()
    return True


def _ask_raw(path: str, request: dict[str, Any]) -> dict[str, Any]:
    """One request on the warm door at ``path`` (:func:`door_path`; a loopback door's with its token)."""
    loopback = warm.read_loopback(path) if path.endswith(".tcp") else None
    if loopback is not None:
        request = {**request, "token": loopback[1]}
    with (socket.create_connection(("127.0.0.1", loopback[0]), timeout=30) if loopback is not None
          else socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)) as sock:
        sock.settimeout(30)
        if loopback is None:
            sock.connect(path)
        sock.sendall(json.dumps(request).encode() + b"\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return json.loads(data)


def _streamed(path: str, request: dict[str, Any]) -> tuple[list[list[Any]], dict[str, Any]]:
    """A streaming request on the warm door at ``path`` (a UNIX socket): its partial batches and its answer."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(HANG_S)
        sock.connect(path)
        sock.sendall(json.dumps({**request, "stream": True}).encode() + b"\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    lines = [json.loads(line) for line in data.splitlines()]
    return [line["partial"] for line in lines[:-1]], lines[-1]


class _Recorded:
    """A sink that keeps every event's fields (what a printer would read)."""

    def __init__(self) -> None:
        self.seen: list[tuple[Any, ...]] = []

    def event(self, event: Any) -> bool:
        self.seen.append((type(event).__name__, *(getattr(event, name) for name in type(event).__slots__)))
        return True

    def finish(self, summary: Any) -> None:
        pass


@needs_unix_door
@pytest.mark.parametrize("args", [{"pattern": "user"}, {"pattern": "user", "context": 1},
                                  {"pattern": "user", "replace": "U"}, {"pattern": "user", "output": "count"},
                                  {"pattern": "user", "output": "files_with_matches"}])
async def test_a_client_that_reads_rows_gets_plain_lines_as_rows_and_the_same_events(
        server: tuple[Session, pathlib.Path], args: dict[str, Any]) -> None:
    """``"rows": true`` (the CLI's): a plain line crosses as an array, anything else as its item, and
    the decoded events are those of the item stream an older client gets."""
    from sleuth.cli.common import workspace_settings
    from sleuth.engine.events import Decoder

    _, root = server
    real = os.path.realpath(root)
    path = door_path(root)
    request = {"v": warm.PROTOCOL, "command": "sleuth.grep", "args": args, "roots": [real],
               "guards": warm.guards(workspace_settings([real])), "environment": warm.environment(args)}
    decoded = []
    for rows in (False, True):
        batches, answer = await asyncio.to_thread(_streamed, path, {**request, "rows": rows})
        streamed = [entry for batch in batches for entry in batch]
        assert streamed, answer
        kinds = {type(entry) for entry in streamed}
        plain = "replace" not in args and args.get("output", "content") == "content"
        assert (list in kinds) if rows and plain else kinds == {dict}, kinds  # (a line of two matches: an item)
        sink = _Recorded()
        decoder = Decoder(sink)
        assert decoder.items(streamed) and decoder.items(answer["result"]["matches"]) and decoder.end_file()
        decoded.append(sink.seen)
    assert decoded[0] == decoded[1]


async def test_the_socket_keeps_requests_inside_the_servers_roots(server: tuple[Session, pathlib.Path],
                                                                  tmp_path: pathlib.Path) -> None:
    session, root = server
    real = os.path.realpath(root)
    path = door_path(root)
    from sleuth.cli.common import workspace_settings

    good = {"v": warm.PROTOCOL, "command": "sleuth.grep", "args": {"pattern": "user"}, "roots": [real],
            "guards": warm.guards(workspace_settings([real])), "environment": warm.environment({})}
    assert "result" in await asyncio.to_thread(_ask_raw, path, good)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("user secret\n")
    answers = [await asyncio.to_thread(_ask_raw, path, {**good, **change}) for change in (
        {"roots": [str(outside)]},                       # another folder's request on this socket
        {"roots": [real, str(outside)]},                 # the server's roots plus one
        {"guards": {**good["guards"], "deny_globs": []} if good["guards"]["deny_globs"] else
         {**good["guards"], "redaction": not good["guards"]["redaction"]}},  # other safeguards
        {"environment": {**good["environment"], "home": str(outside)}},  # another ~ (or global gitignore...)
        {"environment": None},                           # a client that sends none
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


@needs_unix_door
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
                                                      "guards": warm.guards(workspace_settings([real])),
                                                      "environment": warm.environment({})})
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

    params = mcp.StdioServerParameters(command=SLEUTH, args=["mcp"], cwd=str(tmp_path),
                                       env=dict(os.environ))
    async with mcp.Client(params, mode="legacy", list_roots_callback=roots, read_timeout_seconds=60) as client:
        await client.call_tool("grep", {"pattern": "user"})
        path = door_path(root)
        assert os.path.exists(path)
        from sleuth.cli.common import workspace_settings

        answer = await asyncio.to_thread(_ask_raw, path, {
            "v": warm.PROTOCOL, "command": "sleuth.grep", "args": {"pattern": "user"}, "roots": [real],
            "guards": warm.guards(workspace_settings([real])), "environment": warm.environment({})})
        assert answer["result"]["count"] > 0
        for argv in (["grep", "-n", "user"], ["files", "*.py"]):
            cold = await asyncio.to_thread(cli, root, *argv, "--no-server")
            hot = await asyncio.to_thread(cli, root, *argv)
            assert (hot.returncode, hot.stdout, hot.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    # However the host ended the server, a socket left behind answers nobody: the CLI runs cold.
    for _ in range(200):
        if not _door_answers(path):
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the socket still answers after its server ended")
    cold = await asyncio.to_thread(cli, root, "grep", "-n", "user", "--no-server")
    after = await asyncio.to_thread(cli, root, "grep", "-n", "user")
    assert (after.returncode, after.stdout, after.stderr) == (cold.returncode, cold.stdout, cold.stderr)


@needs_unix_door
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


# -- the CLI fork server (sleuth.cli.fork_server): the call runs in a fork of a process that has the CLI imported

FORKED = ("import sys\nfrom sleuth.cli.fork_client import run\ncode = run(['sleuth', *sys.argv[1:]])\n"
          "sys.exit(99 if code is None else code)\n")  # 99: not forked (run() declined)


def test_the_fork_server_preloads_what_a_forked_grep_reads_its_flags_with() -> None:
    """The fork server builds, before it forks anything, the parsers and grep's own flag table
    (:func:`~sleuth.cli.grep_flags.option_table`), so that no forked call makes them again (a fresh
    interpreter: another test here may have made the table in this one)."""
    program = ("from sleuth.cli import fork_server, grep_flags\nassert not grep_flags._TABLE\n"
               "fork_server.preload()\nprint(len(grep_flags._TABLE))\n")
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=HANG_S, check=True)
    assert int(out.stdout) > 100


def forked(cwd: pathlib.Path, *argv: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    """The call through the fork client only: exit status 99 when it did not fork."""
    return subprocess.run([sys.executable, "-c", FORKED, *argv], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env=dict(os.environ), **kw)


def _processes() -> Iterator[tuple[int, int, bytes]]:
    """(pid, parent pid, command line) of every process this user can see."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
        yield int(entry), ppid, cmdline


def fork_server_pid(root: pathlib.Path) -> int | None:
    path = os.fsencode(warm.fork_socket_path([os.path.realpath(root)]) or "")
    return next((pid for pid, _, cmd in _processes() if b"sleuth.cli.fork_server" in cmd and path in cmd), None)


async def started_fork_server(root: pathlib.Path) -> int:
    """Make the first warm call (it starts the fork server), then wait for the fork server to listen."""
    await asyncio.to_thread(cli, root, "files", "*.py")
    path = warm.fork_socket_path([os.path.realpath(root)])
    assert path is not None
    for _ in range(600):  # it listens once it has imported the CLI: bounded poll
        pid = fork_server_pid(root)
        if pid is not None and os.path.exists(path):
            return pid
        await asyncio.sleep(0.05)
    raise AssertionError(f"no CLI fork server listens at {path}")


async def started_fork_server_if_any(root: pathlib.Path) -> int | None:
    """:func:`started_fork_server` where the platform has a fork server; else None (every warm call is
    then answered by the warm door alone, which is what a test of warm == cold checks there)."""
    return await started_fork_server(root) if fork_server_available() else None


async def _children(parent: int, present: bool) -> list[int]:
    """The children of ``parent``, once there are some (``present``) or none."""
    for _ in range(600):
        children = [pid for pid, ppid, _ in _processes() if ppid == parent]
        if bool(children) == present:
            return children
        await asyncio.sleep(0.05)
    raise AssertionError(f"children of {parent}: still {'none' if present else children}")


@needs_fork_server
async def test_forked_output_is_the_cold_output(server: tuple[Session, pathlib.Path]) -> None:
    """Every warm case again, through the fork server: same bytes on both streams, same exit status."""
    session, root = server
    await started_fork_server(root)
    for _command, argv in CASES:
        cold = await asyncio.to_thread(cli, root, *argv, "--no-server")
        hot = await asyncio.to_thread(forked, root, *argv)
        assert hot.returncode != 99, f"{argv}: not forked"
        assert (hot.returncode, hot.stdout, hot.stderr) == (cold.returncode, cold.stdout, cold.stderr), argv
    # What the client cannot fork: it declines before connecting, and the CLI runs in its own process.
    for argv in (["grep", "user", "--no-server"], ["files", "--root", str(root), "*.py"], ["index", "status"],
                 ["--version"], ["grep", "--pre", "cat", "user"]):  # --pre: a program run by the caller only
        assert (await asyncio.to_thread(forked, root, *argv)).returncode == 99, argv


@needs_fork_server
async def test_the_forked_call_reads_the_clients_stdin_and_runs_only_for_its_folder(
        server: tuple[Session, pathlib.Path]) -> None:
    session, root = server
    await started_fork_server(root)
    piped = await asyncio.to_thread(forked, root, "grep", "-n", "beta", input="alpha\nbeta two\n")
    assert (piped.returncode, piped.stdout) == (0, "2:beta two\n")  # rg's rule: piped stdin, no path: stdin
    # Another folder (here a subfolder: the CLI's sandbox is its current folder) has no fork server of
    # its own: the client declines and the CLI runs in its own process.
    assert (await asyncio.to_thread(forked, root / "src", "grep", "user")).returncode == 99


@needs_fork_server
async def test_a_reader_that_stops_early_ends_the_forked_call_as_the_cold_one(
        server: tuple[Session, pathlib.Path]) -> None:
    """``sleuth grep ... | head -1``: the child writes into the client's pipe, which closes early."""
    session, root = server
    await started_fork_server(root)
    script = 'set -o pipefail; "$@" | head -1; echo "status $?"'

    def piped(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "-c", script, "bash", *argv], cwd=root, capture_output=True, text=True,
                              timeout=120, env=dict(os.environ))

    cold = await asyncio.to_thread(piped, SLEUTH, "grep", "-n", "filler", "--no-server")
    hot = await asyncio.to_thread(piped, sys.executable, "-c", FORKED, "grep", "-n", "filler")
    assert (hot.stdout, hot.stderr) == (cold.stdout, cold.stderr)
    assert cold.stdout.startswith("many.txt:1:filler line 0\n")


@needs_fork_server
async def test_ctrl_c_reaches_the_forked_call_and_a_vanished_client_stops_it(
        server: tuple[Session, pathlib.Path]) -> None:
    """The client forwards SIGINT to the child (exit 130, as the CLI's own Ctrl-C); a client killed
    outright leaves no child behind. The child is held reading the client's stdin, a pipe the test
    keeps open: no timing involved."""
    import signal

    session, root = server
    fork_server = await started_fork_server(root)
    for how in ("interrupt", "kill"):
        proc = subprocess.Popen([sys.executable, "-c", FORKED, "grep", "x", "-"], cwd=root, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ))
        try:
            [child] = await _children(fork_server, present=True)
            if how == "interrupt":
                proc.send_signal(signal.SIGINT)
                assert await asyncio.to_thread(proc.wait, 60) == 130
            else:
                proc.kill()
                await asyncio.to_thread(proc.wait, 60)
            await _children(fork_server, present=False)
        finally:
            proc.kill()
            proc.wait()
            assert proc.stdin is not None
            proc.stdin.close()


def _fork_request(root: pathlib.Path, version: str) -> bytes:
    from sleuth.cli import fork_server

    _, package, python, mode = fork_server.installation()
    fields = [fork_server.MAGIC, version.encode(), os.fsencode(package), os.fsencode(python), mode.encode(),
              os.fsencode(str(root)),
              b"22", b"utf-8", b"strict", b"utf-8", b"strict", b"utf-8", b"strict", b"sleuth", b"2", b"grep", b"user"]
    body = b"\0".join(fields)
    return len(body).to_bytes(4, "big") + body


@needs_fork_server
async def test_the_fork_server_refuses_another_installation_and_leaves_with_its_server(
        tmp_path: pathlib.Path, runtime_dir: pathlib.Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("user\n")
    session = await start_session("vscode", [root], init_options={"cacheDir": str(tmp_path / "server-cache")})
    try:
        await session.execute("sleuth.index.build", {"wait": True})
        for _ in range(200):
            if os.path.exists(warm.socket_path([os.path.realpath(root)]) or ""):
                break
            await asyncio.sleep(0.05)
        pid = await started_fork_server(root)
        path = warm.fork_socket_path([os.path.realpath(root)])
        assert path is not None

        def ask(request: bytes) -> bytes:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(30)
                sock.connect(path)
                stdin, out = os.open(os.devnull, os.O_RDONLY), os.open(os.devnull, os.O_WRONLY)
                try:
                    sock.sendmsg([request], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                              b"".join(fd.to_bytes(4, sys.byteorder) for fd in (stdin, out, out)))])
                    data = b""
                    while chunk := sock.recv(4096):
                        data += chunk
                    return data
                finally:
                    os.close(stdin)
                    os.close(out)

        refused = await asyncio.to_thread(ask, _fork_request(root, "0.0.0-another"))
        assert refused.startswith(b"R") and b"another installation" in refused
        garbage = await asyncio.to_thread(ask, (5).to_bytes(4, "big") + b"hello")
        assert garbage == b""  # not a request: closed without a word, and the fork server still serves
        from sleuth import __version__

        served = await asyncio.to_thread(ask, _fork_request(root, __version__))
        assert served[:1] == b"P" and served[-5:] == b"X" + (0).to_bytes(4, "big")
    finally:
        await asyncio.wait_for(session.client.shutdown_session(), 30)
        await session.client.stop()
    for _ in range(600):  # its parent is gone: it leaves within its poll interval, removing its socket
        if pid not in {p for p, _, _ in _processes()}:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the fork server outlived its server")
    assert not os.path.exists(path)
    # and the server removed its warm socket on the way out (before, it compared the socket's own
    # inode with the file's, never equal, and left every socket file behind)
    assert not os.path.exists(warm.socket_path([os.path.realpath(root)]) or "")


@needs_fork_server
@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0 or not shutil.which("setpriv"),
                    reason="needs root and setpriv to run a client as another user")
async def test_another_user_gets_no_fork(server: tuple[Session, pathlib.Path], runtime_dir: pathlib.Path) -> None:
    """A fork runs with the rights of the fork server's user: another user's call, even through a
    folder and socket opened to everyone (a mistake), is closed without a byte and nothing runs."""
    session, root = server
    fork_server = await started_fork_server(root)
    path = warm.fork_socket_path([os.path.realpath(root)])
    assert path is not None
    for folder in (runtime_dir, pathlib.Path(path).parent):
        os.chmod(folder, 0o755)
    os.chmod(path, 0o777)
    request = _fork_request(root, __import__("sleuth").__version__)
    script = ("import socket,sys,os\ns=socket.socket(socket.AF_UNIX)\ns.settimeout(30)\ns.connect(sys.argv[1])\n"
              "fds=b''.join(fd.to_bytes(4,sys.byteorder) for fd in (0,1,2))\n"
              "try: s.sendmsg([bytes.fromhex(sys.argv[2])],[(socket.SOL_SOCKET,socket.SCM_RIGHTS,fds)])\n"
              "except OSError: pass\nd=b''\nwhile True:\n try: c=s.recv(65536)\n except OSError: break\n"
              " if not c: break\n d+=c\nprint('CONNECTED', len(d))\n")
    proc = await asyncio.to_thread(
        subprocess.run, ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c", script,
                         path, request.hex()], capture_output=True, text=True, timeout=60)
    assert "CONNECTED 0" in proc.stdout, (proc.stdout, proc.stderr)
    assert not [p for p, ppid, _ in _processes() if ppid == fork_server]  # nothing was forked for it
    # The owner's client, meanwhile, refuses a folder others may enter; made private again, it is served.
    assert (await asyncio.to_thread(forked, root, "grep", "user")).returncode == 99
    for folder in (runtime_dir, pathlib.Path(path).parent):
        os.chmod(folder, 0o700)
    assert (await asyncio.to_thread(forked, root, "grep", "user")).returncode == 0


# An exit hook in every Python process that reads PYTHONPATH (``site`` imports ``sitecustomize``):
# it leaves a file named after its process when the interpreter tears down.
_EXIT_HOOK = ("import atexit, os\n"
              "atexit.register(lambda: open(os.path.join(os.environ['SLEUTH_TEST_EXIT_MARKS'], str(os.getpid())), 'w').close())\n")


@needs_fork_server
async def test_a_forked_call_leaves_without_tearing_the_client_down(server: tuple[Session, pathlib.Path],
                                                                    tmp_path: pathlib.Path) -> None:
    """The ``sleuth`` process of a forked call exits with the child's status and its output intact, but
    skips the interpreter's teardown (2-4 ms of a warm call, :func:`sleuth.cli.fork_client.leave`): no
    exit hook runs in it (nor in a search it runs itself, ``sleuth.cli._ended``). A call that is not a
    search still ends normally."""
    session, root = server
    await started_fork_server(root)
    hooks, marks = tmp_path / "hooks", tmp_path / "marks"
    hooks.mkdir()
    marks.mkdir()
    (hooks / "sitecustomize.py").write_text(_EXIT_HOOK, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(hooks), "SLEUTH_TEST_EXIT_MARKS": str(marks)}

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([SLEUTH, *argv], cwd=root, capture_output=True, text=True, timeout=120, env=env)

    cold = await asyncio.to_thread(run, "grep", "-n", "user", "--no-server")
    assert cold.returncode == 0 and not list(marks.iterdir())  # a search it runs itself leaves at once too (cli._ended)
    assert (await asyncio.to_thread(run, "--version")).returncode == 0
    assert len(list(marks.iterdir())) == 1  # the hook works: a plain exit runs it
    for argv, status in ((["grep", "-n", "user"], 0), (["grep", "nothing-matches-this"], 1)):
        before = len(list(marks.iterdir()))
        hot = await asyncio.to_thread(run, *argv)
        assert hot.returncode == status, (argv, hot.stderr)
        assert len(list(marks.iterdir())) == before, argv  # forked: no teardown in the client
    hot = await asyncio.to_thread(run, "grep", "-n", "user")
    assert (hot.stdout, hot.stderr) == (cold.stdout, cold.stderr)


@needs_fork_server
async def test_a_forked_calls_output_ends_when_its_status_is_reported(server: tuple[Session, pathlib.Path],
                                                                     tmp_path: pathlib.Path) -> None:
    """A reader of a forked call's output (a pipe, as ``sleuth grep ... | wc -l`` or a caller's
    ``subprocess``) sees its end once the call has reported its status, not after the forked process's
    own exit, which first unmaps the fork server's whole address space: the child is held after its
    status (the exit gate, :mod:`sleuth.engine.test_gates`) and the output has ended all the same."""
    session, root = server
    fork_server = await started_fork_server(root)
    cold = await asyncio.to_thread(cli, root, "grep", "-n", "user", "--no-server")
    gate = tmp_path / "exit-gate"
    gate.write_text("held\n")
    proc = subprocess.Popen([SLEUTH, "grep", "-n", "user"], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(os.environ, SLEUTH_TEST_EXIT_GATE=str(gate)))
    try:
        out, err = await asyncio.wait_for(asyncio.to_thread(proc.communicate), HANG_S)
        assert await _children(fork_server, present=True)  # the call's process is still held at the gate
    finally:
        gate.unlink(missing_ok=True)
        proc.kill()
    assert (proc.returncode, out.decode(), err.decode()) == (0, cold.stdout, cold.stderr)
    await _children(fork_server, present=False)  # and leaves once the gate opens


@pytest.fixture
def search_gate(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    """The search gate (:mod:`sleuth.engine.test_gates`) for the server this test starts after it."""
    gate = tmp_path / "search-gate"
    monkeypatch.setenv("SLEUTH_TEST_SEARCH_GATE", str(gate))
    return gate


async def test_the_warm_answer_streams(search_gate: pathlib.Path, server: tuple[Session, pathlib.Path]) -> None:
    """A warm ``sleuth grep`` prints the server's first batch while the server's search is held
    (issue 30 item 2): the server streams its batches over the warm socket, the CLI prints each."""
    session, root = server
    cold = await asyncio.to_thread(cli, root, "grep", "-n", "user", "--no-server")
    before = await served(session, "sleuth.grep")  # a warm call is counted before its answer is sent
    search_gate.write_text("held\n")
    proc = subprocess.Popen([SLEUTH, "grep", "-n", "user"], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(os.environ, SLEUTH_TEST_SEARCH_GATE=""))  # the CLI's own search never holds
    try:
        assert proc.stdout is not None
        first = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), HANG_S)
        assert proc.poll() is None and await served(session, "sleuth.grep") == before  # still held: not answered
        assert first.decode() == cold.stdout.splitlines(keepends=True)[0]
        search_gate.unlink()
        rest = await asyncio.to_thread(proc.stdout.read)
        await asyncio.to_thread(proc.wait, HANG_S)
    finally:
        proc.kill()
    assert (proc.returncode, (first + rest).decode()) == (0, cold.stdout)
