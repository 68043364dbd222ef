"""Frozen option objects and the small records that cross engine layers.

Raw arguments are validated once by the commands layer and frozen here (ripgrep's
``lowargs`` -> ``hiargs``); engine layers never see unvalidated input.
Positions are 1-based; ``column``/``end_column`` are byte offsets in the UTF-8 line, as ripgrep
and seed 001 (FR-LS-04b) count them, ``end_column`` exclusive.

The option objects are :class:`~sleuth.engine.values.Value` classes (frozen dataclasses before:
six of them cost a cold ``sleuth grep`` ~3 ms to build at import, issue 30).
"""

from __future__ import annotations

from sleuth.engine.values import Record, Value, fill

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import Literal, NamedTuple, TypeAlias
else:
    from sleuth.engine.plain_typing import NamedTuple

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
    "EVERY_LINE",
]

CaseMode: TypeAlias = "Literal['smart', 'sensitive', 'insensitive']"
OutputMode: TypeAlias = "Literal['content', 'files_with_matches', 'files_without_match', 'count']"
SortMode: TypeAlias = "Literal['path', 'modified']"
# rg's binary handling: "quit" stops at the first NUL and drops what follows (rg's recursive default),
# "convert" searches the whole file and marks it binary (rg's explicit-path default, ``--binary``),
# "text" searches it as any text (``-a``). See :mod:`sleuth.engine.search`.
BinaryMode: TypeAlias = "Literal['quit', 'convert', 'text']"


class WalkOptions(Value):
    """Which files a search visits (docs/SPEC.md §3 ignore rules, §4 arguments).

    ``no_ignore_*``: rg's finer switches (each is part of what no_ignore turns off): .ignore/.rgignore
    files, .gitignore/.git/info/exclude/the global excludes, .git/info/exclude alone, the global
    excludes alone, the ignore files of the folders above a workspace folder, and the ignore_files.
    ``ignore_files``: absolute paths of extra gitignore-format files (rg ``--ignore-file``), rooted at
    their folder; below every other ignore file in precedence, and in force inside a repository or
    not. ``ignore_case_insensitive``: rg ``--ignore-file-case-insensitive``, every ignore file's globs
    match either case."""

    __slots__ = ("hidden", "follow", "no_ignore", "no_require_git", "include_globs", "exclude_globs", "file_types",
                 "recursive", "max_depth", "max_file_size_bytes", "max_files", "deny_globs", "no_ignore_dot",
                 "no_ignore_vcs", "no_ignore_exclude", "no_ignore_global", "no_ignore_parent", "no_ignore_files",
                 "ignore_files", "ignore_case_insensitive")
    hidden: bool
    follow: bool
    no_ignore: bool
    no_require_git: bool
    include_globs: tuple[str, ...]
    exclude_globs: tuple[str, ...]
    file_types: tuple[str, ...]
    recursive: bool
    max_depth: int | None
    max_file_size_bytes: int | None
    max_files: int | None
    deny_globs: tuple[str, ...]
    no_ignore_dot: bool
    no_ignore_vcs: bool
    no_ignore_exclude: bool
    no_ignore_global: bool
    no_ignore_parent: bool
    no_ignore_files: bool
    ignore_files: tuple[str, ...]
    ignore_case_insensitive: bool

    def __init__(self, hidden: bool = False, follow: bool = False, no_ignore: bool = False,
                 no_require_git: bool = False, include_globs: tuple[str, ...] = (), exclude_globs: tuple[str, ...] = (),
                 file_types: tuple[str, ...] = (), recursive: bool = True, max_depth: int | None = None,
                 max_file_size_bytes: int | None = None, max_files: int | None = None,
                 deny_globs: tuple[str, ...] = (), no_ignore_dot: bool = False, no_ignore_vcs: bool = False,
                 no_ignore_exclude: bool = False, no_ignore_global: bool = False, no_ignore_parent: bool = False,
                 no_ignore_files: bool = False, ignore_files: tuple[str, ...] = (),
                 ignore_case_insensitive: bool = False) -> None:
        fill(self, "hidden", hidden)
        fill(self, "follow", follow)
        fill(self, "no_ignore", no_ignore)
        fill(self, "no_require_git", no_require_git)
        fill(self, "include_globs", include_globs)
        fill(self, "exclude_globs", exclude_globs)
        fill(self, "file_types", file_types)
        fill(self, "recursive", recursive)
        fill(self, "max_depth", max_depth)
        fill(self, "max_file_size_bytes", max_file_size_bytes)
        fill(self, "max_files", max_files)
        fill(self, "deny_globs", deny_globs)
        fill(self, "no_ignore_dot", no_ignore_dot)
        fill(self, "no_ignore_vcs", no_ignore_vcs)
        fill(self, "no_ignore_exclude", no_ignore_exclude)
        fill(self, "no_ignore_global", no_ignore_global)
        fill(self, "no_ignore_parent", no_ignore_parent)
        fill(self, "no_ignore_files", no_ignore_files)
        fill(self, "ignore_files", ignore_files)
        fill(self, "ignore_case_insensitive", ignore_case_insensitive)

    @property
    def default_ignoring(self) -> bool:
        """No fine ignore switch is set: the index's file set (made with the defaults) covers the walk."""
        return not (self.no_ignore_dot or self.no_ignore_vcs or self.no_ignore_exclude or self.no_ignore_global
                    or self.no_ignore_parent or self.no_ignore_files or self.ignore_files
                    or self.ignore_case_insensitive)

    @property
    def filters_paths(self) -> bool:
        """Globs, types or a depth limit choose among the files the ignore rules let through: a listing
        of the index's catalogue must then ask each path (an ``IgnoreOracle``), where a walk prunes
        whole folders (``--max-depth 2`` over the Linux tree: 0.8 s through the catalogue, 0.05 s walked)."""
        return bool(self.include_globs or self.exclude_globs or self.file_types or self.depth_limit is not None)

    @property
    def depth_limit(self) -> int | None:
        """``max_depth`` with ``recursive=False`` folded in (at most 1): the depth every walker obeys."""
        if self.recursive:
            return self.max_depth
        return 1 if self.max_depth is None else min(self.max_depth, 1)


class MatchOptions(Value):
    """What a line must contain. ``patterns`` holds one or more patterns (rg's repeated ``-e``), ORed.
    ``engine`` pcre2: rg -P, PCRE syntax (see sleuth.engine.match.pcre); ``crlf``: rg --crlf, every
    pattern in CRLF mode ((?R): $ matches before \\r\\n, . never matches \\r)."""

    __slots__ = ("patterns", "fixed_strings", "word", "case", "fuzzy", "multiline", "engine", "crlf")
    patterns: tuple[str, ...]
    fixed_strings: bool
    word: bool
    case: CaseMode
    fuzzy: int | None
    multiline: bool
    engine: Literal["default", "pcre2"]
    crlf: bool

    def __init__(self, patterns: tuple[str, ...], fixed_strings: bool = False, word: bool = False,
                 case: CaseMode = "smart", fuzzy: int | None = None, multiline: bool = False,
                 engine: Literal["default", "pcre2"] = "default", crlf: bool = False) -> None:
        fill(self, "patterns", patterns)
        fill(self, "fixed_strings", fixed_strings)
        fill(self, "word", word)
        fill(self, "case", case)
        fill(self, "fuzzy", fuzzy)
        fill(self, "multiline", multiline)
        fill(self, "engine", engine)
        fill(self, "crlf", crlf)


class Replacement(Value):
    """rg's ``-r/--replace``: ``template`` with ``$1``, ``${name}``, ``$$``, expanded per match against the
    capture groups of ``match`` (the same patterns, compiled once more with their groups). Output only."""

    __slots__ = ("template", "match")
    template: str
    match: MatchOptions

    def __init__(self, template: str, match: MatchOptions) -> None:
        fill(self, "template", template)
        fill(self, "match", match)


EVERY_LINE = 1 << 62
"""The context of ``--passthru`` (``before``/``after``): it reaches every line of the file."""


class SearchOptions(Value):
    """How matches become events and where collection stops. ``only_matching``: one match event per
    match (rg ``-o``), its text the match; ``replace``: each match event carries ``replacement``
    (a field of that name: copies are made with :func:`sleuth.engine.values.replace`).
    ``search_zip``: rg -z, gzip, bzip2, xz and lzma files (by name) are searched decompressed;
    ``encoding``: rg -E, None sniffs a UTF-16 BOM (auto), "none" searches raw bytes, else a codec;
    ``byte_offsets``: rg --json's absolute_offset and bytes_searched (see
    sleuth.engine.search.add_byte_offsets); ``memory_map``: rg --mmap's binary detection (see
    sleuth.engine.search.search_data); ``stop_on_nonmatch``: rg --stop-on-nonmatch, a file's
    reading ends at the first line that does not match after one that did."""

    __slots__ = ("invert", "before", "after", "max_results", "max_matches_per_file", "max_columns", "output", "sort",
                 "only_matching", "replace", "binary", "search_zip", "encoding", "byte_offsets", "memory_map",
                 "stop_on_nonmatch", "spans_lines")
    invert: bool
    before: int
    after: int
    max_results: int
    max_matches_per_file: int | None
    max_columns: int | None
    output: OutputMode
    sort: SortMode
    only_matching: bool
    replace: Replacement | None  # type: ignore[assignment]  # (shadows Record.replace: see above)
    binary: BinaryMode
    search_zip: bool
    encoding: str | None
    byte_offsets: bool
    memory_map: bool
    stop_on_nonmatch: bool
    spans_lines: bool  # rg's multi-line search (multiline, and a pattern can match \n): see
    # sleuth.engine.match.line_ends

    def __init__(self, invert: bool = False, before: int = 0, after: int = 0, max_results: int = 200,
                 max_matches_per_file: int | None = None, max_columns: int | None = 500,
                 output: OutputMode = "content", sort: SortMode = "path", only_matching: bool = False,
                 replace: Replacement | None = None, binary: BinaryMode = "quit", search_zip: bool = False,
                 encoding: str | None = None, byte_offsets: bool = False, memory_map: bool = False,
                 stop_on_nonmatch: bool = False, spans_lines: bool = False) -> None:
        fill(self, "invert", invert)
        fill(self, "before", before)
        fill(self, "after", after)
        fill(self, "max_results", max_results)
        fill(self, "max_matches_per_file", max_matches_per_file)
        fill(self, "max_columns", max_columns)
        fill(self, "output", output)
        fill(self, "sort", sort)
        fill(self, "only_matching", only_matching)
        fill(self, "replace", replace)
        fill(self, "binary", binary)
        fill(self, "search_zip", search_zip)
        fill(self, "encoding", encoding)
        fill(self, "byte_offsets", byte_offsets)
        fill(self, "memory_map", memory_map)
        fill(self, "stop_on_nonmatch", stop_on_nonmatch)
        fill(self, "spans_lines", spans_lines)

    @property
    def passthru(self) -> bool:
        """rg ``--passthru``: every line of every file is shown (the others as context), a file
        without a match too: a search the index may not narrow."""
        return self.before == EVERY_LINE and self.output == "content"


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


class SkipCounts(Record):
    """What was passed over, so a caller can tell "no match" from "not searched"."""

    __slots__ = ("ignored", "hidden", "binary", "too_large")

    def __init__(self, ignored: int = 0, hidden: int = 0, binary: int = 0, too_large: int = 0) -> None:
        self.ignored = ignored
        self.hidden = hidden
        self.binary = binary
        self.too_large = too_large

    def to_dict(self) -> dict[str, int]:
        return {"ignored": self.ignored, "hidden": self.hidden, "binary": self.binary, "too_large": self.too_large}

    def add(self, other: "SkipCounts") -> None:
        self.ignored += other.ignored
        self.hidden += other.hidden
        self.binary += other.binary
        self.too_large += other.too_large


class FileError(Value):
    """A per-file problem: reported in ``errors``, never fatal."""

    __slots__ = ("path", "error")
    path: str
    error: str

    def __init__(self, path: str, error: str) -> None:
        fill(self, "path", path)
        fill(self, "error", error)

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "error": self.error}
