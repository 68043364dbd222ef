"""Each platform fallback of :mod:`sleuth.engine.platform`, forced on Linux and run for real.

macOS and Windows lack what Sleuth prefers on Linux (``SO_PEERCRED``, ``fork``, inotify's overflow
signal, hyperscan's wheel, case-sensitive names); ``SLEUTH_FORCE_FALLBACKS`` makes this machine take
the other road, so each fallback is run here: the warm door over loopback with its token, the CLI
without a fork server, the search pool started by ``spawn``, the polling observer, RE2 without
hyperscan, paths compared without case, no file locks. The processes a test starts inherit the
variable (``monkeypatch.setenv``), as a server and its CLI would on such a platform.
"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import socket
import stat
import subprocess
import sys
import threading
import time
from typing import Any, Callable, Iterable

import pytest

from sleuth.core import warm
from sleuth.engine import platform
from sleuth.engine.errors import NotFound, SandboxViolation
from sleuth.engine.grep.loop import POOL_START_FILES
from sleuth.engine.workspace import Workspace
from tests.cli.test_warm_cli import (FILES, cli, folder_name, forked, fork_server_pid, runtime_dir,  # noqa: F401
                                     served, server)
from tests.conftest import HANG_S, SLEUTH

Session = Any


def _force(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    monkeypatch.setenv(platform.FORCE_ENV, ",".join(names))


@pytest.fixture
def loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    _force(monkeypatch, "loopback-warm")


@pytest.fixture
def no_fork_server(monkeypatch: pytest.MonkeyPatch) -> None:
    _force(monkeypatch, "no-fork-server")


def test_nothing_is_forced_by_default_and_all_forces_every_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(platform.FORCE_ENV, raising=False)
    assert not any(platform.forced(name) for name in platform.FALLBACKS)
    _force(monkeypatch, "all")
    assert all(platform.forced(name) for name in platform.FALLBACKS)


@pytest.mark.skipif(not hasattr(socket, "SO_PEERCRED"), reason="Linux's peer credentials")
def test_a_unix_socket_names_its_peers_user(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(platform.FORCE_ENV, raising=False)
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        assert platform.peer_uid(left) == os.getuid()
    assert platform.warm_door() == "unix"


# -- the warm door over loopback ----------------------------------------------------------------
def _ask_tcp(port: int, request: dict[str, Any]) -> dict[str, Any]:
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_S) as sock:
        sock.sendall(json.dumps(request).encode() + b"\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return json.loads(data)


async def test_the_warm_door_over_loopback_answers_only_requests_with_the_token(
        loopback: None, server: tuple[Session, pathlib.Path]) -> None:
    session, root = server
    real = [os.path.realpath(root)]
    door = warm.loopback_path(real)
    assert stat.S_IMODE(os.stat(door).st_mode) == 0o600
    assert not os.path.exists(warm.socket_path(real) or "")  # no UNIX socket beside it
    port, token = warm.read_loopback(door) or (0, "")
    before = await served(session, "sleuth.grep")
    cold = await asyncio.to_thread(cli, root, "grep", "-n", "user", "--no-server")
    hot = await asyncio.to_thread(cli, root, "grep", "-n", "user")
    assert (hot.stdout, hot.stderr, hot.returncode) == (cold.stdout, cold.stderr, cold.returncode)
    assert await served(session, "sleuth.grep") == before + 1  # the warm call reached the server
    from sleuth.cli.common import workspace_settings

    good = {"v": warm.PROTOCOL, "command": "sleuth.grep", "args": {"pattern": "user"}, "roots": real,
            "guards": warm.guards(workspace_settings(real)), "environment": warm.environment({})}
    assert await asyncio.to_thread(_ask_tcp, port, good) == {"refused": "token"}
    assert await asyncio.to_thread(_ask_tcp, port, {**good, "token": "0" * len(token)}) == {"refused": "token"}
    assert "result" in await asyncio.to_thread(_ask_tcp, port, {**good, "token": token})
    assert fork_server_pid(root) is None  # descriptors cannot be passed over TCP: no fork server


# -- the CLI without a fork server --------------------------------------------------------------
async def test_without_a_fork_server_the_cli_is_answered_warm_in_its_own_process(
        no_fork_server: None, server: tuple[Session, pathlib.Path]) -> None:
    session, root = server
    before = await served(session, "sleuth.files")
    cold = await asyncio.to_thread(cli, root, "files", "*.py", "--no-server")
    hot = await asyncio.to_thread(cli, root, "files", "*.py")
    assert (hot.stdout, hot.stderr, hot.returncode) == (cold.stdout, cold.stderr, cold.returncode)
    assert await served(session, "sleuth.files") == before + 1
    assert (await asyncio.to_thread(forked, root, "files", "*.py")).returncode == 99  # the fork client declines
    assert fork_server_pid(root) is None
    assert not os.path.exists(warm.fork_socket_path([os.path.realpath(root)]) or "")


# -- the search pool started by spawn -----------------------------------------------------------
POOL_METHOD = ("import sys\nfrom sleuth.cli import main\nfrom sleuth.engine.grep import pool\n"
               "code = main(['grep', '--no-server', '-c', 'needle'])\n"
               "print('START', pool.start_method(), file=sys.stderr)\nsys.exit(code)\n")


#: More files than a one-call process (the CLI) searches without starting its pool (grep.loop.POOL_START_FILES).
MANY = POOL_START_FILES + 150


def _many_files(root: pathlib.Path) -> pathlib.Path:
    for n in range(MANY):
        (root / f"d{n % 7}").mkdir(parents=True, exist_ok=True)
        (root / f"d{n % 7}" / f"f{n}.txt").write_text(f"line {n}\n" + ("needle\n" if n % 3 == 0 else ""))
    return root


@pytest.mark.parametrize("force, method", [("", "fork"), ("spawn", "spawn")])
def test_the_search_pool_starts_its_workers_by_spawn_where_it_must(tmp_path: pathlib.Path, force: str,
                                                                   method: str) -> None:
    root = _many_files(tmp_path / "ws")
    env = {**os.environ, platform.FORCE_ENV: force, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    probe = subprocess.run([sys.executable, "-c", POOL_METHOD], cwd=root, capture_output=True, text=True,
                           timeout=HANG_S, env=env)
    assert f"START {method}" in probe.stderr, probe.stderr
    real = subprocess.run([SLEUTH, "grep", "--no-server", "-c", "needle"], cwd=root, capture_output=True,
                          text=True, timeout=HANG_S, env=env)
    assert real.returncode == 0, real.stderr
    assert sorted(real.stdout.splitlines()) == sorted(probe.stdout.splitlines())
    assert sum(int(line.rsplit(":", 1)[1]) for line in real.stdout.splitlines()) == len(range(0, MANY, 3))


# -- the polling observer -----------------------------------------------------------------------
class _Sink:
    def __init__(self) -> None:
        self.paths: set[str] = set()
        self.lock = threading.Lock()

    def notify_changed(self, paths: Iterable[str], files_only: bool = False) -> None:
        with self.lock:
            self.paths.update(paths)


def _until(predicate: Callable[[], bool]) -> None:
    deadline = time.monotonic() + HANG_S
    while not predicate():
        assert time.monotonic() < deadline, "no event within the hang bound"
        time.sleep(0.02)


def test_the_polling_observer_sees_changes_and_needs_no_overflow_signal(tmp_path: pathlib.Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from watchdog.observers.polling import PollingObserver

    from sleuth.engine.index.watcher import Watcher
    from sleuth.engine.types import WalkOptions

    _force(monkeypatch, "polling")
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    sink = _Sink()
    watcher = Watcher(Workspace([root]), WalkOptions(hidden=False), sink)  # type: ignore[arg-type]
    watcher.start()
    try:
        assert watcher.state == "watching", watcher.status()
        assert isinstance(watcher._observer, PollingObserver)
        assert watcher._overflow_hook is None and not platform.overflow_signal_available()
        (root / "src" / "new.txt").write_text("NEEDLE\n")
        _until(lambda: str(root / "src" / "new.txt") in sink.paths)
    finally:
        watcher.stop()


# -- RE2 without hyperscan ----------------------------------------------------------------------
def test_without_hyperscan_re2_scans_the_literals_with_the_same_results(tmp_path: pathlib.Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from sleuth.engine.match import prefilter

    root = _many_files(tmp_path / "ws")
    monkeypatch.delenv(platform.FORCE_ENV, raising=False)
    if not prefilter.hyperscan_available():
        pytest.skip("hyperscan is not installed here: RE2 is what runs anyway")
    argv = [SLEUTH, "grep", "--no-server", "-n", "-e", "needle", "-e", "line 12", "-e", "line 30"]
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    with_hs = subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=HANG_S, env=env)
    _force(monkeypatch, "no-hyperscan")
    assert not prefilter.hyperscan_available()
    without = subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=HANG_S,
                             env={**env, platform.FORCE_ENV: "no-hyperscan"})
    assert with_hs.returncode == without.returncode == 0
    assert sorted(without.stdout.splitlines()) == sorted(with_hs.stdout.splitlines())


# -- paths compared without case ----------------------------------------------------------------
def test_paths_compare_without_case_as_on_a_case_insensitive_file_system(tmp_path: pathlib.Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "Work"
    (root / "Src").mkdir(parents=True)
    (root / "Src" / "a.txt").write_text("x\n")
    other_case = str(tmp_path / "WORK" / "src" / "a.txt")
    monkeypatch.delenv(platform.FORCE_ENV, raising=False)
    if platform.paths_fold_case(str(root)):
        pytest.skip("this file system already folds case")
    workspace = Workspace([root])
    assert not workspace.contains(other_case)
    with pytest.raises(SandboxViolation):
        workspace.resolve(other_case)
    _force(monkeypatch, "casefold-paths")
    assert workspace.contains(other_case)
    with pytest.raises(NotFound):  # inside the sandbox now; Linux then finds no such name, macOS would
        workspace.resolve(other_case)
    assert not workspace.contains(str(tmp_path / "Workspace2" / "a.txt"))  # a longer name is still outside
    assert platform.path_key("C:/A/b", True) == platform.path_key("c:/a/B", True)


# -- file locks ---------------------------------------------------------------------------------
def test_index_locks_exclude_each_other_unless_the_platform_has_none(tmp_path: pathlib.Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(platform.FORCE_ENV, raising=False)
    path = tmp_path / "build.lock"
    path.write_bytes(b"")
    with open(path, "rb") as first, open(path, "rb") as second, open(path, "rb") as writer:
        assert platform.lock_file(first, exclusive=False) and platform.lock_file(second, exclusive=False)
        assert not platform.lock_file(writer, exclusive=True)  # readers hold it: the clean-up waits
        assert platform.locks_exclude()
        _force(monkeypatch, "no-locks")
        assert platform.lock_file(writer, exclusive=True)
        assert not platform.locks_exclude()  # what the suite's `needs_locks` skips on (tests/conftest.py)


# -- the index build without its compiled loops --------------------------------------------------
def test_without_the_compiled_loops_the_build_writes_the_same_store(tmp_path: pathlib.Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """``no-compiled-grams``: the build workers find n-grams and sort pairs with numpy, and write the very
    same posting files and directories as with ``_grams.c``."""
    import sqlite3

    from sleuth.engine.cancel import CancelToken
    from sleuth.engine.index import native
    from sleuth.engine.index.build import full_build
    from sleuth.engine.types import FileEntry

    if native.chunk_codes is None:
        pytest.skip("the compiled loops are not built here: numpy is what runs anyway")
    root = tmp_path / "ws"
    root.mkdir()
    entries = []
    for n in range(60):
        path = root / f"f{n}.c"
        path.write_bytes((f"#define PM_RESUME_{n} {n}\nstatic int pm_runtime_{n}(void)\n{{\n\treturn {n};\n}}\n" * (n * 40 + 1)
                          + "K\u212a \u017f\x00_x_\n").encode())
        entries.append(FileEntry(str(path), path.name, path.stat().st_size, path.stat().st_mtime))

    def build(force: str) -> list[object]:
        monkeypatch.setenv(platform.FORCE_ENV, force)  # the workers are new processes: they read it at import
        gen = full_build(str(tmp_path / f"store-{force or 'compiled'}"), entries, CancelToken(), lambda *a: None,
                         None, {}).gen
        out: list[object] = [pathlib.Path(gen, f"shard-{s}.post").read_bytes() for s in range(2)]
        for s in range(2):
            with sqlite3.connect(os.path.join(gen, f"shard-{s}.db")) as conn:
                out.append(conn.execute("SELECT * FROM segs ORDER BY seg").fetchall())
        return out

    assert build("no-compiled-grams") == build("")


def test_without_the_compiled_stat_loop_a_restart_still_finds_what_changed(tmp_path: pathlib.Path) -> None:
    """``no-compiled-stats``: a server opening its store states its files in a second interpreter
    (:class:`sleuth.engine.index.stat_pass.StatPass`) and finds the same changes."""
    import subprocess
    import sys

    root = tmp_path / "ws"
    root.mkdir()
    for n in range(20):
        (root / f"f{n}.txt").write_text(f"NEEDLE {n}\n")
    program = ("import os, sys; from sleuth.engine.index import IndexService, native\n"
               "from sleuth.engine.workspace import Workspace\n"
               "s = IndexService(Workspace([sys.argv[1]]), cache_dir=sys.argv[2]); s.start()\n"
               "assert s.wait_ready(120) and s.wait_idle(60)\n"
               "cat = s.state.cat; at = lambda n: os.path.join(sys.argv[1], n)\n"
               "print(native.stat_changed is None, s.upkeep.catalogue_from, at('f4.txt') in cat, cat.by_path[at('f3.txt')].size)\n"
               "s.stop()")
    env = dict(os.environ, **{platform.FORCE_ENV: "no-compiled-stats"})
    args = [sys.executable, "-c", program, str(root), str(tmp_path / "cache")]
    subprocess.run(args, env=env, check=True, capture_output=True)
    (root / "f3.txt").write_text("NEEDLE 3, longer now\n")
    os.remove(root / "f4.txt")
    out = subprocess.run(args, env=env, check=True, capture_output=True, text=True).stdout.split()
    assert out == ["True", "map", "False", str(len("NEEDLE 3, longer now\n"))]


def test_without_the_compiled_scan_the_build_writes_the_same_symbol_tables(tmp_path: pathlib.Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """``no-compiled-defs``: the build workers find definitions with the regex in Python, and write the very
    same ``defs``, ``symkeys`` and ``symbols`` tables (FTS5's own rows included) as with ``_scan.c``."""
    import sqlite3

    from sleuth.engine.cancel import CancelToken
    from sleuth.engine.definitions import native
    from sleuth.engine.index.build import full_build
    from sleuth.engine.types import FileEntry

    if native.found is None:
        pytest.skip("the compiled scan is not built here: the regex is what runs anyway")
    root = tmp_path / "ws"
    root.mkdir()
    sources = {
        "c": "#define PM_RESUME_{n} {n}\nstatic int pm_runtime_{n}(void)\n{{\n\treturn {n};\n}}\n"
             "struct widget_{n} {{\n\tint w_flags;\n\tint (*w_probe)(void);\n}};\ntypedef u32 caf\u00e9_{n}_t;\n"
             "enum e_{n} {{\n\tE_ON_{n},\n}};\nstatic DEFINE_MUTEX(lock_{n});\r\nint x_{n}[4] = {{0}};\n",
        "cpp": "int Widget{n}::probe(int a)\n{{\n}}\nclass W{n} : public B {{\n}};\n",
        "py": "class Widget{n}:\n    def probe(self):\n        pass\nMAX_{n} = 1\n",
        "txt": "def foo_{n}\n",
    }
    entries = []
    for n in range(40):
        ext = sorted(sources)[n % len(sources)]
        path = root / f"f{n}.{ext}"
        path.write_bytes((sources[ext].format(n=n) * (n * 60 + 1) + "K\u212a \u017f\x00_x_\n").encode() + b"\xff\n")
        entries.append(FileEntry(str(path), path.name, path.stat().st_size, path.stat().st_mtime))

    def build(force: str) -> list[object]:
        monkeypatch.setenv(platform.FORCE_ENV, force)  # the workers are new processes: they read it at import
        gen = full_build(str(tmp_path / f"store-{force or 'compiled'}"), entries, CancelToken(), lambda *a: None,
                         None, {}).gen
        out: list[object] = []
        for s in range(2):
            with sqlite3.connect(os.path.join(gen, f"shard-{s}.db")) as conn:
                tables = [t for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"
                                                     " ORDER BY name") if t.startswith(("defs", "symkeys", "symbols"))]
                assert {"defs_data", "symkeys_data", "symbols"} <= set(tables)
                out.extend((t, conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall()) for t in tables)
        return out

    stored = build("")
    assert any(t == "symbols" and rows for t, rows in stored)  # the big files' blobs are there to compare
    assert build("no-compiled-defs") == stored


def test_without_the_compiled_line_loops_a_search_prints_the_same_lines(tmp_path: pathlib.Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """``no-compiled-lines``: the searcher finds a literal's candidate lines and counts newlines with bytes
    methods, and a grep prints the very same lines and numbers as with ``_lines.c``."""
    from sleuth.engine import line_table

    if line_table.newlines is line_table._newlines:
        pytest.skip("the compiled line loops are not built here: the bytes methods are what run anyway")
    root = tmp_path / "ws"
    root.mkdir()
    for n in range(12):
        body = "".join(f"x{i} PM_RESUME_{i}\n" if i % (n + 2) == 0 else f"line {i} _RESUME _RESUMEX\n" if i % 7 == 0
                       else "é\r\n" if i % 5 == 0 else f"plain {i}\n" for i in range(n * 700))
        (root / f"f{n}.c").write_text(body + ("ZZ_RESUME" if n % 2 else ""))
    monkeypatch.delenv(platform.FORCE_ENV, raising=False)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    runs = {}
    for force in ("", "no-compiled-lines"):
        for flags in (["-n", "[A-Z]+_RESUME"], ["-n", "-w", "PM_RESUME_[0-9]+"], ["-c", "_RESUME"], ["--column", "-n", "PM_"]):
            runs[force, tuple(flags)] = subprocess.run([SLEUTH, "grep", "--no-server", *flags], cwd=root,
                                                       capture_output=True, text=True, timeout=HANG_S,
                                                       env={**env, platform.FORCE_ENV: force})
    for (force, flags), run in runs.items():
        assert run.returncode == 0 and run.stdout, (force, flags, run.stderr)
        assert run.stdout == runs["", flags].stdout
