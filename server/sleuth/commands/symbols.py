"""``sleuth.symbols``: definitions by name (``workspace/symbol``, Ctrl+T), ranked, with kind and path filters.

Validation and shaping only; the lookup is :mod:`sleuth.engine.symbols.search` over the index.
Each result names the symbol, its kind (LSP's ``SymbolKind`` by name and number), its container,
its path and 1-based ``line``, its exact ``range`` (LSP's: 0-based line, UTF-16 characters) and the
file's ``uri``. Before the index is ready the answer is empty with ``ready: false``.
"""

from __future__ import annotations

import pathlib
import time
from typing import Any

from sleuth.commands.args import Arg, parse_args
from sleuth.commands.context import CommandContext
from sleuth.commands.text import build_filter
from sleuth.engine.errors import BadArgs
from sleuth.engine.definitions.extract import SymbolKind
from sleuth.engine.symbols.search import SymbolOptions, search_symbols

__all__ = ["SYMBOLS_ARGS", "run", "KIND_NAMES"]

KIND_NAMES = tuple(SymbolKind.NAMES.values())

SYMBOLS_ARGS: dict[str, Arg] = {
    "query": Arg("str", "A symbol name, exact or abbreviated: 'pmresume' finds PM_RESUME, 'gubi' getUserById.",
                 required=True, non_blank=True),
    "kind": Arg("str_or_list", "Only these kinds: function, method, class, struct, enum, enummember, field, "
                "variable, constant, interface, namespace, module, property, typeparameter (typedefs), string "
                "(Markdown headings)."),
    "file_types": Arg("str_list", "Only these file types (ripgrep type names or extensions such as '.cs').",
                      default=[]),
    "include_path": Arg("str_or_list", "Only paths under this folder/file or matching this glob (e.g. 'src/**')."),
    "exclude_path": Arg("str_or_list", "Leave out paths under this folder/file or matching this glob."),
    "max_results": Arg("int", "Return at most this many symbols.", minimum=1, cap="max_results",
                       default_from="text_default_max_results"),
}


def _kinds(names: list[str] | None) -> frozenset[int] | None:
    if not names:
        return None
    out = set()
    for name in names:
        code = SymbolKind.BY_NAME.get(name.strip().lower().replace("_", "").replace(" ", ""))
        if code is None:
            raise BadArgs(f"sleuth.symbols: unknown kind {name!r}; one of: {', '.join(KIND_NAMES)}")
        out.add(code)
    return frozenset(out)


def run(raw: Any, ctx: CommandContext) -> dict[str, Any]:
    """``{total, results: [{name, kind, kind_code, container, path, uri, line, range, match}], truncated,
    ready, elapsed_ms}``, best first (exact name, same name ignoring case and ``_``, prefix, word starts,
    in order; then open files, shorter names, shorter paths)."""
    started = time.perf_counter()
    args = parse_args("sleuth.symbols", raw, SYMBOLS_ARGS, ctx.settings)
    options = SymbolOptions(args["max_results"], _kinds(args["kind"]), build_filter(args),
                            frozenset(ctx.services.open_buffers or ()))
    index = ctx.services.index
    if index is not None:
        index = index.for_buffers(ctx.services.open_buffers)  # a guest editor's buffers too (engine_host)
    found = search_symbols(index, args["query"], options, ctx.token) if index is not None else \
        {"ready": False, "total": 0, "results": []}
    ctx.token.raise_if_cancelled()
    results = []
    for hit in found["results"]:
        item = hit.to_dict()
        item["uri"] = pathlib.Path(hit.path).as_uri()
        results.append(item)
    if ctx.partial is not None and results:
        ctx.partial(results)
        results = []
    return {"total": found["total"], "results": results, "truncated": found["total"] > len(found["results"]),
            "ready": found["ready"], "elapsed_ms": round((time.perf_counter() - started) * 1000, 1)}
