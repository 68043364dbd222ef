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

Split by job and composed here: :mod:`.state` (what both jobs share, under one lock),
:mod:`.maintenance` (the lifecycle and the one thread that writes) and :mod:`.narrowing` (the
queries). This class only wires them and keeps one public surface.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence, TypeVar

from sleuth.engine.cancel import CancelToken, NullProgress, ProgressSink
from sleuth.engine.index import store
from sleuth.engine.index.candidates import CandidateList, CandidateSet
from sleuth.engine.index.catalogue import FileRecord
from sleuth.engine.index.config import IndexConfig
from sleuth.engine.index.maintenance import Maintenance
from sleuth.engine.index.narrowing import PIECES_MIN_BYTES, Narrowing
from sleuth.engine.index.state import IndexState
from sleuth.engine.index.trigram import Query
from sleuth.engine.types import FileEntry, WalkOptions
from sleuth.engine.workspace import Target, Workspace

if TYPE_CHECKING:
    from sleuth.engine.grep.request import GrepRequest
    from sleuth.engine.index.early_check import EarlyCheck
    from sleuth.engine.index.symbols import SymbolShards
    from sleuth.engine.index.watcher import Watcher

__all__ = ["IndexService", "CandidateSet", "PIECES_MIN_BYTES"]

Lister = Callable[[CancelToken], Iterable[FileEntry]]
T = TypeVar("T")


class IndexService:
    """The index of one workspace; see the module docstring. All public methods are thread-safe."""

    def __init__(self, workspace: Workspace, config: IndexConfig = IndexConfig(), *, cache_dir: str | None = None,
                 lister: Lister | None = None, on_error: Callable[[str], None] | None = None) -> None:
        """``on_error(message)``: called once (on the index thread) when the index stops on an error —
        a full disk, a read-only cache — so the transport can tell the person, not only the log."""
        base = store.store_dir([r.path for r in workspace.roots], cache_dir or config.index_path)
        self.state = IndexState(workspace, config, base)
        self.upkeep = Maintenance(self.state, lister, on_error)
        self.query = Narrowing(self.state)
        self.watcher: Watcher | None = None  # the server's file watcher, for status only

    # -- what the index covers --------------------------------------------------------------------
    @property
    def workspace(self) -> Workspace:
        return self.state.workspace

    @property
    def config(self) -> IndexConfig:
        return self.state.config

    @property
    def options(self) -> WalkOptions:
        return self.state.options

    @property
    def max_bytes(self) -> int | None:
        return self.state.max_bytes

    @property
    def base(self) -> str:
        return self.state.base

    @property
    def worker_pids(self) -> list[int]:
        return self.state.worker_pids

    @property
    def ready(self) -> bool:
        return self.state.ready

    # -- lifecycle (maintenance.py) ---------------------------------------------------------------
    def start(self, progress: ProgressSink = NullProgress, token: CancelToken | None = None) -> None:
        self.upkeep.start(progress, token)

    def inspect(self) -> bool:
        """Open what is on disk without building (:meth:`Maintenance.inspect`); False when nothing is."""
        return self.upkeep.inspect()

    def open_read_only(self, early: EarlyCheck | None = None, meanwhile: Callable[[], None] | None = None) -> bool:
        """Open the current store without writing it, changes since found from the stamps
        (:meth:`Maintenance.open_read_only`; ``early``: that check, forked already; ``meanwhile``: an
        answer made while it finishes, kept only if :meth:`change_stamp` stays); False when there
        is none to trust (scan instead)."""
        return self.upkeep.open_read_only(early, meanwhile)

    def stop(self) -> None:
        self.upkeep.stop()

    def wait_ready(self, timeout: float | None = None) -> bool:
        return self.upkeep.wait_ready(timeout)

    def wait_idle(self, timeout: float = 30.0) -> bool:
        return self.upkeep.wait_idle(timeout)

    def build(self, full: bool = False, progress: ProgressSink = NullProgress,
              token: CancelToken | None = None, wait: bool = True) -> dict[str, Any]:
        """Incremental catch-up (rescan by size/mtime) or, with ``full``, a rebuild; returns :meth:`status`."""
        self.upkeep.build(full, progress, token, wait)
        return self.status()

    def notify_changed(self, paths: Iterable[str], files_only: bool = False) -> None:
        self.upkeep.notify_changed(paths, files_only)

    def rescan(self) -> None:
        """Look again for what changed on disk, in the background (:meth:`Maintenance.rescan`)."""
        self.upkeep.rescan()

    def notify_buffer(self, path: str, text: str | None) -> None:
        self.upkeep.notify_buffer(path, text)

    # -- status -------------------------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        st = self.state
        with st.lock:
            cat = st.cat
            state = st.phase
            if state == "ready" and st.pending:
                state = "stale"
            return {
                "state": state,
                "files": len(cat) if cat else 0,
                "bytes": cat.total_bytes if cat else 0,
                "pending_updates": len(st.pending),
                "rebuilding": st.rebuilding and cat is not None,
                "open_buffers": len(st.buffers),
                "store_path": st.gen or st.base,
                "store_bytes": store.directory_size(st.gen) if st.gen else 0,
                "garbage_rows": st.garbage,
                "last_build": st.last_build.get("at"),
                "last_build_seconds": st.last_build.get("seconds"),
                "error": st.error,
                "watcher": self.watcher.status() if self.watcher is not None else None,
            }

    def change_stamp(self) -> tuple[str | None, int]:
        """(live generation, changes notified or looked for so far): two equal stamps mean no change of
        the files this service knows of was notified between them, so a search's result still holds
        (the MCP server's pages are cut from a held result while the stamp stays the same)."""
        with self.state.lock:
            return self.state.gen, self.state.changes

    def file_count(self) -> int | None:
        """Files in the built catalogue, else None: the workspace as a default search sees it (ignore
        rules, deny globs and the size cap applied), so a grep that read a few index candidates can say
        how many files the workspace holds, not only how many it opened."""
        st = self.state
        with st.lock:
            return len(st.cat) if st.cat is not None and st.ready else None

    # -- queries (narrowing.py) ---------------------------------------------------------------------
    def compatible(self, options: WalkOptions | None) -> bool:
        return self.query.compatible(options)

    def candidates(self, targets: Sequence[Target] | None, literal_query: object,
                   options: WalkOptions | None = None, line_mode: bool = False) -> CandidateSet | None:
        return self.query.candidates(targets, literal_query, options, line_mode)

    def candidate_entries(self, workspace: Workspace, request: GrepRequest, token: CancelToken | None = None,
                          buffers: Mapping[str, str] | None = None) -> CandidateList | None:
        return self.query.candidate_entries(workspace, request, token, buffers)

    def catalogue_entries(self, workspace: Workspace, targets: Sequence[Target] | None,
                          options: WalkOptions | None, buffers: bool = False) -> CandidateList | None:
        return self.query.catalogue_entries(workspace, targets, options, buffers)

    def files_matching(self, query: Query) -> set[int]:
        return self.query.files_matching(query)

    def definers(self, key: str, prefix: bool = False) -> set[int]:
        return self.query.definers(key, prefix)

    def read_symbols(self, read: Callable[[SymbolShards], T], buffers: Mapping[str, str] | None = None) -> T | None:
        """``read(shards)`` on the live generation under the service lock, or None before it is ready:
        the symbol lookup's one way in (:mod:`sleuth.engine.symbols.search`). ``buffers``: a request's
        open buffers besides the index's own (their indexed symbols are stale too)."""
        from sleuth.engine.index.symbols import SymbolShards  # (its definition patterns compile at import)

        st = self.state
        with st.lock:
            cat = st.cat
            if cat is None or not st.ready:
                return None
            covers = st.changed(extra=buffers).covers
            return read(SymbolShards(st.shards, cat, covers, (st.gen, len(cat), cat.next_id, st.garbage)))

    def all_ids(self) -> list[int]:
        return self.query.all_ids()

    def records(self, fids: Iterable[int]) -> list[FileRecord]:
        return self.query.records(fids)

    def record(self, fid: int) -> FileRecord | None:
        return self.query.record(fid)

    def pending_entries(self, buffers: Mapping[str, str] | None = None) -> list[FileEntry]:
        return self.query.pending_entries(buffers)

    def for_buffers(self, buffers: Mapping[str, str] | None) -> "IndexService | BufferedIndex":
        """This index as a request with open ``buffers`` must see it: itself when it already holds
        them all (a lone editor's, told by ``notify_buffer``), else a :class:`BufferedIndex` (a guest
        door's editor, whose buffers only its requests carry: :mod:`sleuth.core.engine_guest`)."""
        if not buffers:
            return self
        st = self.state
        with st.lock:
            unknown = {p: t for p, t in buffers.items() if st.buffers.get(st.normal(p)) != t}
        return BufferedIndex(self, unknown) if unknown else self

    def buffer_text(self, path: str) -> str | None:
        return self.query.buffer_text(path)


class BufferedIndex:
    """An :class:`IndexService` as one request sees it: the request's open buffers beside the index's
    own, read as the index reads its own (candidates whatever they hold, their text instead of the
    file's, their indexed lines and symbols stale). What ``sleuth.text`` and ``sleuth.symbols`` ask of
    an index (:class:`~sleuth.engine.text.search.TextSource`, :class:`~sleuth.engine.symbols.search.SymbolIndex`)."""

    def __init__(self, service: IndexService, buffers: Mapping[str, str]) -> None:
        self.service = service  # the cache keys of the symbol vocabulary stay the service's
        self.buffers = dict(buffers)

    @property
    def ready(self) -> bool:
        return self.service.ready

    def definers(self, key: str, prefix: bool = False) -> set[int]:
        return self.service.definers(key, prefix)

    def files_matching(self, query: Query) -> set[int]:
        return self.service.files_matching(query)

    def all_ids(self) -> list[int]:
        return self.service.all_ids()

    def records(self, fids: Iterable[int]) -> list[FileRecord]:
        return self.service.records(fids)

    def pending_entries(self) -> list[FileEntry]:
        return self.service.pending_entries(self.buffers)

    def buffer_text(self, path: str) -> str | None:
        text = self.buffers.get(path)
        return text if text is not None else self.service.buffer_text(path)

    def read_symbols(self, read: Callable[[SymbolShards], T]) -> T | None:
        return self.service.read_symbols(read, self.buffers)
