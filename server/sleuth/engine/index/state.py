"""What the index's two jobs share: the open store, the catalogue, and what is pending, under one lock.

:class:`~sleuth.engine.index.maintenance.Maintenance` (the one thread that writes: open, build, catch
up, apply changes) and :class:`~sleuth.engine.index.narrowing.Narrowing` (the queries, on any thread)
each hold this object; :class:`~sleuth.engine.index.service.IndexService` composes the two. Every
field is read and written under :attr:`IndexState.lock`.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from typing import Any, Mapping

from sleuth.engine.cancel import CancelToken, NullProgress, ProgressSink
from sleuth.engine.index.catalogue import Catalogue
from sleuth.engine.index.config import IndexConfig
from sleuth.engine.index.postings import Postings
from sleuth.engine.types import FileError
from sleuth.engine.workspace import Workspace, canonicalize

__all__ = ["IndexState", "Changed"]


class IndexState:
    """The shared state of one workspace's index (see the module docstring). ``phase``: absent, loading,
    building, ready or error (``stale`` is derived: ready with changes pending)."""

    def __init__(self, workspace: Workspace, config: IndexConfig, base: str) -> None:
        self.workspace = workspace
        self.config = config
        self.options = config.walk_options()
        self.max_bytes = config.max_file_size_bytes
        self.base = base  # the store directory
        self.lock = threading.RLock()
        self.wake = threading.Condition(self.lock)  # the upkeep thread waits on it for work
        self.cat: Catalogue | None = None
        self.catalog_db: sqlite3.Connection | None = None
        self.shards: list[sqlite3.Connection] = []
        self.postings: list[Postings] = []  # per shard: its posting lists and their cached counts
        self.writers: list[sqlite3.Connection] = []  # the upkeep thread's own shard connections (WAL writer)
        self.gen: str | None = None
        self.pending: dict[str, float] = {}  # path -> when notified
        # Bumped by every change notified (a file, a buffer) and every rescan or rebuild (which may find
        # changes nobody notified): a result computed under an older count may be stale.
        self.changes = 0
        self.buffers: dict[str, str] = {}  # open editor buffers' unsaved text
        self.phase = "absent"
        self.error: str | None = None
        self.garbage = 0
        self.want_rebuild = False
        self.want_rescan = False
        self.stopping = False
        self.token = CancelToken()
        self.progress: ProgressSink = NullProgress
        self.last_build: dict[str, Any] = {}
        self.build_done = threading.Event()
        # Clear while a published store is being opened and caught up from its stamps (a fraction of
        # a second to a few on the Linux tree, against seconds for a scan): a grep waits for it
        # (:meth:`Narrowing.candidate_entries`). Set otherwise: a build, or a walk, is not waited for.
        self.open_settled = threading.Event()
        self.open_settled.set()
        self.open_waiters = 0  # greps waiting for the open now (tests)
        self.rebuilding = False
        self.unreadable: list[FileError] = []  # folders the last walk could not read
        self.worker_pids: list[int] = []

    @property
    def ready(self) -> bool:
        return self.phase in ("ready", "stale") and self.cat is not None

    def request_rebuild(self) -> None:
        """The store answered with an error (damaged): rebuild it in the background. Lock held or not."""
        with self.lock:
            self.want_rebuild = True
            self.wake.notify_all()

    def normal(self, path: str) -> str:
        """The catalogue's spelling of a client path: absolute, and canonical when the client reached the
        workspace through a symlink (``/tmp`` vs ``/private/tmp``), so a change never becomes a duplicate."""
        path = os.path.abspath(path)
        return path if self.workspace.root_of(path) is not None else canonicalize(path)

    def changed(self, buffers: bool = True, extra: Mapping[str, str] | None = None) -> "Changed":
        """What the index cannot vouch for right now (lock held): pending paths and open buffers;
        ``extra``: one request's own open buffers besides (a guest door's, whose editor never told
        this index about them: :mod:`sleuth.core.engine_host`)."""
        cat = self.cat
        paths = set(self.pending)
        texts = dict(self.buffers) if buffers else {}
        if extra:
            texts.update((self.normal(p), t) for p, t in extra.items() if self.normal(p) not in texts)
        paths.update(texts)
        known = {p for p in paths if cat is not None and p in cat.by_path}
        return Changed(paths, texts, known)


class Changed:
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
