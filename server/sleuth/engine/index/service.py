"""The index service: lifecycle (build, load, catch up, stay current) and the narrowing contract.

One :class:`IndexService` per workspace. A background thread opens the persisted store (or builds
one), catches up on what changed while the server was down by comparing size and mtime with a fresh
walk, then applies changes as they are notified. Queries never wait for it:

- :meth:`IndexService.candidates` / :meth:`candidate_entries` — the files that *may* contain a
  match of a grep (the index only narrows; the searcher confirms), or None when the index cannot
  narrow (not ready, incompatible walk options, no usable literal). A file whose update is pending,
  an open buffer, or a file the index could not read is always included: never a stale miss. A
  pending *folder* (a folder moved, deleted, recreated) covers everything under it: its indexed
  records are not trusted and its files are listed from disk until the index caught up. Pending
  files, folders and buffers pass the same path rule as the walk (the request's ignore, hidden and
  deny rules: :class:`~sleuth.engine.ignore.IgnoreOracle`), and the folders the index's walk could
  not read come back as the search's ``errors``.
- :meth:`catalogue_entries` — the file list for fuzzy Quick-Open without a walk.
- :meth:`status`, :meth:`build`, :meth:`notify_changed`, :meth:`notify_buffer`, :meth:`stop`.
"""

from __future__ import annotations

import os
import sqlite3
import stat as stat_mod
import threading
import time
from dataclasses import replace
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from sleuth.engine.cancel import CancelToken, NullProgress, ProgressSink
from sleuth.engine.index import store
from sleuth.engine.index.candidates import CandidateList, CandidateSet
from sleuth.engine.index.catalogue import Catalogue, FileRecord
from sleuth.engine.index.maintenance import Maintenance
from sleuth.engine.index.evaluate import evaluate, line_hits
from sleuth.engine.index.postings import Postings
from sleuth.engine.index.rowmap import PieceTable, SpanColumns, files_and_spans
from sleuth.engine.index.trigram import ALL, Query, adapt, simplify
from sleuth.engine.types import FileEntry, FileError, SkipCounts, WalkOptions
from sleuth.engine.workspace import Target, Workspace, canonicalize, sort_key

__all__ = ["IndexService", "CandidateSet", "PIECES_MIN_BYTES"]

# Below this size a file is read whole even when only some of its chunks are candidates: one read
# of a few chunks costs no more than a few preads, and the main process skips the bookkeeping.
PIECES_MIN_BYTES = 16 << 10

Lister = Callable[[CancelToken], Iterable[FileEntry]]


class IndexService(Maintenance):
    """The index of one workspace; see the module docstring. All public methods are thread-safe."""

    def __init__(self, workspace: Workspace, settings: Any = None, *, cache_dir: str | None = None,
                 lister: Lister | None = None, on_error: Callable[[str], None] | None = None) -> None:
        """``on_error(message)``: called once (on the index thread) when the index stops on an error —
        a full disk, a read-only cache — so the transport can tell the person, not only the log."""
        self.workspace = workspace
        self.settings = settings
        self.options = WalkOptions(
            hidden=False, follow=bool(getattr(settings, "follow", False)),
            no_ignore=not bool(getattr(settings, "respect_gitignore", True)),
            deny_globs=tuple(getattr(settings, "deny_globs", ()) or ()),
        )
        self.max_bytes: int | None = getattr(settings, "max_file_size_bytes", None)
        roots = [r.path for r in workspace.roots]
        self.base = store.store_dir(roots, cache_dir or getattr(settings, "index_path", None))
        self._lister = lister or self._walk
        self._lock = threading.RLock()
        self._wake = threading.Condition(self._lock)
        self._cat: Catalogue | None = None
        self._catalog_db: sqlite3.Connection | None = None
        self._shards: list[sqlite3.Connection] = []
        self._postings: list[Postings] = []  # per shard: its posting lists and their cached counts
        self._writers: list[sqlite3.Connection] = []
        self._gen: str | None = None
        self._pending: dict[str, float] = {}  # path -> when notified
        self._buffers: dict[str, str] = {}
        self._state = "absent"
        self._error: str | None = None
        self._garbage = 0
        self._want_rebuild = False
        self._want_rescan = False
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._token = CancelToken()
        self._progress: ProgressSink = NullProgress
        self._last_build: dict[str, Any] = {}
        self._build_done = threading.Event()
        self.worker_pids: list[int] = []
        self._oracle: Any = None
        self._rebuilding = False
        self._hold: Any = None  # the open generation's readers.lock (store.open_current)
        self._unreadable: list[FileError] = []  # folders the last walk could not read
        self._on_error = on_error
        self.watcher: Any = None  # the server's file watcher (engine/index/watcher.py), for status only

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self, progress: ProgressSink = NullProgress, token: CancelToken | None = None) -> None:
        """Open or build in the background; returns at once. Grep scans until :attr:`ready`."""
        with self._lock:
            if self._thread is not None:
                return
            self._progress = progress
            if token is not None:
                token.on_cancel(self._token.cancel)
            self._state = "loading"  # opening a published store; "building" once it turns out a build is needed
            self._thread = threading.Thread(target=self._run, name="sleuth-index", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Cancel any build, stop the thread, close the store (it stays valid on disk)."""
        with self._lock:
            self._stopping = True
            self._token.cancel()
            self._wake.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=30)
        with self._lock:
            self._close()
            self._state = "absent" if self._state != "error" else "error"

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Block until the first load or build finished (tests, the CLI); True when ready."""
        self._build_done.wait(timeout)
        return self.ready

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Block until every notified change is applied (tests, benchmarks); True when idle."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                busy = self._pending or self._want_rebuild or self._want_rescan or not self._build_done.is_set()
                if self._state == "error" or self._thread is None or not self._thread.is_alive():
                    return not busy
            if not busy:
                return True
            time.sleep(0.01)
        return False

    @property
    def ready(self) -> bool:
        return self._state in ("ready", "stale") and self._cat is not None

    def build(self, full: bool = False, progress: ProgressSink = NullProgress,
              token: CancelToken | None = None, wait: bool = True) -> dict[str, Any]:
        """Incremental catch-up (rescan by size/mtime) or, with ``full``, a rebuild; returns :meth:`status`.

        After an error (the index thread has ended) this starts over: the cause may be gone (disk
        space freed), and if not, the new attempt fails the same way and the status says so.
        """
        with self._lock:
            thread = self._thread
            if thread is not None and not thread.is_alive() and not self._stopping:
                self._thread = None
                self._build_done.clear()
                self._error = None
                if self._token.should_stop():
                    self._token = CancelToken()
        if self._thread is None:
            self.start(progress, token)
            if wait:
                self.wait_ready()
            if not full:
                return self.status()
        with self._lock:
            self._progress = progress
            self._build_done.clear()
            if full:
                self._want_rebuild = True
            else:
                self._want_rescan = True
            self._wake.notify_all()
        if wait:
            while not self._build_done.wait(0.1):
                if token is not None and token.should_stop():
                    break
                if self._thread is None or not self._thread.is_alive():
                    break  # the index thread ended (an error): nothing will finish this build
        return self.status()

    # -- change notifications -------------------------------------------------------------------
    def notify_changed(self, paths: Iterable[str], files_only: bool = False) -> None:
        """Files (or folders) created, changed or deleted on disk: searched from disk until re-indexed.

        ``files_only``: the caller knows none of ``paths`` was a folder (the server's own watcher), so
        a path gone from disk and absent from the catalogue (an editor's temporary file) needs no rescan.
        """
        now = time.monotonic()
        with self._lock:
            for path in paths:
                path = self._normal(path)
                if os.path.basename(path) in (".gitignore", ".ignore", ".rgignore"):
                    self._want_rescan = True
                if os.path.isdir(path) or (not files_only and self._cat is not None and path not in self._cat.by_path
                                           and not os.path.exists(path)):
                    self._want_rescan = True
                self._pending[path] = now
                if self._oracle is not None:
                    self._oracle.invalidate(path)
            self._wake.notify_all()

    def notify_buffer(self, path: str, text: str | None) -> None:
        """An open editor buffer's unsaved text (None when closed): always a candidate while open."""
        with self._lock:
            path = self._normal(path)
            if text is None:
                self._buffers.pop(path, None)
            else:
                self._buffers[path] = text

    def _normal(self, path: str) -> str:
        """The catalogue's spelling of a client path: absolute, and canonical when the client reached the
        workspace through a symlink (``/tmp`` vs ``/private/tmp``), so a change never becomes a duplicate."""
        path = os.path.abspath(path)
        return path if self.workspace.root_of(path) is not None else canonicalize(path)

    def buffer_text(self, path: str) -> str | None:
        with self._lock:
            return self._buffers.get(path)

    # -- status ---------------------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        with self._lock:
            cat = self._cat
            state = self._state
            if state == "ready" and self._pending:
                state = "stale"
            return {
                "state": state,
                "files": len(cat) if cat else 0,
                "bytes": cat.total_bytes if cat else 0,
                "pending_updates": len(self._pending),
                "rebuilding": self._rebuilding and cat is not None,
                "open_buffers": len(self._buffers),
                "store_path": self._gen or self.base,
                "store_bytes": store.directory_size(self._gen) if self._gen else 0,
                "garbage_rows": self._garbage,
                "last_build": self._last_build.get("at"),
                "last_build_seconds": self._last_build.get("seconds"),
                "error": self._error,
                "watcher": self.watcher.status() if self.watcher is not None else None,
            }

    # -- narrowing ------------------------------------------------------------------------------
    def compatible(self, options: WalkOptions | None) -> bool:
        """Whether the index's file set covers a walk with ``options`` (filters are applied on top)."""
        if options is None:
            return True
        mine = self.options
        return (options.hidden == mine.hidden and options.follow == mine.follow
                and options.no_ignore == mine.no_ignore and options.no_require_git == mine.no_require_git
                and tuple(options.deny_globs) == tuple(mine.deny_globs) and options.default_ignoring)

    def candidates(self, targets: Sequence[Target] | None, literal_query: object,
                   options: WalkOptions | None = None, line_mode: bool = False) -> CandidateSet | None:
        """Files under ``targets`` that may satisfy ``literal_query`` (see the module docstring).

        ``line_mode`` (grep without ``multiline``): every match lies on one line, which sharpens ANDs
        and narrows a big file to the chunks that may hold a match (its pieces: :class:`PieceTable`).
        """
        query = simplify(adapt(literal_query))
        if query is ALL or not self.compatible(options):
            return None
        with self._lock:
            cat = self._cat
            if cat is None or not self.ready:
                return None
            try:
                if line_mode:
                    found, spans = files_and_spans(line_hits(self._postings, cat, query))
                else:
                    found, spans = list(evaluate(self._postings, cat, query)), None
            except sqlite3.Error:
                self._want_rebuild = True
                self._wake.notify_all()
                return None
            # Result order without a string sort: each file's position in the sorted catalogue.
            ids = np.array(found + list(cat.unindexed_ids), np.int64)  # unindexed files: always candidates
            order = ids[np.argsort(cat.rank()[ids], kind="stable")]
            by_id = cat.by_id
            records = [by_id[f] for f in order.tolist()]
            changed = self._changed()
            if changed.paths:
                fresh = [not changed.covers(r.path) for r in records]
                records = [r for r, ok in zip(records, fresh) if ok]
                order = order[np.array(fresh, np.bool_)]
            largest = cat.largest()
            entry_of = cat.entry_of
            entries = [entry_of(r.id) for r in records]
            pieces = self._pieces(order, spans, by_id) if spans is not None and len(spans.fids) else None
        pending, errors = self._from_disk(changed, targets, options)
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

    def candidate_entries(self, workspace: Workspace, request: Any) -> CandidateList | list[FileEntry] | None:
        """The lead's grep hook: candidate files of a ``GrepRequest`` in result order, or None to scan."""
        if not self.ready or workspace.roots != self.workspace.roots or _named_through_link(request.targets):
            return None
        match, search = request.match, request.search
        if search.invert or match.fuzzy:
            return None
        import sleuth.engine.match  # noqa: F401 - literals imports the match package; load it first
        from sleuth.engine.literals import required_literals

        literal_query = required_literals(match)
        result = self.candidates(list(request.targets), literal_query, request.walk,
                                 line_mode=not match.multiline)
        if result is None:
            # No usable literal: every file is read anyway, but the catalogue still saves the walk.
            return self.catalogue_entries(workspace, list(request.targets), request.walk, buffers=True)
        return result.entries()

    def catalogue_entries(self, workspace: Workspace, targets: Sequence[Target] | None,
                          options: WalkOptions | None, buffers: bool = False) -> CandidateList | None:
        """Every indexed file under ``targets`` passing ``options``' filters, or None (walk instead).
        Pending files and folders are taken from disk (and, with ``buffers``, open buffers never
        saved are added); ``errors`` of the result: the folders the index could not read."""
        if (not self.ready or workspace.roots != self.workspace.roots or not self.compatible(options)
                or _named_through_link(targets)):
            return None
        with self._lock:
            cat = self._cat
            if cat is None:
                return None
            entries = cat.sorted_entries()
            largest = cat.largest()
            changed = self._changed(buffers)
        errors: list[FileError] = []
        if changed.paths:
            largest = -1  # a pending file may be of any size: check each one
            fresh, errors = self._from_disk(changed, targets, options)
            by_path = {e.path: e for e in entries if not changed.covers(e.path)}
            by_path.update((e.path, e) for e in fresh)
            entries = sorted(by_path.values(), key=lambda e: sort_key(e.display))
        keep = self._filter(targets, options, largest)
        listed = CandidateList(entries if keep is None else [e for e in entries if keep(e.path, e.size)])
        listed.errors = errors + self._walk_errors(targets)
        return listed

    # -- text-search helpers (used by sleuth.engine.index.text) ------------------------------------
    def files_matching(self, query: Query) -> set[int]:
        """Ids of indexed files with a chunk satisfying the trigram ``query`` (each AND holds in one chunk)."""
        query = simplify(query)
        if query is ALL:
            return set(self.all_ids())
        with self._lock:
            try:
                return self._files(query)
            except sqlite3.Error:  # a damaged store (CorruptPostings among them): rebuild it
                self._want_rebuild = True
                self._wake.notify_all()
                raise

    def definers(self, key: str, prefix: bool = False) -> set[int]:
        """Ids of files with a definition whose key (see :func:`identifier_key`) is ``key`` (or starts with it)."""
        if not key or not key.isalnum():
            return set()
        expression = f'"{key}"' + ("*" if prefix else "")
        out: set[int] = set()
        with self._lock:
            cat = self._cat
            if cat is None:
                return out
            for shard, conn in enumerate(self._shards):
                rows = [r for (r,) in conn.execute("SELECT rowid FROM defs WHERE defs MATCH ?", (expression,))]
                out.update(fid for fid, _ in cat.owners(shard, rows))
        return out

    def all_ids(self) -> list[int]:
        with self._lock:
            return [r.id for r in self._cat.sorted_records()] if self._cat else []

    def records(self, fids: Iterable[int]) -> list[FileRecord]:
        with self._lock:
            by_id = self._cat.by_id if self._cat else {}
            return [by_id[f] for f in fids if f in by_id]

    def record(self, fid: int) -> FileRecord | None:
        with self._lock:
            return self._cat.by_id.get(fid) if self._cat else None

    def pending_entries(self) -> list[FileEntry]:
        """Pending files, the files under pending folders and open buffers, under the index's own path
        rule (its deny globs, ignore files, no hidden files): what ``sleuth.text`` reads besides the index."""
        with self._lock:
            changed = self._changed()
        return sorted(self._from_disk(changed, None, None)[0], key=lambda e: sort_key(e.display))

    # -- internals ------------------------------------------------------------------------------
    def _files(self, query: Query) -> set[int]:
        """Ids of files with a chunk satisfying ``query`` (each AND holds in one chunk); lock held."""
        if self._cat is None:
            return set()
        return set(np.unique(line_hits(self._postings, self._cat, query).fids).tolist())

    def _filter(self, targets: Sequence[Target] | None, options: WalkOptions | None,
                largest: int = -1) -> Callable[[str, int], bool] | None:
        """A ``(path, size) -> keep`` test for targets and the walk's filters; None when it keeps everything.
        ``largest``: no file to filter is bigger (-1: unknown), so a size limit at least that big is no filter."""
        prefixes = [t.path for t in targets or () if t.path not in {r.path for r in self.workspace.roots}]
        files = {t.path for t in targets or () if not t.is_dir}
        oracle = None
        extra = options is not None and (options.include_globs or options.exclude_globs or options.file_types
                                         or options.max_depth is not None or not options.recursive)
        if extra:
            from sleuth.engine.ignore import IgnoreOracle

            oracle = IgnoreOracle(self.workspace, options)
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

    def _changed(self, buffers: bool = True) -> "_Changed":
        """What the index cannot vouch for right now (lock held): pending paths and open buffers."""
        cat = self._cat
        paths = set(self._pending)
        texts = dict(self._buffers) if buffers else {}
        paths.update(texts)
        known = {p for p in paths if cat is not None and p in cat.by_path}
        return _Changed(paths, texts, known)

    def _from_disk(self, changed: "_Changed", targets: Sequence[Target] | None,
                   options: WalkOptions | None) -> tuple[list[FileEntry], list[FileError]]:
        """The changed paths as the search must see them now, under the request's path rule: a
        pending file from disk, a pending folder walked from disk, an open buffer (never saved to
        disk or not) as its text. Returns (entries, errors of the folder walks)."""
        if not changed.paths:
            return [], []
        from sleuth.engine.buffers import unsaved_entries
        from sleuth.engine.ignore import IgnoreOracle
        from sleuth.engine.walk import walk

        options = options or self.options
        oracle = IgnoreOracle(self.workspace, options, list(targets) if targets else None)
        scopes = list(targets) if targets else [Target(r, r.path, True) for r in self.workspace.roots]
        entries: dict[str, FileEntry] = {}
        errors: list[FileError] = []
        for folder in changed.folders():
            walked = [Target(t.root, folder, True) if _under(folder, t.path) else t
                      for t in scopes if t.is_dir and (_under(folder, t.path) or _under(t.path, folder))]
            walked = [t for t in walked if os.path.isdir(t.path)]
            if not walked:
                continue
            for entry in walk(self.workspace, walked, replace(options, max_files=None), CancelToken(),
                              SkipCounts(), errors):
                if oracle.is_searchable(entry.path):
                    entries[entry.path] = entry
        for entry in unsaved_entries(self.workspace, targets, options, changed.texts, oracle):
            entries[entry.path] = entry  # buffers never saved to disk
        for path in sorted(changed.paths):
            if os.path.isfile(path) and oracle.is_searchable(path):
                entry = self._entry(path)
                if entry is not None:
                    entries[path] = entry
        return list(entries.values()), errors

    def _walk_errors(self, targets: Sequence[Target] | None) -> list[FileError]:
        """The index walk's errors (unreadable folders) inside ``targets``."""
        with self._lock:
            errors = list(self._unreadable)
        if not errors or not targets:
            return errors
        scopes = [self.workspace.display(t.path, t.root) for t in targets]
        if any(s == "" for s in scopes):
            return errors
        return [e for e in errors if any(e.path == s or e.path.startswith(s + "/") for s in scopes)]

    def _entry(self, path: str) -> FileEntry | None:
        """A pending file as a walk entry, or None (gone, not a regular file). The caller has put it
        through the request's path rule (``IgnoreOracle.is_searchable``, real paths resolved once per
        folder), so no ``realpath`` per file here: 1,000 pending files of one folder cost one."""
        try:
            st = os.stat(path)
        except OSError:
            return None
        if not stat_mod.S_ISREG(st.st_mode):
            return None
        return FileEntry(path, self.workspace.display(path), st.st_size, st.st_mtime)


def _named_through_link(targets: Sequence[Target] | None) -> bool:
    """A target the request named through a link (``pub`` for ``pub -> src``): its answers name the
    path as the request wrote it, which only the walk knows; the index's paths are the real ones."""
    return any(t.named is not None for t in targets or ())


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


class _Changed:
    """Paths the index cannot vouch for: pending files and folders, open buffers (``texts``).

    A pending path that is a folder now, or that is gone and was no indexed file (a folder deleted
    or moved away), covers everything under it: ``covers`` is true for those files too.
    """

    def __init__(self, paths: set[str], texts: Mapping[str, str], known_files: set[str]) -> None:
        self.paths = paths
        self.texts = texts
        self._folders = tuple(p for p in paths if p not in texts and p not in known_files
                              and (os.path.isdir(p) or not os.path.lexists(p)))
        self._prefixes = tuple(f.rstrip(os.sep) + os.sep for f in self._folders)

    def folders(self) -> tuple[str, ...]:
        return self._folders

    def covers(self, path: str) -> bool:
        return path in self.paths or (bool(self._prefixes) and path.startswith(self._prefixes))
