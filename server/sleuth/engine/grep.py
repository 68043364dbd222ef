"""The grep loop: walk -> schedule -> search -> collect (ripgrep's ``main.rs::search``), on every core.

Python threads share one interpreter lock, so reading and matching a gigabyte of files on
two cores needs processes. Work is cut into *units* in final order: chunks of files, and —
for big scans — whole subtrees (:class:`~sleuth.engine.walk.Subtree`), which a worker walks
and searches itself, so the walk runs in parallel too. Units finish in any order; a re-order
buffer hands them to the collector in unit order, so results stream in their final order.
A small search never pays for the pool: it runs here.

Stopping: the caller's token is polled between units; workers poll a flag in shared memory
(one slot per running search) and the deadline, so a cancel, a timeout or "enough results"
stops every process within one file, not one unit.
"""

from __future__ import annotations

import atexit
import bisect
import heapq
import itertools
import multiprocessing
import os
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, NamedTuple, Union

from sleuth.engine.buffers import unsaved_entries
from sleuth.engine.cancel import CancelToken, NullProgress, ProgressSink
from sleuth.engine.collect import Collector
from sleuth.engine.errors import Cancelled
from sleuth.engine.ignore import Filter
from sleuth.engine.match import Matcher
from sleuth.engine.index.candidates import CandidateList
from sleuth.engine.index.pieces import Pieces, search_pieces, unpack
from sleuth.engine.search import BatchStats, FileResult, FolderOpener, search_files
from sleuth.engine.types import FileEntry, FileError, MatchOptions, SearchOptions, SkipCounts, WalkOptions
from sleuth.engine.walk import Subtree, walk
from sleuth.engine.workspace import Target, Workspace, sort_key
from sleuth.engine.words import plural

if TYPE_CHECKING:  # numpy: only an index's candidates carry a table, and a cold grep never loads numpy
    from sleuth.engine.index.rowmap import PieceTable

__all__ = ["GrepRequest", "GrepOutcome", "run_grep", "prepare", "shutdown_pool"]

CHUNK_FILES = 96  # files per unit of a walked scan
CHUNK_BYTES = 16 << 20
UNITS_PER_WORKER = 4  # a known file list (index candidates, the catalogue) is cut into about this many per core
LIST_UNIT_FILES = (48, 2048)  # ... of at least / at most this many files
IN_PROCESS_FILES = 256  # a search over fewer files than this never starts the pool
SPLIT_DEPTH = 2  # folders this deep below a target are handed to workers whole in a big scan
SUBTREE_WEIGHT = 12  # a subtree counts as this many files when packing units (8 subtrees a unit)
_SLOTS = 128  # concurrent searches that can have their own cancel flag
_SEARCH_IDS = itertools.count(1)  # tells workers which units belong to one search
_LAST_TOTALS: dict[tuple[Any, ...], int] = {}  # (targets, walk options) -> files the last full scan searched


@dataclass(frozen=True)
class GrepRequest:
    """A validated grep: where to look, what to match, how to report."""

    targets: tuple[Target, ...]
    walk: WalkOptions
    match: MatchOptions
    search: SearchOptions


@dataclass
class GrepOutcome:
    """What the collect step produced, before the commands layer shapes it."""

    items: list[dict[str, Any]]
    truncated: bool
    truncated_reason: str | None
    timed_out: bool
    files_scanned: int
    files_matched: int
    match_events: int
    streamed: int
    skipped: SkipCounts
    errors: list[FileError] = field(default_factory=list)


@dataclass
class UnitResult:
    """A unit's outcome; ``complete`` is False when the worker stopped early (cancel, deadline)."""

    results: list[FileResult]
    scanned: int
    skipped: SkipCounts
    errors: list[FileError]
    complete: bool = True


# (path, display, open-buffer text or None, size, the index's candidate pieces of the file or None)
FileItem = tuple[str, str, "str | None", int, "Pieces | None"]


class Listed(NamedTuple):
    """A unit of files without open buffers or subtrees: their paths and display paths, each joined
    by NUL, which no path holds, and the index's candidate pieces of some of them, packed
    (:meth:`sleuth.engine.index.rowmap.PieceTable.blob`, keyed by position in the unit). The catalogue's 78,000
    files shipped as 5-tuples cost the server ~50 ms of pickling a scan and the workers ~50 ms of
    unpickling; two strings a unit cost about a third of that, and half the bytes through the pipe."""

    paths: str
    displays: str
    count: int
    pieces: bytes = b""


Unit = Union[list[Union[FileItem, Subtree]], Listed]  # consecutive files and subtrees, in final order


# ---------------------------------------------------------------- worker side

_MATCHERS: dict[MatchOptions, Matcher] = {}
_FILTERS: dict[int, Filter] = {}  # search id -> the ignore filter of its subtree walks in this process
_CANCEL: Any = None  # shared byte array, one flag per search slot (set in workers by _init_worker)


def _init_worker(flags: Any) -> None:
    global _CANCEL
    _CANCEL = flags


def _compile(options: MatchOptions, stop: CancelToken | None = None) -> Matcher:
    from sleuth.engine.match import compile_matcher  # the match layer's single entry point

    return compile_matcher(options, stop=stop)


def _matcher_for(options: MatchOptions, stop: CancelToken | None = None) -> Matcher:
    """Compile once per process: a pool worker sees the same options unit after unit. ``stop`` bounds
    the compile (:class:`~sleuth.engine.match.CompileStopped`); a stopped compile is not kept."""
    matcher = _MATCHERS.get(options)
    if matcher is None:
        matcher = _compile(options, stop)
        if len(_MATCHERS) > 32:
            _MATCHERS.clear()
        _MATCHERS[options] = matcher
    return matcher


def prepare(request: GrepRequest, token: CancelToken) -> GrepOutcome | None:
    """Compile the request's patterns under its token before anything else: raises ``BadArgs`` for a
    bad pattern and :class:`Cancelled` on cancel; returns the (empty, timed out) outcome when the
    deadline passed while compiling, else None (compiled and kept: the search reuses it)."""
    from sleuth.engine.match import CompileStopped

    try:
        _matcher_for(request.match, token)
    except CompileStopped:
        return _finish(Collector(request.search.max_results, request.search.output, None), token, 0, SkipCounts(),
                       [], (request.targets, request.walk))
    return None


class _WorkerToken(CancelToken):
    """A token a pool worker can poll: the search's shared flag plus its absolute deadline."""

    def __init__(self, slot: int | None, deadline: float | None) -> None:
        super().__init__()
        self.slot = slot
        self._deadline = deadline

    def should_stop(self) -> bool:
        if self.slot is not None and _CANCEL is not None and _CANCEL[self.slot]:
            return True
        if self._deadline is not None and time.monotonic() >= self._deadline:
            self.timed_out = True
            return True
        return False


def _filter_for(search_id: int | None, workspace: Workspace, options: WalkOptions) -> Filter:
    """One ignore filter per search in each process: its subtrees share the ignore files they read
    (the Linux tree's top-level ``.gitignore`` was parsed again for each of ~700 subtrees, and their
    ancestors probed for ignore files each time). Per search, not per process: a long-lived pool
    must see an ignore file edited between two searches. Without an id, a filter of its own."""
    if search_id is None:
        return Filter(workspace, options)
    found = _FILTERS.get(search_id)
    if found is None:
        if len(_FILTERS) >= 8:
            _FILTERS.pop(next(iter(_FILTERS)))
        found = _FILTERS[search_id] = Filter(workspace, options)
    return found


def _whole_files(files: Iterable[FileItem], matcher: Matcher, search: SearchOptions, size_cap: int | None,
                 pieces_ok: bool, results: list[FileResult], stats: BatchStats) -> Iterator[tuple[str, str, str | None]]:
    """Search the files the index gave candidate pieces of here, yield the others (and those whose
    pieces no longer hold) for :func:`search_files`, keeping the order of ``results``."""
    opener = FolderOpener()
    try:
        for path, display, text, size, pieces in files:
            if pieces is not None and text is None and pieces_ok and (size_cap is None or size <= size_cap):
                result = search_pieces(path, display, pieces, matcher, search, opener)
                if result is not None:
                    stats.scanned += 1
                    if result.matched_lines or result.error:
                        results.append(result)
                    continue
            yield path, display, text
    finally:
        opener.close()


def _search_files(files: Iterable[FileItem] | Listed | Iterator[tuple[str, str, str | None]], match: MatchOptions,
                  search: SearchOptions, size_cap: int | None, token: CancelToken, out: UnitResult,
                  plain: bool = False) -> None:
    """``plain``: ``files`` are already :func:`search_files`' items (a walk's files: no index pieces)."""
    stats = BatchStats()
    results: list[FileResult] = []
    matcher = _matcher_for(match)
    # Pieces serve line-mode searches without context or invert (their matches never leave a piece).
    pieces_ok = not match.multiline and not search.invert and not search.before and not search.after
    items: Iterable[tuple[str, str, str | None]]
    if plain:
        items = files  # type: ignore[assignment]
    elif type(files) is Listed and files.pieces:
        ranged = unpack(files.pieces)
        items = _whole_files(((path, display, None, ranged[i].size if i in ranged else -1, ranged.get(i))
                              for i, (path, display) in enumerate(zip(files.paths.split("\0"),
                                                                       files.displays.split("\0")))),
                             matcher, search, size_cap, pieces_ok, results, stats)
    elif type(files) is Listed:
        items = zip(files.paths.split("\0"), files.displays.split("\0"), itertools.repeat(None))
    elif isinstance(files, list) and not any(item[4] is not None for item in files):
        items = [(path, display, text) for path, display, text, _size, _pieces in files]  # a plain scan
    else:
        items = _whole_files(files, matcher, search, size_cap, pieces_ok, results, stats)
    from sleuth.engine.match.engines import search_deadline

    with search_deadline(token.deadline):  # the shared matcher's per-file budget is this search's time left
        if not search_files(items, matcher, search, size_cap, token.should_stop, results, stats):
            out.complete = False
    out.scanned += stats.scanned
    out.skipped.binary += stats.binary
    out.skipped.too_large += stats.too_large
    out.results.extend(results)
    out.errors.extend(FileError(r.display, r.error) for r in results if r.error)


def _run_unit(unit: Unit, workspace: Workspace, request: GrepRequest, buffers: Mapping[str, str] | None,
              slot: int | None, deadline: float | None, token: CancelToken | None = None,
              search_id: int | None = None) -> UnitResult:
    """Search one unit: in a worker (polling the search's shared flag and deadline), or in-process
    for small searches (polling the caller's ``token`` itself)."""
    token = token or _WorkerToken(slot, deadline)
    out = UnitResult([], 0, SkipCounts(), [])
    cap = request.walk.max_file_size_bytes
    if type(unit) is Listed:
        _search_files(unit, request.match, request.search, cap, token, out)
        if token.should_stop():
            out.complete = False
        return out
    files: list[FileItem] = []
    for item in unit:
        if not isinstance(item, Subtree):
            files.append(item)
            continue
        if files:
            _search_files(files, request.match, request.search, cap, token, out)
            files = []
        if token.should_stop():
            break
        options = request.walk
        if options.max_depth is not None:
            options = replace(options, max_depth=max(options.max_depth - item.depth, 0))
        entries = walk(workspace, [item.target], options, token, out.skipped, out.errors, stat=False,
                       ignore=_filter_for(search_id, workspace, request.walk))
        walked = ((e.path, e.display, buffers.get(e.path)) for e in entries) if buffers else \
            ((e.path, e.display, None) for e in entries)
        _search_files(walked, request.match, request.search, cap, token, out, plain=True)
    if files:
        _search_files(files, request.match, request.search, cap, token, out)
    if token.should_stop():
        out.complete = False
    return out


# ---------------------------------------------------------------- the pool

_POOL: ProcessPoolExecutor | None = None
_FLAGS: Any = None
_FREE_SLOTS: list[int] = []
_POOL_LOCK = threading.Lock()


def _pool() -> ProcessPoolExecutor:
    """The shared pool, one worker per core. ``fork`` when this process has a single thread
    (the CLI: workers start in milliseconds), ``forkserver`` otherwise (a server's threads
    make ``fork`` unsafe)."""
    global _POOL, _FLAGS
    with _POOL_LOCK:
        if _POOL is None:
            method = "fork" if threading.active_count() == 1 else "forkserver"
            context = multiprocessing.get_context(method)
            _FLAGS = context.Array("b", _SLOTS, lock=False)
            _FREE_SLOTS[:] = range(_SLOTS)
            _POOL = ProcessPoolExecutor(max_workers=max(1, os.cpu_count() or 1), mp_context=context,
                                        initializer=_init_worker, initargs=(_FLAGS,))
        return _POOL


def _take_slot() -> int | None:
    with _POOL_LOCK:
        if not _FREE_SLOTS:
            return None  # more searches than slots: this one stops between units only
        slot = _FREE_SLOTS.pop()
        _FLAGS[slot] = 0
        return slot


def _release_slot(slot: int | None) -> None:
    if slot is None:
        return
    with _POOL_LOCK:
        _FLAGS[slot] = 1  # anything still running for this search stops at its next file
        _FREE_SLOTS.append(slot)


def shutdown_pool() -> None:
    """Stop the worker processes (at exit, or when a transport shuts down)."""
    global _POOL
    with _POOL_LOCK:
        pool, _POOL = _POOL, None
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)


atexit.register(shutdown_pool)


# ---------------------------------------------------------------- the loop


def _unit_files(items: Iterable[FileEntry | Subtree]) -> int:
    """Files per unit: ``CHUNK_FILES`` for a walk; for a known list, enough units to keep every worker
    busy to the end and no more. Measured: 4 per core at least as fast as 8-32 on 1,000-2,500 index
    candidates; the catalogue's 78,000 files in units of 96 cost the server process a third of a
    second of shipping, in units of 512 about half that, and that scan ran 5-10% faster; in units of
    2,048 the server's CPU for the no-literal scan fell again, 0.19-0.21 -> 0.11-0.14 s, and the scan
    took 1.90-1.98 -> 1.70-1.91 s over LSP (each unit still polls cancellation every 16 files)."""
    if not isinstance(items, list):
        return CHUNK_FILES
    low, high = LIST_UNIT_FILES
    return max(low, min(high, len(items) // (UNITS_PER_WORKER * (os.cpu_count() or 1))))


def _units(items: Iterable[FileEntry | Subtree], buffers: Mapping[str, str] | None,
           token: CancelToken, line_mode: bool) -> Iterator[Unit]:
    """Pack consecutive files and subtrees into units of about one task's worth of work.

    A pool task costs about half a millisecond to ship and return, so units are not too small:
    up to :func:`_unit_files` files (or ``CHUNK_BYTES``), a subtree weighing ``SUBTREE_WEIGHT`` files.
    The caller's token is polled between units.
    """
    most = _unit_files(items)
    # An index's candidate chunks, by position (line mode only: a multiline match may leave a chunk).
    table = items.pieces if line_mode and type(items) is CandidateList else None
    if isinstance(items, list) and not buffers:  # a list never holds subtrees (only a walk yields them)
        yield from _list_units(items, most, token, table)
        return
    lookup = dict(table.items()) if table is not None else {}
    unit: Unit = []
    weight = size = 0
    for position, item in enumerate(items):
        if isinstance(item, Subtree):
            unit.append(item)
            weight += SUBTREE_WEIGHT
        else:
            pieces = lookup.get(position)
            unit.append((item.path, item.display, buffers.get(item.path) if buffers else None, item.size, pieces))
            weight += 1
            size += max(item.size, 0)
        if weight >= most or size >= CHUNK_BYTES:
            yield unit
            unit, weight, size = [], 0, 0
            if token.should_stop():
                return
    if unit:
        yield unit


def _list_units(items: list[FileEntry], most: int, token: CancelToken, table: PieceTable | None) -> Iterator[Unit]:
    """:func:`_units` for a known list of files and no open buffers (the catalogue, index candidates):
    the same cuts, found on running sizes, and each unit built by one comprehension; ``table``: the
    index's pieces of some of the files, by position."""
    sizes = [e.size for e in items]
    if sizes and min(sizes) < 0:
        sizes = [max(size, 0) for size in sizes]
    ends = list(itertools.accumulate(sizes))
    start = 0
    while start < len(items):
        stop = min(len(items), start + most, bisect.bisect_left(ends, (ends[start - 1] if start else 0) + CHUNK_BYTES,
                                                                 start) + 1)
        part = items[start:stop]
        pieces = table.blob(start, stop) if table is not None else b""
        yield Listed("\0".join([e.path for e in part]), "\0".join([e.display for e in part]), len(part), pieces)
        start = stop
        if token.should_stop():
            return


def _has_subtree(unit: Unit) -> bool:
    return type(unit) is not Listed and any(isinstance(item, Subtree) for item in unit)


def _files_in(unit: Unit) -> int:
    return unit.count if type(unit) is Listed else len(unit)


def _subtree_buffers(unit: Unit, buffers: Mapping[str, str] | None) -> Mapping[str, str] | None:
    """Only the open buffers a unit's subtrees can need travel with it (files carry their own)."""
    if not buffers or type(unit) is Listed:
        return None
    prefixes = tuple(item.target.path.rstrip(os.sep) + os.sep for item in unit if isinstance(item, Subtree))
    if not prefixes:
        return None
    return {p: t for p, t in buffers.items() if p.startswith(prefixes)} or None


def run_grep(workspace: Workspace, request: GrepRequest, token: CancelToken,
             progress: ProgressSink = NullProgress,
             sink: Callable[[list[dict[str, Any]]], None] | None = None,
             buffers: Mapping[str, str] | None = None,
             entries: Iterable[FileEntry] | None = None) -> GrepOutcome:
    """Search the request's targets. ``entries`` replaces the walk (an index's candidate files).

    Returns partial results with ``timed_out`` when the token's deadline passes; raises
    :class:`Cancelled` when the caller cancels. Per-file errors land in ``errors``.
    """
    stopped = prepare(request, token)  # validate here (compiled once): a bad pattern fails before any file is read
    if stopped is not None:
        return stopped
    skipped = SkipCounts()
    errors: list[FileError] = []
    walk_options = request.walk
    split = None
    if entries is None and request.search.sort == "path" and not walk_options.follow and walk_options.max_files is None:
        split = SPLIT_DEPTH
    items: Iterable[FileEntry | Subtree]
    if entries is None:
        unsaved = unsaved_entries(workspace, request.targets, walk_options, buffers) if buffers else []
        # The size cap is applied by the searcher (from fstat, in the workers), not by a stat here.
        items = walk(workspace, list(request.targets), walk_options, token, skipped, errors,
                     None if unsaved else split, stat=request.search.sort == "modified")
        if unsaved:  # never-saved buffers, merged into the walk's order (whole files only: no subtrees)
            items = heapq.merge(items, unsaved, key=lambda e: sort_key(e.display))  # type: ignore[type-var]
    else:
        items = entries
        errors.extend(getattr(entries, "errors", ()))  # an index's: the folders its walk could not read
    if request.search.sort == "modified":
        items = sorted(items, key=lambda e: -e.mtime)  # type: ignore[union-attr]  # newest first, stable
    collector = Collector(request.search.max_results, request.search.output, sink)
    scanned = 0
    last_progress = 0.0
    # "N of M files": exact for a list of candidates, else what the same scan found last time.
    scope = (request.targets, walk_options)
    total = len(items) if isinstance(items, list) else _LAST_TOTALS.get(scope)
    deadline = token.deadline  # workers poll the absolute deadline themselves

    def take(unit: UnitResult) -> bool:
        nonlocal scanned, last_progress
        scanned += unit.scanned
        skipped.add(unit.skipped)
        errors.extend(unit.errors)
        going = True
        for result in unit.results:
            if not collector.add(result):
                going = False
                break
        collector.flush()
        now = time.monotonic()
        if now - last_progress > 0.1:
            last_progress = now
            known = max(total, scanned) if total else None
            progress(scanned, known, f"{scanned} of {plural(known, 'file')}" if known
                     else f"{plural(scanned, 'file')} searched")
        return going and unit.complete

    units = _units(items, buffers, token, not request.match.multiline)
    head: list[Unit] = []
    for unit in units:
        head.append(unit)
        if _has_subtree(unit) or sum(_files_in(u) for u in head) >= IN_PROCESS_FILES:
            break
    else:
        for unit in head:  # small: search here, no processes
            if token.should_stop() or not take(_run_unit(unit, workspace, request, buffers, None, deadline, token)):
                break
        return _finish(collector, token, scanned, skipped, errors, scope)

    pool = _pool()
    slot = _take_slot()
    search_id = next(_SEARCH_IDS)
    source = itertools.chain(head, units)
    in_flight: dict[Future[UnitResult], int] = {}
    done: dict[int, UnitResult] = {}
    read_ahead = 4 * (os.cpu_count() or 1)
    submitted = next_to_take = 0
    going = True
    try:
        while going:
            while len(in_flight) < read_ahead and not token.should_stop():
                unit = next(source, None)
                if unit is None:
                    break
                future = pool.submit(_run_unit, unit, workspace, request, _subtree_buffers(unit, buffers), slot,
                                     deadline, None, search_id)
                in_flight[future] = submitted
                submitted += 1
            if not in_flight or token.should_stop():
                break
            finished, _ = wait(list(in_flight), timeout=0.05, return_when=FIRST_COMPLETED)
            for future in finished:
                done[in_flight.pop(future)] = future.result()
            while going and next_to_take in done:
                going = take(done.pop(next_to_take))
                next_to_take += 1
    finally:
        _release_slot(slot)
        for future in in_flight:
            future.cancel()
    return _finish(collector, token, scanned, skipped, errors, scope)


def _finish(collector: Collector, token: CancelToken, scanned: int, skipped: SkipCounts,
            errors: list[FileError], scope: tuple[Any, ...]) -> GrepOutcome:
    stopped = token.should_stop()
    if not stopped and not collector.full:
        if len(_LAST_TOTALS) > 64:
            _LAST_TOTALS.clear()
        _LAST_TOTALS[scope] = scanned
    if stopped and not token.timed_out and not collector.full:
        raise Cancelled("The search was cancelled.")
    collector.flush()
    timed_out = token.timed_out and not collector.full
    return GrepOutcome(
        items=collector.items,
        truncated=collector.truncated or timed_out,
        truncated_reason=collector.truncated_reason or ("timeout" if timed_out else None),
        timed_out=timed_out,
        files_scanned=scanned,
        files_matched=collector.files_matched,
        match_events=collector.match_events,
        streamed=collector.streamed,
        skipped=skipped,
        errors=sorted(errors, key=lambda e: e.path),
    )
