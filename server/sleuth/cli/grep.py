"""``sleuth grep PATTERN [PATH...]``: ripgrep's command line in (the original flags here, the rest in
:mod:`sleuth.cli.rg_flags`), ripgrep's output out (:mod:`sleuth.cli.grep_run`, :mod:`sleuth.cli.grep_print`)."""

from __future__ import annotations

import argparse
from typing import Any

from sleuth.cli.common import add_server_flag, parse_size
from sleuth.cli.grep_run import run_grep_cli
from sleuth.cli.grep_semantics import add_semantic_flags, semantic_args
from sleuth.cli.rg_flags import SplitArgv, add_rg_flags, rg_ignore_args, split_argv
from sleuth.cli.terminal import describe_negations

__all__ = ["add_parser", "to_args", "read_argv", "ARGUMENT_DESTS"]

# The sleuth.grep arguments that :func:`to_args` fills from a flag of another dest (the others share
# the flag's dest name): the CLI's messages name the flag through this table (sleuth.cli.terminal).
ARGUMENT_DESTS: dict[str, str] = {
    "word": "word_regexp", "invert": "invert_match", "include_globs": "glob", "exclude_globs": "glob",
    "file_types": "type", "before": "before_context", "after": "after_context", "max_matches_per_file": "max_count",
    "max_file_size_bytes": "max_filesize", "ignore_files": "ignore_file", "path": "paths",
}

_PARSER: argparse.ArgumentParser | None = None


def read_argv(argv: list[str]) -> SplitArgv:
    """``sleuth grep``'s words read the way rg reads them (:func:`sleuth.cli.rg_flags.split_argv`)."""
    assert _PARSER is not None, "add_parser first"
    return split_argv(_PARSER, argv)


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("grep", help="search file contents (ripgrep flags)", allow_abbrev=False,
                       description="Search for PATTERN in PATH (default: the current folder).")
    p.add_argument("pattern", nargs="?", metavar="PATTERN", help="regex (ripgrep syntax); omit when using -e")
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or folders inside the sandbox")
    p.add_argument("-e", "--regexp", action="append", default=[], metavar="PATTERN", help="a pattern (repeatable)")
    p.add_argument("-F", "--fixed-strings", dest="fixed_strings", action="store_true",
                   help="treat the patterns as literal text, not regexes")
    p.add_argument("--no-fixed-strings", dest="fixed_strings", action="store_false")
    p.add_argument("-w", "--word-regexp", action="store_true", help="whole words only")
    # rg: the last of -i/-s/-S wins
    p.add_argument("-i", "--ignore-case", dest="case", action="store_const", const="insensitive",
                   help="search case-insensitively")
    p.add_argument("-s", "--case-sensitive", dest="case", action="store_const", const="sensitive",
                   help="search case-sensitively (the default)")
    p.add_argument("-S", "--smart-case", dest="case", action="store_const", const="smart",
                   help="case-insensitive unless a pattern has an uppercase letter")
    p.add_argument("-v", "--invert-match", dest="invert_match", action="store_true",
                   help="print the lines that do not match")
    p.add_argument("--no-invert-match", dest="invert_match", action="store_false")
    p.add_argument("-U", "--multiline", dest="multiline", action="store_true", help="matches may span lines")
    p.add_argument("--no-multiline", dest="multiline", action="store_false")
    p.add_argument("--fuzzy", type=int, metavar="N", help="approximate matching with up to N edits (1-4)")
    p.add_argument("-g", "--glob", action="append", default=[], metavar="GLOB",
                   help="include files matching GLOB; !GLOB excludes (repeatable)")
    p.add_argument("-t", "--type", action="append", default=[], metavar="TYPE", help="only files of TYPE")
    p.add_argument("-C", "--context", type=int, metavar="NUM",
                   help="show NUM lines before and after each match")
    p.add_argument("-A", "--after-context", type=int, metavar="NUM", help="show NUM lines after each match")
    p.add_argument("-B", "--before-context", type=int, metavar="NUM",
                   help="show NUM lines before each match")
    p.add_argument("-m", "--max-count", type=int, metavar="NUM", help="at most NUM matching lines per file")
    p.add_argument("-l", "--files-with-matches", action="store_true",
                   help="print only the paths of files with a match")
    p.add_argument("-c", "--count", action="store_true",
                   help="print the number of matching lines of each file")
    p.add_argument("--hidden", dest="hidden", action="store_true", help="search hidden files and folders")
    p.add_argument("--no-hidden", dest="hidden", action="store_false")
    p.add_argument("-L", "--follow", dest="follow", action="store_true",
                   help="follow symbolic links inside the sandbox")
    p.add_argument("--no-follow", dest="follow", action="store_false")
    p.add_argument("--no-ignore", dest="no_ignore", action="store_true", help="do not respect .gitignore/.ignore")
    p.add_argument("--ignore", dest="no_ignore", action="store_false")
    p.add_argument("--no-require-git", dest="no_require_git", action="store_true",
                   help="respect .gitignore outside git repositories")
    p.add_argument("--require-git", dest="no_require_git", action="store_false")
    p.add_argument("-d", "--max-depth", "--maxdepth", dest="max_depth", type=int, metavar="NUM",
                   help="descend at most NUM folders below each path")
    p.add_argument("--max-filesize", type=parse_size, metavar="NUM+SUFFIX?",
                   help="skip files larger than NUM bytes (suffix K, M or G)")
    p.add_argument("-M", "--max-columns", type=int, metavar="NUM", help="omit lines longer than NUM bytes")
    p.add_argument("--sort", choices=("path", "modified", "accessed", "created", "none"), default=None,
                   metavar="SORTBY", help="sort ascending: path, modified, accessed, created, none")
    p.add_argument("--sort-files", dest="sort", action="store_const", const="path",
                   help="--sort path (rg's older name)")
    p.add_argument("--max-results", type=int, metavar="N", help="stop after N events (matches and context)")
    p.add_argument("--timeout-ms", type=int, metavar="MS", help="return partial results after MS milliseconds")
    p.add_argument("-n", "--line-number", dest="line_number", action="store_true", default=None,
                   help="print line numbers (the default on a terminal)")
    p.add_argument("-N", "--no-line-number", dest="line_number", action="store_false",
                   help="do not print line numbers")
    p.add_argument("--heading", dest="heading", action="store_true", default=None,
                   help="print each file's path above its matches (the default on a terminal)")
    p.add_argument("--no-heading", dest="heading", action="store_false",
                   help="print the path on each line instead")
    p.add_argument("--color", "--colour", choices=("never", "auto", "always", "ansi"), default="auto",
                   metavar="WHEN", help="when to colour the output: never, auto, always, ansi")
    p.add_argument("--json", action="store_true", help="rg's JSON Lines (begin, match, context, end, summary)")
    p.add_argument("--result-json", action="store_true", help="print the sleuth.grep result object")
    p.add_argument("--root", action="append", metavar="DIR", help="sandbox folder (repeatable; default: .)")
    add_server_flag(p)
    # -- rg 14.1's search semantics, one sleuth.grep argument each: sleuth/cli/grep_semantics.py
    add_semantic_flags(p)
    # -- the rest of rg 14.1's command line (issue 19): sleuth/cli/rg_flags.py
    add_rg_flags(p)
    describe_negations(p)
    p.set_defaults(func=_run)
    global _PARSER
    _PARSER = p


def to_args(ns: argparse.Namespace, path: str | None) -> dict[str, Any]:
    """The ``sleuth.grep`` arguments a command line means."""
    patterns = list(ns.regexp)
    args: dict[str, Any] = {
        "pattern": patterns if len(patterns) > 1 else (patterns[0] if patterns else None),
        "path": path, "fixed_strings": ns.fixed_strings, "word": ns.word_regexp, "case": ns.case or "sensitive",
        "fuzzy": ns.fuzzy, "invert": ns.invert_match, "multiline": ns.multiline,
        "include_globs": [g for g in ns.glob if not g.startswith("!")],
        "exclude_globs": [g[1:] for g in ns.glob if g.startswith("!")] + list(ns.exclude_type_globs),
        "file_types": ns.type, "hidden": ns.hidden, "follow": ns.follow, "no_ignore": ns.no_ignore,
        "no_require_git": ns.no_require_git, "max_depth": ns.max_depth, "context": ns.context,
        "before": ns.before_context, "after": ns.after_context, "max_matches_per_file": ns.max_count,
        "max_file_size_bytes": ns.max_filesize, "max_results": ns.max_results, "timeout_ms": ns.timeout_ms,
        "output": ns.output, "sort": ns.engine_sort, "max_columns": ns.engine_max_columns, "use_open_buffers": False,
        "passthru": ns.passthru or None, "byte_offsets": ns.json or ns.byte_offset or None,  # (None: an older server still answers)
        **rg_ignore_args(ns),
    }
    args.update(semantic_args(ns))
    return {k: v for k, v in args.items() if v is not None}


def _run(ns: argparse.Namespace) -> int:
    return run_grep_cli(ns, to_args)
