"""The ``sleuth grep`` flags that change what is matched and shown (rg 14.1's search semantics) and
standard input (how their events print: :class:`sleuth.cli.grep_sinks.Standard`).

Kept apart from :mod:`sleuth.cli.grep` (the command and its output-only flags): each flag here maps
to one ``sleuth.grep`` argument, so the CLI, the language server, MCP and the tool profiles mean the
same thing by it.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from typing import TYPE_CHECKING, Any, Callable

from sleuth.cli.common import report_error

if TYPE_CHECKING:
    from sleuth.commands.context import CommandContext

__all__ = ["add_semantic_flags", "semantic_args", "stdin_is_readable", "search_stdin", "STDIN_PATH"]


def add_semantic_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("search semantics (as rg 14.1)")
    g.add_argument("-o", "--only-matching", action="store_true", help="print each match on its own line")
    g.add_argument("-r", "--replace", metavar="TEXT",
                   help="print each match replaced by TEXT ($1, ${name}, $$); nothing is written")
    g.add_argument("-a", "--text", dest="binary", action="store_const", const="text",
                   help="search binary files as text")
    g.add_argument("--binary", dest="binary", action="store_const", const="search",
                   help="search binary files found in folders too (they print 'binary file matches')")
    g.add_argument("--no-binary", "--no-text", dest="binary", action="store_const", const="auto",
                   help="the default binary handling")
    g.add_argument("-P", "--pcre2", dest="engine", action="store_const", const="pcre2",
                   help="PCRE syntax (atomic groups, possessive repetition, \\K, \\Q..\\E)")
    g.add_argument("--no-pcre2", dest="engine", action="store_const", const="default")
    g.add_argument("--engine", dest="engine", choices=("default", "auto", "pcre2"),
                   help="regex engine; auto is the default (look-around and back-references already work)")
    g.add_argument("-z", "--search-zip", dest="search_zip", action="store_true", default=None,
                   help="search gzip, bzip2, xz and lzma files decompressed")
    g.add_argument("--no-search-zip", dest="search_zip", action="store_false")
    g.add_argument("--crlf", dest="crlf", action="store_true", default=None,
                   help="treat CRLF as a line end: $ matches before \\r\\n")
    g.add_argument("--no-crlf", dest="crlf", action="store_false")
    g.add_argument("-E", "--encoding", metavar="ENCODING",
                   help="auto (default), none, or a label such as utf-16le, latin1, shift_jis")
    g.add_argument("--no-encoding", dest="encoding", action="store_const", const="auto")
    g.add_argument("--stop-on-nonmatch", dest="stop_on_nonmatch", action="store_true", default=None,
                   help="stop reading a file at a non-matching line after a match (for sorted files)")
    g.add_argument("--mmap", dest="mmap", action="store_const", const=True, default=None,
                   help="binary files as rg's memory maps find them: past 64 KiB a NUL counts on a printed line only")
    g.add_argument("--no-mmap", dest="mmap", action="store_const", const=False,
                   help="binary files as rg finds them reading blocks (a NUL anywhere counts)")


def semantic_args(ns: argparse.Namespace) -> dict[str, Any]:
    """The ``sleuth.grep`` arguments these flags mean (only those given)."""
    args: dict[str, Any] = {"only_matching": ns.only_matching or None, "replace": ns.replace,
                            "binary": ns.binary, "crlf": ns.crlf, "encoding": ns.encoding, "engine": ns.engine,
                            "search_zip": ns.search_zip, "memory_map": _memory_map(ns) or None,
                            "stop_on_nonmatch": ns.stop_on_nonmatch}
    return {k: v for k, v in args.items() if v is not None}


def _memory_map(ns: argparse.Namespace) -> bool:
    """Whether rg would search through memory maps: with ``--mmap``, and by default when at most ten
    paths are given and all are files (rg's choice; it changes which NUL bytes rg sees)."""
    if ns.mmap is not None:
        return bool(ns.mmap)
    paths = getattr(ns, "paths", None) or []
    return 0 < len(paths) <= 10 and all(p != "-" and os.path.isfile(p) for p in paths)


STDIN_PATH = "-"


def stdin_is_readable() -> bool:
    """rg's rule for searching standard input when no path is given: it is a file, a pipe or a socket
    (not a terminal, not ``/dev/null`` or another device, not closed)."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return False
    return stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def search_stdin(args: dict[str, Any], cold: Callable[[], "CommandContext"], as_json: bool,
                 keep: Callable[[dict[str, Any]], int]) -> int:
    """``sleuth.grep``'s arguments over standard input, always here (a server cannot read our input)."""
    from sleuth.commands.grep import run_buffer
    from sleuth.engine.errors import SleuthError

    data = sys.stdin.buffer.read()
    try:
        result = run_buffer({k: v for k, v in args.items() if k != "path"}, data, cold())
    except SleuthError as error:
        return report_error(error, as_json)
    return keep(result)
