"""``sleuth symbols QUERY [--kind KIND]``: where a symbol is defined, by name, over the persistent index."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from sleuth.cli.common import add_server_flag
from sleuth.cli.index import run_on_index

__all__ = ["add_parser", "ARGUMENT_DESTS"]

ARGUMENT_DESTS: dict[str, str] = {"file_types": "type"}  # (see sleuth.cli.terminal)


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("symbols", help="find symbol definitions by name",
                       description="Definitions by name, ranked as Ctrl+T: exact, same name ignoring case and _, "
                                   "prefix, word starts (gubi -> getUserById), in order.")
    p.add_argument("query", metavar="QUERY", help="a name or its abbreviation (gubi: getUserById)")
    p.add_argument("--kind", action="append", metavar="KIND",
                   help="only this kind (function, method, class, struct, enum, enummember, field, variable, "
                        "constant, ...); repeatable")
    p.add_argument("-t", "--type", action="append", default=[], metavar="TYPE", help="only files of TYPE")
    p.add_argument("--include-path", action="append", metavar="PATH_OR_GLOB", help="only under these paths")
    p.add_argument("--exclude-path", action="append", metavar="PATH_OR_GLOB", help="not under these paths")
    p.add_argument("--max-results", type=int, metavar="N", help="at most N results")
    p.add_argument("--json", action="store_true", help="print the sleuth.symbols result object")
    p.add_argument("--root", action="append", metavar="DIR", help="sandbox folder (repeatable; default: .)")
    add_server_flag(p)
    p.set_defaults(func=_run)


def _render(result: dict[str, Any]) -> None:
    for item in result["results"]:
        container = f" ({item['container']})" if item["container"] else ""
        sys.stdout.write(f"{item['path']}:{item['line']}: {item['kind']} {item['name']}{container}\n")


def _run(ns: argparse.Namespace) -> int:
    args = {"query": ns.query, "kind": ns.kind, "file_types": ns.type, "include_path": ns.include_path,
            "exclude_path": ns.exclude_path, "max_results": ns.max_results}
    args = {k: v for k, v in args.items() if v is not None}

    return run_on_index("sleuth.symbols", args, ns, _render)
