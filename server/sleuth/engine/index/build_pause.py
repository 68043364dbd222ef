"""A build's workers step aside while a person's search runs.

A first build takes both cores for a minute or two; a grep sent meanwhile (a fresh clone searched at
once) scans with the search pool's processes. The workers run at a lower priority
(:data:`sleuth.engine.index.worker.BUILD_NICENESS`), yet on the Linux tree the first grep during a
build still took twice as long as the same grep with no build: a niced process keeps ~10% of a core,
its pages and its memory traffic, and the build's parent thread parses the workers' batches under the
interpreter lock the search's thread needs. Paused, the workers send nothing and use nothing.

The pause is cooperative: one shared byte in the build directory (:data:`PAUSE_FILE`, mapped by the
parent and by each worker), set while a search runs (:func:`sleuth.engine.foreground.watch`). A
worker looks at it before each file and, while it is set, sleeps in short steps, still checking that
its parent lives (a worker stopped by a signal would outlive a killed server). Bounded as the
upkeep's yields are: one pause lasts at most ``max_pause_s``; a search still running then lets the
workers run as long again before they pause anew, so even a search that never ends leaves the build
half the time and the index still becomes ready.
"""

from __future__ import annotations

import mmap
import os
import threading
import time
from typing import Callable

from sleuth.engine import foreground

__all__ = ["PAUSE_FILE", "PAUSE_MAX_S", "BuildPause", "WorkerPause"]

PAUSE_FILE = "pause"
PAUSE_MAX_S = 3.0  # the longest one pause lasts (a first grep on the Linux tree takes ~1 s)
POLL_S = 0.005  # a paused worker's sleep between looks at the flag


class BuildPause:
    """The build parent's side: the flag is set while searches run, within the bound above."""

    def __init__(self, build_dir: str, max_pause_s: float = PAUSE_MAX_S) -> None:
        path = os.path.join(build_dir, PAUSE_FILE)
        with open(path, "wb") as handle:
            handle.write(b"\0")
        self._handle = open(path, "r+b")
        self._flag = mmap.mmap(self._handle.fileno(), 1)
        self.max_pause_s = max_pause_s
        self._lock = threading.Lock()
        self._busy = False  # a search runs now
        self._since: float | None = None  # when the current pause began (None: not paused)
        self._rest_until = 0.0  # after a pause that hit the bound: no new pause before this
        self._unwatch = foreground.watch(self._on_search)

    def _on_search(self, busy: bool) -> None:
        with self._lock:
            self._busy = busy
            self._settle(time.monotonic())

    def check(self) -> None:
        """Apply the bound (the build's loop calls this between two waits for its workers)."""
        with self._lock:
            self._settle(time.monotonic())

    def _settle(self, now: float) -> None:
        if self._since is not None and (not self._busy or now - self._since >= self.max_pause_s):
            if self._busy:  # the bound, not the search's end: the workers run as long as they waited
                self._rest_until = now + self.max_pause_s
            self._since = None
            self._flag[0] = 0
        elif self._since is None and self._busy and now >= self._rest_until:
            self._since = now
            self._flag[0] = 1

    def close(self) -> None:
        """Stop watching and let the workers go (they may still be finishing the shard)."""
        self._unwatch()
        with self._lock:
            self._busy = False
            self._since = None
            self._flag[0] = 0
            self._flag.close()
            self._handle.close()


class WorkerPause:
    """A worker's side: the parent's flag, read before each file."""

    def __init__(self, build_dir: str) -> None:
        path = os.path.join(build_dir, PAUSE_FILE)
        self._flag: mmap.mmap | None = None
        if os.path.exists(path):  # (an incremental update or an older parent: no flag, no pause)
            with open(path, "rb") as handle:
                self._flag = mmap.mmap(handle.fileno(), 1, access=mmap.ACCESS_READ)

    def paused(self) -> bool:
        return self._flag is not None and self._flag[0] != 0

    def wait(self, parent_alive: Callable[[], bool]) -> bool:
        """Sleep while the flag is set; False when the parent died meanwhile (the worker should exit)."""
        while self.paused():
            if not parent_alive():
                return False
            time.sleep(POLL_S)
        return True
