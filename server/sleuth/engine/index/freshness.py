"""Folder stamps: what lets a restart trust the catalogue without walking the whole tree again.

A restart must find what changed while no watcher ran. The plain way is a fresh walk compared with
the catalogue (:meth:`Maintenance._catch_up`): on the Linux tree ~1 s of listing folders and matching
every name against the ignore rules, most of a restart. Folder times make most of it unnecessary,
as git's index and Mercurial's dirstate use them:

- an entry added to, removed from or renamed in a folder changes the folder's modification (and
  change) time, so a folder whose times are those the build saw holds the same names;
- a file written in place changes its own size or time, which a ``stat`` of the catalogued path sees;
- which names are taken depends on the ignore files, so every ignore-rule input (each folder's
  ``.gitignore``/``.ignore``/``.rgignore`` and ``.git``, the folders above each workspace folder,
  git's global excludes file and where git's configuration puts it, ``--ignore-file`` files) is
  stamped too; when any of them differs the quick path declines and the full walk runs as before.

So a restart stats the stamped folders and the catalogued files (no listing, no rule matching),
lists again only the folders whose times moved (with the walk, so the same rules decide), and walks
whole only folders the build never saw. The stamps are written by a full build only, from the
walk that made the catalogue, and never moved forward afterwards: a folder changed since then is
listed again at every restart until the next rebuild, which is slower but never wrong (moving a
stamp while its changes are still pending could hide them for good after a crash).

A folder whose time lies within :data:`RACY_NS` of the moment it was stamped is stamped as
*unknown* (git's "racily clean" entries): a name added in the same clock tick, after the listing,
would leave its time unchanged. Folders the walk could not read, followed links and depth limits
also make the quick path decline (the full walk reports and handles them).
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat as stat_mod
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Container, Iterable, Mapping

from sleuth.engine.cancel import CancelToken
from sleuth.engine.ignore import IGNORE_FILE_NAMES, ancestors, git_exclude_path, global_excludes_path
from sleuth.engine.index.map_file import StatMapping
from sleuth.engine.types import FileEntry, FileError, SkipCounts, WalkOptions
from sleuth.engine.workspace import Target, Workspace

__all__ = ["FolderStamps", "QuickCatchUp", "RACY_NS", "MTIME_SLACK_NS", "create_table", "save", "quick_catch_up", "quick_catch_up_at", "changed_by_stated",
           "strays", "Stated"]

RACY_NS = 2_000_000_000  # file systems whose clocks tick in seconds (FAT: 2 s) must not look unchanged
MTIME_SLACK_NS = 2000  # a stored time and a walk's (a float of seconds) may differ by this and still be the same
_RULE_NAMES = tuple(sorted(IGNORE_FILE_NAMES | {".git"}))
Stated = tuple[set[str], set[str]]  # the stat of every catalogued file: (paths no longer regular files, paths changed)
Sig = tuple[int, int, int] | None  # (size, mtime_ns, inode) of a rule file, None when it does not exist


def _sig(path: str) -> Sig:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def _lstat_of_kind(path: str, is_kind: Callable[[int], bool]) -> os.stat_result | None:
    """``path``'s own stat (a link is not followed) when it exists and is of the kind, else None."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st if is_kind(st.st_mode) else None


def _folder_rules(folder: str, present: Iterable[str]) -> dict[str, Sig]:
    """The rule inputs a folder holds: its ignore files, and its repository's ``info/exclude``."""
    rules: dict[str, Sig] = {}
    for name in present:
        if name == ".git":
            rules[".git"] = _sig(git_exclude_path(folder))
        else:
            rules[name] = _sig(os.path.join(folder, name))
    return rules


def _outer_rules(workspace: Workspace, options: WalkOptions) -> dict[str, object]:
    """Every rule input outside the stamped folders: the folders above each workspace folder (their
    ignore files and ``.git``), git's global excludes file (and where the configuration puts it) and
    the ``--ignore-file`` files. Compared whole: any difference sends the restart to the full walk."""
    found: dict[str, object] = {"global": None, "explicit": {}, "above": {}}
    if not options.no_ignore_global:
        where = global_excludes_path()
        found["global"] = [where, _sig(where) if where else None]
    found["explicit"] = {f: _sig(f) for f in options.ignore_files}
    above: dict[str, dict[str, Sig]] = {}
    for root in workspace.roots:
        for d in ancestors(root.path):
            present = [n for n in _RULE_NAMES if os.path.lexists(os.path.join(d, n))]
            above[d] = _folder_rules(d, present)
    found["above"] = above
    return json.loads(json.dumps(found))  # the shape it has once stored (tuples become lists)


@dataclass
class FolderStamps:
    """The folders one walk listed, with their times and rule inputs: :data:`sleuth.engine.walk.OnFolder`."""

    folders: dict[str, tuple[int, int, str]] = field(default_factory=dict)  # path -> (mtime_ns, ctime_ns, rules)

    def __call__(self, path: str, st: os.stat_result, names: list[str]) -> None:
        now = time.time_ns()
        racy = now - st.st_mtime_ns < RACY_NS or now - st.st_ctime_ns < RACY_NS
        present = [n for n in _RULE_NAMES if n in names] if not IGNORE_FILE_NAMES.isdisjoint(names) or ".git" in names else []
        rules = json.dumps(_folder_rules(path, present), sort_keys=True) if present else ""
        self.folders[path] = (-1, -1, rules) if racy else (st.st_mtime_ns, st.st_ctime_ns, rules)


def create_table(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE IF NOT EXISTS folders(path BLOB PRIMARY KEY, mtime_ns INTEGER NOT NULL,"
                 " ctime_ns INTEGER NOT NULL, rules TEXT NOT NULL)")


def save(conn: sqlite3.Connection, stamps: FolderStamps, workspace: Workspace, options: WalkOptions) -> None:
    """Write the build's stamps into its catalogue (inside the build's transaction)."""
    create_table(conn)
    conn.executemany("INSERT OR REPLACE INTO folders VALUES(?, ?, ?, ?)",
                     ((os.fsencode(p), m, c, r) for p, (m, c, r) in stamps.folders.items()))
    conn.execute("INSERT OR REPLACE INTO meta VALUES('outer_rules', ?)",
                 (json.dumps(_outer_rules(workspace, options), sort_keys=True),))


@dataclass
class QuickCatchUp:
    """What changed since the build, found from the stamps: paths to re-index and paths gone."""

    changed: list[str]
    gone: list[str]
    relisted: int  # folders listed again (their times moved, or the build never saw them)


StampRow = tuple[bytes, int, int, str]  # a ``folders`` row: (encoded path, mtime_ns, ctime_ns, rules)


def _load(conn: sqlite3.Connection) -> tuple[dict[str, tuple[int, int, str]], str, list[StampRow]] | None:
    try:
        rows = conn.execute("SELECT path, mtime_ns, ctime_ns, rules FROM folders").fetchall()
        (outer,) = conn.execute("SELECT value FROM meta WHERE key = 'outer_rules'").fetchone() or (None,)
    except sqlite3.Error:  # a store built before the stamps: the full walk
        return None
    if outer is None or not rows:
        return None
    enc, errors = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()
    try:  # (the method, not os.fsdecode's call per row: a third of the time on 5,000 folders)
        stamps = {p.decode(enc, errors): (m, c, r) for p, m, c, r in rows}
    except AttributeError:  # (a path stored as text)
        stamps = {os.fsdecode(p): (m, c, r) for p, m, c, r in rows}
    return stamps, outer, rows


def _stamped_folders_unchanged(rows: list[StampRow]) -> bool | None:
    """Whether every stamped folder is still a folder with the times it was stamped with, by the
    compiled loop (:data:`.native.stat_folders`: one call, the interpreter lock released, for the Linux
    tree's ~5,000 folders that a Python loop stated in ~25 ms); None without the loop (or when it
    cannot take these rows): the caller states each folder itself."""
    from array import array

    from sleuth.engine.index import native

    if native.stat_folders is None:
        return None
    try:
        blob = b"\0".join([os.fsencode(p) for p, _, _, _ in rows])
        found = native.stat_folders(blob, array("q", [m for _, m, _, _ in rows]), array("q", [c for _, _, c, _ in rows]))
    except (ValueError, TypeError, OverflowError, MemoryError):
        return None
    return not found


def quick_catch_up(conn: sqlite3.Connection, workspace: Workspace, options: WalkOptions,
                   sizes: Mapping[str, tuple[int, int, bool]], token: CancelToken,
                   stated: Stated | Callable[[], Stated | None] | None = None) -> QuickCatchUp | None:
    """What changed since the build, or None when the stamps cannot tell (the caller walks instead).

    ``sizes``: the catalogue's files, ``path -> (size, mtime_ns, indexed)``. A path the catalogue holds
    that is no longer a file the walk would take is *gone*; a file the walk would take that the
    catalogue lacks, or holds with another size or time (or unindexed), is *changed*. ``stated``:
    the ``stat`` of every catalogued file made already (:class:`~sleuth.engine.index.stat_pass.StatPass`),
    as the paths no longer regular files and the paths that differ; or a call that waits for it (a
    pass still running in a thread, :func:`~sleuth.engine.index.stat_pass.stated_later`: the folders are
    checked meanwhile, and it is waited for only once the files' turn comes, or before an earlier
    return: no thread is left running, which would make the process take a thread-safe pool start,
    :func:`sleuth.engine.platform.pool_start_method`); else each is made here."""
    try:
        return _quick_catch_up(conn, workspace, options, sizes, token, stated)
    finally:
        if callable(stated):
            stated()


def _quick_catch_up(conn: sqlite3.Connection, workspace: Workspace, options: WalkOptions,
                    sizes: Mapping[str, tuple[int, int, bool]], token: CancelToken,
                    stated: Stated | Callable[[], Stated | None] | None) -> QuickCatchUp | None:
    from sleuth.engine.walk import Subtree, walk

    if options.follow or options.depth_limit is not None or options.max_files is not None:
        return None
    loaded = _load(conn)
    if loaded is None:
        return None
    stamps, outer, rows = loaded
    if json.dumps(_outer_rules(workspace, options), sort_keys=True) != outer:
        return None
    # 1. The folders: unchanged, moved (list again) or dead (no longer a folder: all below is gone).
    # When the compiled loop found each one a folder with its stamped times (the usual restart), what
    # is left to check is the rule files of the folders that hold some; else each folder is checked here.
    moved: list[str] = []
    dead: set[str] = set()
    unchanged = _stamped_folders_unchanged(rows)
    folders = [p for p, (_, _, rules) in stamps.items() if rules] if unchanged else sorted(stamps, key=len)
    for path in folders:  # a parent before its children (when any may be dead)
        mtime, ctime, rules = stamps[path]
        if dead and os.path.dirname(path) in dead:
            dead.add(path)
            continue
        st = _lstat_of_kind(path, stat_mod.S_ISDIR)
        if st is None:
            dead.add(path)
            continue
        if st.st_mtime_ns != mtime or st.st_ctime_ns != ctime:
            moved.append(path)
            try:
                names = os.listdir(path)
            except OSError:
                return None  # unreadable now: the full walk reports it
            present = [n for n in _RULE_NAMES if n in names]
            now = json.dumps(_folder_rules(path, present), sort_keys=True) if present else ""
        else:
            now = json.dumps(_folder_rules(path, json.loads(rules)), sort_keys=True) if rules else ""
        if now != rules:
            return None  # an ignore file changed: which names are taken may differ anywhere below
    if token.should_stop():
        return None
    # 2. The moved folders, listed again by the walk (one level: the same rules decide), and the
    # folders they hold that the build never saw, walked whole.
    seen: dict[str, FileEntry] = {}
    listed: set[str] = set()  # folders whose files ``seen`` holds completely
    errors: list[FileError] = []
    roots = {r.path: r for r in workspace.roots}
    for path in moved:
        root = roots.get(path) or workspace.root_of(path)
        if root is None:
            return None
        listed.add(path)
        for item in walk(workspace, [Target(root, path, True)], options, token, SkipCounts(), errors, split_depth=1):
            if isinstance(item, Subtree):
                sub = item.target.path
                if sub in stamps:
                    continue  # checked on its own
                for entry in walk(workspace, [item.target], options, token, SkipCounts(), errors,
                                  on_folder=lambda p, _st, _n: listed.add(p)):
                    if isinstance(entry, FileEntry):
                        seen[entry.path] = entry
            else:
                seen[item.path] = item
        if errors or token.should_stop():
            return None
    # 3. The catalogued files: by the listing where their folder was listed again, else by a stat.
    if not listed and not dead and stated is not None:  # (the usual restart: no folder moved, every stat made)
        stray = strays(sizes, stamps)  # (before the stat's answer is waited for: it needs none)
        found = stated() if callable(stated) else stated
        if found is not None:
            changed, gone = changed_by_stated(sizes, stamps, found, stray)
            return QuickCatchUp(changed, gone, 0)
    stated = stated() if callable(stated) else stated
    changed: list[str] = []
    gone: list[str] = []
    sep, lstat, is_file = os.sep, os.lstat, stat_mod.S_ISREG  # (78,000 calls: no lookups in the loop)
    for path, (size, mtime_ns, indexed) in sizes.items():
        folder = path.rpartition(sep)[0] or sep  # os.path.dirname, without its cost on 78,000 paths
        if folder in listed:
            entry = seen.get(path)
            if entry is None:
                gone.append(path)
            elif entry.size != size or abs(entry.mtime * 1e9 - mtime_ns) > MTIME_SLACK_NS or not indexed:
                changed.append(path)
            continue
        if folder in dead:
            gone.append(path)
            continue
        if folder not in stamps:
            changed.append(path)  # in a folder made after the build: re-checked from disk when applied
            continue
        if stated is not None:
            if path in stated[0]:
                gone.append(path)
            elif path in stated[1]:
                changed.append(path)
            continue
        try:
            st = lstat(path)
        except OSError:
            gone.append(path)
            continue
        if not is_file(st.st_mode):
            gone.append(path)
        elif st.st_size != size or abs(st.st_mtime_ns - mtime_ns) > MTIME_SLACK_NS or not indexed:
            changed.append(path)
    changed.extend(p for p in seen if p not in sizes)
    return QuickCatchUp(changed, gone, len(listed))


def strays(sizes: Mapping[str, tuple[int, int, bool]], stamps: Container[str]) -> list[str]:
    """The catalogued files ``sizes`` whose folder the stamps never saw, in catalogue order."""
    sep = os.sep
    stray = sizes.strays(stamps) if isinstance(sizes, StatMapping) else None
    if stray is None:
        stray = [p for p in sizes if (p.rpartition(sep)[0] or sep) not in stamps]
    return stray


def changed_by_stated(sizes: Mapping[str, tuple[int, int, bool]], stamps: dict[str, tuple[int, int, str]],
                      stated: Stated, stray: list[str] | None = None) -> tuple[list[str], list[str]]:
    """(changed, gone) among the catalogued files ``sizes`` when no stamped folder moved or died and
    the ``stat`` of every file was made already (``stated``: the paths no longer regular files, the
    paths that differ): what :func:`quick_catch_up`'s per-file loop answers in that case, in one pass
    over the paths (a file in a folder the stamps never saw is changed) and then over the few found.
    On the Linux tree this replaces ~78,000 iterations of four lookups with one comprehension; given the
    columns (:class:`.map_file.StatMapping`) and the compiled loop, each folder is looked up once a run
    of files sharing it (~6,000 runs: ~30 -> ~5 ms of a restart's catch-up). ``stray``: :func:`strays`,
    made already (a cold call's check makes it while its ``stat`` runs)."""
    if stray is None:
        stray = strays(sizes, stamps)
    strayed = set(stray)
    gone = [p for p in stated[0] if p in sizes and p not in strayed]
    changed = stray + [p for p in stated[1] if p in sizes and p not in strayed and p not in stated[0]]
    return changed, gone


def quick_catch_up_at(db: str, workspace: Workspace, options: WalkOptions, sizes: Mapping[str, tuple[int, int, bool]],
                      token: CancelToken, stated: Stated | Callable[[], Stated | None] | None = None) -> QuickCatchUp | None:
    """:func:`quick_catch_up` on a read-only connection of its own to the catalogue ``db`` (it may
    run in a forked child, which must not use its parent's: :mod:`sleuth.engine.index.aside`)."""
    from sleuth.engine.index.store import connect_read_only

    conn = connect_read_only(db)
    try:
        return quick_catch_up(conn, workspace, options, sizes, token, stated)
    finally:
        conn.close()
