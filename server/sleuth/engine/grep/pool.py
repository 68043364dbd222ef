"""The worker processes, the stop flag of each running search, and the channel parts come back on.

One pool per process, one worker per core, started on first use. A unit's last part comes back as
its task's result; the parts it publishes before that come back on one channel shared by every
worker (a ``SimpleQueue``: a pipe each ``put`` writes to at once, under a lock), read by one
dispatcher thread here that hands each part to the search it belongs to. A search can only be
told apart from the others by its id, so every part carries it. Stopping: a search owns a slot in a
shared byte array its workers poll at each file; setting it stops them within one file. A worker
stuck inside one call of a backtracking regex never reaches the next file, so each worker also has a
watcher thread that, while a unit runs, looks at that unit's flag every 20 ms and, once it is set,
interrupts the call with a signal (the ``regex`` module checks for signals while it matches): the
worker is free for the next search within ~20 ms of a cancel, not at the cancelled search's deadline.
"""

from __future__ import annotations

import atexit
import itertools
import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Callable

from sleuth.engine.grep.request import GrepRequest
from sleuth.engine.grep.unit_search import Part, Publisher, UnitResult, UnitToken, search_unit
from sleuth.engine.grep.units import Unit
from sleuth.engine.platform import pool_start_method
from sleuth.engine.types import SkipCounts
from sleuth.engine.workspace import Workspace

__all__ = ["PoolSearch", "fork_workers", "shutdown_pool", "workers", "running", "QUEUED_UNITS"]

_SLOTS = 128  # concurrent searches that can have their own stop flag
_SEARCH_IDS = itertools.count(1)  # tells workers which units belong to one search

Listener = Callable[[int, Part], None]  # (unit number, part), called on the dispatcher thread

_POOL: ProcessPoolExecutor | None = None
_FLAGS: Any = None  # shared byte array, one flag per search slot
_CHANNEL: Any = None  # the SimpleQueue parts come back on
_FREE_SLOTS: list[int] = []
_LISTENERS: dict[int, Listener] = {}
_POOL_LOCK = threading.Lock()
_START_METHOD: str | None = None  # None: chosen by the process's threads when the pool starts
_METHOD = ""  # the method the pool started with


def fork_workers() -> None:
    """Start the workers by ``fork`` whatever threads this process has: for a short-lived CLI process
    whose other threads hold nothing a worker needs (the CLI fork server's child watches its client's
    connection on one). A fork server and its resource tracker would outlive such a process with the
    caller's stdout open, and a pipeline (``sleuth grep … | wc -l``) would never see its end."""
    global _START_METHOD
    _START_METHOD = "fork"


def start_method() -> str | None:
    """How the pool started its workers (``fork``, ``forkserver``, ``spawn``); None before it started."""
    return None if _POOL is None else _METHOD


def workers() -> int:
    return max(1, os.cpu_count() or 1)


def running() -> bool:
    """Whether this process's pool has started (a search then pays only for shipping its units)."""
    return _POOL is not None


# ---------------------------------------------------------------- worker side

_WORKER_FLAGS: Any = None
_WORKER_CHANNEL: Any = None
_INTERRUPT = getattr(signal, "SIGUSR1", None)  # None where there is no such signal (Windows): stops at files only
_WATCH_S = 0.02  # how often a busy worker's watcher looks at its unit's stop flag
_OWNER_CHECK_S = 1.0  # how often an idle worker checks that the process that started it is alive


class _Interrupted(BaseException):
    """Raised in a worker's main thread by the stop signal; a BaseException, so that no per-file
    ``except Exception`` in the searcher takes it for a file's error and carries on."""


class _Running:
    """The unit this worker runs: its stop slot, and whether the stop signal may interrupt it now
    (not while a part is being written to the shared channel, whose lock and pipe must stay whole)."""

    slot: int | None = None
    interruptible = False
    busy = threading.Event()


def _init_worker(flags: Any, channel: Any, owner: int) -> None:
    global _WORKER_FLAGS, _WORKER_CHANNEL
    _WORKER_FLAGS, _WORKER_CHANNEL = flags, channel
    if _INTERRUPT is not None:
        signal.signal(_INTERRUPT, _on_interrupt)
        threading.Thread(target=_watch, args=(threading.main_thread().ident, owner), name="sleuth-stop-watch",
                         daemon=True).start()


def _on_interrupt(signum: int, frame: object) -> None:
    if _Running.interruptible:
        raise _Interrupted()


def _watch(main_thread: int, owner: int) -> None:
    """While a unit runs, signal the main thread once its search's flag is set (again every 20 ms until
    the unit ends: a signal that lands while the unit is not interruptible is ignored). While idle,
    leave once a second if the process that owns the pool is gone: a server killed outright (SIGKILL)
    runs no shutdown, and its workers, which hold the write end of their own task pipe, would wait for
    tasks forever, keeping the fork server and its resource tracker alive with them."""
    assert _INTERRUPT is not None
    while True:
        if not _Running.busy.wait(_OWNER_CHECK_S):
            if not _alive(owner):
                os._exit(0)
            continue
        slot = _Running.slot
        if slot is not None and _WORKER_FLAGS[slot] and _Running.interruptible:
            signal.pthread_kill(main_thread, _INTERRUPT)
        time.sleep(_WATCH_S)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):  # gone (or another user's process has its number now)
        return False
    return True


def _run(unit: Unit, unit_no: int, workspace: Workspace, request: GrepRequest, slot: int | None,
         deadline: float | None, search_id: int) -> UnitResult:
    """A pool task: search one unit, publishing its parts on the channel as they are found."""
    flags, channel = _WORKER_FLAGS, _WORKER_CHANNEL

    def send(part: Part) -> bool:
        _Running.interruptible = False
        try:
            channel.put((search_id, unit_no, part))
        finally:
            _Running.interruptible = True
        return True  # "enough" reaches a worker through its search's flag

    stop = (lambda: bool(flags[slot])) if slot is not None else (lambda: False)
    publisher = Publisher(send)
    _Running.slot = slot
    _Running.interruptible = True
    _Running.busy.set()
    try:
        return search_unit(unit, workspace, request, UnitToken(stop, deadline, publisher), search_id)
    except _Interrupted:  # its search is over: what it had is not wanted
        return publisher.rest(SkipCounts(), [], complete=False)
    finally:
        _Running.interruptible = False
        _Running.busy.clear()
        _Running.slot = None


# ---------------------------------------------------------------- this side


def _dispatch(channel: Any) -> None:
    """The dispatcher thread: each part to its search (a search already over drops its late parts)."""
    while True:
        try:
            message = channel.get()
        except (EOFError, OSError):
            return
        if message is None:
            return
        search_id, unit_no, part = message
        listener = _LISTENERS.get(search_id)
        if listener is not None:
            listener(unit_no, part)


def _pool() -> ProcessPoolExecutor:
    """The shared pool, started as :func:`~sleuth.engine.platform.pool_start_method` says: ``fork``
    when this process has a single thread (the CLI: workers start in milliseconds) or asked for it
    (:func:`fork_workers`), ``forkserver`` otherwise (a server's threads make ``fork`` unsafe),
    ``spawn`` where neither exists.

    The fork server preloads this module, not the program's ``__main__`` (multiprocessing's default):
    ``__main__`` is whatever started the process (the installed ``sleuth`` script, ``python -m``, a
    host's wrapper), and a worker needs none of it, only the search code, imported once for all.
    """
    global _POOL, _FLAGS, _CHANNEL, _METHOD
    with _POOL_LOCK:
        # A worker that died (killed, out of memory) breaks the executor for good: it refuses every unit
        # from then on, and every later grep failed until the server restarted. A new pool replaces it
        # (its channel too: the dead worker may have held the old one's write lock). ``_broken`` is
        # CPython's flag, set by the executor's own thread as soon as it sees the worker gone.
        broken = _POOL is not None and bool(getattr(_POOL, "_broken", False))
    if broken:
        shutdown_pool(wait=False)
    with _POOL_LOCK:
        if _POOL is None:
            method = pool_start_method(1 if _START_METHOD == "fork" else threading.active_count())
            _METHOD = method
            context = multiprocessing.get_context(method)
            if method == "forkserver":
                context.set_forkserver_preload([__name__])
            _FLAGS = context.Array("b", _SLOTS, lock=False)
            _CHANNEL = context.SimpleQueue()
            _widen(_CHANNEL)
            _FREE_SLOTS[:] = range(_SLOTS)
            _POOL = _executor(context)
            threading.Thread(target=_dispatch, args=(_CHANNEL,), name="sleuth-grep-parts", daemon=True).start()
        return _POOL


QUEUED_UNITS = 4  # units a worker may have waiting for it: what a search sends ahead (sleuth.engine.grep.loop)


def _executor(context: Any) -> ProcessPoolExecutor:
    """The executor, its call queue holding :data:`QUEUED_UNITS` per worker. ``concurrent.futures``
    queues one call beyond the workers and refills the queue from its manager thread as each result
    comes back, a thread of this process that waits for the interpreter lock the search's own threads
    hold: a worker that ended its unit then sat idle 1-6 ms before its next one (an indexed
    ``[A-Z]+_RESUME`` on the Linux tree, 11 units: both workers' idle time between units, medians of 13
    warm calls at load ~8, 39.5 and 42.6 ms with one call queued beyond the workers, 29.9 and 22.8 ms
    so). A queued unit cannot be cancelled; its search's stop flag ends it at its first file."""
    from concurrent.futures import process

    extra = process.EXTRA_QUEUED_CALLS  # read by the constructor only (the queue's size)
    process.EXTRA_QUEUED_CALLS = (QUEUED_UNITS - 1) * workers() + extra
    try:
        return ProcessPoolExecutor(max_workers=workers(), mp_context=context, initializer=_init_worker,
                                   initargs=(_FLAGS, _CHANNEL, os.getpid()))
    finally:
        process.EXTRA_QUEUED_CALLS = extra


_CHANNEL_PIPE_BYTES = 1 << 20  # Linux's default most for an unprivileged process (/proc/sys/fs/pipe-max-size)


def _widen(channel: Any) -> None:
    """Give the parts channel's pipe room for a whole part where the platform lets a process size a
    pipe (Linux's ``F_SETPIPE_SZ``; elsewhere, or when refused, it keeps its size). In a 64 KiB pipe a
    part of a few hundred lines went in by pieces, the writer woken once per piece the dispatcher
    read, with the other worker waiting on the channel's lock meanwhile: ``os.write`` was ~15% of a
    worker's time on the Linux tree's ``[A-Z]+_RESUME``."""
    try:
        import fcntl
    except ImportError:
        return
    setter = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setter is None:
        return
    try:
        fcntl.fcntl(channel._writer.fileno(), setter, _CHANNEL_PIPE_BYTES)  # (the pipe's: either end sizes it)
    except (OSError, AttributeError):
        pass


class PoolSearch:
    """One search's use of the pool: its id, its stop slot, and where its parts go.

    The slot goes back to the free list only once every unit this search submitted has ended: a
    slot handed to the next search while a unit of this one still ran would have its flag cleared
    under that unit, which would then search on (to its deadline) on a worker the next search needs.
    """

    def __init__(self, listener: Listener) -> None:
        self.pool = _pool()
        self.search_id = next(_SEARCH_IDS)
        self._running = 0  # submitted units not ended yet
        self._closed = False
        with _POOL_LOCK:
            self.flags = _FLAGS  # this pool's (a pool that broke is replaced, flags and slots with it)
            self.slot: int | None = _FREE_SLOTS.pop() if _FREE_SLOTS else None  # None: stops between units only
            if self.slot is not None:
                self.flags[self.slot] = 0
            _LISTENERS[self.search_id] = listener

    def submit(self, unit: Unit, unit_no: int, workspace: Workspace, request: GrepRequest,
               deadline: float | None) -> Future[UnitResult]:
        with _POOL_LOCK:
            self._running += 1
        future = self.pool.submit(_run, unit, unit_no, workspace, request, self.slot, deadline, self.search_id)
        future.add_done_callback(self._unit_ended)
        return future

    def _unit_ended(self, _future: Future[UnitResult]) -> None:
        with _POOL_LOCK:
            self._running -= 1
            self._release_if_idle()

    def close(self) -> None:
        """Stop whatever still runs for this search (within ~20 ms, see the watcher); the slot is
        freed when its last unit has ended."""
        with _POOL_LOCK:
            _LISTENERS.pop(self.search_id, None)
            self._closed = True
            if self.slot is not None:
                self.flags[self.slot] = 1
            self._release_if_idle()

    def _release_if_idle(self) -> None:  # under _POOL_LOCK
        if self._closed and self._running == 0 and self.slot is not None:
            if self.pool is _POOL:  # (a replaced pool's slot is not the new pool's to hand out)
                _FREE_SLOTS.append(self.slot)
            self.slot = None


def shutdown_pool(wait: bool = False) -> None:
    """Stop the worker processes (at exit, or when a transport shuts down); ``wait``: until they have
    exited (a process that leaves by ``os._exit``, where no atexit hook runs, and whose workers must
    not keep its standard streams open behind it)."""
    global _POOL, _CHANNEL
    with _POOL_LOCK:
        pool, _POOL = _POOL, None
        channel, _CHANNEL = _CHANNEL, None
    if pool is not None:
        pool.shutdown(wait=wait, cancel_futures=True)
    if channel is not None:  # the dispatcher's end; from a thread, so that a worker that died holding the
        # channel's write lock cannot hang the caller (at exit)
        threading.Thread(target=_end_channel, args=(channel,), daemon=True).start()


def _end_channel(channel: Any) -> None:
    try:
        channel.put(None)
    except OSError:
        pass


atexit.register(shutdown_pool)
