"""``sleuth grep PATTERN [PATH...]``: ripgrep's command line in (every flag is a row of
:mod:`sleuth.cli.grep_flags`; the words are read rg's way by :mod:`sleuth.cli.rg_argv`), ripgrep's
output out (:mod:`sleuth.cli.grep_run`, :mod:`sleuth.cli.grep_print`)."""

from __future__ import annotations

from types import SimpleNamespace

from sleuth.cli.grep_flags import ARGUMENT_DESTS, add_flags, option_table, read_flags, request_args
from sleuth.cli.grep_run import run_grep_cli
from sleuth.cli.rg_argv import SplitArgv, split_argv

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:  # argparse is imported only where it reads the command line (sleuth.cli.main's fallback)
    from typing import Any
    import argparse

__all__ = ["add_parser", "to_args", "read_argv", "read_namespace", "settle_mode", "ARGUMENT_DESTS"]


def read_argv(argv: list[str]) -> SplitArgv:
    """``sleuth grep``'s words read the way rg reads them (:func:`sleuth.cli.rg_argv.split_argv`)."""
    return split_argv(option_table(), argv)


def read_namespace(split: SplitArgv) -> SimpleNamespace | None:
    """The namespace ``sleuth grep``'s parser would make of ``split``, made without argparse
    (:func:`sleuth.cli.grep_flags.read_flags`), or None when argparse must read it (and speak)."""
    namespace = read_flags(split.options, split.positionals)
    if namespace is not None:
        namespace.command, namespace.func, namespace.regexp = "grep", _run, split.patterns
        settle_mode(namespace, split)
    return namespace


#: rg 15's search modes: one flag each, and the last one given wins (``-l -c`` counts, ``-c -l`` lists).
_MODES = {"-l": "files_with_matches", "--files-with-matches": "files_with_matches", "-c": "count", "--count": "count",
          "--count-matches": "count_matches", "--files-without-match": "files_without_match", "--json": "json"}


def settle_mode(ns: Any, split: SplitArgv) -> None:
    """Keeps only the last search-mode flag of the command line on, as rg 15 does (its modes replace each
    other; before, ``-l`` beat ``-c`` whatever their order, and ``-c --json`` printed empty JSON records)."""
    last = None
    for word in split.options:
        last = _MODES.get(word.partition("=")[0], last)
    if last is not None:
        for dest in set(_MODES.values()):
            setattr(ns, dest, dest == last)


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    from sleuth.cli.parsers import describe_negations

    p = sub.add_parser("grep", help="search file contents (ripgrep flags)", allow_abbrev=False,
                       description="Search for PATTERN in PATH (default: the current folder).")
    p.add_argument("pattern", nargs="?", metavar="PATTERN", help="regex (ripgrep syntax); omit when using -e")
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or folders inside the sandbox")
    add_flags(p)  # every flag: sleuth/cli/grep_flags.py
    describe_negations(p)
    p.set_defaults(func=_run)


def to_args(ns: argparse.Namespace, path: str | None) -> dict[str, Any]:
    """The ``sleuth.grep`` arguments a command line means: the flag table's (:func:`request_args`),
    and those made from several flags or from the namespace :mod:`sleuth.cli.grep_run` prepared."""
    patterns = list(ns.regexp)
    args: dict[str, Any] = {
        "pattern": patterns if len(patterns) > 1 else (patterns[0] if patterns else None), "path": path,
        "include_globs": [g for g in ns.glob if not g.startswith("!")],
        "exclude_globs": [g[1:] for g in ns.glob if g.startswith("!")] + list(ns.exclude_type_globs),
        "output": ns.output, "sort": ns.engine_sort, "max_columns": ns.engine_max_columns, "use_open_buffers": False,
        **request_args(ns),
    }
    return {k: v for k, v in args.items() if v is not None}


def _run(ns: argparse.Namespace) -> int:
    return run_grep_cli(ns, to_args)
