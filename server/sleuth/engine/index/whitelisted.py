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
"""

from __future__ import annotations

import os
from typing import Callable, Sequence

from sleuth.engine.cancel import CancelToken
from sleuth.engine.ignore import IgnoreOracle
from sleuth.engine.types import FileEntry, SkipCounts, WalkOptions
from sleuth.engine.workspace import Target, Workspace

__all__ = ["whitelisted_files"]


def whitelisted_files(workspace: Workspace, targets: Sequence[Target] | None, options: WalkOptions,
                      catalogued: Callable[[str], bool]) -> list[FileEntry]:
    """The files under ``targets`` that a walk with ``options`` yields and ``catalogued`` says the index
    lacks; none without an include glob (nothing else lets through what the default rules keep out)."""
    if not options.include_globs:
        return []
    scopes = [t for t in targets or [Target(r, r.path, True) for r in workspace.roots] if t.is_dir]
    if options.follow:  # links to folders: the walk's own loop and sandbox checks decide
        from sleuth.engine.walk import walk

        return [e for e in walk(workspace, list(scopes), options.replace(max_files=None), CancelToken(), SkipCounts(), [])
                if isinstance(e, FileEntry) and not catalogued(e.path)]
    oracle = IgnoreOracle(workspace, options, list(scopes))
    found: list[FileEntry] = []
    for scope in scopes:
        folders = [scope.path]
        while folders:
            folder = folders.pop()
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue  # (the walk reports an unreadable folder; the index's walk errors say it too)
            for entry in entries:
                path = entry.path
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if is_dir:
                    if oracle.admits(path, is_dir=True):
                        folders.append(path)
                elif not catalogued(path) and oracle.is_searchable(path):
                    try:
                        st = os.stat(path)
                    except OSError:
                        continue
                    found.append(FileEntry(path, workspace.display(path, scope.root), st.st_size, st.st_mtime))
    return found
