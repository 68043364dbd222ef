"""Frozen option objects and the small records that cross engine layers.

Raw arguments are validated once by the commands layer and frozen here (ripgrep's
``lowargs`` -> ``hiargs``); engine layers never see unvalidated input.
Positions are 1-based; ``column``/``end_column`` are byte offsets in the UTF-8 line, as ripgrep
and seed 001 (FR-LS-04b) count them, ``end_column`` exclusive.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

__all__ = [
    "CaseMode",
    "OutputMode",
    "SortMode",
    "WalkOptions",
    "MatchOptions",
    "SearchOptions",
    "Replacement",
    "BinaryMode",
    "FileEntry",
    "SkipCounts",
    "FileError",
]

CaseMode = Literal["smart", "sensitive", "insensitive"]
OutputMode = Literal["content", "files_with_matches", "count"]
SortMode = Literal["path", "modified"]
# rg's binary handling: "quit" stops at the first NUL and drops what follows (rg's recursive default),
# "convert" searches the whole file and marks it binary (rg's explicit-path default, ``--binary``),
# "text" searches it as any text (``-a``). See :mod:`sleuth.engine.search`.
BinaryMode = Literal["quit", "convert", "text"]


@dataclass(frozen=True, slots=True)
class WalkOptions:
    """Which files a search visits (docs/SPEC.md §3 ignore rules, §4 arguments)."""

    hidden: bool = False
    follow: bool = False
    no_ignore: bool = False
    no_require_git: bool = False
    include_globs: tuple[str, ...] = ()
    exclude_globs: tuple[str, ...] = ()
    file_types: tuple[str, ...] = ()
    recursive: bool = True
    max_depth: int | None = None
    max_file_size_bytes: int | None = None
    max_files: int | None = None
    deny_globs: tuple[str, ...] = ()
    # rg's finer switches (each is part of what no_ignore turns off): .ignore/.rgignore files,
    # .gitignore/.git/info/exclude/the global excludes, .git/info/exclude alone, the global excludes
    # alone, the ignore files of the folders above a workspace folder, and the ignore_files.
    no_ignore_dot: bool = False
    no_ignore_vcs: bool = False
    no_ignore_exclude: bool = False
    no_ignore_global: bool = False
    no_ignore_parent: bool = False
    no_ignore_files: bool = False
    ignore_files: tuple[str, ...] = ()
    """Absolute paths of extra gitignore-format files (rg ``--ignore-file``), rooted at their folder;
    below every other ignore file in precedence, and in force inside a repository or not."""

    @property
    def default_ignoring(self) -> bool:
        """No fine ignore switch is set: the index's file set (made with the defaults) covers the walk."""
        return not (self.no_ignore_dot or self.no_ignore_vcs or self.no_ignore_exclude or self.no_ignore_global
                    or self.no_ignore_parent or self.no_ignore_files or self.ignore_files)

    @property
    def depth_limit(self) -> int | None:
        """``max_depth`` with ``recursive=False`` folded in (at most 1): the depth every walker obeys."""
        if self.recursive:
            return self.max_depth
        return 1 if self.max_depth is None else min(self.max_depth, 1)


@dataclass(frozen=True, slots=True)
class MatchOptions:
    """What a line must contain. ``patterns`` holds one or more patterns (rg's repeated ``-e``), ORed."""

    patterns: tuple[str, ...]
    fixed_strings: bool = False
    word: bool = False
    case: CaseMode = "smart"
    fuzzy: int | None = None
    multiline: bool = False
    engine: Literal["default", "pcre2"] = "default"  # rg -P: PCRE syntax (see sleuth.engine.match.pcre)
    crlf: bool = False  # rg --crlf: every pattern in CRLF mode ((?R): $ matches before \r\n, . never matches \r)


@dataclass(frozen=True, slots=True)
class Replacement:
    """rg's ``-r/--replace``: ``template`` with ``$1``, ``${name}``, ``$$``, expanded per match against the
    capture groups of ``match`` (the same patterns, compiled once more with their groups). Output only."""

    template: str
    match: MatchOptions


@dataclass(frozen=True, slots=True)
class SearchOptions:
    """How matches become events and where collection stops. ``only_matching``: one match event per
    match (rg ``-o``), its text the match; ``replace``: each match event carries ``replacement``."""

    invert: bool = False
    before: int = 0
    after: int = 0
    max_results: int = 200
    max_matches_per_file: int | None = None
    max_columns: int | None = 500
    output: OutputMode = "content"
    sort: SortMode = "path"
    only_matching: bool = False
    replace: Replacement | None = None
    binary: BinaryMode = "quit"
    search_zip: bool = False  # rg -z: gzip, bzip2, xz and lzma files (by name) are searched decompressed
    encoding: str | None = None  # rg -E: None sniffs a UTF-16 BOM (auto); "none" searches raw bytes; else a codec
    byte_offsets: bool = False  # rg --json's absolute_offset and bytes_searched: see sleuth.engine.search.add_byte_offsets


class FileEntry(NamedTuple):
    """A file the walk chose. ``path`` opens it; ``display`` is what results show (``/``-separated, NFC,
    workspace-relative, prefixed by the folder name when there are several folders). ``size=-1`` and
    ``mtime=-1.0`` mean "not stat'ed" (``walk(stat=False)``: the searcher ``fstat``s after opening).
    A named tuple, not a frozen dataclass: the walk makes one per file, and a frozen dataclass's
    ``__init__`` (0.55 vs 0.2 us) cost a cold scan of the Linux tree ~30 ms of CPU."""

    path: str
    display: str
    size: int
    mtime: float


@dataclass(slots=True)
class SkipCounts:
    """What was passed over, so a caller can tell "no match" from "not searched"."""

    ignored: int = 0
    hidden: int = 0
    binary: int = 0
    too_large: int = 0

    def to_dict(self) -> dict[str, int]:
        return {"ignored": self.ignored, "hidden": self.hidden, "binary": self.binary, "too_large": self.too_large}

    def add(self, other: "SkipCounts") -> None:
        self.ignored += other.ignored
        self.hidden += other.hidden
        self.binary += other.binary
        self.too_large += other.too_large


@dataclass(frozen=True, slots=True)
class FileError:
    """A per-file problem: reported in ``errors``, never fatal."""

    path: str
    error: str

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "error": self.error}


