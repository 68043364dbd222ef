"""The server's own file watcher (engine/index/watcher.py): rules, folders, overflow, failure.

Real inotify through watchdog on temporary trees; every wait is a bounded poll.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Callable, Iterable

import pytest

from sleuth.engine.index.trigram import Lit
from sleuth.engine.index.watcher import Watcher
from sleuth.engine.platform import overflow_signal_available
from sleuth.engine.types import WalkOptions
from sleuth.engine.workspace import Workspace
from tests.conftest import under_fallback

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/fdinfo"), reason="inotify (Linux) only")


class Recorder:
    """A change sink that records what it was handed."""

    def __init__(self) -> None:
        self.calls: list[tuple[list[str], bool]] = []
        self._lock = threading.Lock()

    def notify_changed(self, paths: Iterable[str], files_only: bool = False) -> None:
        with self._lock:
            self.calls.append((list(paths), files_only))

    def paths(self) -> set[str]:
        with self._lock:
            return {p for paths, _ in self.calls for p in paths}


def until(predicate: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "not within the bound"
        time.sleep(0.01)


def watched(root: Path, sink: object, options: WalkOptions | None = None, **kwargs: object) -> Watcher:
    watcher = Watcher(Workspace([root]), options or WalkOptions(hidden=False, deny_globs=("secret/**",)),
                      sink, **kwargs)  # type: ignore[arg-type]
    watcher.start()
    assert watcher.state == "watching", watcher.status()
    return watcher


def test_events_are_filtered_by_the_index_rules(tmp_path: Path, kit: SimpleNamespace) -> None:
    root = tmp_path / "ws"
    kit.write_tree(root, {".gitignore": "ignored/\n", "src/a.c": "x\n", "ignored/keep": "", "secret/k": "",
                          ".hidden/h": ""})
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    sink = Recorder()
    watcher = watched(root, sink, WalkOptions(hidden=False, deny_globs=("secret/**",)))
    try:
        for rel in ("ignored/f.txt", "secret/f.txt", ".hidden/f.txt", "src/f.txt"):
            (root / rel).write_text("NEEDLE\n")
        until(lambda: str(root / "src/f.txt") in sink.paths())
        (root / "src/last.txt").write_text("x\n")  # events are handed over in order: the others came before
        until(lambda: str(root / "src/last.txt") in sink.paths())
        assert sink.paths() == {str(root / "src/f.txt"), str(root / "src/last.txt")}
        before = len(sink.calls)
        os.remove(root / "ignored/f.txt")  # a deleted file is judged by the rules as it was
        os.remove(root / "src/f.txt")
        until(lambda: any(str(root / "src/f.txt") in paths for paths, _ in sink.calls[before:]))
        assert not any(str(root / "ignored/f.txt") in paths for paths, _ in sink.calls)
        (root / ".gitignore").write_text("")  # an ignore file always goes through (hidden or not)
        until(lambda: str(root / ".gitignore") in sink.paths())
    finally:
        watcher.stop()


def test_a_folder_moved_in_hands_over_its_files_and_one_moved_out_the_folder(tmp_path: Path,
                                                                               kit: SimpleNamespace) -> None:
    root, outside = tmp_path / "ws", tmp_path / "outside"
    kit.write_tree(root, {"a.c": "x\n"})
    kit.write_tree(outside, {"pkg/one.c": "1\n", "pkg/deep/two.c": "2\n", "pkg/.ignore": "skip.c\n",
                             "pkg/skip.c": "no\n"})
    sink = Recorder()
    watcher = watched(root, sink)
    try:
        os.rename(outside / "pkg", root / "pkg")
        until(lambda: {str(root / "pkg/one.c"), str(root / "pkg/deep/two.c")} <= sink.paths())
        assert str(root / "pkg/skip.c") not in sink.paths()  # the moved-in folder's own ignore file holds
        os.rename(root / "pkg", outside / "back")
        until(lambda: any(paths == [str(root / "pkg")] and not files for paths, files in sink.calls))
    finally:
        watcher.stop()


@under_fallback("polling", not overflow_signal_available(),
                "the test simulates inotify's IN_Q_OVERFLOW; the polling observer compares snapshots and loses no events")
def test_a_queue_overflow_rescans_every_watched_folder(tmp_path: Path, kit: SimpleNamespace) -> None:
    """IN_Q_OVERFLOW (simulated through watchdog's own inotify dispatch): changes whose events were lost
    are found, because the index rescans: never a silent loss."""
    from watchdog.observers.inotify_c import InotifyConstants, InotifyEvent, InotifyFD

    root, cache = tmp_path / "ws", tmp_path / "cache"
    kit.write_tree(root, {"a.c": "alpha\n"})
    service = kit.start(root, cache)
    watcher = watched(root, service, WalkOptions(hidden=False))
    try:
        watcher.event = lambda *args, **kwargs: None  # type: ignore[method-assign]  # the kernel drops events
        (root / "lost.c").write_text("lost_needle\n")
        time.sleep(0.05)  # let the (dropped) event pass, so the overflow is what hands it over
        assert service.candidates(None, Lit(b"lost_needle")).paths == []  # stale: the old code stayed so
        InotifyFD.get_instance().handle_event(InotifyEvent(-1, InotifyConstants.IN_Q_OVERFLOW, 0, b""))
        until(lambda: watcher.overflows == 1)
        until(lambda: str((root / "lost.c").resolve()) in service.candidates(None, Lit(b"lost_needle")).paths)
    finally:
        watcher.stop()
        service.stop()


def test_a_watcher_that_cannot_watch_says_so_and_asks_for_a_rescan(tmp_path: Path, kit: SimpleNamespace) -> None:
    root = tmp_path / "ws"
    kit.write_tree(root, {"a.c": "x\n"})

    class Full:  # inotify_add_watch failing with ENOSPC, as watchdog raises it
        def schedule(self, *args: object, **kwargs: object) -> None:
            raise OSError(28, "inotify watch limit reached")

    sink = Recorder()
    watcher = Watcher(Workspace([root]), WalkOptions(), sink, observer_factory=Full)
    watcher.start()
    try:
        assert watcher.state == "failed" and "watch limit" in (watcher.error or "")
        until(lambda: str(root.resolve()) in sink.paths())
    finally:
        watcher.stop()


def test_a_watcher_whose_thread_died_rescans(tmp_path: Path, kit: SimpleNamespace) -> None:
    """watchdog ends its thread on ENOSPC for a folder created later: the health check notices."""
    from watchdog.observers import Observer

    root = tmp_path / "ws"
    kit.write_tree(root, {"a.c": "x\n"})
    sink = Recorder()
    observers: list[Observer] = []

    def factory() -> Observer:
        observers.append(Observer())
        return observers[0]

    watcher = watched(root, sink, observer_factory=factory)
    try:
        for emitter in list(observers[0].emitters):
            emitter.stop()
            emitter.join(5)
        until(lambda: watcher.state == "failed")
        until(lambda: str(root.resolve()) in sink.paths())
    finally:
        watcher.stop()
