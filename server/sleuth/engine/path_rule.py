"""The one path rule every walk, backend and door applies (issue 23): a file is searchable only if
its real path (every link resolved) lies inside a workspace folder, and neither the path as reached
nor its real path relative to its folder matches a deny glob.

Two paths, because a link makes them differ: ``alias -> denied`` reaches ``denied/d.txt`` as
``alias/d.txt``, which no ``denied/**`` glob matches, and a link named like a denied file may point
at a file no glob covers. Checking only the link's target folder is not enough either: ``denied/**``
does not match the folder ``denied`` itself, only what is inside it.

Links are resolved once per folder, not per file: :meth:`PathRule.folder` caches, for a real folder,
its workspace folder and the deny globs still alive below it (a
:class:`~sleuth.engine.ignore_rules.FileView`), so a walk inside a followed folder link checks each
entry by name against that view, with no ``realpath`` per file.
"""

from __future__ import annotations

import os

from sleuth.engine.ignore_rules import FileView, IgnoreFile
from sleuth.engine.workspace import Root, Workspace

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from sleuth.engine.plain_typing import NamedTuple

__all__ = ["PathRule", "RealFolder"]

_CACHE_LIMIT = 65536


class RealFolder(NamedTuple):
    """A real (link-free) folder inside ``root`` that is not denied; ``deny`` is the deny globs'
    view at it (None when no deny glob can match anything below it)."""

    root: Root
    deny: FileView | None


class PathRule:
    """The rule for one workspace and one set of deny globs; caches one verdict per folder.

    Not thread-safe on its own: each walk and each oracle owns one (the oracle calls it under its lock).
    """

    def __init__(self, workspace: Workspace, deny: IgnoreFile | None) -> None:
        self.workspace = workspace
        self.deny = deny
        self._folders: dict[str, RealFolder | None] = {}
        self._reals: dict[str, str] = {}

    # -- real paths ------------------------------------------------------------------------------
    def folder(self, real_dir: str) -> RealFolder | None:
        """The verdict for a real folder: None when it lies outside every workspace folder, or when
        a deny glob covers it or one of its folders below its workspace folder."""
        cache = self._folders
        if real_dir in cache:
            return cache[real_dir]
        root = self.workspace.root_of(real_dir)
        if root is None:
            found = None
        else:
            # Up to the nearest folder already judged (or the workspace folder), then down again.
            chain: list[str] = []
            d = real_dir
            while d != root.path and d not in cache:
                chain.append(d)
                d = os.path.dirname(d)
            found = cache[d] if d in cache else RealFolder(root, self.deny.view() if self.deny is not None else None)
            if len(cache) > _CACHE_LIMIT:
                cache.clear()
            cache[d] = found
            for d in reversed(chain):
                if found is not None:
                    name = os.path.basename(d)
                    view = found.deny
                    if view is not None and view.match(name, True):
                        found = None
                    else:
                        found = RealFolder(root, view.child(name) if view is not None else None)
                cache[d] = found
        cache[real_dir] = found
        return found

    def real_file_ok(self, real_path: str) -> bool:
        """True when a file's real path lies inside a workspace folder and no deny glob covers it."""
        where = self.folder(os.path.dirname(real_path))
        if where is None:
            return False
        return where.deny is None or not where.deny.match(os.path.basename(real_path), False)

    def realpath(self, path: str) -> str:
        """``os.path.realpath`` with the folder part cached: one resolution per folder, plus one for
        the file itself only when it is a link."""
        head, name = os.path.split(path)
        real_head = self._reals.get(head)
        if real_head is None:
            real_head = os.path.realpath(head)
            if len(self._reals) > _CACHE_LIMIT:
                self._reals.clear()
            self._reals[head] = real_head
        joined = os.path.join(real_head, name)
        return os.path.realpath(joined) if os.path.islink(joined) else joined

    def forget(self) -> None:
        """Drop the cached resolutions (a folder may have become a link, or stopped being one)."""
        self._folders.clear()
        self._reals.clear()

    # -- paths as reached --------------------------------------------------------------------------
    def reached_view(self, path: str, is_dir: bool) -> tuple[bool, FileView | None]:
        """(denied, view) for an absolute path as reached (links not resolved), checked against the
        deny globs relative to the workspace folder that lexically holds it. ``view`` is the deny
        globs' view inside ``path`` when it is a folder (None: nothing below can be denied)."""
        if self.deny is None:
            return False, None
        root = self.workspace.root_of(path)
        if root is None:
            return False, None
        view: FileView | None = self.deny.view()
        rel = os.path.relpath(path, root.path)
        if rel == ".":
            return False, view
        parts = rel.split(os.sep)
        last = len(parts) - 1
        for i, part in enumerate(parts):
            if view is None:
                return False, None
            if view.match(part, is_dir if i == last else True):
                return True, None
            view = view.child(part)
        return False, view

    def allows(self, path: str) -> bool:
        """The whole rule for one absolute path as reached (a backend's output, an index candidate):
        its real path inside a folder and not denied, and the path itself not denied."""
        if not self.real_file_ok(self.realpath(path)):
            return False
        return not self.reached_view(path, False)[0]
