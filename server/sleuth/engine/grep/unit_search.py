"""Searching one unit — in a pool worker, or in the caller's thread for a small search — and handing
its results out while it runs.

A unit can take seconds: 187 files of a back-reference pattern on the ``regex`` module, or 2,048
files of a catalogue scan. Waiting for the whole unit left a person looking at nothing for 15 s, so
a unit *publishes* (:class:`Publisher`): at each poll (every 16 files, after each file the matcher
ran on at most every 20 ms, and during a subtree's walk) the results found since the last
:class:`Part` go out once ``RESULT_INTERVAL_S`` has passed, and a count of files searched at least
every ``COUNT_INTERVAL_S``. The last part comes back as the :class:`UnitResult` itself. Nothing is
sent twice: a published result leaves the unit's list.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable, Iterator

from sleuth.engine.cancel import CancelToken
from sleuth.engine.collect import item_count
from sleuth.engine.grep.request import GrepRequest
from sleuth.engine.grep.units import Unit
from sleuth.engine.ignore import Filter
from sleuth.engine.pieces import Pieces, search_pieces, unpack
from sleuth.engine.match.base import Matcher
from sleuth.engine.file_scan import BatchStats, FolderOpener, search_files
from sleuth.engine.search import FileResult
from sleuth.engine.types import FileError, MatchOptions, OutputMode, SearchOptions, SkipCounts, WalkOptions
from sleuth.engine.values import Record, replace as copy_with
from sleuth.engine.walk import walk
from sleuth.engine.workspace import Workspace

__all__ = ["Part", "UnitResult", "Publisher", "UnitToken", "search_unit", "matcher_for", "file_errors", "RESULT_INTERVAL_S",
           "COUNT_INTERVAL_S"]

RESULT_INTERVAL_S = 0.03  # results found wait at most about this long in the worker
COUNT_INTERVAL_S = 0.1  # a count of files searched goes out at least this often while the unit runs


class Part(Record):
    """Results a running unit found since its last part, and how many files (``searched``: bytes) it
    searched meanwhile."""

    __slots__ = ("results", "scanned", "searched")

    def __init__(self, results: list[FileResult], scanned: int, searched: int = 0) -> None:
        self.results = results
        self.scanned = scanned
        self.searched = searched


class UnitResult(Part):
    """A unit's last part, with what only the end knows; ``parts``: how many :class:`Part` were
    published before it (the collector takes them first); ``complete`` is False when the unit stopped
    early (cancel, deadline, enough results). ``errors``: the walk's (files' errors ride on their results)."""

    __slots__ = ("skipped", "errors", "parts", "complete")

    def __init__(self, results: list[FileResult], scanned: int, searched: int = 0, skipped: SkipCounts | None = None,
                 errors: list[FileError] | None = None, parts: int = 0, complete: bool = True) -> None:
        super().__init__(results, scanned, searched)  # (the fields' order: Record pickles them so)
        self.skipped = SkipCounts() if skipped is None else skipped
        self.errors: list[FileError] = [] if errors is None else errors
        self.parts = parts
        self.complete = complete


Send = Callable[[Part], bool]  # hands a part on; False: the search wants nothing more


class Publisher:
    """Cuts a running unit's results into :class:`Part` s, by time, and (once told the search's cap,
    :meth:`limit`) ends the unit once it alone found more items than that: however many the units before it gave the
    collector, this one fills the answer and shows it truncated, so none of its later files (nor any
    later unit's) can be in the answer. The collector counts an item per event, or per matching file
    with ``output`` ``files_with_matches``/``count`` (:class:`~sleuth.engine.collect.Collector`)."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.results: list[FileResult] = []  # found and not yet published (the searchers append here)
        self.stats = BatchStats()
        self.parts = 0
        self.enough = False  # the receiver said it wants nothing more, or this unit alone passed the cap
        self._room: int | None = None  # items this unit may still find before it is over the cap
        self._output: OutputMode = "content"
        self._counted = 0  # results (of the unpublished) already taken off the room

    def limit(self, search: SearchOptions) -> None:
        """Count this unit's items against ``search.max_results`` (units reach the collector in order)."""
        self._room = search.max_results
        self._output = search.output
        self._published = 0  # files searched that parts already counted
        self._published_bytes = 0  # and their bytes
        self._results_due = 0.0  # the first results go out at once
        self._count_due = time.monotonic() + COUNT_INTERVAL_S

    def poll(self) -> None:
        if self._room is not None and self._counted < len(self.results):
            self._count()
        now = time.monotonic()
        if self.results and now >= self._results_due:
            self._publish(now)
        elif now >= self._count_due and self.stats.scanned > self._published:
            self._publish(now)

    def _count(self) -> None:
        """Take the results found since the last poll off the room; past the cap, the unit is over."""
        assert self._room is not None
        for result in itertools.islice(self.results, self._counted, None):
            self._room -= item_count(result, self._output)
        self._counted = len(self.results)
        if self._room < 0:
            self.enough = True

    def _publish(self, now: float) -> None:
        part = Part(self.results[:], self.stats.scanned - self._published,
                    self.stats.searched - self._published_bytes)
        self.results.clear()
        self._counted = 0
        self._published = self.stats.scanned
        self._published_bytes = self.stats.searched
        self._results_due = now + RESULT_INTERVAL_S
        self._count_due = now + COUNT_INTERVAL_S
        self.parts += 1
        if not self.send(part):
            self.enough = True

    def rest(self, skipped: SkipCounts, errors: list[FileError], complete: bool) -> UnitResult:
        """The last part: what was not published yet, plus the unit's totals."""
        skipped.binary += self.stats.binary
        skipped.too_large += self.stats.too_large
        return UnitResult(self.results, self.stats.scanned - self._published,
                          self.stats.searched - self._published_bytes, skipped, errors, self.parts, complete)


class UnitToken(CancelToken):
    """What a unit polls: its search's stop (the caller's token in-process; in a worker the search's
    shared flag and absolute deadline), and at each poll its :class:`Publisher` gets to publish."""

    def __init__(self, stop: Callable[[], bool], deadline: float | None, publisher: Publisher | None) -> None:
        super().__init__()
        self._stop = stop
        self._until = deadline
        self._deadline = deadline  # what CancelToken.deadline reports (search_deadline reads it)
        self.publisher = publisher

    def should_stop(self) -> bool:
        if self._stop():
            return True
        if self._until is not None and time.monotonic() >= self._until:
            self.timed_out = True
            return True
        publisher = self.publisher
        if publisher is not None:
            publisher.poll()
            return publisher.enough
        return False


# ---------------------------------------------------------------- per-process caches

_MATCHERS: dict[MatchOptions, Matcher] = {}
_FILTERS: dict[int, Filter] = {}  # search id -> the ignore filter of its subtree walks in this process


def matcher_for(options: MatchOptions, stop: CancelToken | None = None) -> Matcher:
    """Compile once per process: a pool worker sees the same options unit after unit. ``stop`` bounds
    the compile (:class:`~sleuth.engine.match.CompileStopped`); a stopped compile is not kept."""
    matcher = _MATCHERS.get(options)
    if matcher is None:
        from sleuth.engine.match import compile_matcher  # the match layer's single entry point

        matcher = compile_matcher(options, stop=stop)
        if len(_MATCHERS) > 32:
            _MATCHERS.clear()
        _MATCHERS[options] = matcher
    return matcher


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


# ---------------------------------------------------------------- one unit

FileItem = tuple[str, str, "str | None", "Pieces | None"]  # path, display, open-buffer text, index pieces


def _with_pieces(files: Iterable[FileItem], matcher: Matcher, search: SearchOptions, size_cap: int | None,
                 publisher: Publisher) -> Iterator[tuple[str, str, str | None]]:
    """Search the files the index gave candidate pieces of here, yield the others (and those whose
    pieces no longer hold) for :func:`search_files`, keeping the order of the results."""
    opener = FolderOpener()
    try:
        for path, display, text, pieces in files:
            if pieces is not None and text is None and (size_cap is None or pieces.size <= size_cap):
                result = search_pieces(path, display, pieces, matcher, search, opener)
                if result is not None:
                    publisher.stats.scanned += 1
                    publisher.stats.searched += result.searched or 0
                    if result.matched_lines or result.error:
                        publisher.results.append(result)
                    continue
            yield path, display, text
    finally:
        opener.close()


def _per_file_cap(search: SearchOptions) -> SearchOptions:
    """``search`` with at most ``max_results + 1`` matching lines a file in content mode: a file's
    first that many lines, with their context, already fill the answer and show it truncated, and
    their events are the answer's first ones in the same order; the rest of a big file's matches
    were made only to be dropped (``CREDITS``: 1,342 events for a page of 100). Count mode needs
    every match of a file; the file list, one a file."""
    most = search.max_results + 1
    if search.output != "content" or (search.max_matches_per_file is not None and search.max_matches_per_file <= most):
        return search
    return copy_with(search, max_matches_per_file=most)


def search_unit(unit: Unit, workspace: Workspace, request: GrepRequest, token: UnitToken,
                search_id: int | None = None) -> UnitResult:
    """Search ``unit`` in order; results go to ``token.publisher`` (which must be set) as found. The
    shared matcher's per-file budget is this search's time left (:func:`search_deadline`)."""
    from sleuth.engine.match.engines import search_deadline

    with search_deadline(token.deadline):
        return _search_unit(unit, workspace, request, token, search_id)


def _search_unit(unit: Unit, workspace: Workspace, request: GrepRequest, token: UnitToken,
                 search_id: int | None) -> UnitResult:
    publisher = token.publisher
    assert publisher is not None
    publisher.limit(request.search)
    cap = request.walk.max_file_size_bytes
    match, search = request.match, _per_file_cap(request.search)
    matcher = matcher_for(match)
    # Pieces serve line-mode searches without context or invert (their matches never leave a piece).
    ranged = unpack(unit.pieces) if unit.pieces and not (search.invert or search.before or search.after) else {}
    texts = unit.texts or {}
    subtrees = unit.subtrees or {}
    skipped, errors = SkipCounts(), []
    stopped = False
    files = list(unit.files()) if subtrees else unit.files()
    positions = sorted(subtrees) + [unit.count]
    start = 0
    for end in positions:  # runs of files between subtrees, then each subtree
        if end > start:
            run = itertools.islice(files, start, end) if subtrees else files
            items: Iterable[tuple[str, str, str | None]]
            if ranged:
                items = _with_pieces(((p, d, texts.get(i), ranged.get(i)) for i, (p, d) in enumerate(run, start)),
                                     matcher, search, cap, publisher)
            elif texts:
                items = ((p, d, texts.get(i)) for i, (p, d) in enumerate(run, start))
            else:
                items = ((p, d, None) for p, d in run)
            if not search_files(items, matcher, search, cap, token.should_stop, publisher.results, publisher.stats):
                stopped = True
                break
        if end == unit.count:
            break
        if token.should_stop():
            stopped = True
            break
        subtree = subtrees[end]
        options = request.walk
        if options.max_depth is not None:
            options = options.replace(max_depth=max(options.max_depth - subtree.depth, 0))
        entries = walk(workspace, [subtree.target], options, token, skipped, errors, stat=False,
                       ignore=_filter_for(search_id, workspace, request.walk))
        buffers = unit.walk_buffers
        walked = ((e.path, e.display, buffers.get(e.path)) for e in entries) if buffers else \
            ((e.path, e.display, None) for e in entries)
        if not search_files(walked, matcher, search, cap, token.should_stop, publisher.results, publisher.stats):
            stopped = True
            break
        start = end + 1
    stopped = stopped or token.should_stop()
    return publisher.rest(skipped, errors, not stopped)


def file_errors(results: Iterable[FileResult]) -> Iterator[FileError]:
    """The per-file errors among results (a file that could not be read is a result with an error)."""
    return (FileError(r.display, r.error) for r in results if r.error)

