"""The files an include glob lets through that the index cannot hold.

rg's ``-g`` globs override the ignore rules and hidden-ness (``rg -g '*.log' ERROR`` searches a
``.gitignore``d log; ``-g '*.txt'`` a hidden ``.notes.txt``; the folders an ignore rule or a dot
hides stay unwalked). The index holds the files the default rules let through, so an indexed grep
with such a glob answered without them, where the cold walk and rg find them.

Finding them must not cost the walk the index saves: ``walk()`` judges every entry (~1 s of a warm
``-g '*.c' PM_RESUME`` on the Linux tree under load, which answered in 0.08 s from the index). Only
the entries the catalogue does not hold need judging — a few hundred of the tree's 78,000 — so the
folders the walk would enter are listed (``os.scandir``, ~0.1 s for the Linux tree's 5,000) and only
an uncatalogued file goes through the walk's own verdict (:meth:`IgnoreOracle.is_searchable`).

And the pass is remembered (:class:`_Pass`) while nothing it read changed: each folder's mtime
(a file created, deleted or renamed in it changes it) and each ignore file's. A later call with the
same targets and options stats those (~5,000 on the Linux tree) instead of listing and judging the
folders again, and asks ``catalogued`` about every file the pass saw (the catalogue may have taken
one in, or let one go), judging only the ones it lacks.
"""

from __future__ import annotations

import os
from typing import Callable, Sequence

from sleuth.engine.cancel import CancelToken
from sleuth.engine.ignore import IGNORE_FILE_NAMES, IgnoreOracle
from sleuth.engine.types import FileEntry, SkipCounts, WalkOptions
from sleuth.engine.walk import entry_of, walk
from sleuth.engine.workspace import Root, Target, Workspace

__all__ = ["whitelisted_files"]


def whitelisted_files(workspace: Workspace, targets: Sequence[Target] | None, options: WalkOptions,
                      catalogued: Callable[[str], bool]) -> list[FileEntry]:
    """The files under ``targets`` that a walk with ``options`` yields and ``catalogued`` says the index
    lacks; none without an include glob (nothing else lets through what the default rules keep out)."""
    if not options.include_globs:
        return []
    scopes = [t for t in targets or [Target(r, r.path, True) for r in workspace.roots] if t.is_dir]
    if options.follow:  # links to folders: the walk's own loop and sandbox checks decide
        return [e for e in walk(workspace, list(scopes), options.replace(max_files=None), CancelToken(), SkipCounts(), [])
                if isinstance(e, FileEntry) and not catalogued(e.path)]
    key = (tuple(r.path for r in workspace.roots), tuple(t.path for t in scopes), options)
    remembered = _PASSES.get(key)
    if remembered is None or not remembered.current():
        remembered = _Pass.run(workspace, scopes, options)
        if len(_PASSES) >= _MAX_PASSES:
            _PASSES.pop(next(iter(_PASSES)))
        _PASSES[key] = remembered
    return remembered.uncatalogued(workspace, catalogued)


_MAX_PASSES = 8  # remembered (targets, options) pairs: an editor's view asks with one or two include globs


class _Pass:
    """One pass over the folders a walk enters: every file seen there (with its target's folder), the
    walk's verdicts (the oracle keeps them per folder), and the mtimes of what the pass read."""

    __slots__ = ("files", "oracle", "stamps")

    def __init__(self, files: list[tuple[str, Root]], oracle: IgnoreOracle, stamps: list[tuple[str, int]]) -> None:
        self.files = files
        self.oracle = oracle
        self.stamps = stamps  # (folder or ignore file, st_mtime_ns)

    def current(self) -> bool:
        """Nothing the pass read has changed since (a folder gone or an ignore file gone is a change)."""
        for path, mtime in self.stamps:
            try:
                if os.stat(path).st_mtime_ns != mtime:
                    return False
            except OSError:
                return False
        return True

    def uncatalogued(self, workspace: Workspace, catalogued: Callable[[str], bool]) -> list[FileEntry]:
        """The files the walk would yield that ``catalogued`` says the index lacks, as they are now."""
        found = (entry_of(workspace, path, root) for path, root in self.files
                 if not catalogued(path) and self.oracle.is_searchable(path))
        return [entry for entry in found if entry is not None]

    @classmethod
    def run(cls, workspace: Workspace, scopes: list[Target], options: WalkOptions) -> "_Pass":
        oracle = IgnoreOracle(workspace, options, list(scopes))
        files: list[tuple[str, Root]] = []
        stamps: list[tuple[str, int]] = []
        for scope in scopes:
            folders = [scope.path]
            while folders:
                folder = folders.pop()
                try:
                    stamps.append((folder, os.stat(folder).st_mtime_ns))  # before the listing: a later change moves it
                    entries = list(os.scandir(folder))
                except OSError:
                    continue  # (the walk reports an unreadable folder; the index's walk errors say it too)
                for entry in entries:
                    path = entry.path
                    try:
                        is_dir = entry.is_dir(follow_symlinks=False)
                        if entry.name in IGNORE_FILE_NAMES or entry.name == ".git":
                            exclude = os.path.join(path, "info", "exclude") if is_dir else path
                            if os.path.exists(exclude):
                                stamps.append((exclude, os.stat(exclude).st_mtime_ns))
                    except OSError:
                        continue
                    if not is_dir:
                        files.append((path, scope.root))
                    elif oracle.admits(path, is_dir=True):
                        folders.append(path)
        return cls(files, oracle, stamps)


_PASSES: dict[tuple[object, ...], _Pass] = {}
