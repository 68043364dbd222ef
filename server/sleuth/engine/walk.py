"""The walk (docs/SPEC.md §3): every file a search visits, in final order, never leaving the sandbox.

:func:`walk` turns resolved targets into :class:`~sleuth.engine.types.FileEntry` records sorted the
way results are (display path, bytewise, NFC): a depth-first walk that sorts each folder's entries
by ``name`` (``name + "/"`` for folders) yields exactly the bytewise order of full paths, so no
global sort (and no waiting for the end of the walk) is needed. Which entries are taken is
:mod:`sleuth.engine.ignore`'s business; this module owns traversal: depth limits, symlinks (followed
only with ``follow`` and only into the sandbox, loops detected), size caps, per-entry errors,
``max_files`` and cancellation.

Explicitly named files are taken as ripgrep takes them (ignore rules, hidden, globs and types do not
apply to a path the user named) but deny globs and the size cap still do.

Every file yielded passes :mod:`sleuth.engine.path_rule`: its real path lies inside a workspace
folder and neither it nor the path as reached matches a deny glob. Inside a followed folder link
the two differ, so each frame carries, besides its ignore state (the path as reached), the deny
views of the other paths the folder has (``alts``: its real path, or the path a request named);
an entry must pass them all. They are found once per link, so ``follow`` costs a ``realpath`` per
link as before, and nothing per file.
"""

from __future__ import annotations

import errno
import os
import stat as stat_mod
from collections.abc import Callable, Iterator
from operator import itemgetter

from sleuth.engine.cancel import CancelToken
from sleuth.engine.errors import describe_os_error
from sleuth.engine.ignore import HIDDEN, IGNORED, TAKE, DirState, Filter, child_views
from sleuth.engine.ignore_rules import FileView
from sleuth.engine.types import FileEntry, FileError, SkipCounts, WalkOptions
from sleuth.engine.workspace import Root, Target, Workspace, lossy, sort_key

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from sleuth.engine.plain_typing import NamedTuple

__all__ = ["walk", "entry_of", "Subtree", "OnFolder"]

# Told of each folder the walk lists: its path, its stat taken *before* the listing (so a change made
# while it is listed shows as a newer time later, never as an older one) and the names listed.
OnFolder = Callable[[str, os.stat_result, list[str]], None]

_POLL_EVERY = 256
_MAX_OPEN_DIRS = 48  # folder descriptors held at once (one per level of the current path)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_PROC_FD = "/proc/self/fd/" if os.path.isdir("/proc/self/fd") else None


def _opened_at(fd: int, expected: str) -> bool:
    """Whether folder descriptor ``fd`` is the folder at ``expected`` (its real path): a folder swapped
    for a link between its listing and its opening would otherwise be entered wherever the link points
    (the sandbox race). True where the platform cannot tell."""
    if _PROC_FD is None:
        return True
    try:
        return os.readlink(_PROC_FD + str(fd)) == expected
    except OSError:
        return True
_first = itemgetter(0)


class Subtree(NamedTuple):
    """A folder the walk would descend into, handed over whole instead (``split_depth``): walking it
    as its own target yields exactly the files the parent walk would have (ignore files of its
    ancestors apply), so a pool worker can walk and search it while the parent walk goes on."""

    target: Target
    display: str
    depth: int  # depth of the folder below the original target (1 = a direct child)


class _Walker:
    """One call of :func:`walk`: the compiled filter plus the counters it fills."""

    def __init__(self, workspace: Workspace, options: WalkOptions, token: CancelToken,
                 skipped: SkipCounts, errors: list[FileError], targets: list[Target], stat: bool = True,
                 ignore: Filter | None = None, on_folder: OnFolder | None = None) -> None:
        self.workspace = workspace
        self.options = options
        self.token = token
        self.skipped = skipped
        self.errors = errors
        self.filter = ignore if ignore is not None else Filter(workspace, options)
        self.max_depth = options.depth_limit
        self.follow = options.follow
        self.stat = stat
        self.size_cap = options.max_file_size_bytes
        self.other_targets = {t.path for t in targets if t.is_dir}
        self.on_folder = on_folder

    # -- one folder's listing ---------------------------------------------------------------------
    def listing(self, state: DirState, scanned: list[os.DirEntry[str]], base: str, prefix: str,
                depth: int, alts: tuple[FileView, ...] = ()) -> list[tuple]:
        """Taken entries of folder ``base`` (ending in ``/``) at ``depth``, from its ``scanned``
        listing, sorted for popping from the end. Items: ``(sort name, path, display, is_dir,
        DirEntry, stat or None, real path of a followed link or None)``. ``alts``: deny views of the
        folder's other paths (see the module doc); an entry one of them matches is left out."""
        flt = self.filter
        classify = flt.classify
        skipped = self.skipped
        follow = self.follow
        types = flt.types
        descend = self.max_depth is None or depth + 1 < self.max_depth
        quick = flt.quick(state)
        use_quick = quick is not None
        f_exact: frozenset[str] | tuple = ()
        d_exact: frozenset[str] | tuple = ()
        f_suf = f_pre = d_suf = d_pre = ()
        f_full = d_full = None
        if quick is not None:
            qf, qd = quick
            if qf is not None:
                f_exact, f_suf, f_pre = qf.exact, qf.suffix, qf.prefix
                f_full = qf.regex.fullmatch if qf.regex is not None else None
            if qd is not None:
                d_exact, d_suf, d_pre = qd.exact, qd.suffix, qd.prefix
                d_full = qd.regex.fullmatch if qd.regex is not None else None
        type_ok = types.matches if types is not None else None
        items: list[tuple] = []
        append = items.append
        for entry in scanned:
            name = entry.name
            st = real = None
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                if not is_dir and not entry.is_file(follow_symlinks=False):
                    if not follow or not entry.is_symlink():
                        continue  # symlinks unless followed; fifos, sockets, devices never (as rg)
                    resolved = self._follow(state, entry, base + name, prefix)
                    if resolved is None:
                        continue
                    is_dir, st, real = resolved
            except OSError:
                continue
            if alts and any(v.match(name, is_dir) for v in alts):
                continue  # denied by its real path (inside a followed link) or as a request named it
            if is_dir:
                if not descend:
                    continue
                clear = (use_quick and name[0] != "." and name not in d_exact and not name.endswith(d_suf)
                         and not name.startswith(d_pre) and (d_full is None or d_full(name) is None))
            else:
                clear = (use_quick and name[0] != "." and name not in f_exact and not name.endswith(f_suf)
                         and not name.startswith(f_pre) and (f_full is None or f_full(name) is None)
                         and (type_ok is None or type_ok(name)))
            if not clear:
                verdict = classify(state, name, is_dir)
                if verdict != TAKE:
                    if verdict == IGNORED:
                        skipped.ignored += 1
                    elif verdict == HIDDEN:
                        skipped.hidden += 1
                    continue
            key = name if name.isascii() else lossy(name)
            append((key + "/" if is_dir else key, base + name, prefix + key, is_dir, entry, st, real))
        items.sort(key=_first, reverse=True)
        return items

    def _scan(self, path: str, prefix: str, depth: int = 0, parent_fd: int | None = None,
              real: str | None = None) -> tuple[list[os.DirEntry[str]], int | None]:
        """List a folder through a descriptor: each entry's stat is then one ``fstatat`` of a bare
        name instead of a full-path ``lstat`` (the kernel walks one component, not the whole path).
        The caller closes the descriptor when done. Very deep folders (or a process out of
        descriptors) are listed by path instead, so the walk never holds more than a few dozen.

        The sandbox race: a folder listed as a folder may be a link out by the time it is opened. A
        folder is opened by name relative to its parent's descriptor (which pins the parent) without
        following a link; a folder opened by path, or a followed link (``real``: where it pointed when
        checked), must turn out to be where it was expected. Otherwise it is an error, not a listing."""
        fd = None
        try:
            if depth < _MAX_OPEN_DIRS:
                try:
                    if parent_fd is not None:
                        fd = os.open(os.path.basename(path), _DIR_FLAGS | (0 if real else _NOFOLLOW), dir_fd=parent_fd)
                    else:
                        fd = os.open(path, _DIR_FLAGS | (0 if real else _NOFOLLOW))
                except OSError as exc:
                    if exc.errno not in (errno.EMFILE, errno.ENFILE):
                        raise
                if fd is not None and (real is not None or parent_fd is None) and not _opened_at(fd, real or path):
                    raise OSError(errno.ELOOP, "it changed while it was searched (it is now a link); skipped")
            before = None
            if self.on_folder is not None:
                before = os.fstat(fd) if fd is not None else os.stat(path, follow_symlinks=real is not None)
            with os.scandir(fd if fd is not None else path) as it:
                listed = list(it)
            if before is not None:
                self.on_folder(path, before, [e.name for e in listed])  # type: ignore[misc]
            return listed, fd
        except OSError as exc:
            if fd is not None:
                os.close(fd)
            self.errors.append(FileError(prefix[:-1] or ".", describe_os_error(exc)))
            return [], None

    def _follow(self, state: DirState, entry: os.DirEntry[str], path: str,
                prefix: str) -> tuple[bool, os.stat_result, str] | None:
        """Resolve a symlink under ``follow``: its kind, target stat and real path, or None
        (skipped/reported). The path rule applies to the real path: inside a folder, not denied."""
        display = prefix + lossy(entry.name)
        real = os.path.realpath(path)
        root = self.workspace.root_of(real)
        if root is None:
            if self.filter.classify(state, entry.name, False) == TAKE:
                self.errors.append(FileError(
                    display, "symbolic link points outside the workspace folders; not followed "
                             "(add its target as a workspace folder to search it)"))
            return None
        try:
            st = os.stat(path)
        except OSError as exc:
            if self.filter.classify(state, entry.name, False) == TAKE:
                why = "its target does not exist" if isinstance(exc, FileNotFoundError) else (exc.strerror or str(exc)).lower()
                self.errors.append(FileError(display, f"broken symbolic link ({why}); skipped"))
            return None
        is_dir = stat_mod.S_ISDIR(st.st_mode)
        if not is_dir and not stat_mod.S_ISREG(st.st_mode):
            return None
        rule = self.filter.rule
        if rule.folder(real) is None if is_dir else not rule.real_file_ok(real):
            return None
        return is_dir, st, real

    # -- traversal -----------------------------------------------------------------------------------
    def run(self, target: Target, budget: list[int], split_depth: int | None = None) -> Iterator[FileEntry | Subtree]:
        if not target.is_dir:
            yield from self._explicit_file(target, budget)
            return
        state = self.filter.start(target.root, target.path)
        if state is None:
            return
        alts: tuple[FileView, ...] = ()
        if target.named is not None:  # named through a link: the path as named must pass too
            denied, view = self.filter.rule.reached_view(target.named, True)
            if denied:
                return
            alts = (view,) if view is not None else ()
        display = self.workspace.display(target.named or target.path, target.root)
        prefix = display + "/" if display else ""
        size_cap = self.size_cap
        token = self.token
        follow = self.follow
        ancestors: list[tuple[int, int]] = []
        if follow:
            st = os.stat(target.path)
            ancestors.append((st.st_dev, st.st_ino))
        if self.max_depth == 0:
            return
        base = target.path if target.path.endswith(os.sep) else target.path + os.sep
        scanned, fd = self._scan(target.path, prefix)
        frames = [(self.listing(state, scanned, base, prefix, 0, alts), state, 0, fd, alts)]
        errors = self.errors
        skipped = self.skipped
        other_targets = self.other_targets
        entry_type = FileEntry
        want_stat = self.stat
        seen = 0
        try:
            while frames:
                items, state, depth, fd, alts = frames[-1]
                pop = items.pop
                while items:
                    _, path, display, is_dir, entry, st, real = pop()
                    seen += 1
                    if not seen % _POLL_EVERY and token.should_stop():
                        return
                    if is_dir:
                        if path in other_targets:
                            continue  # a nested workspace folder searched on its own
                        if follow:
                            if st is None:
                                try:
                                    st = entry.stat(follow_symlinks=False)
                                except OSError as exc:  # e.g. a path longer than PATH_MAX
                                    errors.append(FileError(display, describe_os_error(exc)))
                                    continue
                            ident = (st.st_dev, st.st_ino)
                            # As rg: only a symbolic link is checked against its ancestors. A real
                            # folder reached through a followed link may repeat an ancestor's inode
                            # (l0 -> a/b, then l0/l1 -> a, then l0/l1/b); the next link down stops it.
                            if ident in ancestors and entry.is_symlink():
                                errors.append(FileError(display, "symbolic link loop: it leads back to an ancestor "
                                                                 "folder, which is searched once; skipped"))
                                continue
                            ancestors.append(ident)
                        if split_depth is not None and depth + 1 >= split_depth:
                            named = target.named + path[len(target.path):] if target.named is not None else None
                            yield Subtree(Target(target.root, path, True, named), display, depth + 1)
                            continue
                        sub_alts = child_views(alts, entry.name) if alts else alts
                        if real is not None:  # a followed folder link: its real path's deny view joins
                            where = self.filter.rule.folder(real)
                            if where is not None and where.deny is not None:
                                sub_alts = sub_alts + (where.deny,)
                        sub_prefix = display + "/"
                        scanned, sub_fd = self._scan(path, sub_prefix, depth + 1, fd, real)
                        sub = self.filter.enter(state, entry.name, path, [e.name for e in scanned])
                        frames.append((self.listing(sub, scanned, path + os.sep, sub_prefix, depth + 1, sub_alts),
                                       sub, depth + 1, sub_fd, sub_alts))
                        break
                    if not want_stat:
                        yield entry_type(path, display, -1, -1.0)
                        budget[0] -= 1
                        if budget[0] == 0:
                            return
                        continue
                    if st is None:
                        try:
                            st = entry.stat(follow_symlinks=False)
                        except OSError as exc:
                            errors.append(FileError(display, describe_os_error(exc)))
                            continue
                    if size_cap is not None and st.st_size > size_cap:
                        skipped.too_large += 1
                        continue
                    yield entry_type(path, display, st.st_size, st.st_mtime)
                    budget[0] -= 1
                    if budget[0] == 0:
                        return
                else:
                    frames.pop()
                    if fd is not None:
                        os.close(fd)
                    if follow:
                        ancestors.pop()
        finally:  # stopped early (cancel, max_files, the consumer closed us): release the descriptors
            for frame in frames:
                if frame[3] is not None:
                    os.close(frame[3])

    def _explicit_file(self, target: Target, budget: list[int]) -> Iterator[FileEntry]:
        display = self.workspace.display(target.named or target.path, target.root)
        rule = self.filter.rule
        if not rule.real_file_ok(target.path):
            return
        if target.named is not None and rule.reached_view(target.named, False)[0]:
            return
        try:
            st = os.stat(target.path)
        except OSError as exc:
            self.errors.append(FileError(display, describe_os_error(exc)))
            return
        if not stat_mod.S_ISREG(st.st_mode):
            self.errors.append(FileError(display, "not a regular file; skipped"))
            return
        if self.size_cap is not None and st.st_size > self.size_cap:
            self.skipped.too_large += 1
            return
        yield FileEntry(target.path, display, st.st_size, st.st_mtime)
        budget[0] -= 1


def walk(workspace: Workspace, targets: list[Target], options: WalkOptions, token: CancelToken,
         skipped: SkipCounts, errors: list[FileError], split_depth: int | None = None, *,
         stat: bool = True, ignore: Filter | None = None,
         on_folder: OnFolder | None = None) -> Iterator[FileEntry | Subtree]:
    """Yield the files to search under ``targets``, in final result order (see the module doc).

    With ``split_depth``, a folder that deep below its target is yielded as a :class:`Subtree`
    (in its place in the order) instead of being entered; walk it with ``max_depth`` reduced by
    ``Subtree.depth`` when a depth limit is set. ``follow`` and ``max_files`` need the whole walk in
    one place: with either, ``split_depth`` is ignored.

    ``skipped`` counts entries passed over (``ignored``: ignore files, globs and types, one per
    pruned entry; ``hidden``; ``too_large``); per-entry problems go to ``errors`` and the walk goes
    on. Stops quietly when ``token.should_stop()`` or after ``options.max_files`` files.

    ``stat=False`` skips the one ``stat`` per file (about 40% of the walk's time on the Linux tree):
    files found in folders then carry ``size=-1, mtime=-1.0`` and ``max_file_size_bytes`` is *not*
    applied, so a caller that opens the files anyway applies it (``fstat`` after ``open``) and counts
    ``too_large`` itself. Named files (targets that are files) are always stat'ed and capped.

    ``ignore``: a :class:`~sleuth.engine.ignore.Filter` made for the same workspace and options by an
    earlier walk of the same search, whose loaded ignore files and target states it reuses.

    ``on_folder(path, stat, names)``: called for every folder listed (the index keeps their times, so
    a restart re-lists only the folders that changed: :mod:`sleuth.engine.index.freshness`).
    """
    walker = _Walker(workspace, options, token, skipped, errors, targets, stat, ignore, on_folder)
    # A subtree walked on its own would not see the parent's loop guard or file budget.
    split = split_depth if not (options.follow or options.max_files is not None) else None
    budget = [options.max_files if options.max_files is not None else -1]
    if budget[0] == 0:
        return

    def order(t: Target) -> bytes:
        d = workspace.display(t.named or t.path, t.root)
        return sort_key(d + "/" if t.is_dir and d else d)

    for target in sorted(targets, key=order):
        if token.should_stop():
            return
        yield from walker.run(target, budget, split)
        if budget[0] == 0:
            return


def entry_of(workspace: Workspace, path: str, root: Root | None = None) -> FileEntry | None:
    """``path`` as the walk lists a file, as it is on disk now; None when it is gone or no regular file.
    The caller has put it through the request's path rule (``IgnoreOracle.is_searchable``): the index's
    pending files and the files an include glob lets past it (``engine/index``) are taken this way."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat_mod.S_ISREG(st.st_mode):
        return None
    return FileEntry(path, workspace.display(path, root), st.st_size, st.st_mtime)
