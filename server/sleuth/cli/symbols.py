"""``sleuth symbols QUERY [--kind KIND]``: where a symbol is defined, by name, over the persistent index."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from sleuth.cli.common import (EXIT_ERROR, EXIT_FOUND, EXIT_NONE, ProgressBar, add_server_flag, ask_server,
                               cli_workspace, print_json, report_remote_error, run_command)
from sleuth.cli.index import index_context

__all__ = ["add_parser"]


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("symbols", help="find symbol definitions by name",
                       description="Definitions by name, ranked as Ctrl+T: exact, same name ignoring case and _, "
                                   "prefix, word starts (gubi -> getUserById), in order.")
    p.add_argument("query")
    p.add_argument("--kind", action="append", metavar="KIND",
                   help="only this kind (function, method, class, struct, enum, enummember, field, variable, "
                        "constant, ...); repeatable")
    p.add_argument("-t", "--type", action="append", default=[], metavar="TYPE")
    p.add_argument("--include-path", action="append", metavar="PATH_OR_GLOB")
    p.add_argument("--exclude-path", action="append", metavar="PATH_OR_GLOB")
    p.add_argument("--max-results", type=int, metavar="N")
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

    def render(result: dict[str, Any]) -> int:
        if ns.json:
            print_json(result)
        else:
            _render(result)
        return EXIT_FOUND if result["results"] else EXIT_NONE

    if not ns.no_server:  # a running server's ready index: no store to open here
        roots = [r.path for r in cli_workspace(ns.root).roots]
        answer = ask_server("sleuth.symbols", args, roots)
        if answer is not None:
            return report_remote_error(answer.error, ns.json) if answer.error is not None else render(answer.result)
    ctx = index_context(ns.root, ProgressBar(delay=0.2))
    index = ctx.services.index
    try:
        index.start(ctx.progress)  # opens the store, or builds it the first time (progress bar on a terminal)
        if not index.wait_ready():
            sys.stderr.write("sleuth: the index could not be built; see `sleuth index status`\n")
            return EXIT_ERROR
        return run_command("sleuth.symbols", args, ctx, ns.json, render)
    finally:
        index.stop()
