"""The index's query side: which files may match a grep, the catalogue as a file list, and the
questions ``sleuth.text`` asks. Reads the shared :class:`~sleuth.engine.index.state.IndexState`,
never writes the store (a damaged one is only flagged for the upkeep thread to rebuild).

Never a stale miss: a file whose update is pending, an open buffer, or a file the index could not
read is always a candidate; a pending *folder* (moved, deleted, recreated) covers everything under
it: its indexed records are not trusted and its files are listed from disk until the index caught
up. Pending files, folders and buffers pass the same path rule as the walk (the request's ignore,
hidden and deny rules: :class:`~sleuth.engine.ignore.IgnoreOracle`), and the folders the index's
walk could not read come back as the search's ``errors``.
"""

from __future__ import annotations

import os
import sqlite3
import time
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence

import numpy as np

from sleuth.engine import foreground
from sleuth.engine.cancel import CancelToken
from sleuth.engine.index.candidates import CandidateList, CandidateSet
from sleuth.engine.index.catalogue import FileRecord
from sleuth.engine.index.evaluate import Stop, Stopped, evaluate, line_hits
from sleuth.engine.index.rowmap import PieceTable, SpanColumns, files_and_spans
from sleuth.engine.index.state import Changed, IndexState
from sleuth.engine.index.trigram import ALL, Query, adapt, exceeds_literals, simplify
from sleuth.engine.types import FileEntry, FileError, SkipCounts, WalkOptions
from sleuth.engine.workspace import Target, Workspace, sort_key

if TYPE_CHECKING:  # the grep package imports the pool; the index needs only the request's shape
    from sleuth.engine.grep.request import GrepRequest

__all__ = ["Narrowing", "PIECES_MIN_BYTES", "MAX_NARROWING_LITERALS"]

# Below this size a file is read whole even when only some of its chunks are candidates: one read
# of a few chunks costs no more than a few preads, and the main process skips the bookkeeping.
PIECES_MIN_BYTES = 16 << 10

# Above this many literals (an OR of 10,000 words) the index is not asked: each literal costs a
# planning lookup and posting reads on every shard, all under the service lock, and such a query
# lets most files through anyway. 10,000 words took 15-20 s on the Linux tree, far past any
# budget, while ``sleuth.index.status`` waited on the lock; the scan reads every file (see
# bench/many_patterns.py).
MAX_NARROWING_LITERALS = 256

# The longest a grep waits for a store being opened (then it scans): the open of the Linux tree's
# store takes ~0.5-1 s (more under load), a scan of it 3x rg's time.
OPEN_WAIT_S = 5.0


class Narrowing:
    """The queries over one index (see the module docstring); thread-safe through the state's lock."""

    def __init__(self, state: IndexState) -> None:
        self.state = state

    def buffer_text(self, path: str) -> str | None:
        with self.state.lock:
            return self.state.buffers.get(path)

    def compatible(self, options: WalkOptions | None) -> bool:
        """Whether the index's file set covers a walk with ``options`` (filters are applied on top)."""
        if options is None:
            return True
        mine = self.state.options
        return (options.hidden == mine.hidden and options.follow == mine.follow
                and options.no_ignore == mine.no_ignore and options.no_require_git == mine.no_require_git
                and tuple(options.deny_globs) == tuple(mine.deny_globs) and options.default_ignoring)

    def candidates(self, targets: Sequence[Target] | None, literal_query: object,
                   options: WalkOptions | None = None, line_mode: bool = False,
                   stop: Stop | None = None, buffers: Mapping[str, str] | None = None) -> CandidateSet | None:
        """Files under ``targets`` that may satisfy ``literal_query`` (see the module docstring), or
        None to scan: no literal to narrow on, more than :data:`MAX_NARROWING_LITERALS`, or ``stop()``
        said so during the evaluation (the search's deadline: the scan then ends at once, timed out).

        ``line_mode`` (grep without ``multiline``): every match lies on one line, which sharpens ANDs
        and narrows a big file to the chunks that may hold a match (its pieces: :class:`PieceTable`).
        """
        if exceeds_literals(literal_query, MAX_NARROWING_LITERALS):
            return None
        query = simplify(adapt(literal_query))
        if query is ALL or not self.compatible(options):
            return None
        poll = (stop,) if stop is not None else ()
        with self.state.lock:
            cat = self.state.cat
            if cat is None or not self.state.ready:
                return None
            try:
                if line_mode:
                    found, spans = files_and_spans(line_hits(self.state.postings, cat, query, *poll))
                else:
                    found, spans = list(evaluate(self.state.postings, cat, query, *poll)), None
            except Stopped:
                return None
            except sqlite3.Error:
                self.state.request_rebuild()
                return None
            # Result order without a string sort: each file's position in the sorted catalogue.
            ids = np.array(found + list(cat.unindexed_ids), np.int64)  # unindexed files: always candidates
            # Each candidate's record looked up once: a lazy catalogue makes a record per look-up (~3 us),
            # and the order, the list and the pieces each looked every one up again (~2,800 look-ups for
            # [A-Z]+_RESUME's 1,067 candidates on the Linux tree, a third of the lookup's time).
            by_id = _records_of(cat.by_id, ids)
            order = cat.ordered(ids, by_id)
            records = [by_id[f] for f in order.tolist()]
            changed = self.state.changed(extra=buffers)
            if changed.paths:
                fresh = [not changed.covers(r.path) for r in records]
                records = [r for r, ok in zip(records, fresh) if ok]
                order = order[np.array(fresh, np.bool_)]
            largest = cat.largest()
            entry_of = cat.entry_of
            entries = [entry_of(r.id) for r in records]
            pieces = self._pieces(order, spans, by_id) if spans is not None and len(spans.fids) else None
        pending, errors = self._from_disk(changed, targets, options)
        pending = self._with_whitelisted(pending, targets, options)
        keep = self._filter(targets, options, -1 if pending else largest)
        if keep is not None:
            kept = [i for i, r in enumerate(records) if keep(r.path, r.size)]
            records, entries = [records[i] for i in kept], [entries[i] for i in kept]
            pieces = pieces.take(kept) if pieces is not None else None
            pending = [e for e in pending if keep(e.path, e.size)]
        return CandidateSet(records, entries, pending, pieces, errors + self._walk_errors(targets))

    @staticmethod
    def _pieces(order: np.ndarray, spans: SpanColumns, by_id: Mapping[int, FileRecord]) -> PieceTable | None:
        """The candidate chunks of the narrowed files, by position in ``order`` (the candidate files in
        result order): files of a few chunks or more whose candidate chunks are not all of them, and
        plain ones only, whose bytes on disk are the indexed text (pieces.py); the searcher reads
        only those chunks."""
        if not len(order):
            return None
        sorter = np.argsort(order, kind="stable")
        where = sorter[np.minimum(np.searchsorted(order, spans.fids, sorter=sorter), len(order) - 1)]
        listed = order[where] == spans.fids  # a file with an update pending is read whole, not listed here
        records = [by_id[f] if ok else None for f, ok in zip(spans.fids.tolist(), listed.tolist())]
        narrow = np.fromiter((r is not None and r.size >= PIECES_MIN_BYTES and r.plain for r in records),
                             np.bool_, len(records))
        if not narrow.any():
            return None
        chosen = [r for r, ok in zip(records, narrow.tolist()) if ok]
        ranges = np.repeat(narrow, spans.count)
        return PieceTable(where[narrow], np.fromiter((r.size for r in chosen), np.int64, len(chosen)),
                          np.fromiter((r.mtime_ns for r in chosen), np.int64, len(chosen)), spans.count[narrow],
                          spans.start[ranges], spans.end[ranges], spans.before[ranges])

    def candidate_entries(self, workspace: Workspace, request: GrepRequest, token: CancelToken | None = None,
                          buffers: Mapping[str, str] | None = None) -> CandidateList | None:
        """Grep's hook: the candidate files of ``request`` in result order, or None to scan; the
        evaluation stops with ``token`` (the search's deadline), and the scan then ends at once.
        ``buffers``: the request's open buffers (always candidates). While a published store is being
        opened, this waits for it (at most :data:`OPEN_WAIT_S`; a build is never waited for): on the
        Linux tree the open takes a fraction of the scan it saves."""
        if not self.state.ready:
            self._await_open(token)
        if not self.state.ready or not workspace.displays_like(self.state.workspace) or _named_through_link(request.targets):
            return None
        match, search = request.match, request.search
        if search.invert or match.fuzzy:
            return None
        from sleuth.engine.match.literals import required_literals

        literal_query = required_literals(match)
        result = self.candidates(list(request.targets), literal_query, request.walk,
                                 line_mode=not match.multiline, stop=token.should_stop if token else None,
                                 buffers=buffers)
        if result is None:
            # No usable literal (or too many, or out of time): every file is read, the catalogue saves the walk.
            return self.catalogue_entries(workspace, list(request.targets), request.walk, buffers=True, extra=buffers)
        return result.entries()

    def _await_open(self, token: CancelToken | None) -> None:
        """Wait while the store is being opened (:attr:`IndexState.open_settled`), until ``token``
        stops or :data:`OPEN_WAIT_S` passed; the caller then uses the index if it is ready, else scans."""
        settled = self.state.open_settled
        if settled.is_set():
            return
        deadline = time.monotonic() + OPEN_WAIT_S
        with self.state.lock:
            self.state.open_waiters += 1
        try:
            with foreground.waiting_for_upkeep():  # (the open yields to searches: not to this one)
                while not settled.wait(0.05) and time.monotonic() < deadline:
                    if token is not None and token.should_stop():
                        return
        finally:
            with self.state.lock:
                self.state.open_waiters -= 1

    def catalogue_entries(self, workspace: Workspace, targets: Sequence[Target] | None,
                          options: WalkOptions | None, buffers: bool = False,
                          extra: Mapping[str, str] | None = None) -> CandidateList | None:
        """Every indexed file under ``targets`` passing ``options``' filters, or None (walk instead).
        Pending files and folders are taken from disk (and, with ``buffers``, open buffers never
        saved are added); ``errors`` of the result: the folders the index could not read."""
        if (not self.state.ready or not workspace.displays_like(self.state.workspace) or not self.compatible(options)
                or _named_through_link(targets)):
            return None
        with self.state.lock:
            cat = self.state.cat
            if cat is None:
                return None
            entries = cat.sorted_entries()
            largest = cat.largest()
            changed = self.state.changed(buffers, extra if buffers else None)
        fresh, errors = self._from_disk(changed, targets, options)
        fresh = self._with_whitelisted(fresh, targets, options)
        if fresh:
            largest = -1  # a pending file may be of any size: check each one
        if fresh or changed.paths:  # (a folder deleted or moved out of the targets leaves nothing fresh)
            by_path = {e.path: e for e in entries if not changed.covers(e.path)}
            by_path.update((e.path, e) for e in fresh)
            entries = sorted(by_path.values(), key=lambda e: sort_key(e.display))
        keep = self._filter(targets, options, largest)
        listed = CandidateList(entries if keep is None else [e for e in entries if keep(e.path, e.size)])
        listed.errors = errors + self._walk_errors(targets)
        return listed

    # -- text-search helpers (used by sleuth.engine.text.search) ------------------------------------
    def files_matching(self, query: Query) -> set[int]:
        """Ids of indexed files with a chunk satisfying the trigram ``query`` (each AND holds in one chunk)."""
        query = simplify(query)
        if query is ALL:
            return set(self.all_ids())
        with self.state.lock:
            try:
                return self._files(query)
            except sqlite3.Error:  # a damaged store (CorruptPostings among them): rebuild it
                self.state.request_rebuild()
                raise

    def definers(self, key: str, prefix: bool = False) -> set[int]:
        """Ids of files with a definition whose key (see :func:`identifier_key`) is ``key`` (or starts with it)."""
        if not key or not key.isalnum():
            return set()
        expression = f'"{key}"' + ("*" if prefix else "")
        out: set[int] = set()
        with self.state.lock:
            cat = self.state.cat
            if cat is None:
                return out
            for shard, conn in enumerate(self.state.shards):
                rows = [r for (r,) in conn.execute("SELECT rowid FROM defs WHERE defs MATCH ?", (expression,))]
                out.update(fid for fid, _ in cat.owners(shard, rows))
        return out

    def all_ids(self) -> list[int]:
        with self.state.lock:
            return [r.id for r in self.state.cat.sorted_records()] if self.state.cat else []

    def records(self, fids: Iterable[int]) -> list[FileRecord]:
        with self.state.lock:
            by_id = self.state.cat.by_id if self.state.cat else {}
            return [by_id[f] for f in fids if f in by_id]

    def record(self, fid: int) -> FileRecord | None:
        with self.state.lock:
            return self.state.cat.by_id.get(fid) if self.state.cat else None

    def pending_entries(self, extra: Mapping[str, str] | None = None) -> list[FileEntry]:
        """Pending files, the files under pending folders and open buffers (``extra``: a request's own
        besides), under the index's own path rule (its deny globs, ignore files, no hidden files): what
        ``sleuth.text`` reads besides the index."""
        with self.state.lock:
            changed = self.state.changed(extra=extra)
        return sorted(self._from_disk(changed, None, None)[0], key=lambda e: sort_key(e.display))

    # -- internals ------------------------------------------------------------------------------
    def _files(self, query: Query) -> set[int]:
        """Ids of files with a chunk satisfying ``query`` (each AND holds in one chunk); lock held."""
        if self.state.cat is None:
            return set()
        # (a set of the ids as they come: ``np.unique`` would sort them first, and numpy 2's imports
        # ``numpy.ma`` on its first call, ~20 ms of a cold ``sleuth text``)
        return set(line_hits(self.state.postings, self.state.cat, query).fids.tolist())

    def _filter(self, targets: Sequence[Target] | None, options: WalkOptions | None,
                largest: int = -1) -> Callable[[str, int], bool] | None:
        """A ``(path, size) -> keep`` test for targets and the walk's filters; None when it keeps everything.
        ``largest``: no file to filter is bigger (-1: unknown), so a size limit at least that big is no filter."""
        prefixes = [t.path for t in targets or () if t.path not in {r.path for r in self.state.workspace.roots}]
        files = {t.path for t in targets or () if not t.is_dir}
        oracle = None
        if options is not None and options.filters_paths:
            from sleuth.engine.ignore import IgnoreOracle

            # the request's targets: -d and -g count from the folder searched, as the walk counts them
            oracle = IgnoreOracle(self.state.workspace, options, targets or None)
        limit = options.max_file_size_bytes if options is not None else None
        if limit is not None and 0 <= largest <= limit:
            limit = None
        if not prefixes and not files and limit is None and oracle is None:
            return None

        def keep(path: str, size: int) -> bool:
            if prefixes and not any(path == p or path.startswith(p.rstrip(os.sep) + os.sep) for p in prefixes):
                return False
            if limit is not None and size > limit and path not in files:
                return False
            if oracle is not None and path not in files and not oracle.is_searchable(path):
                return False
            return True

        return keep

    def _from_disk(self, changed: Changed, targets: Sequence[Target] | None,
                   options: WalkOptions | None) -> tuple[list[FileEntry], list[FileError]]:
        """The changed paths as the search must see them now, under the request's path rule: a
        pending file from disk, a pending folder walked from disk, an open buffer (never saved to
        disk or not) as its text. Returns (entries, errors of the folder walks)."""
        if not changed.paths:
            return [], []
        from sleuth.engine.buffers import unsaved_entries
        from sleuth.engine.ignore import IgnoreOracle
        from sleuth.engine.walk import walk

        options = options or self.state.options
        oracle = IgnoreOracle(self.state.workspace, options, list(targets) if targets else None)
        scopes = list(targets) if targets else [Target(r, r.path, True) for r in self.state.workspace.roots]
        entries: dict[str, FileEntry] = {}
        errors: list[FileError] = []
        for folder in changed.folders():
            walked = [Target(t.root, folder, True) if _under(folder, t.path) else t
                      for t in scopes if t.is_dir and (_under(folder, t.path) or _under(t.path, folder))]
            walked = [t for t in walked if os.path.isdir(t.path)]
            if not walked:
                continue
            for entry in walk(self.state.workspace, walked, options.replace(max_files=None), CancelToken(),
                              SkipCounts(), errors):
                if oracle.is_searchable(entry.path):
                    entries[entry.path] = entry
        for entry in unsaved_entries(self.state.workspace, targets, options, changed.texts, oracle):
            entries[entry.path] = entry  # buffers never saved to disk
        for path in sorted(changed.paths):
            if os.path.isfile(path) and oracle.is_searchable(path):
                entry = self._entry(path)
                if entry is not None:
                    entries[path] = entry
        return list(entries.values()), errors

    def _with_whitelisted(self, pending: list[FileEntry], targets: Sequence[Target] | None,
                          options: WalkOptions | None) -> list[FileEntry]:
        """``pending`` plus the files an include glob lets through that the catalogue does not hold
        (:mod:`sleuth.engine.index.whitelisted`), searched from disk as pending files are."""
        if options is None or not options.include_globs:
            return pending
        from sleuth.engine.index.whitelisted import whitelisted_files

        known = {e.path for e in pending}
        cat = self.state.cat
        extra = whitelisted_files(self.state.workspace, targets, options,
                                  lambda path: path in known or (cat is not None and path in cat))
        return pending + extra if extra else pending

    def _walk_errors(self, targets: Sequence[Target] | None) -> list[FileError]:
        """The index walk's errors (unreadable folders) inside ``targets``."""
        with self.state.lock:
            errors = list(self.state.unreadable)
        if not errors or not targets:
            return errors
        scopes = [self.state.workspace.display(t.path, t.root) for t in targets]
        if any(s == "" for s in scopes):
            return errors
        return [e for e in errors if any(e.path == s or e.path.startswith(s + "/") for s in scopes)]

    def _entry(self, path: str) -> FileEntry | None:
        """A pending file as a walk entry, or None (gone, not a regular file). The caller has put it
        through the request's path rule (``IgnoreOracle.is_searchable``, real paths resolved once per
        folder), so no ``realpath`` per file here: 1,000 pending files of one folder cost one."""
        from sleuth.engine.walk import entry_of

        return entry_of(self.state.workspace, path)


def _records_of(by_id: Mapping[int, FileRecord], ids: np.ndarray) -> dict[int, FileRecord]:
    """The records of ``ids``, each looked up once (see :meth:`Narrowing.candidates`); a lazy catalogue's
    all at once (:meth:`~sleuth.engine.index.lazy_catalogue.LazyCatalogue.by_id`'s ``many``)."""
    many = getattr(by_id, "many", None)
    if many is not None:
        return many(ids)  # type: ignore[no-any-return]
    return {f: by_id[f] for f in ids.tolist()}


def _named_through_link(targets: Sequence[Target] | None) -> bool:
    """A target the request named through a link (``pub`` for ``pub -> src``): its answers name the
    path as the request wrote it, which only the walk knows; the index's paths are the real ones."""
    return any(t.named is not None for t in targets or ())


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


