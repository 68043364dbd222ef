"""``sleuth.text`` (docs/SPEC.md §4): ranked search over the index, per line, definitions first.

Validation and result shaping only; the ranking lives in :mod:`sleuth.engine.text.search`.
``include_path``/``exclude_path`` accept a folder or file prefix (``src/Services``) or a glob
(``src/**``, ``*.cs``) against workspace-relative paths; ``file_types`` takes rg type names or
extensions. Before the index is ready (loading, building; also when it failed or is disabled) the
same ranking runs over files read from disk (:mod:`sleuth.engine.text.scan`) and the result
says ``source: "scan"`` instead of ``"index"``: the same lines on the same files, at scan speed.
"""

from __future__ import annotations

import fnmatch
import sqlite3
import time
from typing import Any, Callable

from sleuth.commands.args import Arg, parse_args
from sleuth.commands.context import CommandContext
from sleuth.engine.cancel import CancelToken
from sleuth.engine.filetypes import TypeMatcher
from sleuth.engine.text.query import parse_query
from sleuth.engine.text.search import TextOptions, TextSource, search_text

__all__ = ["TEXT_ARGS", "run"]

TEXT_ARGS: dict[str, Arg] = {
    "query": Arg("str", 'Words (ANDed), "exact phrase", a OR b, -exclude, prefix*; identifiers match by parts.',
                 required=True, non_blank=True),
    "file_types": Arg("str_list", "Only these file types (ripgrep type names or extensions such as '.cs').",
                      default=[]),
    "include_path": Arg("str_or_list", "Only paths under this folder/file or matching this glob (e.g. 'src/**')."),
    "exclude_path": Arg("str_or_list", "Leave out paths under this folder/file or matching this glob."),
    "max_results": Arg("int", "Return at most this many lines.", minimum=1, cap="max_results",
                       default_from="text_default_max_results"),
    "context_lines": Arg("int", "Lines of context before and after each result.", minimum=0, maximum=20,
                         default_from="context_lines"),
    "timeout_ms": Arg("int", "Stop after this many milliseconds and return what was found.", minimum=1,
                      cap="max_timeout_ms", default_from="timeout_ms"),
}


def _path_matcher(specs: list[str] | None) -> Callable[[str], bool] | None:
    if not specs:
        return None
    tests: list[Callable[[str], bool]] = []
    for spec in specs:
        spec = spec.replace("\\", "/").strip()
        spec = spec[2:] if spec.startswith("./") else spec
        if any(c in spec for c in "*?["):
            tests.append(lambda p, g=spec: fnmatch.fnmatchcase(p, g) or fnmatch.fnmatchcase(p, g.rstrip("/") + "/*"))
        else:
            prefix = spec.rstrip("/")
            tests.append(lambda p, pre=prefix: not pre or p == pre or p.startswith(pre + "/"))
    return lambda display: any(t(display) for t in tests)


def build_filter(args: dict[str, Any]) -> Callable[[str, str], bool] | None:
    """``(abs path, display) -> keep`` from ``file_types``, ``include_path`` and ``exclude_path``."""
    types = TypeMatcher(args["file_types"]) if args["file_types"] else None
    include = _path_matcher(args["include_path"])
    exclude = _path_matcher(args["exclude_path"])
    if types is None and include is None and exclude is None:
        return None

    def keep(path: str, display: str) -> bool:
        if types is not None and not types.matches(display.rsplit("/", 1)[-1]):
            return False
        if include is not None and not include(display):
            return False
        return not (exclude is not None and exclude(display))

    return keep


def _source(ctx: CommandContext, query: str, token: CancelToken, scan: bool = False) -> tuple[TextSource, str]:
    """The ready index, else the same questions answered from disk (``"scan"``): before the index is
    ready (loading, building), when it failed or is disabled, or (``scan``) when it turned out damaged,
    ``sleuth.text`` still answers."""
    index = ctx.services.index
    if index is not None and index.ready and not scan:
        return index.for_buffers(ctx.services.open_buffers), "index"  # a guest editor's buffers too
    from sleuth.engine.text.scan import ScannedFiles

    config = index.config if index is not None else ctx.settings.index_config()
    options, max_bytes = config.walk_options(), config.max_file_size_bytes
    return ScannedFiles(ctx.workspace, query, options, token, max_bytes, ctx.services.open_buffers), "scan"


def run(raw: Any, ctx: CommandContext) -> dict[str, Any]:
    """Rank lines for ``query``; ``{total, results: [{path, line, score, snippet, highlights, context}],
    complete, truncated, truncated_reason, timed_out, source, elapsed_ms}``: the same query over the
    same files gives the same answer; ``truncated`` says when lines were left out, ``truncated_reason``
    why; ``source`` is ``"index"``, or ``"scan"`` before the index is ready."""
    started = time.perf_counter()
    args = parse_args("sleuth.text", raw, TEXT_ARGS, ctx.settings)
    parse_query(args["query"])  # a query with nothing to look for fails before any file is read
    token = ctx.token.with_deadline(args["timeout_ms"] or None)
    source, kind = _source(ctx, args["query"], token)
    options = TextOptions(args["max_results"], args["context_lines"], build_filter(args))
    try:
        found = search_text(source, args["query"], options, token)
    except sqlite3.DatabaseError:  # a damaged store (the index rebuilds itself): answer from disk
        if kind != "index":
            raise
        source, kind = _source(ctx, args["query"], token, scan=True)
        found = search_text(source, args["query"], options, token)
    token.raise_if_cancelled()
    if ctx.partial is not None and found["results"]:
        ctx.partial(found["results"])
        results: list[dict[str, Any]] = []
    else:
        results = found["results"]
    shown = len(found["results"])
    complete = found["complete"] and getattr(source, "complete", True)  # a scan before the index may be cut too
    truncated = not complete or found["total"] > shown
    # as grep's result says it: "timeout" (timeout_ms), else "scan_budget" (the scan's deterministic
    # budget of files and bytes left candidates unread: total is a lower bound), else "max_results"
    reason = ("timeout" if token.timed_out else "scan_budget" if not complete
              else "max_results" if found["total"] > shown else None)
    return {
        "total": found["total"],
        "results": results,
        "complete": complete,
        "truncated": truncated,
        "truncated_reason": reason,
        "timed_out": token.timed_out,
        "source": kind,
        "elapsed_ms": round((time.perf_counter() - started) * 1000, 1),
    }
