"""The grep loop: walk -> schedule -> search -> collect (ripgrep's ``main.rs::search``), on both cores.

Python threads share one interpreter lock, so reading and matching 1 GB of files on two
cores needs processes. The walk runs here and cuts its files into chunks; a process pool
searches chunks; results come back in any order and a re-order buffer hands them to the
collector in walk order (final order), so results stream in the order they will finally have.
A search that turns out small never pays for the pool: the first chunk is searched here.
Cancellation and deadlines are polled between chunks; a chunk is small (tens of ms).
"""

from __future__ import annotations

import atexit
import itertools
import multiprocessing
import os
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping

from sleuth.engine.cancel import CancelToken, NullProgress, ProgressSink
from sleuth.engine.collect import Collector
from sleuth.engine.errors import Cancelled
from sleuth.engine.match import Matcher
from sleuth.engine.search import BINARY, FileResult, search_path
from sleuth.engine.types import FileEntry, FileError, MatchOptions, SearchOptions, SkipCounts, WalkOptions
from sleuth.engine.walk import walk
from sleuth.engine.workspace import Target, Workspace

__all__ = ["GrepRequest", "GrepOutcome", "run_grep", "shutdown_pool"]

CHUNK_FILES = 96
CHUNK_BYTES = 8 << 20
IN_PROCESS_FILES = 256  # a search over fewer files than this never starts the pool


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


# ---------------------------------------------------------------- worker side

_MATCHERS: dict[MatchOptions, Matcher] = {}


def _matcher_for(options: MatchOptions) -> Matcher:
    """Compile once per process: a pool worker sees the same options chunk after chunk."""
    matcher = _MATCHERS.get(options)
    if matcher is None:
        if len(_MATCHERS) > 32:
            _MATCHERS.clear()
        matcher = _MATCHERS[options] = _compile(options)
    return matcher


def _compile(options: MatchOptions) -> Matcher:
    from sleuth.engine.match import compile_matcher  # the match layer's single entry point

    return compile_matcher(options)


Chunk = list[tuple[str, str, "str | None"]]  # (path, display, open-buffer text or None)


def _search_chunk(match: MatchOptions, search: SearchOptions, chunk: Chunk) -> tuple[list[FileResult], int]:
    """Search a chunk; returns only the results worth sending back, and the binary count."""
    matcher = _matcher_for(match)
    keep: list[FileResult] = []
    binary = 0
    for path, display, text in chunk:
        result = search_path(path, display, matcher, search, text)
        if result.skipped == BINARY:
            binary += 1
        elif result.matched_lines or result.error:
            keep.append(result)
    return keep, binary


# ---------------------------------------------------------------- the pool

_POOL: ProcessPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> ProcessPoolExecutor:
    """The shared pool, one worker per core. ``fork`` when this process has a single thread
    (the CLI: workers start in milliseconds), ``forkserver`` otherwise (a server's threads
    make ``fork`` unsafe)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            method = "fork" if threading.active_count() == 1 else "forkserver"
            context = multiprocessing.get_context(method)
            _POOL = ProcessPoolExecutor(max_workers=max(1, os.cpu_count() or 1), mp_context=context)
        return _POOL


def shutdown_pool() -> None:
    """Stop the worker processes (at exit, or when a transport shuts down)."""
    global _POOL
    with _POOL_LOCK:
        pool, _POOL = _POOL, None
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)


atexit.register(shutdown_pool)


# ---------------------------------------------------------------- the loop


def _chunks(entries: Iterable[FileEntry], buffers: Mapping[str, str] | None,
            token: CancelToken) -> Iterator[Chunk]:
    chunk: Chunk = []
    size = 0
    for entry in entries:
        text = buffers.get(entry.path) if buffers else None
        chunk.append((entry.path, entry.display, text))
        size += entry.size
        if len(chunk) >= CHUNK_FILES or size >= CHUNK_BYTES:
            yield chunk
            chunk, size = [], 0
            if token.should_stop():
                return
    if chunk:
        yield chunk


def run_grep(workspace: Workspace, request: GrepRequest, token: CancelToken,
             progress: ProgressSink = NullProgress,
             sink: Callable[[list[dict[str, Any]]], None] | None = None,
             buffers: Mapping[str, str] | None = None,
             entries: Iterable[FileEntry] | None = None) -> GrepOutcome:
    """Search the request's targets. ``entries`` replaces the walk (an index's candidate files).

    Returns partial results with ``timed_out`` when the token's deadline passes; raises
    :class:`Cancelled` when the caller cancels. Per-file errors land in ``errors``.
    """
    _compile(request.match)  # validate here: a bad pattern fails before any file is read
    skipped = SkipCounts()
    errors: list[FileError] = []
    if entries is None:
        entries = walk(workspace, list(request.targets), request.walk, token, skipped, errors)
    if request.search.sort == "modified":
        entries = sorted(entries, key=lambda e: -e.mtime)  # newest first; stable, so ties stay in path order
    collector = Collector(request.search.max_results, request.search.output, sink)
    scanned = 0
    last_progress = 0.0

    def take(results: list[FileResult], binary: int, files: int) -> bool:
        nonlocal scanned, last_progress
        scanned += files
        skipped.binary += binary
        going = True
        for result in results:
            if result.error:
                errors.append(FileError(result.display, result.error))
            if going and not collector.add(result):
                going = False
        collector.flush()
        now = time.monotonic()
        if now - last_progress > 0.1:
            last_progress = now
            progress(scanned, None, f"{scanned} files searched")
        return going

    chunks = _chunks(entries, buffers, token)
    # Search in-process until the search proves big enough to be worth the pool.
    head: list[Chunk] = []
    for chunk in chunks:
        head.append(chunk)
        if sum(len(c) for c in head) >= IN_PROCESS_FILES:
            break
    else:
        for chunk in head:
            if token.should_stop():
                break
            results, binary = _search_chunk(request.match, request.search, chunk)
            if not take(results, binary, len(chunk)):
                break
        return _finish(collector, token, scanned, skipped, errors)

    pool = _pool()
    source = itertools.chain(head, chunks)
    in_flight: dict[Future[tuple[list[FileResult], int]], tuple[int, int]] = {}  # future -> (seq, files)
    done: dict[int, tuple[list[FileResult], int, int]] = {}
    read_ahead = 2 * (os.cpu_count() or 1) + 2
    submitted = next_to_take = 0
    going = True
    try:
        while going:
            while len(in_flight) < read_ahead and not token.should_stop():
                chunk = next(source, None)
                if chunk is None:
                    break
                in_flight[pool.submit(_search_chunk, request.match, request.search, chunk)] = (submitted, len(chunk))
                submitted += 1
            if not in_flight or token.should_stop():
                break
            finished, _ = wait(list(in_flight), timeout=0.05, return_when=FIRST_COMPLETED)
            for future in finished:
                seq, files = in_flight.pop(future)
                results, binary = future.result()
                done[seq] = (results, binary, files)
            while going and next_to_take in done:
                results, binary, files = done.pop(next_to_take)
                next_to_take += 1
                going = take(results, binary, files)
    finally:
        for future in in_flight:
            future.cancel()
    return _finish(collector, token, scanned, skipped, errors)


def _finish(collector: Collector, token: CancelToken, scanned: int, skipped: SkipCounts,
            errors: list[FileError]) -> GrepOutcome:
    stopped = token.should_stop()
    if stopped and not token.timed_out and not collector.full:
        raise Cancelled("The search was cancelled.")
    collector.flush()
    return GrepOutcome(
        items=collector.items,
        truncated=collector.truncated or (token.timed_out and not collector.full),
        truncated_reason=collector.truncated_reason or ("timeout" if token.timed_out else None),
        timed_out=token.timed_out and not collector.full,
        files_scanned=scanned,
        files_matched=collector.files_matched,
        match_events=collector.match_events,
        streamed=collector.streamed,
        skipped=skipped,
        errors=sorted(errors, key=lambda e: e.path),
    )
