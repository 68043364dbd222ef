"""The sandbox (docs/SPEC.md §3): workspace folders, path resolution and the containment check.

Every path a command names goes through :meth:`Workspace.resolve` before anything touches it:
relative paths resolve against the first folder (or the one named by ``root``), ``..`` and
symlinks are resolved by canonicalising the deepest existing ancestor (seed 001, Appendix A),
and a target outside every folder raises :class:`SandboxViolation` with no further access.
Display paths are ``/``-separated, NFC, lossy-UTF-8 and prefixed by the folder name when
there are several folders, so they sort bytewise into the order every result uses.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from sleuth.engine.errors import BadArgs, NotFound, SandboxViolation
from sleuth.engine.platform import path_key, paths_fold_case
from sleuth.engine.values import Value, fill

__all__ = ["Root", "Target", "Workspace", "canonicalize", "lossy", "sort_key"]


class Root(Value):
    """A workspace folder: ``name`` prefixes display paths when there are several; ``path`` is canonical."""

    __slots__ = ("name", "path")
    name: str
    path: str

    def __init__(self, name: str, path: str) -> None:
        fill(self, "name", name)
        fill(self, "path", path)


class Target(Value):
    """A resolved search target inside ``root``. ``path`` is canonical (links resolved); ``named`` is
    the path as the request named it (lexically normalised, inside a folder) when a link made the two
    differ: the deny globs apply to both, and answers never echo the real path behind the link."""

    __slots__ = ("root", "path", "is_dir", "named")
    root: Root
    path: str
    is_dir: bool
    named: str | None

    def __init__(self, root: Root, path: str, is_dir: bool, named: str | None = None) -> None:
        fill(self, "root", root)
        fill(self, "path", path)
        fill(self, "is_dir", is_dir)
        fill(self, "named", named)


def lossy(name: str) -> str:
    """A file name as valid UTF-8 text: undecodable bytes (surrogate escapes) become U+FFFD, then NFC.
    An ASCII name is both already (and needs no ``unicodedata``: issue 30)."""
    if name.isascii():
        return name
    import unicodedata

    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        name = os.fsencode(name).decode("utf-8", "replace")
    return unicodedata.normalize("NFC", name)


def sort_key(display: str) -> bytes:
    """The bytewise ordering key of a display path (seed 001 NormalizeRelPathForOrder)."""
    return display.encode("utf-8", "surrogatepass")


def canonicalize(path: str) -> str:
    """Absolute, symlink-free form of ``path`` even when its tail does not exist yet.

    The deepest existing ancestor is canonicalised with ``realpath`` and the missing tail
    re-attached after removing ``.`` and resolving ``..`` lexically.
    """
    path = os.path.abspath(path)
    tail: list[str] = []
    head = path
    while not os.path.lexists(head):
        parent, leaf = os.path.split(head)
        if parent == head:
            break
        tail.append(leaf)
        head = parent
    real = os.path.realpath(head)
    for leaf in reversed(tail):
        real = os.path.normpath(os.path.join(real, leaf))
    return real


def _inside(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or below it, compared as ``root``'s file system compares names
    (without case on macOS's and Windows's default ones: :func:`~sleuth.engine.platform.paths_fold_case`)."""
    fold = paths_fold_case(root)
    path, root = path_key(path, fold), path_key(root, fold)
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class Workspace:
    """The set of workspace folders a transport gave us; immutable, replaced on folder changes."""

    def __init__(self, folders: Iterable[str | os.PathLike[str]], names: Sequence[str] | None = None) -> None:
        roots: list[Root] = []
        seen: set[str] = set()
        for i, folder in enumerate(folders):
            path = canonicalize(os.fspath(folder))
            if path in seen:
                continue
            seen.add(path)
            name = (names[i] if names and i < len(names) else None) or os.path.basename(path) or path
            roots.append(Root(lossy(name), path))
        # Unique names: a second "src" becomes "src (2)" so prefixes stay unambiguous.
        counts: dict[str, int] = {}
        unique: list[Root] = []
        for root in roots:
            n = counts.get(root.name, 0) + 1
            counts[root.name] = n
            unique.append(root if n == 1 else Root(f"{root.name} ({n})", root.path))
        self.roots: tuple[Root, ...] = tuple(unique)

    def __repr__(self) -> str:
        return f"Workspace({[r.path for r in self.roots]!r})"

    @property
    def multi(self) -> bool:
        return len(self.roots) > 1

    def displays_like(self, other: "Workspace") -> bool:
        """Whether every path has the same result form (:meth:`display`) in both: the same folders,
        and with several, the same names (one folder's name appears in no result). An index built
        for one answers a search in the other only then: a warm CLI names its folder by its base
        name, an editor by what the person called it."""
        if [r.path for r in self.roots] != [r.path for r in other.roots]:
            return False
        return not self.multi or [r.name for r in self.roots] == [r.name for r in other.roots]

    def root_named(self, name: str) -> Root:
        for root in self.roots:
            if root.name == name or root.path == canonicalize(name):
                return root
        raise BadArgs(
            f"'root' names no workspace folder: {name!r}.",
            hint="Use one of: " + ", ".join(r.name for r in self.roots) + ".",
        )

    def root_of(self, canonical: str) -> Root | None:
        """The innermost folder containing ``canonical`` (folders may nest)."""
        best: Root | None = None
        for root in self.roots:
            if _inside(canonical, root.path) and (best is None or len(root.path) > len(best.path)):
                best = root
        return best

    def contains(self, path: str) -> bool:
        return self.root_of(canonicalize(path)) is not None

    def resolve(self, path: str | None = None, root: str | None = None) -> list[Target]:
        """Targets for a ``path`` argument: every folder when ``path`` is empty, else the one it names.

        Raises :class:`SandboxViolation` for anything outside the folders (checked before any
        access beyond canonicalisation) and :class:`NotFound` for a missing path inside them.
        """
        if not self.roots:
            raise BadArgs("No workspace folder is open, so there is nothing to search.",
                          hint="Open a folder in the editor, or pass --root to the CLI.")
        if path is not None and not isinstance(path, str):
            raise BadArgs("'path' must be a string.")
        if path is not None and "\x00" in path:
            raise BadArgs("'path' contains a NUL character.", hint="Pass a plain file or folder path.")
        base = self.root_named(root) if root else None
        if not path or path in (".", "./"):
            chosen = [base] if base else list(self.roots)
            return [Target(r, r.path, True) for r in chosen]
        # A leading folder name selects that folder when there are several ("api/src/x.py").
        if base is None and self.multi and not os.path.isabs(path):
            first = path.replace("\\", "/").split("/", 1)
            for r in self.roots:
                if r.name == first[0]:
                    base, path = r, (first[1] if len(first) > 1 else "")
                    if not path:
                        return [Target(r, r.path, True)]
                    break
        anchor = (base or self.roots[0]).path
        lexical = os.path.normpath(os.path.join(anchor, os.path.expanduser(path)))  # join keeps an absolute path
        candidate = canonicalize(lexical)
        owner = self.root_of(candidate)
        if owner is None:
            raise SandboxViolation(
                f"Path {path!r} resolves outside the workspace folders.",
                hint="Pass a path inside one of: " + ", ".join(r.path for r in self.roots) + ".",
                path=path,
            )
        if not os.path.exists(candidate):
            raise NotFound(f"Path {path!r} does not exist in the workspace.", path=path)
        named = lexical if lexical != candidate and self.root_of(lexical) is not None else None
        return [Target(owner, candidate, os.path.isdir(candidate), named)]

    def display(self, path: str, root: Root | None = None) -> str:
        """The result form of an absolute path: relative to its folder, ``/``-separated, lossy, NFC."""
        owner = root or self.root_of(path) or self.roots[0]
        rel = os.path.relpath(path, owner.path)
        rel = "" if rel == "." else rel.replace(os.sep, "/")
        text = lossy(rel)
        if self.multi:
            return f"{owner.name}/{text}" if text else owner.name
        return text
