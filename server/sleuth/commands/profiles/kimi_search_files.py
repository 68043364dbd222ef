"""``kimi.search_files`` (seed 003): a single-level glob plus a query, answered as ``path:line: text`` lines.

``pattern`` (default ``*``) is a glob relative to the first workspace folder whose ``*`` never
crosses a ``/``; a pattern containing ``**`` is refused with the seed's message. ``query`` is a
case-sensitive substring (``case_insensitive`` folds case) or, with ``regex``, a regex whose own
``(?i)`` flag decides case. Each matching line is ``<relative_path>:<line_number>: <line>`` with
trailing whitespace trimmed, one line per matching line, at most ``max_results`` (default 100);
when more exist the note ``... (truncated, maximum number of results reached)`` follows; no
match gives ``No matches found.``. Schema and description are the seed's final tool definition.
"""

from __future__ import annotations

import posixpath
from typing import Any

from sleuth.commands.context import CommandContext
from sleuth.commands.profiles import ToolDefinition, ToolResult
from sleuth.commands.profiles._common import argument_of, fit_lines, maybe_redact, native, plain_error, validate
from sleuth.engine.errors import BadArgs
from sleuth.engine.events import Match, from_item

__all__ = ["TOOLS", "SCHEMA", "RECURSIVE_REFUSAL", "TRUNCATION_NOTE", "NO_MATCHES"]

TOOL = "search_files"
DESCRIPTION = ("Search for a string or regular\u2011expression across files matching a glob pattern. "
               "Returns lines with file:line:content format.")
RECURSIVE_REFUSAL = "Recursive patterns (**) are not allowed. Use a single\u2011level pattern like \"src/*\"."
TRUNCATION_NOTE = "... (truncated, maximum number of results reached)"
NO_MATCHES = "No matches found."

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string",
                    "description": "Single\u2011level glob pattern (e.g., \"src/*.rs\"). Defaults to \"*\" (all files).",
                    "default": "*"},
        "query": {"type": "string", "description": "Text or regex to search for (required)."},
        "regex": {"type": "boolean", "description": "Treat `query` as a Rust regex. Default false.", "default": False},
        "case_insensitive": {"type": "boolean",
                             "description": "Plain\u2011text case\u2011insensitive search (ignored when `regex` is true). "
                                            "Default false.",
                             "default": False},
        "max_results": {"type": "integer", "minimum": 1,
                        "description": "Maximum number of matches to return. Default 100.", "default": 100},
    },
    "required": ["query"],
}


def _glob(pattern: str) -> tuple[str, int]:
    """The anchored include glob and the walk depth a single-level pattern needs."""
    clean = pattern.replace("\\", "/")
    while clean.startswith("./"):
        clean = clean[2:]
    if clean.startswith("/") or ".." in clean.split("/"):
        raise BadArgs(f"Pattern {pattern!r} points outside the workspace; use a pattern relative to it like \"src/*\".",
                      argument="pattern")
    clean = posixpath.normpath(clean) if clean else "*"
    return "/" + clean, clean.count("/") + 1


def _search(raw: dict[str, Any], ctx: CommandContext) -> ToolResult:
    try:
        args = validate(SCHEMA, raw)
    except BadArgs as exc:
        return ToolResult(f"Invalid arguments for search_files: {exc.message}", True, None, exc.code)
    pattern = args.get("pattern", "*")
    if "**" in pattern:
        return ToolResult(RECURSIVE_REFUSAL, True, 0, "bad_args")
    query, regex = args["query"], args.get("regex", False)
    limit = args.get("max_results", 100)
    glob, depth = _glob(pattern)
    request = {
        "pattern": query, "fixed_strings": not regex,
        "case": "insensitive" if (not regex and args.get("case_insensitive", False)) else "sensitive",
        "path": ctx.workspace.roots[0].path if ctx.workspace.roots else None,
        "include_globs": [glob], "max_depth": depth, "max_results": limit, "max_columns": 0,
    }
    try:
        result = native("sleuth.grep", request, ctx)
    except BadArgs as exc:
        if argument_of(exc) == "pattern" and regex:
            return ToolResult(f"Invalid regex pattern: {query}: {exc.message}", True, None, exc.code)
        raise
    found = [from_item(item) for item in result["matches"]]  # typed events: no item's "type" read here
    lines = [f"{e.path}:{e.line}: {maybe_redact(e.text, ctx).rstrip()}" for e in found if isinstance(e, Match)]
    if not lines:
        return ToolResult(NO_MATCHES, False, 0)
    lines, cut = fit_lines(lines, ctx.settings.max_output_bytes, TRUNCATION_NOTE)
    out = "\n".join(lines)
    if result["truncated"] or cut:
        out += ("\n" if lines else "") + TRUNCATION_NOTE
    return ToolResult(out, False, len(lines))


TOOLS = [
    ToolDefinition(
        name=TOOL, profile="kimi", description=DESCRIPTION, input_schema=SCHEMA, handler=_search,
        format_error=plain_error, capabilities=("search", "content", "regex"), query_keys=("query",),
    ),
]
