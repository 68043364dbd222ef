"""Searches a person waits for come first: background upkeep pauses while one runs.

The index's load and catch-up run on a thread of the server process. While they run, a grep takes
the cold path (a walk and a scan in the pool's worker processes), and on a two-core machine the two
fight for the cores and for the interpreter lock: measured on the Linux tree, the first grep during
a store load took 1.25 s against 0.93 s with the load held back (rg: 0.41 s). So a search marks
itself (:func:`searching`) and the upkeep calls :func:`yield_to_searches` between small steps: it
waits while a search runs, so the search gets the machine; the load resumes when it ends.

The wait is bounded (``patience``) so a search that never ends (or a stream of back-to-back ones)
slows the upkeep down but never stops it: the index still becomes ready.

Work that runs in other processes (a build's workers) cannot call :func:`yield_to_searches`; its
owner calls :func:`watch` instead: told when the first search starts and when the last one ends, it
pauses and resumes them (:mod:`sleuth.engine.index.build_pause`).
"""

from __future__ import annotations

import _thread
import time
from collections.abc import Callable, Iterable, Iterator

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")

__all__ = ["searching", "waiting_for_upkeep", "active", "yields", "yield_to_searches", "yielding", "watch",
           "PATIENCE_S"]

PATIENCE_S = 1.0  # the longest one yield waits; then the upkeep does one more step

# threading.RLock and threading.local themselves; the Condition an upkeep waits on is made by its first
# wait (yield_to_searches), so a cold grep, which only marks its search, never imports threading
# (~0.5 ms of its start: issue 30)
_lock = _thread.RLock()
_cond: Any = None
_active = 0
_yields = 0  # waits that found a search running (tests read it through yields())
_watchers: list[Callable[[bool], None]] = []
_mine = _thread._local()  # this thread's marks (``depth``): what waiting_for_upkeep() lifts


class _Mark:
    """``with`` blocks without ``contextlib`` (~0.5 ms of a cold ``sleuth grep``, which marks its
    search: issue 30): :func:`searching` adds ``change`` marks for the block, :func:`waiting_for_upkeep`
    takes this thread's away."""

    __slots__ = ("change",)

    def __init__(self, change: int | None) -> None:
        self.change = change  # None: this thread's marks, read on entry

    def __enter__(self) -> None:
        if self.change is None:
            self.change = -getattr(_mine, "depth", 0)
        _mark(self.change)

    def __exit__(self, *_exc: object) -> None:
        _mark(-self.change)  # type: ignore[operator]


def searching() -> _Mark:
    """Mark a foreground search for its duration (nestable, any thread)."""
    return _Mark(1)


def waiting_for_upkeep() -> _Mark:
    """Inside a search, while it waits for the upkeep itself (a grep waiting for the store's open):
    this thread's marks are lifted meanwhile, else the open would yield to the search that waits
    for it. Outside a search it changes nothing."""
    return _Mark(None)


def _mark(change: int) -> None:
    global _active
    if not change:
        return
    with _lock:
        before = _active
        _active += change
        _mine.depth = getattr(_mine, "depth", 0) + change
        if before == 0:
            _tell(True)
        elif _active == 0:
            if _cond is not None:  # (an upkeep waits on it: yield_to_searches made it)
                _cond.notify_all()
            _tell(False)


def watch(callback: Callable[[bool], None]) -> Callable[[], None]:
    """Call ``callback(True)`` when a search starts while none ran, ``callback(False)`` when the last
    one ends (at once with the current state: ``callback(True)`` if a search runs now). Returns the
    function that stops the calls. The callback runs under this module's lock, in the search's
    thread: it must be quick (set a flag) and must not call back into this module."""
    with _lock:
        _watchers.append(callback)
        if _active:
            callback(True)

    def unwatch() -> None:
        with _lock:
            if callback in _watchers:
                _watchers.remove(callback)

    return unwatch


def _tell(busy: bool) -> None:
    for callback in list(_watchers):
        try:
            callback(busy)
        except Exception:  # noqa: BLE001 - a watcher's failure never fails the search
            pass


def active() -> int:
    """How many foreground searches are running now."""
    return _active


def yields() -> int:
    """How many times the upkeep has waited for a search (for tests)."""
    return _yields


def yield_to_searches(should_stop: Callable[[], bool] = lambda: False, patience: float | None = None) -> None:
    """Wait while a foreground search runs, at most ``patience`` seconds (default :data:`PATIENCE_S`),
    or until ``should_stop()``.

    Cheap when nothing runs (one read of a counter): call it every few thousand rows or files.
    """
    global _yields, _cond
    if not _active:
        return
    deadline = time.monotonic() + (PATIENCE_S if patience is None else patience)
    with _lock:
        if _cond is None:
            import threading

            _cond = threading.Condition(_lock)
        if _active:
            _yields += 1
        while _active and not should_stop():
            left = deadline - time.monotonic()
            if left <= 0:
                return
            _cond.wait(min(left, 0.05))  # polls should_stop: a cancel never waits out the patience


def yielding(items: Iterable[T], should_stop: Callable[[], bool] = lambda: False, every: int = 256) -> Iterator[T]:
    """``items``, with :func:`yield_to_searches` between every ``every`` of them: for upkeep that is a
    loop in this process (the index's walk before a build holds the interpreter lock for seconds)."""
    for n, item in enumerate(items, 1):
        if n % every == 0:
            yield_to_searches(should_stop)
        yield item
