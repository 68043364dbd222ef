"""The loop: units out, parts back, re-ordered into final order, collected, streamed; progress meanwhile.

Units finish in any order, and each publishes parts while it runs. Only the head unit's parts can go
to the collector (everything before them is final); a later unit's wait in a re-order buffer until
it becomes the head, then leave at once. So whatever the path (walk, index candidates, catalogue)
and however slow the matcher, a match leaves within about ``RESULT_INTERVAL_S`` plus one wake of
this loop after its file was searched — not when its unit of up to 2,048 files ends. A small search
never pays for the pool: it runs here, publishing the same way.

Stopping: the caller's token is polled at each wake (``WAKE_S``); workers poll their search's flag
and the deadline at every file, so a cancel, a timeout or "enough results" stops every process
within one file, not one unit.
"""

from __future__ import annotations

import itertools
import sys
import time
from collections.abc import Iterable, Iterator, Mapping

from sleuth.engine import foreground
from sleuth.engine.buffers import unsaved_entries
from sleuth.engine.cancel import CancelToken, NullProgress, ProgressSink
from sleuth.engine.collect import Collector, EventBatches
from sleuth.engine.errors import Cancelled
from sleuth.engine.grep.request import GrepOutcome, GrepRequest
from sleuth.engine.grep.unit_search import Part, Publisher, UnitResult, UnitToken, file_errors, matcher_for, search_unit
from sleuth.engine.grep.units import Unit, units
from sleuth.engine.index.candidates import CandidateList
from sleuth.engine.test_gates import SEARCH_GATE_ENV, hold
from sleuth.engine.types import FileEntry, FileError, SkipCounts
from sleuth.engine.ignore import Filter
from sleuth.engine.walk import Subtree, walk
from sleuth.engine.words import plural
from sleuth.engine.workspace import Workspace, sort_key

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:  # the pool (multiprocessing, ~8 ms to import) is imported when a search first needs it
    from typing import Any
    from concurrent.futures import Future

__all__ = ["run_grep", "prepare", "IN_PROCESS_FILES", "POOL_START_FILES", "IN_PROCESS_CANDIDATES", "WAKE_S",
           "PROGRESS_INTERVAL_S"]

# A search over fewer files than this stays in this process, however deep their folders (their subtrees
# are walked here until that many files are seen, :func:`_walked_here`) ...
IN_PROCESS_FILES = 256
# ... or over fewer than this in a process that searches once on its main thread (the CLI, cold or the
# warm CLI's forked child) and has no pool yet: it would start the pool (import multiprocessing, fork a
# worker per core) for this one search. Measured by ``bench/cold_start.py --pool-sizes`` (2 cores, load
# 2-7): one process / pool 0.6-0.9 up to 16,384 files for a literal; 0.87 at 1,024 files and 1.0-1.09 at
# 4,096 for a regex that keeps the matcher busy (``\w+_\w+\(self``). A server searches on worker
# threads and keeps its pool: it pays the start once, and the lower limit.
POOL_START_FILES = 2048
# ... or over fewer of an index's candidates for a literal: most of their files are read in pieces of
# 4-16 KiB, ~20 us each in one process, where shipping units to the pool and results back costs the
# server ~5 ms. Measured over the warm door (load ~2.6), -i PM_RESUME's 377 candidates: the server's
# command 21.4 ms in the pool, 14.8 ms here.
IN_PROCESS_CANDIDATES = 512
SPLIT_DEPTH = 2  # folders this deep below a target are handed to workers whole in a big scan
WAKE_S = 0.05  # the loop wakes at least this often: to poll the caller's token and report progress
PROGRESS_INTERVAL_S = 0.05  # the engine's progress calls (a transport throttles further as it likes)
_LAST_TOTALS: dict[tuple[Any, ...], int] = {}  # (targets, walk options) -> files the last full scan searched


class _Gather:
    """Takes parts, in final order, into the collector; counts what they searched; reports progress."""

    def __init__(self, collector: Collector, progress: ProgressSink, total: int | None,
                 token: CancelToken | None = None) -> None:
        self.collector = collector
        self.token = token  # a cancel ends the taking; the search gate (a test hook) polls it
        self.progress = progress
        self.total = total
        self.scanned = 0  # files of the parts taken
        self.searched = 0  # their bytes searched
        self.seen = 0  # files of every part received, taken or waiting (progress)
        self.skipped = SkipCounts()
        self.errors: list[FileError] = []
        self._reported = 0.0

    def take(self, part: Part) -> bool:
        """Collect one part; False when the search should stop (enough results, a unit stopped early).

        A cancelled search takes nothing more: the parts already received (several of a unit can wait
        in one batch) would otherwise be streamed after the cancel. A passed deadline still takes them:
        what was found in time is the answer."""
        if self.token is not None and self.token.cancelled:
            return False
        self.scanned += part.scanned
        self.searched += part.searched
        self.errors.extend(file_errors(part.results))
        going = True
        for result in part.results:
            if not self.collector.add(result):
                going = False
                break
        streamed = self.collector.streamed
        self.collector.flush()
        if self.token is not None and not streamed and self.collector.streamed:
            hold(SEARCH_GATE_ENV, self.token)  # the first batch is out; a test may hold the rest
            if self.token.should_stop():
                return False  # cancelled while held: the parts already here are not streamed after the cancel
        if isinstance(part, UnitResult):
            self.skipped.add(part.skipped)
            self.errors.extend(part.errors)
            going = going and part.complete
        return going

    def report(self, last: bool = False) -> None:
        """Progress, at most every ``PROGRESS_INTERVAL_S``; ``last``: the final count, always."""
        now = time.monotonic()
        if now - self._reported < PROGRESS_INTERVAL_S and not last:
            return
        self._reported = now
        done = self.seen
        known = max(self.total, done) if self.total else None
        self.progress(done, known, f"{done} of {plural(known, 'file')}" if known
                      else f"{plural(done, 'file')} searched")


def run_grep(workspace: Workspace, request: GrepRequest, token: CancelToken,
             progress: ProgressSink = NullProgress,
             sink: EventBatches | None = None,
             buffers: Mapping[str, str] | None = None,
             entries: Iterable[FileEntry] | None = None) -> GrepOutcome:
    """Search the request's targets. ``entries`` replaces the walk (an index's candidate files).

    ``sink`` receives the collected events as they become final (streaming). Returns partial results with ``timed_out`` when the token's deadline passes; raises
    :class:`Cancelled` when the caller cancels. Per-file errors land in ``errors``. The index's
    upkeep waits while it runs (:mod:`sleuth.engine.foreground`).
    """
    with foreground.searching():
        return _run_grep(workspace, request, token, progress, sink, buffers, entries)


def _run_grep(workspace: Workspace, request: GrepRequest, token: CancelToken, progress: ProgressSink,
              sink: EventBatches | None, buffers: Mapping[str, str] | None,
              entries: Iterable[FileEntry] | None) -> GrepOutcome:
    stopped = prepare(request, token)  # validate here (compiled once): a bad pattern fails before any file is read
    if stopped is not None:
        return stopped
    walk_options = request.walk
    walk_skipped, walk_errors = SkipCounts(), []
    items: Iterable[FileEntry | Subtree]
    if entries is None:
        unsaved = unsaved_entries(workspace, request.targets, walk_options, buffers) if buffers else []
        split = None
        if (request.search.sort == "path" and not walk_options.follow and walk_options.max_files is None
                and not unsaved):  # never-saved buffers merge into the walk's order: whole files, no subtrees
            split = SPLIT_DEPTH
        # The size cap is applied by the searcher (from fstat, in the workers), not by a stat here.
        items = walk(workspace, list(request.targets), walk_options, token, walk_skipped, walk_errors, split,
                     stat=request.search.sort == "modified")
        if split is not None and not _uninterruptible_here(request):
            items = _walked_here(items, workspace, request, token, walk_skipped, walk_errors, _walk_limit())
        if unsaved:
            import heapq  # here: only unsaved editor buffers are merged in

            items = heapq.merge(items, unsaved, key=lambda e: sort_key(e.display))  # type: ignore[type-var]
    else:
        items = entries
        walk_errors.extend(getattr(entries, "errors", ()))  # an index's: the folders its walk could not read
    if request.search.sort == "modified":
        items = sorted(items, key=lambda e: -e.mtime)  # type: ignore[union-attr]  # newest first, stable
    # "N of M files": exact for a list of candidates, else what the same scan found last time.
    scope = (request.targets, walk_options)
    total = len(items) if isinstance(items, list) else _LAST_TOTALS.get(scope)
    gather = _Gather(Collector(request.search.max_results, request.search.output, sink), progress, total, token)
    source = units(items, buffers, token, not request.match.multiline)
    limit = IN_PROCESS_CANDIDATES if isinstance(items, CandidateList) and items.narrowed else _walk_limit()
    if _uninterruptible_here(request):
        limit = 0
    if limit and limit == POOL_START_FILES:
        _here_then_pool(source, limit, workspace, request, token, gather)
    else:
        _here_or_pool(source, limit, workspace, request, token, gather)
    gather.report(last=True)
    gather.skipped.add(walk_skipped)
    gather.errors.extend(walk_errors)
    return _finish(gather, token, scope)


def _here_or_pool(source: Iterator[Unit], limit: int, workspace: Workspace, request: GrepRequest,
                  token: CancelToken, gather: _Gather) -> None:
    """A search with a pool at hand (a server's, or one that must run there): the units are held until
    ``limit`` files or a unit with subtrees is seen, then the whole search goes to the pool; a smaller
    one runs here."""
    head: list[Unit] = []
    for unit in source:
        head.append(unit)
        if unit.subtrees or sum(u.count for u in head) >= limit:
            _in_pool(itertools.chain(head, source), workspace, request, token, gather)
            return
    _in_process(head, workspace, request, token, gather)


def _here_then_pool(source: Iterator[Unit], limit: int, workspace: Workspace, request: GrepRequest,
                    token: CancelToken, gather: _Gather) -> None:
    """A one-shot process's search (the CLI: no pool yet, ``POOL_START_FILES``): each unit of plain
    files is searched here as soon as it is walked, until ``limit`` files were or a unit with subtrees
    comes (a folder of thousands of files belongs to the workers); the rest of the walk goes to the
    pool, started only then. The first lines are out without waiting for the walk of the first
    ``limit`` files, nor for the pool's start and its first unit (``sleuth grep PAT | head -1`` on the
    Linux tree, issue 30 item 2), and a small tree never starts the pool."""
    seen = 0
    for unit in source:
        if unit.subtrees or seen >= limit:
            _in_pool(itertools.chain([unit], source), workspace, request, token, gather)
            return
        if not _in_process([unit], workspace, request, token, gather):
            return
        seen += unit.count


def _walk_limit() -> int:
    """Files a search takes here before it goes to the pool: ``POOL_START_FILES`` on the main thread of
    a process whose pool has not started (one search would pay for the start), else ``IN_PROCESS_FILES``.
    The pool is looked up without importing :mod:`.pool` (multiprocessing)."""
    pool = sys.modules.get("sleuth.engine.grep.pool")
    if _on_main_thread() and not (pool is not None and pool.running()):
        return POOL_START_FILES
    return IN_PROCESS_FILES


def _on_main_thread() -> bool:
    """Whether this is the process's main thread. A process that never imported :mod:`threading` (a
    cold ``sleuth grep``: ~0.5 ms of its start, issue 30) started no thread that searches: Sleuth's
    servers and pools start theirs with it, and its only bare ``_thread`` (:mod:`sleuth.cli.reader_gone`)
    never searches; so that process searches on its main thread."""
    threading = sys.modules.get("threading")
    return threading is None or threading.current_thread() is threading.main_thread()


EXPAND_DEPTH_MAX = 64  # folder levels below a target that a search may walk in the calling process


def _walked_here(items: Iterable[FileEntry | Subtree], workspace: Workspace, request: GrepRequest, token: CancelToken,
                 skipped: SkipCounts, errors: list[FileError], budget: int) -> Iterator[FileEntry | Subtree]:
    """The walk's items with its subtrees walked here, in their place, until ``budget`` files were seen;
    after that, subtrees pass whole (to the pool's workers). A small tree with deep folders thus reaches
    the loop as plain files, counted, and runs in this process: the pool's start (forking the workers,
    importing multiprocessing) costs a cold call more than searching a few hundred files here. A big tree
    goes to the pool after its first ``budget`` files, its subtrees walked by the workers as before."""
    left = [budget]
    ignore = Filter(workspace, request.walk)  # one filter for every subtree walked here (its ignore files read once)

    def expand() -> Iterator[FileEntry | Subtree]:
        # A stack of (walk, its depth), not recursion: a chain of folders thousands deep (hostile, or
        # made by a runaway script) would pass Python's recursion limit, one generator per level.
        stack: list[tuple[Iterator[FileEntry | Subtree], int]] = [(iter(items), 0)]
        while stack:
            source, depth = stack[-1]
            item = next(source, None)
            if item is None:
                stack.pop()
            elif not isinstance(item, Subtree):
                left[0] -= 1
                yield item
            elif left[0] <= 0 or depth + item.depth > EXPAND_DEPTH_MAX:
                # past the budget, or a chain of folders deeper than people make them (a hostile tree):
                # the workers walk it, so this process's first answers are not held behind it
                yield item._replace(depth=item.depth + depth) if depth else item
            else:  # walked as the workers walk it (sleuth.engine.grep.unit_search), its own subtrees split again
                below = depth + item.depth
                options = request.walk
                if options.max_depth is not None:
                    options = options.replace(max_depth=max(options.max_depth - below, 0))
                stack.append((iter(walk(workspace, [item.target], options, token, skipped, errors, SPLIT_DEPTH,
                                        stat=False, ignore=ignore)), below))

    return expand()


def _uninterruptible_here(request: GrepRequest) -> bool:
    """True when a cancel could not stop this search in this thread: one call of a backtracking
    matcher can run until the deadline, and only a process's main thread can be interrupted inside it
    (by a signal: Ctrl-C in the CLI). A server's searches run on its worker threads, so such a search
    goes to the pool whatever its size, where a cancel interrupts the call (:mod:`.pool`)."""
    return not _on_main_thread() and matcher_for(request.match).backtracks


def prepare(request: GrepRequest, token: CancelToken) -> GrepOutcome | None:
    """Compile the request's patterns under its token before anything else: raises ``BadArgs`` for a
    bad pattern and :class:`Cancelled` on cancel; returns the (empty, timed out) outcome when the
    deadline passed while compiling, else None (compiled and kept: the search reuses it)."""
    from sleuth.engine.match import CompileStopped

    try:
        matcher_for(request.match, token)
    except CompileStopped:
        gather = _Gather(Collector(request.search.max_results, request.search.output, None), NullProgress, None)
        return _finish(gather, token, (request.targets, request.walk))
    return None


def _in_process(work: list[Unit], workspace: Workspace, request: GrepRequest, token: CancelToken,
                gather: _Gather) -> bool:
    """A small search, here: each unit publishes straight into the collector. False when the search
    should stop (cancelled, enough results, a unit stopped early)."""

    def send(part: Part) -> bool:
        gather.seen += part.scanned
        going = gather.take(part)
        gather.report()
        return going

    for unit in work:
        if token.should_stop():
            return False
        result = search_unit(unit, workspace, request, UnitToken(token.should_stop, token.deadline, Publisher(send)))
        gather.seen += result.scanned
        if not gather.take(result):
            return False
    return True


def _in_pool(source: Iterator[Unit], workspace: Workspace, request: GrepRequest, token: CancelToken,
             gather: _Gather) -> None:
    """Units to the pool, a few per worker ahead; parts back through ``inbox`` (the pool's dispatcher
    thread puts them there, and each task's end), taken in unit order."""
    import queue
    from concurrent.futures import Future

    from sleuth.engine.grep.pool import QUEUED_UNITS, PoolSearch, workers

    inbox: queue.SimpleQueue[tuple[int, Part | Future[UnitResult]]] = queue.SimpleQueue()
    search = PoolSearch(lambda unit_no, part: inbox.put((unit_no, part)))
    deadline = token.deadline  # workers poll the absolute deadline themselves
    read_ahead = QUEUED_UNITS * workers()
    running: dict[int, Future[UnitResult]] = {}
    waiting: dict[int, list[Part]] = {}  # parts of units behind the head, and the head's not yet taken
    ended: dict[int, UnitResult] = {}
    submitted = head = head_parts = 0  # head_parts: parts of the head unit taken so far
    exhausted, going = False, True
    try:
        while going:
            while not exhausted and len(running) < read_ahead and not token.should_stop():
                unit = next(source, None)
                if unit is None:
                    exhausted = True
                    break
                future = search.submit(unit, submitted, workspace, request, deadline)
                running[submitted] = future
                future.add_done_callback(lambda done, n=submitted: inbox.put((n, done)))
                submitted += 1
            if (exhausted and head == submitted) or token.should_stop():
                break
            try:
                messages = [inbox.get(timeout=WAKE_S)]
                while not inbox.empty():
                    messages.append(inbox.get())
            except queue.Empty:
                messages = []
            for unit_no, value in messages:
                if isinstance(value, Future):
                    if running.pop(unit_no, None) is None:
                        continue  # cancelled below, already counted
                    ended[unit_no] = last = value.result()
                    gather.seen += last.scanned
                else:
                    waiting.setdefault(unit_no, []).append(value)
                    gather.seen += value.scanned
            while going:  # release the head's parts, and the head when all of them are in
                for part in waiting.pop(head, ()):
                    head_parts += 1
                    going = gather.take(part) and going
                last = ended.get(head)
                if last is None or head_parts < last.parts:
                    break
                del ended[head]
                going = gather.take(last) and going
                head, head_parts = head + 1, 0
            gather.report()
    finally:
        search.close()
        for future in running.values():
            future.cancel()


def _finish(gather: _Gather, token: CancelToken, scope: tuple[Any, ...]) -> GrepOutcome:
    collector = gather.collector
    stopped = token.should_stop()
    if not stopped and not collector.full:
        if len(_LAST_TOTALS) > 64:
            _LAST_TOTALS.clear()
        _LAST_TOTALS[scope] = gather.scanned
    if stopped and not token.timed_out and not collector.full:
        raise Cancelled("The search was cancelled.")
    collector.flush()
    timed_out = token.timed_out and not collector.full
    return GrepOutcome(
        items=collector.items,
        truncated=collector.truncated or timed_out,
        truncated_reason=collector.truncated_reason or ("timeout" if timed_out else None),
        timed_out=timed_out,
        files_scanned=gather.scanned,
        files_matched=collector.files_matched,
        match_events=collector.match_events,
        streamed=collector.streamed,
        skipped=gather.skipped,
        errors=sorted(gather.errors, key=lambda e: e.path),
        bytes_searched=gather.searched,
    )
