"""``sleuth index build|status``: the persistent index of the current folder (or ``--root``s), from a terminal.

The index lives in the cache directory (never in the workspace); a build on an unchanged tree
only re-checks sizes and modification times. A progress bar shows on a terminal. ``status`` never
builds: it opens what is on disk and compares it with the tree (sizes and times), and its exit
status answers "is there an index?" for scripts, as ``git diff --quiet`` or ``test -e`` answer
theirs: 0 there is one (``state`` says ready or stale), 1 there is none yet, 2 an error.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable

from sleuth.cli.common import (EXIT_ERROR, EXIT_FOUND, EXIT_NONE, ProgressBar, cli_settings, make_context,
                               print_json, run_command, workspace_settings)

__all__ = ["add_parser", "index_context", "run_on_index", "ARGUMENT_DESTS"]

ARGUMENT_DESTS: dict[str, str] = {}  # its messages name its flags too (see sleuth.cli.terminal)


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("index", help="build or inspect the persistent index",
                       description="Build (incrementally, or --full) or show the status of the index.")
    p.add_argument("action", choices=("build", "status"),
                   help="build: make or update the index; status: report it (exit 1 when there is none)")
    p.add_argument("--full", action="store_true", help="rebuild from scratch")
    p.add_argument("--json", action="store_true", help="print the status object")
    p.add_argument("--root", action="append", metavar="DIR", help="sandbox folder (repeatable; default: .)")
    p.set_defaults(func=_run)


def index_context(roots: list[str] | None, progress: ProgressBar | None = None) -> Any:
    """A command context whose ``services.index`` is the store of these roots: the one the language
    server opens on the same folders (its location depends on the roots and ``index.path`` only), with
    the server's settings from the folder's ``.agent/config.yml`` (not the CLI's caps), so both keep
    one index. Exits with a message when ``index.path`` lies inside a folder."""
    return _index_context(roots, progress, False)[0]


def _index_context(roots: list[str] | None, progress: ProgressBar | None, check: bool) -> tuple[Any, Any]:
    """:func:`index_context`, and with ``check`` the store's freshness check forked before the index
    stack is imported (:func:`sleuth.core.cold_store.start_early_check`; None when there is no store)."""
    from sleuth.core.cold_store import import_index_stack, start_early_check
    from sleuth.engine.index.location import StoreInsideWorkspace

    shared = workspace_settings(roots)
    ctx = make_context(roots, progress, settings=cli_settings(shared))
    config = shared.index_config()
    early = start_early_check(ctx.workspace, config) if check else None
    if early is not None:  # (a one-shot call's open of its store: as the cold grep's)
        import_index_stack()
    from sleuth.engine.index.service import IndexService

    try:
        ctx.services.index = IndexService(ctx.workspace, config)
    except StoreInsideWorkspace as exc:
        sys.stderr.write(f"sleuth: {exc}\n")
        raise SystemExit(EXIT_ERROR) from None
    return ctx, early


def _render_status(status: dict[str, Any]) -> None:
    """``key value`` lines for a person: what is unknown (no build yet, no watcher in this process) is
    left out rather than printed as Python's ``None``; a nested value (the watcher's) as JSON."""
    import json

    for key, value in status.items():
        if value is None:
            continue
        if isinstance(value, bool):
            value = "yes" if value else "no"
        elif isinstance(value, (dict, list)):
            value = json.dumps(value, ensure_ascii=False)
        sys.stdout.write(f"{key:20} {value}\n")
    if status.get("state") == "absent":
        sys.stderr.write("sleuth: no index yet for these folders; `sleuth index build` makes one\n")


def _run(ns: argparse.Namespace) -> int:
    ctx = index_context(ns.root, ProgressBar(delay=0.2))
    index = ctx.services.index
    try:
        if ns.action == "build":
            return run_command("sleuth.index.build", {"full": ns.full}, ctx, ns.json, lambda r: _show(r, ns.json))
        index.inspect()  # what is on disk, never a build (see the module docstring)
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
    return EXIT_NONE if status.get("state") == "absent" else EXIT_FOUND


def run_on_index(name: str, args: dict[str, Any], ns: argparse.Namespace,
                 render_human: Callable[[dict[str, Any]], None]) -> int:
    """A command that needs the index (``sleuth text``, ``sleuth symbols``): a running server's ready
    index answers when there is one, else this process reads the current store without writing it
    (:meth:`IndexService.open_read_only`), or opens and catches it up (building it the first time,
    with a progress bar on a terminal) and answers from it. Exit 0 with results, 1 without."""
    from sleuth.cli.common import EXIT_NONE, ask_server, cli_workspace, compute, report_remote_error, run_command

    def render(result: dict[str, Any]) -> int:
        if ns.json:
            print_json(result)
        else:
            render_human(result)
        return EXIT_FOUND if result["results"] else EXIT_NONE

    if not ns.no_server:  # a running server's ready index: no store to open here
        answer = ask_server(name, args, [r.path for r in cli_workspace(ns.root).roots])
        if answer is not None:
            return report_remote_error(answer.error, ns.json) if answer.error is not None else render(answer.result)
    ctx, early = _index_context(ns.root, ProgressBar(delay=0.2), True)
    index = ctx.services.index
    ahead: list[tuple[tuple[str | None, int], Callable[[], dict[str, Any]]]] = []

    def meanwhile() -> None:  # the answer on the store as built, made while its freshness check finishes
        ahead.append((index.change_stamp(), compute(name, args, ctx)))

    try:
        # A current store is read as it is (changes since its build read from disk, nothing written);
        # else it is opened and caught up, or built the first time.
        if not index.open_read_only(early, meanwhile):
            ahead.clear()
            index.start(ctx.progress)
            if not index.wait_ready():
                sys.stderr.write("sleuth: the index could not be built; see `sleuth index status`\n")
                return EXIT_ERROR
        # (the answer made meanwhile holds when the check found nothing changed: else asked again)
        answer = ahead[0][1] if ahead and ahead[0][0] == index.change_stamp() else None
        return run_command(name, args, ctx, ns.json, render, answer=answer)
    finally:
        index.stop()
        ns.leave_at_once = True  # (nothing of this call is left to finish: see sleuth.cli._leave)
