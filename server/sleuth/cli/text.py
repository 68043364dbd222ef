"""``sleuth text QUERY``: ranked search (definitions first) over the persistent index."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from sleuth.cli.common import add_server_flag
from sleuth.cli.index import run_on_index

__all__ = ["add_parser", "ARGUMENT_DESTS"]

ARGUMENT_DESTS: dict[str, str] = {"file_types": "type"}  # (see sleuth.cli.terminal)


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("text", help="ranked text search over the index",
                       description='Ranked search: words ANDed, "phrase", a OR b, -exclude, prefix*.')
    p.add_argument("query", metavar="QUERY", help='words (ANDed), "phrase", a OR b, -word, prefix*')
    p.add_argument("-t", "--type", action="append", default=[], metavar="TYPE", help="only files of TYPE")
    p.add_argument("--include-path", action="append", metavar="PATH_OR_GLOB", help="only under these paths")
    p.add_argument("--exclude-path", action="append", metavar="PATH_OR_GLOB", help="not under these paths")
    p.add_argument("--max-results", type=int, metavar="N", help="at most N results")
    p.add_argument("-C", "--context", type=int, metavar="NUM", dest="context_lines",
                   help="NUM lines of context around each result")
    p.add_argument("--json", action="store_true", help="print the sleuth.text result object")
    p.add_argument("--root", action="append", metavar="DIR", help="sandbox folder (repeatable; default: .)")
    add_server_flag(p)
    p.set_defaults(func=_run)


def _render(result: dict[str, Any]) -> None:
    tty = sys.stdout.isatty()
    for item in result["results"]:
        score = f"{item['score']:.3f} " if tty else ""
        sys.stdout.write(f"{score}{item['path']}:{item['line']}: {item['snippet']}\n")


def _run(ns: argparse.Namespace) -> int:
    args = {"query": ns.query, "file_types": ns.type, "include_path": ns.include_path,
            "exclude_path": ns.exclude_path, "max_results": ns.max_results, "context_lines": ns.context_lines}
    args = {k: v for k, v in args.items() if v is not None}

    return run_on_index("sleuth.text", args, ns, _render)
