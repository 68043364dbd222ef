"""A build gives the machine to a person's search (issue 34: the first grep during a build at rg's
speed; measured, not asserted here: ``bench/first_query.py``). Its walk waits while a search runs and
its worker processes pause before their next file, resume when the search ends, and never wait longer
than the bound in one stretch. Real worker processes, real stores; every wait is for an event."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Callable

import pytest

from sleuth.engine import foreground
from sleuth.engine.cancel import CancelToken
from sleuth.engine.index import store
from sleuth.engine.index.build import BuildResult, full_build
from sleuth.engine.index.build_pause import PAUSE_FILE
from sleuth.engine.types import FileEntry
from tests.conftest import HANG_S
from tests.fixtures import index_service, poll_until


def _entries(root: Path, files: int = 40) -> list[FileEntry]:
    root.mkdir()
    entries = []
    for n in range(files):
        path = root / f"f{n:03}.c"
        path.write_text(f"int needle_{n}(void) {{ return {n}; }}\n" * 20)
        entries.append(FileEntry(str(path), path.name, path.stat().st_size, path.stat().st_mtime))
    return entries


class _Search:
    """A foreground search held open on its own thread until :meth:`end`."""

    def __init__(self) -> None:
        self._held, self._release = threading.Event(), threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        assert self._held.wait(HANG_S)

    def _run(self) -> None:
        with foreground.searching():
            self._held.set()
            self._release.wait(HANG_S)

    def end(self) -> None:
        self._release.set()
        self._thread.join(HANG_S)
        assert foreground.active() == 0


def _build_in_thread(base: Path, entries: list[FileEntry], progress: Callable[..., None],
                     **kwargs: float) -> tuple[threading.Thread, list[BuildResult]]:
    out: list[BuildResult] = []
    thread = threading.Thread(target=lambda: out.append(
        full_build(str(base), entries, CancelToken(), progress, None, {}, **kwargs)), daemon=True)
    thread.start()
    return thread, out


def _rows(gen: str) -> int:
    with sqlite3.connect(os.path.join(gen, "catalog.db")) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM files").fetchone()[0])


def test_watchers_hear_the_first_search_start_and_the_last_end() -> None:
    heard: list[bool] = []
    unwatch = foreground.watch(heard.append)
    try:
        with foreground.searching():
            with foreground.searching():  # nested: no second start
                pass
            assert heard == [True]
        assert heard == [True, False]
        with foreground.searching():
            late: list[bool] = []
            unwatch_late = foreground.watch(late.append)
            assert late == [True]  # told at once that a search runs
            unwatch_late()
    finally:
        unwatch()
    with foreground.searching():
        pass
    assert heard == [True, False, True, False]  # nothing after unwatch


def test_the_workers_pause_while_a_search_runs_and_resume_when_it_ends(tmp_path: Path) -> None:
    entries = _entries(tmp_path / "ws")
    calls: list[tuple[int, str]] = []
    search = _Search()  # running before the build starts: every worker pauses before its first file
    try:
        thread, result = _build_in_thread(tmp_path / "store", entries,
                                          lambda done, total, message="": calls.append((done, message)),
                                          max_pause_s=HANG_S)
        assert poll_until(lambda: sum(m == "indexing waits for a search" for _, m in calls) == store.SHARDS), calls
        assert all(done == 0 for done, _ in list(calls)), calls  # no file indexed while the search runs
        assert thread.is_alive()
    finally:
        search.end()
    thread.join(HANG_S)
    assert result and result[0].pauses == store.SHARDS
    assert _rows(result[0].gen) == len(entries)
    assert not os.path.exists(os.path.join(result[0].gen, PAUSE_FILE))  # nothing of the pause is published


def test_a_search_that_never_ends_only_slows_the_build(tmp_path: Path) -> None:
    entries = _entries(tmp_path / "ws", 200)
    search = _Search()
    try:  # the search outlives the build: each pause ends at its bound, and the build still completes
        thread, result = _build_in_thread(tmp_path / "store", entries, lambda *a: None, max_pause_s=0.05)
        thread.join(HANG_S)
        assert result, "the build never completed while a search ran"
        # (whether a worker saw one of the 50 ms pauses depends on how fast workers start: spawned ones may
        # miss them all; that they pause at all is the test above's, with no bound to race)
        assert _rows(result[0].gen) == len(entries)
    finally:
        search.end()


def test_without_a_search_the_workers_never_pause(tmp_path: Path) -> None:
    entries = _entries(tmp_path / "ws")
    result = full_build(str(tmp_path / "store"), entries, CancelToken(), lambda *a: None, None, {})
    assert result.pauses == 0 and _rows(result.gen) == len(entries)


def test_the_walk_before_a_build_waits_while_a_search_runs(tmp_path: Path, kit: SimpleNamespace,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The index's own walk runs in the server's process (it holds the interpreter lock the search's
    thread needs): it yields to the search before any worker starts."""
    root = tmp_path / "ws"
    kit.write_tree(root, {f"d{i}/f{j}.txt": f"needle {i} {j}\n" for i in range(20) for j in range(30)})
    monkeypatch.setattr(foreground, "PATIENCE_S", HANG_S)
    service = index_service(root, tmp_path / "cache")
    before = foreground.yields()
    search = _Search()
    try:
        service.start()
        assert poll_until(lambda: foreground.yields() > before), "the walk never yielded to the search"
        assert service.status()["state"] == "building" and not service.worker_pids
    finally:
        search.end()
    try:
        assert service.wait_ready(HANG_S), service.status()
        assert service.status()["files"] == 600
    finally:
        service.stop()


_PARENT = """
import sys, threading
from sleuth.engine import foreground
from sleuth.engine.cancel import CancelToken
from sleuth.engine.index.build import full_build
from sleuth.engine.types import FileEntry

entries = [FileEntry(p, p, 1, 0.0) for p in sys.argv[2:]]
held = threading.Event()
def search():
    with foreground.searching():
        held.set()
        threading.Event().wait()
threading.Thread(target=search, daemon=True).start()
held.wait()
paused = []
def progress(done, total, message=""):
    if message == "indexing waits for a search":
        paused.append(1)
        if len(paused) == 2:
            print("paused", flush=True)
full_build(sys.argv[1], entries, CancelToken(), progress, None, {},
           on_worker_start=lambda pids: print(*pids, flush=True), max_pause_s=3600)
"""


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] == "Z"  # exited, not yet reaped by its new parent
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc to see the workers end")
def test_a_paused_worker_leaves_when_its_server_dies(tmp_path: Path) -> None:
    """A worker waiting for a search must not outlive a killed server (nothing would ever resume it)."""
    import signal
    import subprocess
    import sys

    entries = _entries(tmp_path / "ws")
    parent = subprocess.Popen([sys.executable, "-c", _PARENT, str(tmp_path / "store"), *(e.path for e in entries)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        pids = [int(p) for p in parent.stdout.readline().split()]
        assert len(pids) == store.SHARDS
        assert parent.stdout.readline().strip() == "paused"  # both workers wait for the parent's search
        parent.send_signal(signal.SIGKILL)
        parent.wait(HANG_S)
        assert poll_until(lambda: all(_gone(pid) for pid in pids)), "a paused worker outlived its server"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait(HANG_S)
