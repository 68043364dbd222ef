"""``sleuth index build|status``: the persistent index of the current folder (or ``--root``s), from a terminal.

The index lives in the cache directory (never in the workspace); a build on an unchanged tree
only re-checks sizes and modification times. A progress bar shows on a terminal.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from sleuth.cli.common import (EXIT_ERROR, EXIT_FOUND, ProgressBar, cli_settings, make_context, print_json,
                               run_command, workspace_settings)

__all__ = ["add_parser", "index_context"]


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("index", help="build or inspect the persistent index",
                       description="Build (incrementally, or --full) or show the status of the index.")
    p.add_argument("action", choices=("build", "status"))
    p.add_argument("--full", action="store_true", help="rebuild from scratch")
    p.add_argument("--json", action="store_true", help="print the status object")
    p.add_argument("--root", action="append", metavar="DIR", help="sandbox folder (repeatable; default: .)")
    p.set_defaults(func=_run)


def index_context(roots: list[str] | None, progress: ProgressBar | None = None) -> Any:
    """A command context whose ``services.index`` is the store of these roots: the one the language
    server opens on the same folders (its location depends on the roots and ``index.path`` only), with
    the server's settings from the folder's ``.agent/config.yml`` (not the CLI's caps), so both keep
    one index. Exits with a message when ``index.path`` lies inside a folder."""
    from sleuth.engine.index.service import IndexService
    from sleuth.engine.index.store import StoreInsideWorkspace

    shared = workspace_settings(roots)
    ctx = make_context(roots, progress, settings=cli_settings(shared))
    try:
        ctx.services.index = IndexService(ctx.workspace, shared.index_config())
    except StoreInsideWorkspace as exc:
        sys.stderr.write(f"sleuth: {exc}\n")
        raise SystemExit(EXIT_ERROR) from None
    return ctx


def _render_status(status: dict[str, Any]) -> None:
    for key, value in status.items():
        sys.stdout.write(f"{key:20} {value}\n")


def _run(ns: argparse.Namespace) -> int:
    ctx = index_context(ns.root, ProgressBar(delay=0.2))
    index = ctx.services.index
    try:
        if ns.action == "build":
            return run_command("sleuth.index.build", {"full": ns.full}, ctx, ns.json, lambda r: _show(r, ns.json))
        index.start()
        index.wait_ready()
        return run_command("sleuth.index.status", {}, ctx, ns.json, lambda r: _show(r, ns.json))
    finally:
        index.stop()


def _show(status: dict[str, Any], as_json: bool) -> int:
    if as_json:
        print_json(status)
    else:
        _render_status(status)
    if status.get("state") == "error":  # a failed build is a failure, for scripts too
        sys.stderr.write(f"sleuth: the index failed: {status.get('error')}\n")
        return EXIT_ERROR
    return EXIT_FOUND
