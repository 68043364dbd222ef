"""``sleuth grep``'s flags, each defined once (ripgrep's ``crates/core/flags/defs.rs``): its names (short
first), its ``--no-`` form, its help line, and the ``sleuth.grep`` argument it sets. argparse's parser
(:func:`add_flags`), the help text (argparse's, from the same rows; :func:`sleuth.cli.parsers.describe_negations`
words an undescribed ``--no-`` form), the request (:func:`request_args`), ``--files``' ``sleuth.files``
request (the rows marked ``files``), the names the CLI's messages give an argument
(:data:`ARGUMENT_DESTS`) and the lean reader of a command line (:func:`read_flags`) are all made from
:data:`FLAGS`.

The lean reader: a cold ``sleuth grep`` pays for everything it imports and builds, and argparse with
its ~140 actions (each made with its help formatter) was ~10% of a cold call in a small folder
(issue 30 item 1). :func:`read_flags` applies the rows to a command line the way argparse's actions
would, and gives up (None) wherever argparse has something to say: ``-h``, an unknown flag, a value
it refuses. argparse then reads the same words and says it; ``tests/cli/test_grep_flags.py`` checks
that both read every flag alike.

Adding a flag: one :class:`Flag` row here (with ``request=``), the argument in
:data:`sleuth.commands.grep.GREP_ARGS` and what the engine does with it. A flag that only changes
the printing has no ``request`` and is read by :mod:`sleuth.cli.grep_run` from the namespace.

Why one table: the flags lived in three modules, each with its own mapping function, and a flag's
name, help and meaning were three edits in two files (issue 32 item 2).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from types import SimpleNamespace

from sleuth.cli.common import NO_SERVER_HELP, parse_size
from sleuth.cli.rg_argv import Option

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import Any, TypeAlias
    import argparse

__all__ = ["Flag", "FLAGS", "add_flags", "request_args", "files_args", "ARGUMENT_DESTS", "option_table",
           "read_flags"]

SUPPRESS = "==SUPPRESS=="  # argparse.SUPPRESS (a hidden flag), spelled here: reading a command line imports no argparse

GENERAL = ""  # the parser's own group
OUTPUT = "ripgrep output and selection"
SEMANTICS = "search semantics (as rg 14.1)"
TUNING = "accepted for rg's command lines (they tune how rg runs; no effect here)"
SORTS = ("path", "modified", "accessed", "created", "none")

Convert: TypeAlias = "Callable[[Any, argparse.Namespace], Any]"


def _set_or_none(value: Any, ns: argparse.Namespace) -> Any:
    """A switch sent only when on (a running server of an older Sleuth still answers the rest)."""
    return value or None


class Flag:
    """One rg flag. ``names``: argparse's option strings (short first); ``no``: the ``--no-`` form(s),
    which set ``dest`` back (``store_false``, or ``no_const``); ``help``: the help line (None for an
    undescribed form, :data:`SUPPRESS` to hide); ``options``: argparse's other keywords
    (``metavar``, ``type``, ``choices``, ``const``, ``default``...); ``request``: the ``sleuth.grep``
    argument its ``dest`` sets (the first row of a dest says it), ``convert``: how (default: the
    value as parsed; None values are left out of the request); ``files``: ``--files`` passes it on to
    ``sleuth.files`` under the same name."""

    __slots__ = ("names", "help", "action", "dest", "no", "no_help", "no_const", "options", "request", "convert",
                 "files", "group")

    def __init__(self, names: tuple[str, ...], help: str | None = None, action: str = "store_true",  # noqa: A002
                 dest: str | None = None, no: tuple[str, ...] = (), no_help: str | None = None, no_const: Any = None,
                 options: Mapping[str, Any] | None = None, request: str | None = None, convert: Convert | None = None,
                 files: bool = False, group: str = GENERAL) -> None:
        self.names, self.help, self.action, self.dest = names, help, action, dest
        self.no, self.no_help, self.no_const = no, no_help, no_const
        self.options: Mapping[str, Any] = options if options is not None else {}
        self.request, self.convert, self.files, self.group = request, convert, files, group

    @property
    def key(self) -> str:
        """The namespace attribute (argparse's rule: the explicit dest, else the first long name)."""
        if self.dest is not None:
            return self.dest
        long = next((n for n in self.names if n.startswith("--")), self.names[0])
        return long.lstrip("-").replace("-", "_")


def _switch(names: tuple[str, ...], help: str | None, no: tuple[str, ...] = (), **kw: Any) -> Flag:
    return Flag(names, help, "store_true", no=no, **kw)


def _value(names: tuple[str, ...], help: str | None, **kw: Any) -> Flag:
    return Flag(names, help, "store", **kw)


_IGNORES = {"dot": ".ignore and .rgignore files", "vcs": ".gitignore files, .git/info/exclude and the global "
            "excludes", "exclude": ".git/info/exclude", "global": "the global git excludes file",
            "parent": "the ignore files of the folders above", "files": "--ignore-file files"}
_TUNING_SWITCHES = ("--line-buffered", "--no-line-buffered", "--block-buffered", "--no-block-buffered", "--no-config",
                    "--one-file-system", "--no-one-file-system", "--debug", "--trace", "--no-unicode", "--unicode",
                    "--no-ignore-messages", "--ignore-messages", "--no-pcre2-unicode", "--pcre2-unicode",
                    "--auto-hybrid-regex", "--no-auto-hybrid-regex")  # (the last four: rg's deprecated names)


def _memory_map(value: Any, ns: argparse.Namespace) -> bool | None:
    """Whether rg would search through memory maps: with ``--mmap``, and by default when at most ten
    paths are given and all are files (rg's choice; it changes which NUL bytes rg sees)."""
    if value is not None:
        return bool(value) or None
    paths = getattr(ns, "paths", None) or []
    return (0 < len(paths) <= 10 and all(p != "-" and os.path.isfile(p) for p in paths)) or None


# The rows, in the order of the help text (argparse lists a group's flags as they were added).
FLAGS: tuple[Flag, ...] = (
    Flag(("-e", "--regexp"), "a pattern (repeatable)", "append", options={"default": [], "metavar": "PATTERN"}),
    _switch(("-F", "--fixed-strings"), "treat the patterns as literal text, not regexes", ("--no-fixed-strings",),
            dest="fixed_strings", request="fixed_strings"),
    _switch(("-w", "--word-regexp"), "whole words only", request="word"),
    # rg: the last of -i/-s/-S wins
    Flag(("-i", "--ignore-case"), "search case-insensitively", "store_const", dest="case",
         options={"const": "insensitive"}, request="case", convert=lambda v, ns: v or "sensitive"),
    Flag(("-s", "--case-sensitive"), "search case-sensitively (the default)", "store_const", dest="case",
         options={"const": "sensitive"}),
    Flag(("-S", "--smart-case"), "case-insensitive unless a pattern has an uppercase letter", "store_const",
         dest="case", options={"const": "smart"}),
    _switch(("-v", "--invert-match"), "print the lines that do not match", ("--no-invert-match",),
            dest="invert_match", request="invert"),
    _switch(("-U", "--multiline"), "matches may span lines", ("--no-multiline",), dest="multiline",
            request="multiline"),
    _value(("--fuzzy",), "approximate matching with up to N edits (1-4)", options={"type": int, "metavar": "N"},
           request="fuzzy"),
    Flag(("-g", "--glob"), "include files matching GLOB; !GLOB excludes (repeatable)", "append",
         options={"default": [], "metavar": "GLOB"}),
    Flag(("-t", "--type"), "only files of TYPE", "append", options={"default": [], "metavar": "TYPE"},
         request="file_types", files=True),
    _value(("-C", "--context"), "show NUM lines before and after each match", options={"type": int, "metavar": "NUM"},
           request="context"),
    _value(("-A", "--after-context"), "show NUM lines after each match", options={"type": int, "metavar": "NUM"},
           request="after"),
    _value(("-B", "--before-context"), "show NUM lines before each match", options={"type": int, "metavar": "NUM"},
           request="before"),
    _value(("-m", "--max-count"), "at most NUM matching lines per file", options={"type": int, "metavar": "NUM"},
           request="max_matches_per_file"),
    _switch(("-l", "--files-with-matches"), "print only the paths of files with a match"),
    _switch(("-c", "--count"), "print the number of matching lines of each file"),
    _switch(("--hidden",), "search hidden files and folders", ("--no-hidden",), dest="hidden", request="hidden",
            files=True),
    _switch(("-L", "--follow"), "follow symbolic links inside the sandbox", ("--no-follow",), dest="follow",
            request="follow", files=True),
    _switch(("--no-ignore",), "do not respect .gitignore/.ignore", ("--ignore",), dest="no_ignore",
            request="no_ignore", files=True),
    _switch(("--no-require-git",), "respect .gitignore outside git repositories", ("--require-git",),
            dest="no_require_git", request="no_require_git", files=True),
    _value(("-d", "--max-depth", "--maxdepth"), "descend at most NUM folders below each path", dest="max_depth",
           options={"type": int, "metavar": "NUM"}, request="max_depth", files=True),
    _value(("--max-filesize",), "skip files larger than NUM bytes (suffix K, M or G)",
           options={"type": parse_size, "metavar": "NUM+SUFFIX?"}, request="max_file_size_bytes", files=True),
    _value(("-M", "--max-columns"), "omit lines longer than NUM bytes", options={"type": int, "metavar": "NUM"}),
    _value(("--sort",), "sort ascending: path, modified, accessed, created, none",
           options={"choices": SORTS, "default": None, "metavar": "SORTBY"}),
    Flag(("--sort-files",), "--sort path (rg's older name)", "store_const", dest="sort", options={"const": "path"}),
    _value(("--max-results",), "stop after N events (matches and context)", options={"type": int, "metavar": "N"},
           request="max_results"),
    _value(("--timeout-ms",), "return partial results after MS milliseconds", options={"type": int, "metavar": "MS"},
           request="timeout_ms"),
    _switch(("-n", "--line-number"), "print line numbers (the default on a terminal)", dest="line_number",
            options={"default": None}),
    Flag(("-N", "--no-line-number"), "do not print line numbers", "store_false", dest="line_number"),
    _switch(("--heading",), "print each file's path above its matches (the default on a terminal)", ("--no-heading",),
            no_help="print the path on each line instead", dest="heading", options={"default": None}),
    _value(("--color", "--colour"), "when to colour the output: never, auto, always, ansi",
           options={"choices": ("never", "auto", "always", "ansi"), "default": "auto", "metavar": "WHEN"}),
    _switch(("--json",), "rg's JSON Lines (begin, match, context, end, summary)"),
    _switch(("--result-json",), "print the sleuth.grep result object"),
    Flag(("--root",), "sandbox folder (repeatable; default: .)", "append", options={"metavar": "DIR"}),
    _switch(("--no-server",), NO_SERVER_HELP),
    # -- what a match is: one sleuth.grep argument each
    _switch(("-o", "--only-matching"), "print each match on its own line", request="only_matching",
            convert=_set_or_none, group=SEMANTICS),
    _value(("-r", "--replace"), "print each match replaced by TEXT ($1, ${name}, $$); nothing is written",
           options={"metavar": "TEXT"}, request="replace", group=SEMANTICS),
    Flag(("-a", "--text"), "search binary files as text", "store_const", dest="binary", options={"const": "text"},
         request="binary", group=SEMANTICS),
    Flag(("--binary",), "search binary files found in folders too (they print 'binary file matches')", "store_const",
         dest="binary", options={"const": "search"}, no=("--no-binary", "--no-text"),
         no_help="the default binary handling", no_const="auto", group=SEMANTICS),
    Flag(("-P", "--pcre2"), "PCRE syntax (atomic groups, possessive repetition, \\K, \\Q..\\E)", "store_const",
         dest="engine", options={"const": "pcre2"}, no=("--no-pcre2",), no_const="default", request="engine",
         group=SEMANTICS),
    _value(("--engine",), "regex engine; auto is the default (look-around and back-references already work)",
           dest="engine", options={"choices": ("default", "auto", "pcre2")}, group=SEMANTICS),
    _switch(("-z", "--search-zip"), "search gzip, bzip2, xz and lzma files decompressed", ("--no-search-zip",),
            dest="search_zip", options={"default": None}, request="search_zip", group=SEMANTICS),
    _switch(("--crlf",), "treat CRLF as a line end: $ matches before \\r\\n", ("--no-crlf",), dest="crlf",
            options={"default": None}, request="crlf", group=SEMANTICS),
    _value(("-E", "--encoding"), "auto (default), none, or a label such as utf-16le, latin1, shift_jis",
           options={"metavar": "ENCODING"}, request="encoding", group=SEMANTICS),
    Flag(("--no-encoding",), None, "store_const", dest="encoding", options={"const": "auto"}, group=SEMANTICS),
    _switch(("--stop-on-nonmatch",), "stop reading a file at a non-matching line after a match (for sorted files)",
            dest="stop_on_nonmatch", options={"default": None}, request="stop_on_nonmatch", group=SEMANTICS),
    Flag(("--mmap",), "binary files as rg's memory maps find them: past 64 KiB a NUL counts on a printed line only",
         "store_const", dest="mmap", options={"const": True, "default": None}, no=("--no-mmap",),
         no_help="binary files as rg finds them reading blocks (a NUL anywhere counts)", no_const=False,
         request="memory_map", convert=_memory_map, group=SEMANTICS),
    # -- the rest of rg's command line: output and selection
    _switch(("--files",), "print the files that would be searched, not matches", group=OUTPUT),
    _switch(("-q", "--quiet"), "print nothing; exit 0 on the first match", group=OUTPUT),
    Flag(("-f", "--file"), "patterns from a file, one a line (- for stdin)", "append",
         options={"default": [], "metavar": "PATTERNFILE"}, group=OUTPUT),
    _switch(("-x", "--line-regexp"), "the whole line must match", group=OUTPUT),
    Flag(("-I", "--no-filename"), "never print paths", "store_false", dest="with_filename", options={"default": None},
         group=OUTPUT),
    _switch(("-H", "--with-filename"), "print the path with each line (the default for folders)",
            dest="with_filename", group=OUTPUT),
    _switch(("--column",), "print columns (implies -n)", ("--no-column",), dest="column", options={"default": None},
            group=OUTPUT),
    _switch(("--vimgrep",), "path:line:column:text, one line per match", group=OUTPUT),
    _switch(("--trim",), "strip leading whitespace", ("--no-trim",), dest="trim", options={"default": False},
            group=OUTPUT),
    _switch(("-p", "--pretty"), "--color always --heading --line-number", group=OUTPUT),
    _switch(("-0", "--null"), "a NUL byte after each path", group=OUTPUT),
    _switch(("-b", "--byte-offset"), "print each line's byte offset in its file (with -o, each match's)",
            ("--no-byte-offset",), no_help="no byte offsets (the default)", dest="byte_offset",
            options={"default": False}, request="byte_offsets",
            convert=lambda v, ns: ns.json or ns.stats or ns.crlf or bool(ns.max_columns) or v or None,  # --json's, --stats'
            group=OUTPUT),  # counts; --crlf, -M: a last line's missing terminator (Match.unterminated)
    _switch(("--stats",), "print search statistics at the end", group=OUTPUT),
    _switch(("--max-columns-preview",), "with -M, print the start of a long line instead of omitting it",
            ("--no-max-columns-preview",), dest="max_columns_preview", options={"default": False}, group=OUTPUT),
    _value(("--context-separator",), "the line between context blocks (default --)",
           options={"metavar": "SEP", "default": "--"}, group=OUTPUT),
    Flag(("--no-context-separator",), "no line between context blocks", "store_const", dest="context_separator",
         options={"const": None}, group=OUTPUT),
    _value(("--field-match-separator",), "separator of a match line's path, number and text (default :)",
           options={"metavar": "SEP", "default": ":"}, group=OUTPUT),
    _value(("--field-context-separator",), "separator of a context line's path, number and text (default -)",
           options={"metavar": "SEP", "default": "-"}, group=OUTPUT),
    _switch(("--files-without-match",), "print the files with no match", group=OUTPUT),
    _switch(("--passthru", "--passthrough"), "print every line of a matching file", dest="passthru",
            options={"default": False}, request="passthru", convert=_set_or_none, group=OUTPUT),
    _switch(("--count-matches",), "count matches, not matching lines", group=OUTPUT),
    _switch(("--include-zero",), "with -c, also print files with no match", ("--no-include-zero",),
            dest="include_zero", options={"default": False}, group=OUTPUT),
    Flag(("--colors",), "e.g. match:fg:blue", "append", options={"default": [], "metavar": "SPEC"}, group=OUTPUT),
    _value(("--path-separator",), "separator of printed paths (default /)", options={"metavar": "SEP"}, group=OUTPUT),
    _switch(("--no-messages",), "do not report errors on stderr", group=OUTPUT),
    Flag(("-u", "--unrestricted"), "-u: --no-ignore; -uu: also --hidden; -uuu: also binary files", "count",
         options={"default": 0}, group=OUTPUT),
    *(row for switch, what in _IGNORES.items() for row in (
        _switch((f"--no-ignore-{switch}",), f"do not respect {what}", dest=f"no_ignore_{switch}",
                options={"default": False}, request=f"no_ignore_{switch}", convert=_set_or_none, files=True,
                group=OUTPUT),
        Flag((f"--ignore-{switch}",), SUPPRESS, "store_false", dest=f"no_ignore_{switch}", group=OUTPUT))),
    Flag(("--ignore-file",), "extra gitignore-format rules (inside the sandbox)", "append",
         options={"default": [], "metavar": "PATH"}, request="ignore_files", convert=lambda v, ns: list(v) or None,
         files=True, group=OUTPUT),
    _switch(("--ignore-file-case-insensitive",), "read the ignore files' globs case-insensitively",
            ("--no-ignore-file-case-insensitive",), no_help="read the ignore files' globs case-sensitively (the default)",
            dest="ignore_file_case_insensitive", options={"default": False}, request="ignore_case_insensitive",
            convert=_set_or_none, files=True, group=OUTPUT),
    Flag(("-T", "--type-not"), "skip files of TYPE", "append", options={"default": [], "metavar": "TYPE"},
         group=OUTPUT),
    Flag(("--type-add",), "define a file type (NAME:GLOB, or NAME:include:TYPE,...)", "append",
         options={"default": [], "metavar": "NAME:GLOB"}, group=OUTPUT),
    Flag(("--type-clear",), "forget a file type's globs", "append", options={"default": [], "metavar": "NAME"},
         group=OUTPUT),
    _switch(("--type-list",), "list the file types and their globs", group=OUTPUT),
    _value(("--pre",), "search what COMMAND FILE prints instead of FILE (a program you name here: never read from "
           "settings or a server's callers)", no=("--no-pre",), no_help="no preprocessor (the default)",
           options={"metavar": "COMMAND", "default": None}, group=OUTPUT),
    Flag(("--pre-glob",), "only files matching GLOB go through --pre", "append",
         options={"default": [], "metavar": "GLOB"}, group=OUTPUT),
    _switch(("--multiline-dotall",), "with -U, '.' matches line ends too", ("--no-multiline-dotall",),
            dest="multiline_dotall", options={"default": False}, group=OUTPUT),
    Flag(("--iglob",), "-g, case-insensitively", "append", options={"default": [], "metavar": "GLOB"}, group=OUTPUT),
    _switch(("--glob-case-insensitive",), "match every -g glob case-insensitively", ("--no-glob-case-insensitive",),
            dest="glob_case_insensitive", options={"default": False}, group=OUTPUT),
    _value(("--sortr",), "sort descending: path, modified, accessed, created, none",
           options={"choices": SORTS, "metavar": "SORTBY"}, group=OUTPUT),
    # -- accepted for rg's command lines; they tune how rg runs, not what it finds
    *(_switch((flag,), "no effect" if flag.startswith("--no-") else "no effect (rg's tuning)",
              dest="_ignored_" + flag.strip("-").replace("-", "_"), group=TUNING) for flag in _TUNING_SWITCHES),
    *(_value(("-j", flag) if flag == "--threads" else (flag,), "no effect (rg's tuning)",
             dest="_ignored_" + flag.strip("-").replace("-", "_"), options={"metavar": "NUM"}, group=TUNING)
      for flag in ("--threads", "--dfa-size-limit", "--regex-size-limit")),
    Flag(("-X", "--index"), "no effect: Sleuth always uses its index when one is warm (rg's coming --index)", "count",
         dest="_ignored_index", options={"default": 0}, group=TUNING),
    _value(("--hyperlink-format",), "checked as rg checks it (an alias such as vscode, or a {path} format); no links "
           "printed yet", dest="hyperlink_format", options={"metavar": "FORMAT", "default": None}, group=TUNING),
)


def add_flags(parser: argparse.ArgumentParser) -> None:
    """Every row of :data:`FLAGS` on ``parser``, each group in its own help section."""
    groups: dict[str, Any] = {GENERAL: parser}
    for flag in FLAGS:
        group = groups.get(flag.group)
        if group is None:
            group = groups[flag.group] = parser.add_argument_group(flag.group)
        keywords = dict(flag.options)
        if flag.dest is not None:
            keywords["dest"] = flag.dest
        group.add_argument(*flag.names, action=flag.action, help=flag.help, **keywords)
        if flag.no:
            undo: dict[str, Any] = {"action": "store_false"} if flag.action == "store_true" else {
                "action": "store_const", "const": flag.no_const}
            group.add_argument(*flag.no, dest=flag.key, help=flag.no_help, **undo)


def request_args(ns: argparse.Namespace, *, files: bool = False) -> dict[str, Any]:
    """The ``sleuth.grep`` arguments the flags of ``ns`` mean (with ``files``: the ``sleuth.files``
    arguments of the rows marked so), None values left out."""
    args: dict[str, Any] = {}
    for flag in FLAGS:  # (130 rows: a few microseconds a call)
        if flag.request is None or (files and not flag.files):
            continue
        value = getattr(ns, flag.key)
        if flag.convert is not None:
            value = flag.convert(value, ns)
        if value is not None:
            args[flag.request] = value
    return args


def files_args(ns: argparse.Namespace) -> dict[str, Any]:
    """The ``sleuth.files`` arguments of the rows marked ``files`` (``--files``: grep's own selection)."""
    return request_args(ns, files=True)


# The sleuth.grep arguments a flag of another dest fills (the others share the flag's dest name): the
# CLI's messages name the flag through this table (sleuth.cli.terminal). Besides the rows', the
# arguments made from several flags (:func:`sleuth.cli.grep.to_args`).
ARGUMENT_DESTS: dict[str, str] = {
    **{flag.request: flag.key for flag in FLAGS if flag.request is not None and flag.request != flag.key},
    "include_globs": "glob", "exclude_globs": "glob", "path": "paths",
}


class _Action(Option):
    """One option string as argparse's action for it would apply it (``help``: only argparse can)."""

    __slots__ = ("action", "const", "type", "choices")

    def __init__(self, dest: str, action: str, long: str | None, const: Any = None, type: Any = None,  # noqa: A002
                 choices: Any = None) -> None:
        super().__init__(dest, action in ("store", "append"), long)
        self.action, self.const, self.type, self.choices = action, const, type, choices


_TABLE: dict[str, _Action] = {}
_DEFAULTS: dict[str, Any] = {}


def option_table() -> dict[str, _Action]:
    """Every option string of ``sleuth grep`` (``-h`` and ``--help`` too), made from the rows once."""
    if not _TABLE:
        _TABLE.update({"-h": _Action("help", "help", "--help"), "--help": _Action("help", "help", "--help")})
        for flag in FLAGS:
            long = next((n for n in flag.names if n.startswith("--")), None)
            action = _Action(flag.key, flag.action, long, flag.options.get("const"), flag.options.get("type"),
                             flag.options.get("choices"))
            _TABLE.update(dict.fromkeys(flag.names, action))
            _DEFAULTS.setdefault(flag.key, flag.options.get(
                "default", {"store_true": False, "store_false": True}.get(flag.action)))
            if flag.no:
                undo = _Action(flag.key, "store_false" if flag.action == "store_true" else "store_const", flag.no[0],
                               flag.no_const)
                _TABLE.update(dict.fromkeys(flag.no, undo))
    return _TABLE


def read_flags(options: list[str], positionals: list[str]) -> SimpleNamespace | None:
    """The namespace argparse makes of ``sleuth grep``'s words once :func:`~sleuth.cli.rg_argv.split_argv`
    split them (``pattern``, ``paths`` and every row's dest; not the ``-e`` patterns), or None when
    argparse must read them: ``-h``, an unknown flag, a value missing or refused (its message is the
    one to print), a ``--`` among the positionals (argparse drops one)."""
    table = option_table()
    if "--" in positionals:
        return None
    values = {dest: list(value) if isinstance(value, list) else value for dest, value in _DEFAULTS.items()}
    i = 0
    while i < len(options):
        word = options[i]
        i += 1
        name, eq, value = word.partition("=") if word.startswith("--") else (word, "", "")
        action = table.get(name)
        if action is None or action.action == "help":
            return None
        if action.takes_value and not eq:  # a short-only flag: its value is the next entry
            if action.long is not None or i >= len(options):
                return None  # the value is missing: argparse's message
            value, eq = options[i], "="
            i += 1
        if action.takes_value != bool(eq):
            return None  # a value given to a switch: argparse's message
        if action.takes_value:
            try:
                value = action.type(value) if action.type is not None else value
            except (TypeError, ValueError):
                return None
            if action.choices is not None and value not in action.choices:
                return None
        kind = action.action
        if kind == "store_true" or kind == "store_false":
            values[action.dest] = kind == "store_true"
        elif kind == "store_const":
            values[action.dest] = action.const
        elif kind == "count":
            values[action.dest] = (values[action.dest] or 0) + 1
        elif kind == "append":
            values[action.dest] = [*(values[action.dest] or ()), value]
        else:
            values[action.dest] = value
    return SimpleNamespace(pattern=positionals[0] if positionals else None, paths=positionals[1:], **values)
