"""The warm CLI is the cold CLI (issue 27.4): each case runs the installed ``sleuth`` command twice from
one folder served by an installed ``sleuth serve``, cold (``--no-server``) and warm (through the CLI fork
server and the warm door), and the two must print the same bytes with the same exit status.

Each case is one way the two used to differ: an index size only the server knows (a), the caller's
environment that the server did not share (b), a write error the fork server swallowed (c), a stuck
client that held every other warm call (d), and a fork server left a zombie by a folder change (e).
Nothing is timed: a test waits for an event (a socket, a process, a call's end), bounded only by a
generous hang guard.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import re
import socket
import subprocess
import sys
import threading
from typing import AsyncIterator

import pytest_asyncio
from lsprotocol import types
from pygls.uris import from_fs_path

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from test_warm_cli import _processes, door_path, fork_server_pid, runtime_dir  # noqa: E402,F401  (runtime_dir: a fixture)
from test_warm_cli import started_fork_server as fork_server_of  # noqa: E402
from test_warm_cli import started_fork_server_if_any  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "lsp"))
from harness import Session, start_session  # noqa: E402

from sleuth.core import warm  # noqa: E402

from tests.conftest import HANG_S, SLEUTH, needs_fork_server  # noqa: E402  (the installed script, as a person runs it)
from sleuth.engine.grep.loop import POOL_START_FILES  # noqa: E402
FILES = {"a.txt": "needle in a text file\n", "src/mod.py": "needle = 1\n", "b.md": "a needle\n"}


def make_tree(root: pathlib.Path) -> pathlib.Path:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / ".git").mkdir()  # a repository: git's global excludes apply, as in rg
    return root


def sleuth(cwd: pathlib.Path, *argv: str, env: dict[str, str] | None = None,
           stdout: int | None = subprocess.PIPE) -> tuple[int, str, str]:
    proc = subprocess.run([str(SLEUTH), *argv], cwd=cwd, stdout=stdout, stderr=subprocess.PIPE, text=True,
                          timeout=HANG_S, env={**os.environ, **(env or {})})
    return proc.returncode, proc.stdout or "", proc.stderr


async def pair(cwd: pathlib.Path, *argv: str, **kw: object) -> tuple[tuple[int, str, str], tuple[int, str, str]]:
    """(cold, warm) runs of ``sleuth argv``."""
    cold = await asyncio.to_thread(sleuth, cwd, *argv, "--no-server", **kw)  # type: ignore[arg-type]
    hot = await asyncio.to_thread(sleuth, cwd, *argv, **kw)  # type: ignore[arg-type]
    return cold, hot


async def until(what: str, check: "object") -> None:
    """Wait for ``check()`` to hold (polled), failing only past the hang guard."""
    for _ in range(int(HANG_S * 20)):
        if check():  # type: ignore[operator]
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"never happened: {what}")


async def start_server(folders: list[pathlib.Path], cache: pathlib.Path, index: bool = True) -> Session:
    session = await start_session("vscode", folders, init_options={"cacheDir": str(cache)})
    if index:
        assert (await session.execute("sleuth.index.build", {"wait": True}))["state"] == "ready"
    path = door_path(*folders)
    await until("the warm door listens", lambda: os.path.exists(path))
    return session


async def stop_server(session: Session) -> None:
    try:
        await asyncio.wait_for(session.client.shutdown_session(), 30)
    except Exception:
        pass
    await session.client.stop()


@pytest_asyncio.fixture
async def served(tmp_path: pathlib.Path, runtime_dir: pathlib.Path) -> AsyncIterator[pathlib.Path]:
    """A folder served by ``sleuth serve``, its index ready and its CLI fork server listening (where
    there is one: else the warm door alone answers the warm calls)."""
    root = make_tree(tmp_path / "ws")
    session = await start_server([root], tmp_path / "server-cache")
    try:
        await started_fork_server_if_any(root)
        yield root
    finally:
        await stop_server(session)


def _without_timing(out: str) -> str:
    return re.sub(r'"elapsed_ms": [0-9.]+', '"elapsed_ms": 0', out)


async def test_a_result_json_has_no_index_size_the_cold_cli_lacks(served: pathlib.Path) -> None:
    """(a) ``--result-json -L -r X``: warm said ``"files_in_workspace": 3`` (the server's index), cold ``null``."""
    cold, hot = await pair(served, "grep", "--result-json", "-L", "-r", "X", "needle")
    assert '"files_in_workspace": null' in cold[1]
    assert (hot[0], _without_timing(hot[1]), hot[2]) == (cold[0], _without_timing(cold[1]), cold[2])


async def test_b_the_callers_git_excludes_file_is_the_one_that_counts(served: pathlib.Path,
                                                                      tmp_path: pathlib.Path) -> None:
    """(b) ``GIT_CONFIG_GLOBAL`` naming an ``excludesFile`` of ``*.txt``: cold hid ``a.txt``, warm showed it."""
    (tmp_path / "excludes").write_text("*.txt\n")
    (tmp_path / "gitconfig").write_text(f"[core]\n\texcludesFile = {tmp_path / 'excludes'}\n")
    env = {"GIT_CONFIG_GLOBAL": str(tmp_path / "gitconfig")}
    cold, hot = await pair(served, "grep", "needle", env=env)
    assert cold[0] == 0 and "a.txt" not in cold[1] and "b.md" in cold[1]
    assert hot == cold


async def test_b_the_callers_home_is_the_one_that_counts(served: pathlib.Path) -> None:
    """(b) ``HOME=$PWD/src sleuth grep needle '~/mod.py'``: found cold, refused warm (the server's ``~``)."""
    cold, hot = await pair(served, "grep", "needle", "~/mod.py", env={"HOME": str(served / "src")})
    assert cold[0] == 0 and "needle = 1" in cold[1]
    assert hot == cold


async def test_c_a_write_error_is_reported_as_rg_reports_it(served: pathlib.Path) -> None:
    """(c) ``sleuth grep needle > /dev/full``: the fork server's call exited 0 in silence; rg exits 2
    with ``rg: ...: No space left on device (os error 28)``."""
    with open("/dev/full", "w") as full:
        cold, hot = await pair(served, "grep", "needle", stdout=full.fileno())
        rg = subprocess.run([str(pathlib.Path(SLEUTH).with_name("rg")), "needle"], cwd=served, stdout=full, stderr=subprocess.PIPE,
                            text=True, timeout=HANG_S)
    assert hot == cold
    assert cold[0] == rg.returncode == 2
    assert cold[2] == "sleuth: No space left on device (os error 28)\n"
    assert "No space left on device (os error 28)" in rg.stderr


@needs_fork_server
async def test_d_a_stuck_client_delays_no_other_call(served: pathlib.Path) -> None:
    """(d) A client that sends a 4-byte length and then a byte now and then held every other warm call
    (the fork server read one request at a time). The normal call must end while the stuck client is
    still connected and sending."""
    path = warm.fork_socket_path([os.path.realpath(served)])
    assert path is not None
    stuck = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stuck.connect(path)
    stuck.sendall((1 << 20).to_bytes(4, "big"))  # a request of 1 MiB, of which it sends a byte at a time
    stop, dropped = threading.Event(), threading.Event()

    def trickle() -> None:
        while not stop.wait(0.5):
            try:
                stuck.sendall(b"x")
            except OSError:
                dropped.set()
                return

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    try:
        hot = await asyncio.to_thread(sleuth, served, "grep", "-n", "needle")  # the hang guard is the only bound
        assert not dropped.is_set(), "the stuck client was dropped before the other call could run"
        cold = await asyncio.to_thread(sleuth, served, "grep", "-n", "needle", "--no-server")
        assert hot == cold and cold[0] == 0
    finally:
        stop.set()
        thread.join(HANG_S)
        stuck.close()


def _zombie_or_alive(pid: int) -> bool:
    """Whether ``pid`` still has an entry in /proc (running, or a zombie nobody reaped)."""
    return os.path.exists(f"/proc/{pid}")


@needs_fork_server
async def test_e_a_folder_change_reaps_the_old_fork_server(tmp_path: pathlib.Path, runtime_dir: pathlib.Path) -> None:
    """(e) After a workspace-folders change the old fork server stayed a zombie of the server. Without
    an index (the person's config.yml, the CLI's too), so that no index build starts a subprocess
    whose start would reap it by the way (``subprocess`` polls the children it has lost track of)."""
    config = pathlib.Path(os.environ["XDG_CONFIG_HOME"]) / "sleuth" / "config.yml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("index_enabled: false\n")
    one, two = make_tree(tmp_path / "one"), make_tree(tmp_path / "two")
    session = await start_server([one], tmp_path / "server-cache", index=False)
    try:
        old = await fork_server_of(one)
        session.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(uri=from_fs_path(str(two)), name="two")],
                removed=[types.WorkspaceFolder(uri=from_fs_path(str(one)), name="one")])))
        await until("the old fork server is gone, reaped", lambda: not _zombie_or_alive(old))
        await until("the warm socket of the new folder", lambda: os.path.exists(warm.socket_path(
            [os.path.realpath(two)]) or ""))
        new = await fork_server_of(two)
        assert new != old
        cold, hot = await pair(two, "grep", "-n", "needle")
        assert hot == cold and cold[0] == 0
    finally:
        await stop_server(session)


async def test_a_call_the_fork_server_runs_cold_leaves_nothing_holding_its_output(tmp_path: pathlib.Path,
                                                                                   runtime_dir: pathlib.Path) -> None:
    """A call the server declines (another git excludes file) is run by a fork of the fork server, and
    there it scans on the pool. That child has a second thread (its hang-up watcher), so the pool chose
    a fork server, which with its resource tracker outlived the call holding the caller's stdout: a
    pipeline, or this test's captured output, never saw its end (found from outside: ``| wc -l`` hung)."""
    root = make_tree(tmp_path / "ws")
    each = POOL_START_FILES // 4 + 10  # more files than a one-call process searches without starting the pool
    for i in range(4):  # two levels deep: the scan hands subtrees to the pool
        for j in range(each):
            (root / f"pkg{i}" / "sub").mkdir(parents=True, exist_ok=True)
            (root / f"pkg{i}" / "sub" / f"f{j}.txt").write_text("needle\n", encoding="utf-8")
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text(f"[core]\n\texcludesFile = {tmp_path / 'global-ignore'}\n", encoding="utf-8")
    (tmp_path / "global-ignore").write_text("*.md\n", encoding="utf-8")
    session = await start_server([root], tmp_path / "server-cache")
    try:
        await started_fork_server_if_any(root)
        cold, hot = await pair(root, "grep", "-l", "needle", env={"GIT_CONFIG_GLOBAL": str(gitconfig)})
        assert hot == cold and cold[0] == 0
        assert len(cold[1].splitlines()) == 4 * each + 2  # a.txt and src/mod.py; b.md excluded by git
    finally:
        await stop_server(session)
