"""Which entries a walk takes: ripgrep's ignore precedence over per-folder rule stacks (docs/SPEC.md §3).

:class:`Filter` owns the decision for one entry (:meth:`Filter.classify`), in ripgrep's order
(``ignore::dir::Ignore::matched`` and ``matched_dir_entry``):

1. deny globs (configuration) — never listed nor read, whatever the options; ``.git`` is never
   walked either;
2. ``-g`` globs (``include_globs``/``exclude_globs``) override everything: a matching glob decides,
   and once any include glob exists an unmatched *file* is skipped;
3. ignore files, ``.rgignore`` before ``.ignore`` before ``.gitignore`` before ``.git/info/exclude``
   before the global excludes file; within each kind the deepest folder with a matching rule
   decides. Git files count only inside a repository (a ``.git`` in the folder or an ancestor, or
   a Jujutsu ``.jj``, as rg 15 reads one: jj keeps git's ignore files) unless ``no_require_git``; ``.gitignore`` files above the nearest repository root do
   not apply (``.rgignore`` and ``.ignore`` files of every ancestor do); ``no_ignore`` turns all of them off;
4. ``file_types`` (files only): a selected type whitelists, any other file is skipped;
5. hidden (dot) entries are skipped unless ``hidden`` — or unless a rule above whitelisted them.

:class:`DirState` is that stack as seen from one folder, built from its parent's in O(rules still
alive), so the walk and :class:`IgnoreOracle` (the index's path-at-a-time check, after ripgrep's
``incremental.rs`` idea) share one implementation.
"""

from __future__ import annotations

import os
import stat as stat_mod
import _thread  # threading.Lock and threading.local are _thread's: no threading for a cold grep (issue 30)
from collections.abc import Iterable, Sequence

from sleuth.engine.ignore_rules import FileView, IgnoreFile, NameRules, glob_file, read_ignore_file
from sleuth.engine.path_rule import PathRule
from sleuth.engine.types import WalkOptions
from sleuth.engine.workspace import Root, Target, Workspace

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from sleuth.engine.filetypes import TypeMatcher

__all__ = [
    "TAKE", "IGNORED", "HIDDEN", "DENIED",
    "DirState", "Filter", "IgnoreOracle", "child_views",
    "IGNORE_FILE_NAMES", "global_excludes_path", "git_exclude_path", "ancestors",
]

TAKE, IGNORED, HIDDEN, DENIED = 0, 1, 2, 3
IGNORE_FILE_NAMES = frozenset((".rgignore", ".ignore", ".gitignore"))
_REPOSITORY_MARKS = (".git", ".jj")  # a folder holding one is a repository's root (rg 15: jj's too)
_PRESENT = IGNORE_FILE_NAMES | set(_REPOSITORY_MARKS)

# ---------------------------------------------------------------------------------------------
# Where git keeps its other exclude files

_EXCLUDES_RE = rb'(?im)^\s*excludesfile\s*=\s*"?\s*(\S+?)\s*"?\s*$'


def _config_excludes(path: str | None) -> str | None:
    if not path:
        return None
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    # ``re`` (with ``enum``, ~3 ms of a cold grep: issue 30) only for a config that names the setting
    # (bytes.lower folds ASCII only, as the pattern's IGNORECASE does on bytes)
    if b"excludesfile" not in data.lower():
        return None
    import re

    m = re.search(_EXCLUDES_RE, data)
    if not m:
        return None
    value = os.fsdecode(m.group(1))
    home = os.path.expanduser("~")
    return value.replace("~", home) if home != "~" else value


def global_excludes_path() -> str | None:
    """The global excludes file: ``core.excludesFile`` from $GIT_CONFIG_GLOBAL, ~/.gitconfig,
    $XDG_CONFIG_HOME/git/config or the system's config ($GIT_CONFIG_SYSTEM, else /etc/gitconfig: rg
    15.2 reads it last, as git does), else $XDG_CONFIG_HOME/git/ignore (~/.config/git/ignore)."""
    home = os.path.expanduser("~")
    has_home = home != "~"
    xdg = os.environ.get("XDG_CONFIG_HOME") or (os.path.join(home, ".config") if has_home else None)
    for config in (os.environ.get("GIT_CONFIG_GLOBAL"),
                   os.path.join(home, ".gitconfig") if has_home else None,
                   os.path.join(xdg, "git", "config") if xdg else None,
                   os.environ.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"):
        found = _config_excludes(config)
        if found:
            return found
    return os.path.join(xdg, "git", "ignore") if xdg else None


def git_exclude_path(folder: str) -> str:
    """``info/exclude`` of the repository whose ``.git`` is in ``folder`` (a worktree's ``.git``
    file names its git dir, whose ``commondir`` names the shared one)."""
    dot_git = os.path.join(folder, ".git")
    default = os.path.join(dot_git, "info", "exclude")
    if os.path.isdir(dot_git):
        return default
    try:
        with open(dot_git, "rb") as fh:
            head = fh.read(4096).decode("utf-8", "surrogateescape").strip()
    except OSError:
        return default
    if not head.startswith("gitdir:"):
        return default
    git_dir = os.path.join(folder, head[len("gitdir:"):].strip())
    try:
        with open(os.path.join(git_dir, "commondir"), "rb") as fh:
            git_dir = os.path.join(git_dir, fh.read().decode("utf-8", "surrogateescape").strip())
    except OSError:
        pass
    return os.path.join(git_dir, "info", "exclude")


def ancestors(path: str) -> list[str]:
    """The folders above ``path``, nearest first, up to the file system's root."""
    found: list[str] = []
    while True:
        up = os.path.dirname(path)
        if up == path:
            return found
        path = up
        found.append(path)


def _repository_above(path: str) -> bool:
    while True:
        up = os.path.dirname(path)
        if up == path:
            return False
        path = up
        if any(os.path.lexists(os.path.join(path, mark)) for mark in _REPOSITORY_MARKS):
            return True


# ---------------------------------------------------------------------------------------------
# Per-folder stacks


def child_views(views: tuple[FileView, ...], name: str) -> tuple[FileView, ...]:
    """The views inside sub-folder ``name`` (a view none of whose rules can match below is dropped)."""
    if not views:
        return views
    out = []
    for v in views:
        c = v.child(name)
        if c is not None:
            out.append(c)
    return tuple(out)


class DirState:
    """The rules in force for the entries of one folder (each kind deepest first)."""

    __slots__ = ("path", "depth", "custom", "dot", "git", "exclude", "glob", "override", "deny", "any_git",
                 "explicit", "views", "quick")

    def __init__(self, path: str, depth: int, custom: tuple[FileView, ...], dot: tuple[FileView, ...],
                 git: tuple[FileView, ...], exclude: tuple[FileView, ...], glob: FileView | None,
                 override: FileView | None, deny: FileView | None, any_git: bool,
                 explicit: tuple[FileView, ...] = ()) -> None:
        self.path = path
        self.depth = depth
        self.custom, self.dot, self.git, self.exclude, self.glob = custom, dot, git, exclude, glob
        self.override, self.deny, self.any_git, self.explicit = override, deny, any_git, explicit
        views = custom + dot
        if any_git:
            views = views + git + exclude
        views = views + explicit  # rg's --ignore-file: below the others, with or without a repository
        if any_git and glob is not None:
            views = views + (glob,)
        self.views = views
        self.quick: tuple[Quick | None, Quick | None] | None = None


class Quick:
    """The union of every name rule in force in one folder, for one entry kind: a name that is in
    no dict, has none of the suffixes/prefixes and fails the union regex matches no rule at all, so
    the walk can take it without the precedence logic (the common case)."""

    __slots__ = ("exact", "suffix", "prefix", "regex")

    def __init__(self, rules: tuple[NameRules, ...]) -> None:
        exact: set[str] = set()
        suffix: list[str] = []
        prefix: list[str] = []
        patterns: list[str] = []
        for r in rules:
            exact.update(r.exact)
            if r.suffix is not None:
                suffix.extend(r.suffix[0])
            if r.prefix is not None:
                prefix.extend(r.prefix[0])
            if r.regex is not None:
                patterns.append(r.regex[0].pattern)
        self.exact = frozenset(exact)
        self.suffix = tuple(suffix)
        self.prefix = tuple(prefix)
        self.regex = None
        if patterns:  # globs that are no name, suffix or prefix (sleuth.engine.ignore_rules.Glob)
            import re

            self.regex = re.compile("|".join(f"(?:{p})" for p in patterns), re.DOTALL)


_QUICK_CACHE: dict[tuple[NameRules, ...], Quick] = {}


def _quick_for(rules: tuple[NameRules, ...]) -> Quick | None:
    if not rules:
        return None
    q = _QUICK_CACHE.get(rules)
    if q is None:
        if len(_QUICK_CACHE) > 4096:
            _QUICK_CACHE.clear()
        q = _QUICK_CACHE[rules] = Quick(rules)
    return q


class Filter:
    """The compiled options of one search: globs, types, deny list, loaded ignore files."""

    def __init__(self, workspace: Workspace, options: WalkOptions) -> None:
        self.workspace = workspace
        self.options = options
        self.use_ignore = not options.no_ignore
        self.use_dot = self.use_ignore and not options.no_ignore_dot
        self.use_vcs = self.use_ignore and not options.no_ignore_vcs
        self.use_exclude = self.use_vcs and not options.no_ignore_exclude
        self.use_parent = self.use_ignore and not options.no_ignore_parent
        # extra ignore files by the folder they are rooted at: their workspace folder (rg roots them at
        # the current folder, which is the CLI's workspace folder), not the folder they sit in
        self.explicit: dict[str, list[str]] = {}
        if not options.no_ignore_files:  # rg 14.1: --no-ignore leaves --ignore-file in force
            for f in options.ignore_files:
                real = os.path.realpath(f)
                base = next((r.path for r in workspace.roots
                             if real == r.path or real.startswith(r.path.rstrip(os.sep) + os.sep)),
                            os.path.dirname(real))
                self.explicit.setdefault(base, []).append(f)
        self.require_git = not options.no_require_git
        self.hidden = options.hidden
        globs = list(options.include_globs) + ["!" + g for g in options.exclude_globs]
        self.override = glob_file(globs, override=True)
        self.override_whitelist = bool(self.override and self.override.has_whitelist)
        self.deny = glob_file(options.deny_globs, override=False)
        self.rule = PathRule(workspace, self.deny)  # what links may reach (real paths, folder by folder)
        self.types: TypeMatcher | None = None
        if options.file_types:  # (the type table is imported for -t only: ~0.5 ms of a cold call)
            from sleuth.engine.filetypes import TypeMatcher

            self.types = TypeMatcher(options.file_types)
        self._files: dict[str, IgnoreFile | None] = {}
        self._starts: dict[tuple[str, str], DirState | None] = {}  # (workspace folder, folder) -> start()
        self._global: IgnoreFile | None = None
        if self.use_vcs and not options.no_ignore_global:
            path = global_excludes_path()
            self._global = read_ignore_file(path, caseless=options.ignore_case_insensitive) if path else None

    # -- loading ------------------------------------------------------------------------------
    def _load(self, path: str) -> IgnoreFile | None:
        try:
            return self._files[path]
        except KeyError:
            f = self._files[path] = read_ignore_file(path, caseless=self.options.ignore_case_insensitive)
            return f

    def forget(self) -> None:
        """Drop every loaded ignore file (an ignore file changed on disk)."""
        self._files.clear()
        self._starts.clear()
        self.rule.forget()

    def enter(self, parent: DirState | None, name: str, path: str, names: Iterable[str] | None,
              root: Root | None = None, in_repository: bool = False) -> DirState:
        """The state of folder ``path`` (``name`` inside ``parent``'s folder). ``names`` lists the
        folder's entries when the caller has them (else the ignore files are probed). ``root`` is
        given when ``path`` is a workspace folder: the globs and global excludes start there."""
        if parent is None:
            custom = dot = git = exclude = explicit = ()
            glob = override = deny = None
            any_git = in_repository or not self.require_git
            depth = 0
        else:
            custom, dot = child_views(parent.custom, name), child_views(parent.dot, name)
            git, exclude = child_views(parent.git, name), child_views(parent.exclude, name)
            explicit = child_views(parent.explicit, name)
            glob = parent.glob.child(name) if parent.glob is not None else None
            override = parent.override.child(name) if parent.override is not None else None
            deny = parent.deny.child(name) if parent.deny is not None else None
            any_git = parent.any_git
            depth = parent.depth + 1
        if root is not None:
            depth = 0
            override = self.override.view() if self.override is not None else None
            deny = self.deny.view() if self.deny is not None else None
            glob = self._global.view() if self._global is not None else None
        if self.use_ignore:
            if names is None:
                present = {n for n in _PRESENT if os.path.lexists(os.path.join(path, n))}
            else:
                present = _PRESENT.intersection(names)
            if ".rgignore" in present and self.use_dot:
                f = self._load(os.path.join(path, ".rgignore"))
                if f is not None:
                    custom = (f.view(),) + custom  # type: ignore[assignment]
            if ".ignore" in present and self.use_dot:
                f = self._load(os.path.join(path, ".ignore"))
                if f is not None:
                    dot = (f.view(),) + dot  # type: ignore[assignment]
            gi = self._load(os.path.join(path, ".gitignore")) if ".gitignore" in present and self.use_vcs else None
            own = (gi.view(),) if gi is not None else ()
            ex_file = self._load(git_exclude_path(path)) if ".git" in present and self.use_exclude else None
            own_ex = (ex_file.view(),) if ex_file is not None else ()
            if self.require_git and (".git" in present or ".jj" in present):
                git, exclude, any_git = own, own_ex, True  # type: ignore[assignment]
            else:
                git, exclude = own + git, own_ex + exclude  # type: ignore[assignment]
        for name_ in self.explicit.get(path, ()):
            f = self._load(name_)
            view = f.view() if f is not None else None
            if view is not None:
                explicit = (view,) + explicit  # type: ignore[assignment]  (a later file wins, as a deeper one)
        return DirState(path, depth, custom, dot, git, exclude, glob, override, deny, any_git,  # type: ignore[arg-type]
                        explicit)  # type: ignore[arg-type]

    def start(self, root: Root, target_dir: str) -> DirState | None:
        """The state of a target folder inside ``root``, with the ignore files of its ancestors (up
        to the repository root when the workspace folder is inside one). None when the target or
        one of its ancestors below the workspace folder is denied. Remembered per folder: a big
        scan's workers walk hundreds of subtrees with one filter, and each subtree's ancestors
        (their ignore files probed and parsed) would otherwise be entered again for every one."""
        starts = self._starts
        key = (root.path, root.path)
        if key not in starts:
            starts[key] = self._root_state(root)
        state = starts[key]
        rel = os.path.relpath(target_dir, root.path)
        if rel == ".":
            return state
        path = root.path
        for part in rel.split(os.sep):
            path = os.path.join(path, part)
            key = (root.path, path)
            if key not in starts:
                denied = state is None or (state.deny is not None and state.deny.match(part, True))
                starts[key] = None if denied else self.enter(state, part, path, None)  # type: ignore[arg-type]
            state = starts[key]
        return state

    def _root_state(self, root: Root) -> DirState:
        # Every ancestor, as rg: .rgignore and .ignore files apply from any of them, inside a
        # repository or not; entering a repository's root (its .git) drops the .gitignore files above it.
        chain = ancestors(root.path) if self.use_parent else []
        state: DirState | None = None
        for d in reversed(chain):
            state = self.enter(state, os.path.basename(d), d, None)
        # --no-ignore-parent reads no file above, but a repository above still makes this one's .gitignore count
        in_repository = (self.use_ignore and not self.use_parent and _repository_above(root.path))
        return self.enter(state, os.path.basename(root.path), root.path, None, root=root, in_repository=in_repository)

    def quick(self, state: DirState) -> tuple[Quick | None, Quick | None] | None:
        """(files, folders) fast-reject sets of ``state``; None when globs or deny rules are in force
        (then every entry takes :meth:`classify`)."""
        if self.override is not None or state.deny is not None:
            return None
        q = state.quick
        if q is None:
            files: list[NameRules] = []
            dirs: list[NameRules] = []
            for v in state.views:
                for rules, out in ((v.float_file, files), (v.here_file, files), (v.float_dir, dirs), (v.here_dir, dirs)):
                    if rules is not None:
                        out.append(rules)
            q = state.quick = (_quick_for(tuple(files)), _quick_for(tuple(dirs)))
        return q

    # -- the verdict ----------------------------------------------------------------------------
    def classify(self, state: DirState, name: str, is_dir: bool) -> int:
        """TAKE, IGNORED, HIDDEN or DENIED for entry ``name`` of ``state``'s folder."""
        deny = state.deny
        if deny is not None and deny.match(name, is_dir):
            return DENIED
        if name == ".git":
            return DENIED if self.hidden else HIDDEN
        if self.override is not None:
            override = state.override  # None once no glob can match below this folder
            m = override.match(name, is_dir) if override is not None else None
            if m is not None:
                return IGNORED if m else TAKE
            if self.override_whitelist and not is_dir:
                return IGNORED
        white = False
        for view in state.views:
            m = view.match(name, is_dir)
            if m is not None:
                if m:
                    return IGNORED
                white = True
                break
        if self.types is not None and not is_dir:
            if self.types.matches(name):
                white = True
            else:
                return IGNORED
        if not white and not self.hidden and name[:1] == ".":
            return HIDDEN
        return TAKE


# ---------------------------------------------------------------------------------------------
# Path-at-a-time checks for the index


class IgnoreOracle:
    """Answers "would the walk yield this file?" without a walk, caching one state per folder.

    ``targets`` are the walk's targets (default: every workspace folder); depth limits count from
    the target holding the path, a target folder itself is never filtered (as in the walk and rg)
    and a target that is a file is searchable whatever the ignore rules (deny globs and the size
    cap still apply). Call :meth:`invalidate` with every changed path: a change to an ignore file
    drops the cache. Thread-safe (one lock; the work under it is a few look-ups once warm).
    """

    def __init__(self, workspace: Workspace, options: WalkOptions, targets: Sequence[Target] | None = None) -> None:
        self.workspace = workspace
        self.options = options
        self.filter = Filter(workspace, options)
        self._max_depth = options.depth_limit
        self._targets = list(targets) if targets else [Target(r, r.path, True) for r in workspace.roots]
        self._target_dirs = {t.path for t in self._targets if t.is_dir}
        self._states: dict[tuple[str, str], tuple[DirState, int] | None] = {}
        self._lock = _thread.allocate_lock()

    def invalidate(self, path: str) -> None:
        """Note that ``path`` changed; ignore-file changes (and ``.git`` ones) reset the cache."""
        name = os.path.basename(path.rstrip(os.sep))
        if name in IGNORE_FILE_NAMES or name == "exclude" or f"{os.sep}.git" in path or name in _REPOSITORY_MARKS:
            self.invalidate_all()
            return
        with self._lock:
            stale = [k for k in self._states if k[1] == path or k[1].startswith(path + os.sep)]
            for key in stale:
                del self._states[key]
            self.filter.rule.forget()  # a folder may have become a link: resolve again

    def invalidate_all(self) -> None:
        with self._lock:
            self._states.clear()
            self.filter.forget()

    def _target_of(self, path: str) -> Target | None:
        best: Target | None = None
        for t in self._targets:
            if not t.is_dir:
                if t.path == path:
                    return t
            elif path.startswith(t.path.rstrip(os.sep) + os.sep) and (best is None or len(t.path) > len(best.path)):
                best = t
        return best

    def _dir_state(self, target: Target, d: str) -> tuple[DirState, int] | None:
        """(state, depth below the target) of folder ``d``, or None when the walk never enters it."""
        key = (target.path, d)
        try:
            return self._states[key]
        except KeyError:
            pass
        found: tuple[DirState, int] | None = None
        if d == target.path:
            start = self.filter.start(target.root, d)
            found = (start, 0) if start is not None else None
        else:
            up, name = os.path.split(d)
            parent = self._dir_state(target, up)
            if parent is not None and (self._max_depth is None or parent[1] + 1 < self._max_depth):
                if self._dir_ok(d) and self.filter.classify(parent[0], name, True) == TAKE:
                    found = (self.filter.enter(parent[0], name, d, None), parent[1] + 1)
        self._states[key] = found
        return found

    def _dir_ok(self, d: str) -> bool:
        if not os.path.islink(d):
            return os.path.isdir(d) and d not in self._target_dirs  # another target is walked on its own
        if not self.options.follow:
            return False
        real = os.path.realpath(d)
        return os.path.isdir(real) and self.filter.rule.folder(real) is not None

    def _classified(self, target: Target, path: str, is_dir: bool) -> bool:
        """The ignore part of the verdict (ignore files, hidden, globs, types, depth) for ``path``
        inside folder target ``target``; the caller holds the lock."""
        up, name = os.path.split(path)
        found = self._dir_state(target, up)
        if found is None or (self._max_depth is not None and found[1] + 1 > self._max_depth):
            return False
        return self.filter.classify(found[0], name, is_dir) == TAKE

    def rules_allow(self, abs_path: str, target: Target | None = None) -> bool:
        """The rules part of :meth:`is_searchable` (targets, the path rule, ignore files, hidden,
        globs, depth) without looking at the file itself: for an editor buffer never saved to disk."""
        path = os.path.abspath(abs_path)
        target = target or self._target_of(path)
        if target is None:
            return False
        with self._lock:
            if not self.filter.rule.allows(path):
                return False
            return not target.is_dir or self._classified(target, path, False)

    def admits(self, abs_path: str, is_dir: bool = False) -> bool:
        """Whether the rules let the walk yield ``abs_path`` (a folder: enter it), whether or not it
        exists now: a deleted file's path is judged as it was reached (deny globs on the path, not its
        real path, which may be gone). The file watcher drops events of paths this refuses, so it errs
        towards admitting: an extra event costs a look, a dropped one a stale answer."""
        path = os.path.abspath(abs_path)
        target = self._target_of(path)
        if target is None:
            return path in self._target_dirs and is_dir
        with self._lock:
            if self.filter.rule.reached_view(path, is_dir)[0]:
                return False
            return not target.is_dir or self._classified(target, path, is_dir)

    def is_searchable(self, abs_path: str) -> bool:
        """True when the walk of the targets with these options would yield ``abs_path``: the
        ignore rules as the walk reaches it, and the path rule (:mod:`sleuth.engine.path_rule`) on
        its real path, resolved once per folder."""
        path = os.path.abspath(abs_path)
        target = self._target_of(path)
        if target is None or not self.rules_allow(path, target):
            return False
        try:
            st = os.lstat(path)
            if stat_mod.S_ISLNK(st.st_mode):
                if target.is_dir and not self.options.follow:
                    return False
                st = os.stat(path)  # where it points was checked above (the path rule)
        except OSError:
            return False
        if not stat_mod.S_ISREG(st.st_mode):
            return False
        limit = self.options.max_file_size_bytes
        return limit is None or st.st_size <= limit
