"""Issue 22 items 3, 4, 5, 13 and 14: the index under faults — of the tree, the disk and other processes.

3. One file name that is not UTF-8 failed the whole build (``UnicodeEncodeError … surrogates not
   allowed``), ``sleuth index build`` still exited 0, and ``sleuth.text`` said the index was still
   being built.
4. A folder the index's walk could not read vanished from indexed answers (``errors: []``), where
   the walk (and rg) report ``zero_dir: permission denied``.
5. ``sleuth.index.build`` never answered once the index was in the error state.
13. A full disk read ``index worker 0 exited with 1 before finishing``; the cause was only on stderr,
    and nothing reached the client.
14. Two servers starting at once on an empty cache: publishing one generation deleted the other's
    (``FileNotFoundError …/shard-0.post``), and one ran without an index.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
from typing import Any, Iterator

import pytest
from harness import make_tree, sessions, start  # noqa: F401 - fixtures

from sleuth.commands import grep as grep_command
from sleuth.commands.config import Settings
from sleuth.engine import walk as walk_module
from sleuth.engine.index.service import IndexService
from sleuth.engine.index.trigram import Lit
from tests.conftest import HANG_S, SLEUTH, needs_locks, run_sleuth  # the CLI as a user runs it
from tests.fixtures import context, index_service, indexed_and_plain


@pytest.fixture
def profile() -> str:
    return "vscode"


def _started(root: pathlib.Path, cache: pathlib.Path) -> IndexService:
    service = index_service(root, cache, Settings().index_config())
    service.start()
    assert service.wait_ready(120), service.status()
    return service


# -- 3: names as bytes -------------------------------------------------------------------------------

def _tree_with_a_bad_name(root: pathlib.Path) -> bytes:
    make_tree(root, {"good.txt": "def good_function(): pass\n"})
    bad = os.path.join(os.fsencode(root), b"bad\xff.txt")
    with open(bad, "wb") as handle:
        handle.write(b"def bad_name_function(): pass\n")
    return bad


def test_a_file_name_that_is_not_utf8_is_indexed_and_found(tmp_path: pathlib.Path) -> None:
    root = tmp_path / "ws"
    _tree_with_a_bad_name(root)
    built = run_sleuth(root, "index", "build", "--json", cache=tmp_path / "cache")
    assert built.returncode == 0, built.stderr
    status = json.loads(built.stdout)
    assert status["state"] == "ready" and status["files"] == 2 and status["error"] is None
    found = run_sleuth(root, "text", "bad_name_function", cache=tmp_path / "cache")
    assert found.returncode == 0 and found.stdout.startswith("bad\ufffd.txt:1:"), found


def test_a_name_that_is_not_utf8_round_trips_through_the_store(tmp_path: pathlib.Path) -> None:
    root = tmp_path / "ws"
    bad = os.fsdecode(_tree_with_a_bad_name(root))
    first = _started(root, tmp_path / "cache")
    first.stop()
    again = _started(root, tmp_path / "cache")  # loaded from the store, not built
    try:
        assert again.status()["last_build"] is not None
        assert again.candidates(None, Lit(b"bad_name_function")).paths == [bad]
    finally:
        again.stop()


def test_a_failed_build_exits_non_zero_with_its_cause(tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {"a.txt": "alpha\n"})
    blocker = tmp_path / "cache-is-a-file"
    blocker.write_text("not a folder\n")
    built = run_sleuth(root, "index", "build", cache=blocker)
    assert built.returncode == 2
    assert "Not a directory" in built.stderr


# -- 4: unreadable folders ---------------------------------------------------------------------------

def _grep(root: pathlib.Path, index: IndexService | None, pattern: str = "NEEDLE") -> dict[str, Any]:
    ctx = context(root)
    ctx.services.index = index
    result = grep_command.run({"pattern": pattern}, ctx)
    return {"paths": [m["path"] for m in result["matches"]], "errors": result["errors"]}


def test_a_folder_the_index_could_not_read_is_reported_by_indexed_searches(tmp_path: pathlib.Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_tree(tmp_path / "ws", {"a.txt": "NEEDLE\n", "zero_dir/z.txt": "NEEDLE\n", "b/c.txt": "NEEDLE\n"})
    original = walk_module._Walker._scan

    def scan(self: Any, path: str, prefix: str, *args: Any) -> Any:  # the walk error, injected
        if os.path.basename(path) == "zero_dir":
            path = os.path.join(path, "gone-missing")
        return original(self, path, prefix, *args)

    monkeypatch.setattr(walk_module._Walker, "_scan", scan)
    cold = _grep(root, None)
    assert cold["paths"] == ["a.txt", "b/c.txt"] and [e["path"] for e in cold["errors"]] == ["zero_dir"]
    index = _started(root, tmp_path / "cache")
    try:
        assert _grep(root, index) == cold
        assert _grep(root, index, "NEE.LE|zzz") == cold  # no literal: the catalogue's list
        assert _grep(root, index, "NEEDLE")["errors"] == cold["errors"]
    finally:
        index.stop()


CHILD = r"""
import json, sys
from sleuth.commands import grep
from sleuth.commands.config import Settings
from sleuth.commands.context import CommandContext
from sleuth.engine.cancel import CancelToken
from sleuth.engine.index.service import IndexService
from sleuth.engine.workspace import Workspace

root, cache = sys.argv[1:]
workspace = Workspace([root])
out = {}
for indexed in (False, True):
    ctx = CommandContext(workspace=workspace, settings=Settings(), token=CancelToken())
    if indexed:
        ctx.services.index = IndexService(workspace, Settings().index_config(), cache_dir=cache)
        ctx.services.index.start()
        assert ctx.services.index.wait_ready(120), ctx.services.index.status()
    result = grep.run({"pattern": "NEEDLE"}, ctx)
    out["index" if indexed else "scan"] = {"paths": [m["path"] for m in result["matches"]],
                                           "errors": result["errors"]}
print(json.dumps(out))
"""


@contextlib.contextmanager
def _shared_tmp() -> Iterator[pathlib.Path]:
    """A folder another user can enter (pytest's tmp_path is private to root)."""
    path = pathlib.Path(tempfile.mkdtemp(prefix="sleuth-unreadable-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        for dirpath, _dirs, _files in os.walk(path):
            os.chmod(dirpath, 0o755)
        shutil.rmtree(path, ignore_errors=True)


NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def _unprivileged_python(base: pathlib.Path) -> tuple[str, dict[str, str]]:
    """An interpreter 'nobody' can start, with this one's packages: this one, or (when it lives where
    'nobody' cannot go, as under /root/.pyenv) the system's of the same version, given our paths."""
    env = {**os.environ, "HOME": str(base)}
    probe = "import subprocess, sys; subprocess.run([sys.executable, '-c', 'import numpy, re2'], check=True)"
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    ours = {"PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    for python, extra in ((sys.executable, {}), (f"/usr/bin/{version}", ours), (f"/usr/local/bin/{version}", ours)):
        if os.path.exists(python) and subprocess.run([*NOBODY, python, "-c", probe], capture_output=True, cwd=base,
                                     env={**env, **extra}).returncode == 0:
            return python, {**env, **extra}
    pytest.skip("no Python interpreter with Sleuth's packages that 'nobody' may run")


@pytest.mark.skipif(os.name != "posix" or shutil.which("setpriv") is None, reason="needs setpriv (util-linux)")
def test_an_unreadable_folder_is_reported_as_an_unprivileged_user_sees_it() -> None:
    if os.geteuid() != 0:
        pytest.skip("drops privileges to 'nobody': needs root to start")
    with _shared_tmp() as base:
        root = make_tree(base / "ws", {"a.txt": "NEEDLE\n", "zero_dir/z.txt": "NEEDLE\n"})
        cache = base / "cache"
        cache.mkdir()
        os.chown(cache, 65534, 65534)
        os.chmod(root / "zero_dir", 0)
        python, env = _unprivileged_python(base)
        child = subprocess.run([*NOBODY, python, "-c", CHILD, str(root), str(cache)],
                               capture_output=True, text=True, timeout=300, cwd=base, env=env)
        assert child.returncode == 0, child.stderr
        seen = json.loads(child.stdout)
        assert seen["scan"]["paths"] == ["a.txt"]
        assert [e["path"] for e in seen["scan"]["errors"]] == ["zero_dir"]
        assert "permission denied" in seen["scan"]["errors"][0]["error"].lower()
        assert seen["index"] == seen["scan"]


# -- 5 and 13: a failed index answers, and says why -----------------------------------------------------

async def _until_state(session: Any, state: str) -> dict[str, Any]:
    async def poll() -> dict[str, Any]:
        while True:
            status = await session.execute("sleuth.index.status", {})
            if status["state"] == state:
                return status
            await asyncio.sleep(0.05)

    return await asyncio.wait_for(poll(), HANG_S)


async def test_build_answers_once_the_index_has_failed(start: Any, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {"a.txt": "alpha\n"})
    blocker = tmp_path / "cache-is-a-file"
    blocker.write_text("not a folder\n")
    session = await start([root], init_options={"cacheDir": str(blocker)})
    failed = await _until_state(session, "error")  # the index thread has ended
    assert "Not a directory" in failed["error"]
    for args in ({"wait": True}, {"full": True}):
        status = await asyncio.wait_for(session.execute("sleuth.index.build", args), HANG_S)
        assert status["state"] == "error" and "Not a directory" in status["error"]
    started = await asyncio.wait_for(session.execute("sleuth.index.build", {"wait": False}), HANG_S)
    assert started["state"] in ("loading", "building", "error")  # loading: opening a store, before it knows to build
    await _until_state(session, "error")
    await session.eventually(lambda: any("Not a directory" in m.message for m in session.client.messages))
    grep = await session.execute("sleuth.grep", {"pattern": "alpha"})  # searches scan meanwhile
    assert [m["path"] for m in grep["matches"]] == ["a.txt"]


@contextlib.contextmanager
def _small_disk(path: pathlib.Path, size: str = "1m") -> Iterator[pathlib.Path]:
    """A tmpfs of ``size`` at ``path`` (mounting needs root; skipped where it cannot be mounted)."""
    path.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def _incompressible_tree(root: pathlib.Path, files: int = 120) -> pathlib.Path:
    """~1.5 MB of distinct words: its postings cannot fit a 1 MB disk."""
    import random

    rng = random.Random(22)
    alphabet = "abcdefghijklmnopqrstuvwxyz_0123456789"
    return make_tree(root, {f"f{i}.txt": " ".join("".join(rng.choice(alphabet) for _ in range(8))
                                                  for _ in range(1500)) + "\n" for i in range(files)})


DISK_FULL = ("No space left on device", "database or disk is full")


def test_a_full_disk_fails_the_cli_build_with_its_cause(tmp_path: pathlib.Path) -> None:
    root = _incompressible_tree(tmp_path / "ws")
    with _small_disk(tmp_path / "disk") as disk:
        built = run_sleuth(root, "index", "build", "--json", cache=disk)
    assert built.returncode == 2
    status = json.loads(built.stdout)
    assert status["state"] == "error" and any(cause in status["error"] for cause in DISK_FULL), status
    assert "sleuth: the index failed" in built.stderr and any(cause in built.stderr for cause in DISK_FULL)


async def test_a_full_disk_reaches_the_client_once(start: Any, tmp_path: pathlib.Path) -> None:
    root = _incompressible_tree(tmp_path / "ws")
    with _small_disk(tmp_path / "disk") as disk:
        session = await start([root], init_options={"cacheDir": str(disk)})
        status = await _until_state(session, "error")
        assert any(cause in status["error"] for cause in DISK_FULL), status
        assert "cannot rollback" not in status["error"] and "exited with" not in status["error"]

        def told() -> list[Any]:
            return [m for m in session.client.messages if "index failed" in m.message]

        await session.eventually(lambda: bool(told()))
        assert len(told()) == 1 and any(cause in told()[0].message for cause in DISK_FULL)
        await session.client.shutdown_session()


# -- 14: one writer, many readers ------------------------------------------------------------------------

@needs_locks
def test_publishing_keeps_a_generation_another_index_has_open(tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {"a.c": "int needle_one;\n", "b.c": "int needle_two;\n"})
    cache = tmp_path / "cache"
    reader = _started(root, cache)
    first = reader.status()["store_path"]
    writer = _started(root, cache)
    try:
        assert writer.status()["store_path"] == first  # opened, not built again
        writer.build(full=True)
        assert writer.status()["store_path"] != first
        assert os.path.isdir(first)  # the reader still has it open
        assert [os.path.basename(p) for p in reader.candidates(None, Lit(b"needle_two")).paths] == ["b.c"]
    finally:
        reader.stop()
        writer.stop()
    later = _started(root, cache)  # a later start removes the generation nobody holds any more
    try:
        assert not os.path.exists(first)
    finally:
        later.stop()


@needs_locks
def test_two_builds_on_one_empty_cache_both_end_with_the_index(tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {f"d{i % 20}/f{i}.c": f"int marker_{i};\n" * 20 for i in range(1500)})
    env = dict(os.environ)
    for round_ in range(3):
        env["XDG_CACHE_HOME"] = str(tmp_path / f"cache-{round_}")
        builds = [subprocess.Popen([SLEUTH, "index", "build", "--json"], cwd=root,
                                   env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                  for _ in range(2)]
        outputs = [b.communicate(timeout=300) for b in builds]
        statuses = [json.loads(out) for out, _err in outputs]
        assert [b.returncode for b in builds] == [0, 0], outputs
        assert [s["state"] for s in statuses] == ["ready", "ready"], statuses
        assert statuses[0]["store_path"] == statuses[1]["store_path"]  # built once, adopted by the other
        assert [s["files"] for s in statuses] == [1500, 1500]


# -- kill -9 during an incremental update; flipped bytes in a store (issue 20 area 5) -----------------

_UPDATER = """
import sys, pathlib
from sleuth.engine.index import IndexService
from sleuth.engine.workspace import Workspace
root = pathlib.Path(sys.argv[1])
service = IndexService(Workspace([str(root)]), cache_dir=sys.argv[2])
service.start()
assert service.wait_ready(120)
service.wait_idle(60)
changed = []
for i in range(0, 1200, 2):  # rewrite half the files: a branch switch
    path = root / f"d{i % 12}" / f"f{i}.c"
    path.write_text(f"int rewritten_{i};\\nNEEDLE_NEW_{i % 7}\\n")
    changed.append(str(path))
service.notify_changed(changed)
print("UPDATING", flush=True)
service.wait_idle(120)
print("IDLE", flush=True)
"""


def _markers_tree(root: pathlib.Path) -> None:
    for i in range(1200):
        path = root / f"d{i % 12}" / f"f{i}.c"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"int original_{i};\nNEEDLE_OLD_{i % 7}\n")


def _indexed_equals_scan(root: pathlib.Path, cache: pathlib.Path) -> None:
    from sleuth.commands import get_command

    service = index_service(root, cache)
    service.start()
    try:
        assert service.wait_ready(120) and service.wait_idle(120), service.status()
        grep = get_command("sleuth.grep")
        indexed, plain = indexed_and_plain(service)
        for pattern in ("NEEDLE_OLD_3", "NEEDLE_NEW_3", "NEEDLE_(OLD|NEW)_[0-6]", "original_11", "rewritten_10"):
            args = {"pattern": pattern, "max_results": 5000}
            lines = [(m["path"], m["line"]) for m in grep(args, indexed)["matches"]]
            assert lines == [(m["path"], m["line"]) for m in grep(args, plain)["matches"]], pattern
        text = get_command("sleuth.text")
        for query in ("NEEDLE_OLD_3", "rewritten_10"):
            ranked = text({"query": query, "max_results": 500}, indexed)
            assert [(r["path"], r["line"]) for r in ranked["results"]] == \
                [(r["path"], r["line"]) for r in text({"query": query, "max_results": 500}, plain)["results"]]
    finally:
        service.stop()


@pytest.mark.parametrize("delay", [0.0, 0.05, 0.3], ids=["at-once", "50ms", "300ms"])
def test_kill_9_during_an_incremental_update_never_costs_an_answer(tmp_path: pathlib.Path, delay: float) -> None:
    """The index is killed while it re-indexes a branch switch's 600 rewritten files: after a restart
    every answer equals the cold scan's (no hit from the old text, none of the new text missed)."""
    import signal
    import time

    root, cache = tmp_path / "ws", tmp_path / "cache"
    _markers_tree(root)
    proc = subprocess.Popen([sys.executable, "-c", _UPDATER, str(root), str(cache)], stdout=subprocess.PIPE,
                            text=True, env=dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p)))
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "UPDATING"
        time.sleep(delay)  # where in the update the kill lands (each point must be safe)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(HANG_S)
    _indexed_equals_scan(root, cache)


@pytest.mark.parametrize("where", ["postings", "shard-database"])
def test_flipped_bytes_in_the_store_never_cost_an_answer(tmp_path: pathlib.Path, where: str) -> None:
    """Bytes flipped inside the postings files or a shard database (a bad disk, a stray write):
    whether the store is rebuilt or read, every answer equals the cold scan's."""

    root, cache = tmp_path / "ws", tmp_path / "cache"
    _markers_tree(root)
    service = index_service(root, cache)
    service.start()
    assert service.wait_ready(120)
    gen = pathlib.Path(service.status()["store_path"])
    service.stop()
    damaged = sorted(gen.glob("*.post")) if where == "postings" else sorted(gen.glob("shard-*.db"))[:1]
    assert damaged
    for path in damaged:
        size = path.stat().st_size
        with open(path, "r+b") as handle:
            for offset in range(size // 7, size, max(size // 5, 1)):
                handle.seek(offset)
                byte = handle.read(1)
                handle.seek(offset)
                handle.write(bytes([byte[0] ^ 0xFF]) if byte else b"\xff")
    _indexed_equals_scan(root, cache)
