"""``sleuth files GLOB...`` (or ``--query ABBREV``): paths by glob or ranked Quick-Open style."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from sleuth.cli.common import (EXIT_ERROR, EXIT_FOUND, EXIT_NONE, add_server_flag, cli_path, cli_settings,
                               cli_workspace, make_context, print_json, run_search, workspace_settings)

__all__ = ["add_parser", "ARGUMENT_DESTS"]

ARGUMENT_DESTS: dict[str, str] = {"patterns": "globs", "file_types": "type"}  # (see sleuth.cli.terminal)


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("files", help="list files by glob, or rank them by a fuzzy query",
                       description="List files matching GLOBs ('*', '**', '!' excludes), or rank by --query.")
    p.add_argument("globs", nargs="*", metavar="GLOB", help="gitignore-style globs ('*', '**'; !GLOB excludes)")
    p.add_argument("-q", "--query", help="fuzzy Quick-Open query (e.g. usrctl)")
    p.add_argument("--path", help="folder to list (default: the whole sandbox)")
    p.add_argument("--hidden", action="store_true", help="list hidden files and folders too")
    p.add_argument("--no-ignore", action="store_true", help="do not respect .gitignore/.ignore")
    p.add_argument("-L", "--follow", action="store_true", help="follow symbolic links inside the sandbox")
    p.add_argument("-t", "--type", action="append", default=[], metavar="TYPE", help="only files of TYPE")
    p.add_argument("--max-depth", type=int, metavar="NUM", help="descend at most NUM folders")
    p.add_argument("--max-results", type=int, metavar="N", help="list at most N paths")
    p.add_argument("--sort", choices=("path", "modified"), default="path", help="by path, or newest first")
    p.add_argument("--json", action="store_true", help="print the sleuth.files result object")
    p.add_argument("--root", action="append", metavar="DIR", help="sandbox folder (repeatable; default: .)")
    add_server_flag(p)
    p.set_defaults(func=_run)


def _run(ns: argparse.Namespace) -> int:
    workspace = cli_workspace(ns.root)
    args: dict[str, Any] = {"patterns": ns.globs or None, "query": ns.query, "path": cli_path(workspace, ns.path),
                            "hidden": ns.hidden,
                            "no_ignore": ns.no_ignore, "follow": ns.follow, "file_types": ns.type,
                            "max_depth": ns.max_depth, "max_results": ns.max_results, "sort": ns.sort}
    args = {k: v for k, v in args.items() if v is not None}
    if ns.query:
        args.setdefault("max_results", 50)

    def render(result: dict[str, Any]) -> int:
        if ns.json:
            print_json(result)
        else:
            for item in result["items"]:
                score = f"\t{item['score']:.3f}" if "score" in item and sys.stdout.isatty() else ""
                sys.stdout.write(item["path"] + score + "\n")
        if result["errors"]:
            return EXIT_ERROR
        return EXIT_FOUND if result["items"] else EXIT_NONE

    settings = workspace_settings(ns.root)  # read once: the server's question and the cold context take them
    return run_search("sleuth.files", args, workspace, lambda: make_context(ns.root, settings=cli_settings(settings)),
                      ns.json, render, no_server=ns.no_server, settings=settings)
