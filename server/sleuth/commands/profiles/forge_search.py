"""``forge.Search`` (seed 001, "Local Search Tool"): the ripgrep/ugrep-shaped search tool.

The normative ``additionalProperties: false`` schema of FR-LS-02a (``glob`` accepted as the
deprecated alias of ``include_glob``), translated onto ``sleuth.grep`` and run by the backend the
``backend`` setting selects (native, rg or ugrep; see :mod:`.backends`). The response carries
``match``/``context`` events in seed 001's ``{type, data: {path: {text}, line_number, column,
lines: {text}, match_text}}`` shape, ordered by path bytes then line (context before match),
``count`` = events (both kinds), exact ``truncated`` (+1 observation), ``timed_out``,
``files_scanned``, per-file ``errors``, the backend's ``exit_code``/``stderr`` when external, and
a human ``content`` view with a trailing note when truncated or timed out.
"""

from __future__ import annotations

from typing import Any

from sleuth.commands.context import CommandContext
from sleuth.commands.profiles import ToolDefinition, ToolResult
from sleuth.commands.budget import shrink_to_budget
from sleuth.commands.profiles._common import byte_len, dumps_compact, maybe_redact, validate
from sleuth.commands.profiles._forge import forge_error
from sleuth.commands.profiles.backends import run_grep
from sleuth.engine.errors import BadArgs
from sleuth.engine.events import Match, from_item

__all__ = ["TOOLS", "SCHEMA", "search"]

TOOL = "Search"
ALIASES = ("search", "rg", "ripgrep", "ugrep", "ug")
DESCRIPTION = (
    "Search file contents in the workspace for a regular expression (ripgrep syntax) or, with "
    "fixed_strings, a literal string. Returns match events (path, 1-based line_number, byte column, "
    "line text, match_text) and, with context, surrounding context events, ordered by path then line. "
    "max_results (default 200) counts both kinds; truncated says more exist. fuzzy 1-4 allows that many "
    "edits per match. Read-only."
)

# FR-LS-02a, verbatim.
SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "pattern": {"type": "string", "minLength": 1},
        "path": {"type": "string"},
        "case": {"type": "string", "enum": ["smart", "sensitive", "insensitive"], "default": "smart"},
        "fixed_strings": {"type": "boolean", "default": False},
        "word_regexp": {"type": "boolean", "default": False},
        "include_glob": {"type": "array", "items": {"type": "string"}},
        "exclude_glob": {"type": "array", "items": {"type": "string"}},
        "glob": {"type": "array", "items": {"type": "string"}},
        "recursive": {"type": "boolean", "default": True},
        "hidden": {"type": "boolean", "default": False},
        "follow": {"type": "boolean", "default": False},
        "no_ignore": {"type": "boolean", "default": False},
        "context": {"type": "integer", "minimum": 0, "default": 0},
        "max_results": {"type": "integer", "minimum": 1, "default": 200},
        "max_matches_per_file": {"type": "integer", "minimum": 1},
        "max_files": {"type": "integer", "minimum": 1},
        "max_file_size_bytes": {"type": "integer", "minimum": 1},
        "timeout_ms": {"type": "integer", "minimum": 1, "default": 20000},
        "fuzzy": {"type": "integer", "minimum": 1, "maximum": 4},
    },
    "required": ["pattern"],
}


def _globs(args: dict[str, Any], name: str) -> list[str]:
    globs = list(args.get(name) or [])
    for glob in globs:
        if not glob.strip():
            raise BadArgs(f"'{name}' entries must be non-empty glob strings.", argument=name)
    return globs


def translate(args: dict[str, Any]) -> dict[str, Any]:
    """Seed 001 arguments -> ``sleuth.grep`` arguments (FR-LS-VAL-*, FR-LS-SRC-*)."""
    if not args["pattern"].strip():
        raise BadArgs("'pattern' must be non-empty after trimming whitespace.", argument="pattern")
    include = _globs(args, "include_glob") if "include_glob" in args else _globs(args, "glob")
    out: dict[str, Any] = {
        "pattern": args["pattern"],
        "case": args.get("case", "smart"),
        "fixed_strings": args.get("fixed_strings", False),
        "word": args.get("word_regexp", False),
        "include_globs": include,
        "exclude_globs": _globs(args, "exclude_glob"),
        "recursive": args.get("recursive", True),
        "hidden": args.get("hidden", False),
        "follow": args.get("follow", False),
        "no_ignore": args.get("no_ignore", False),
        "context": args.get("context", 0),
        "max_results": args.get("max_results", 200),
        "timeout_ms": args.get("timeout_ms", 20000),
        "max_columns": 0,  # lines.text is the whole line (FR-LS-04a)
    }
    for key in ("path", "max_matches_per_file", "max_files", "max_file_size_bytes", "fuzzy"):
        if key in args:
            out[key] = args[key]
    return out


def _event(item: dict[str, Any], ctx: CommandContext) -> dict[str, Any]:
    """Forge's event for one result item (read as a typed event: no item's ``"type"`` read here)."""
    event = from_item(item)
    data: dict[str, Any] = {"path": {"text": event.path}, "line_number": event.line}
    if isinstance(event, Match):
        data["column"] = event.column
    data["lines"] = {"text": maybe_redact(event.text, ctx)}
    if isinstance(event, Match):
        data["match_text"] = maybe_redact(event.match_text, ctx)
    return {"type": "match" if isinstance(event, Match) else "context", "data": data}


def _content(events: list[dict[str, Any]], truncated: bool, timed_out: bool, limit: int, timeout_ms: int,
             budget_cut: bool) -> str:
    lines: list[str] = []
    for e in events:
        d = e["data"]
        if e["type"] == "match":
            lines.append(f"{d['path']['text']}:{d['line_number']}:{d['column']}:{d['lines']['text']}")
        else:
            lines.append(f"{d['path']['text']}-{d['line_number']}-{d['lines']['text']}")
    if not lines:
        lines.append("No matches found.")
    if timed_out:
        lines.append(f"[timed out after {timeout_ms} ms: results are partial; narrow the search or raise timeout_ms]")
    if budget_cut:
        lines.append("[truncated to fit the output budget: narrow the search to see the rest]")
    elif truncated:
        lines.append(f"[truncated at max_results={limit}: more results exist; narrow the search or raise max_results]")
    return "\n".join(lines)


def _root(args: dict[str, Any], ctx: CommandContext) -> str:
    """The effective search root (FR-LS-05b) as the request named it: a link's real path is never
    echoed (a link to a denied file would name it), only the path inside the folder that holds it."""
    targets = ctx.workspace.resolve(args.get("path"))
    if len(targets) != 1:
        return targets[0].root.path.replace("\\", "/")
    target = targets[0]
    return (target.named or target.path).replace("\\", "/")


def search(raw: Any, ctx: CommandContext) -> dict[str, Any]:
    """The seed 001 response object (errors raise Sleuth errors; the registry formats them)."""
    args = validate(SCHEMA, raw)
    native_args = translate(args)
    root = _root(args, ctx)
    result = run_grep(native_args, ctx)
    items = result["matches"]
    events = [_event(item, ctx) for item in items]
    limit, timeout_ms = native_args["max_results"], native_args["timeout_ms"]
    response: dict[str, Any] = {
        "pattern": args["pattern"],
        "path": root,
        "count": len(events),
        "matches": events,
        "truncated": bool(result["truncated"]),
        "timed_out": bool(result["timed_out"]),
        "files_scanned": result["files_scanned"],  # eligible files, size-skipped included (FR-LS-05e)
        "errors": result["errors"],
    }
    if "exit_code" in result:
        response["exit_code"] = result["exit_code"]
    if result.get("stderr"):
        response["stderr"] = result["stderr"]
    response["content"] = _content(events, response["truncated"], response["timed_out"], limit, timeout_ms, False)
    budget = ctx.settings.max_output_bytes
    if budget and byte_len(dumps_compact(response)) > budget:
        response = _fit(response, budget, limit, timeout_ms)
    return response


def _fit(response: dict[str, Any], budget: int, limit: int, timeout_ms: int) -> dict[str, Any]:
    """Drop trailing events until the JSON fits ``budget`` bytes; say so in ``content``."""
    events = response["matches"]

    def build(k: int) -> dict[str, Any]:
        kept = events[:k]
        return dict(response, matches=kept, count=len(kept), truncated=True,
                    content=_content(kept, True, response["timed_out"], limit, timeout_ms, True))

    _, kept = shrink_to_budget(lambda k: dumps_compact(build(k)), len(events), budget)
    return build(kept)


def _handler(raw: dict[str, Any], ctx: CommandContext) -> ToolResult:
    response = search(raw, ctx)
    return ToolResult(dumps_compact(response), False, response["count"])


TOOLS = [
    ToolDefinition(
        name=TOOL, profile="forge", description=DESCRIPTION, input_schema=SCHEMA, handler=_handler,
        format_error=forge_error(TOOL), aliases=ALIASES, capabilities=("search", "content", "regex", "fuzzy"),
        query_keys=("pattern",),
    ),
]
