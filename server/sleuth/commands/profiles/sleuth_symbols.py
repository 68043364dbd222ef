"""``sleuth.find_symbols``: Sleuth's own tool for assistants — where a symbol is defined, by name.

Not a seed contract: the assistants' tools that find symbols (Copilot's ``search_workspace_symbols``,
the LSP tools of Claude Code and opencode) ask a language server for ``workspace/symbol``; this
gives an assistant that only takes tool definitions the same answer. The schema is the native
``sleuth.symbols`` argument table (query, kind, file types, include/exclude path, max results);
the answer is one ``path:line: kind name (container)`` line per definition, best first.
"""

from __future__ import annotations

from typing import Any

from sleuth.commands.args import json_schema
from sleuth.commands.context import CommandContext
from sleuth.commands.profiles import ToolDefinition, ToolResult
from sleuth.commands.profiles._common import fit_lines, native, plain_error
from sleuth.commands.symbols import SYMBOLS_ARGS
from sleuth.searches import SEARCHES

__all__ = ["TOOLS", "NO_SYMBOLS", "NOT_READY", "TRUNCATION_NOTE"]

NO_SYMBOLS = "No definitions found."
NOT_READY = "The index is still being built; try again in a moment, or use grep meanwhile."
TRUNCATION_NOTE = "... (more definitions: narrow with kind, include_path or a longer name)"
_SUMMARY = next(s.summary for s in SEARCHES if s.name == "symbols")  # the native search's own description


def _line(item: dict[str, Any]) -> str:
    container = f" ({item['container']})" if item["container"] else ""
    return f"{item['path']}:{item['line']}: {item['kind']} {item['name']}{container}"


def _find(raw: dict[str, Any], ctx: CommandContext) -> ToolResult:
    result = native("sleuth.symbols", raw, ctx)
    if not result["ready"]:
        return ToolResult(NOT_READY, False, 0)
    lines = [_line(item) for item in result["results"]]
    if not lines:
        return ToolResult(NO_SYMBOLS, False, 0)
    lines, cut = fit_lines(lines, ctx.settings.max_output_bytes, TRUNCATION_NOTE)
    out = "\n".join(lines)
    if result["truncated"] or cut:
        out += "\n" + TRUNCATION_NOTE
    return ToolResult(out, False, len(lines))


TOOLS = [
    ToolDefinition(
        name="find_symbols", profile="sleuth", description=_SUMMARY,
        input_schema=json_schema(SYMBOLS_ARGS), handler=_find, format_error=plain_error,
        capabilities=("search", "symbols", "index"), query_keys=("query",),
    ),
]
