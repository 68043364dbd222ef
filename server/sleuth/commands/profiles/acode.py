"""``acode.search_text``, ``acode.search_files``, ``acode.grep`` (seed 004, Task 015.b).

Result shapes are the seed's user manual, serialised on one line (``"line": 15`` spacing, as its
tests expect):

* ``search_text`` (ranked, over the index = ``sleuth.text``): ``{total, results: [{path, line, score
  (0..1, 3 decimals), snippet, context?: {before, after}}]}``; ``context`` only when it has lines.
  ``max_results`` defaults to 20 (the ``text_default_max_results`` setting), at most 100.
* ``search_files`` (``sleuth.files``): ``{total, results: [{path, size, modified}]}``, ``modified`` as
  ``yyyy-MM-dd HH:mm:ss`` UTC; globs with ``*`` and ``**``; ``directory`` scopes; 50 by default.
* ``grep`` (``sleuth.grep``): ``{total, results: [{path, line, match, context?}]}``, literal unless
  ``regex``, case-sensitive unless ``case_sensitive: false``; 50 by default; ``total`` counts every
  matching line (up to the server's hard cap).

Snippets and lines are cut at 500 characters (``...``) and secrets redacted. Failures are
``{error, code: "ACODE-SRC-00N", message, ...}`` with the seed's codes: 001 index not ready,
002 invalid query (with the regex ``position``), 003 rate limited (``retry_after_seconds``), 004
timeout (partial results attached), 005 unknown tool. Searches time out after 10 s unless the
``timeout_ms`` setting was changed (``.agent/config.yml`` ``timeout_seconds``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from sleuth.commands.args import check_text, coerce
from sleuth.commands.config import Settings
from sleuth.commands.context import CommandContext
from sleuth.commands.profiles import ToolDefinition, ToolResult
from sleuth.commands.profiles._common import argument_of, byte_len, dumps_spaced, maybe_redact, native
from sleuth.engine.errors import (BadArgs, IndexNotReady, RateLimited, SearchTimeout, SleuthError,
                                  UnknownTool)
from sleuth.engine.events import Match, from_item
from sleuth.engine.words import plural

__all__ = ["TOOLS", "ERROR_CODES", "acode_error", "MAX_SNIPPET"]

MAX_SNIPPET = 500
TEXT_MAX_RESULTS = 100
DEFAULT_TIMEOUT_MS = 10_000
ERROR_CODES = {
    "index_not_ready": "ACODE-SRC-001",
    "invalid_query": "ACODE-SRC-002",
    "rate_limit_exceeded": "ACODE-SRC-003",
    "search_timeout": "ACODE-SRC-004",
    "tool_not_found": "ACODE-SRC-005",
}


class _Timeout(SleuthError):
    """A search that ran out of time; ``partial`` holds what was found."""

    code = "timeout"


def acode_error(kind: str, message: str, **extra: Any) -> str:
    return dumps_spaced({"error": kind, "code": ERROR_CODES[kind], "message": message, **extra})


def _format_error(error: SleuthError) -> str:
    if isinstance(error, RateLimited):
        limit = error.data.get("limit", 30)
        return acode_error("rate_limit_exceeded",
                           f"Search rate limit exceeded ({limit}/min). Please wait before retrying.",
                           retry_after_seconds=error.retry_after_seconds, searches_remaining=0)
    if isinstance(error, IndexNotReady):
        return acode_error("index_not_ready", "Index is not ready. Run 'sleuth index build' (the "
                           "sleuth.index.build command) first, then retry; sleuth.index.status shows progress.")
    if isinstance(error, (SearchTimeout, _Timeout)):
        extra = {"partial": error.data["partial"]} if error.data.get("partial") else {}
        return acode_error("search_timeout", "Search timed out. Try a more specific query, add file_type or "
                           "include_path filters, or raise timeout_seconds in .agent/config.yml.", **extra)
    if isinstance(error, UnknownTool):
        return acode_error("tool_not_found", "Requested search tool is not available. Available: "
                           "search_text, search_files, grep.")
    extra = {"position": error.data["position"]} if "position" in error.data else {}
    message = error.message
    if isinstance(error, BadArgs) and argument_of(error) == "pattern" and "position" in error.data:
        message = f"Invalid regex pattern: {message}"
    text = f"Invalid search query: {message} {error.hint}".strip()
    text = text.replace("set fixed_strings to search for literal text", "pass regex: false to search for literal text")
    return acode_error("invalid_query", text, **extra)


# -- arguments (ToolInput semantics: values convert like Convert.ChangeType, so "5" is 5) ----------

def _get(args: dict[str, Any], name: str, kind: type, default: Any = None, required: bool = False) -> Any:
    if name not in args or args[name] is None:
        if required:
            raise BadArgs(f"Required parameter '{name}' is missing.", hint=f"Pass '{name}'.", argument=name)
        return default
    try:
        value = coerce(kind.__name__, args[name], loose=True)
        return check_text(name, value, "Parameter ") if isinstance(value, str) else value
    except ValueError:
        pass
    raise BadArgs(f"Parameter '{name}' could not be converted to {kind.__name__}.",
                  hint=f"Pass '{name}' as {'true/false' if kind is bool else 'an integer' if kind is int else 'text'}.",
                  argument=name)


def _capped(text: str, name: str, settings: Settings) -> str:
    """FR-015b-55: queries above the configured length are refused, not truncated."""
    if len(text) > settings.max_pattern_length:
        raise BadArgs(f"Parameter '{name}' is {len(text)} characters long; the limit is "
                      f"{settings.max_pattern_length}.", hint="Search for a shorter, more specific text.",
                      argument=name)
    return text


def _positive(value: int, name: str) -> int:
    if value < 1:
        raise BadArgs(f"Parameter '{name}' must be at least 1; got {value}.", argument=name)
    return value


def _strings(args: dict[str, Any], name: str) -> list[str]:
    value = args.get(name)
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadArgs(f"Parameter '{name}' must be a string or a list of strings.", argument=name)
    return [v.strip() for v in value if v.strip()]


def _is_glob(text: str) -> bool:
    return any(ch in text for ch in "*?[{")


def _scope(args: dict[str, Any]) -> tuple[str | None, list[str], list[str]]:
    """``include_path``/``exclude_path`` as (path, include globs, exclude globs)."""
    path = None
    include: list[str] = []
    for item in _strings(args, "include_path"):
        if _is_glob(item):
            include.append(item if item.startswith("/") else "/" + item)
        else:
            path = item
    exclude: list[str] = []
    for item in _strings(args, "exclude_path"):
        anchored = item.strip("/")
        exclude.append("/" + anchored)
        if not _is_glob(item):
            exclude.append("/" + anchored + "/**")
    return path, include, exclude


def _extensions(args: dict[str, Any]) -> list[str]:
    return [t if t.startswith(".") else "." + t for t in _strings(args, "file_type")]


def _timeout_ms(settings: Settings) -> int:
    return DEFAULT_TIMEOUT_MS if settings.timeout_ms == Settings().timeout_ms else settings.timeout_ms


def _cut(text: str) -> str:
    text = text.strip()
    return text if len(text) <= MAX_SNIPPET else text[:MAX_SNIPPET].rstrip() + "..."


_NO_RESULTS = {
    "search_text": "No results found. Try fewer or broader terms, drop the file_type/include_path filters, "
                   "or check that the index is current (sleuth.index.status).",
    "search_files": "No files match. A pattern without '/' matches file names at any depth; use '**/' to "
                    "cross folders, or check the directory.",
    "grep": "No lines match. Check spelling and case (case_sensitive: false ignores case); pass regex: true "
            "for patterns, or search_text for ranked results.",
}


def _finish(tool: str, output: dict[str, Any], ctx: CommandContext) -> ToolResult:
    """Add guidance when nothing or not everything is shown (FR-015b-34, failure modes); serialise,
    shrinking ``results`` to the output budget (FR-015b-39, AC-078)."""
    shown, total = len(output["results"]), output["total"]
    if total == 0:
        output["message"] = _NO_RESULTS[tool]
    elif total > shown:
        output["message"] = (f"Showing {shown} of {plural(total, 'result')}. Narrow the search (file_type, include_path, "
                             f"a more specific query) or raise max_results to see the rest.")
    text = dumps_spaced(output)
    budget = ctx.settings.max_output_bytes
    if budget and byte_len(text) > budget:
        results = output["results"]
        lo, hi = 0, len(results)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            trial = dict(output, results=results[:mid], truncated=True, truncated_reason="max_output_bytes")
            if byte_len(dumps_spaced(trial)) <= budget:
                lo = mid
            else:
                hi = mid - 1
        output = dict(output, results=results[:lo], truncated=True, truncated_reason="max_output_bytes")
        text = dumps_spaced(output)
    return ToolResult(text, False, len(output["results"]))


# -- tools --------------------------------------------------------------------------------------

def _search_text(args: dict[str, Any], ctx: CommandContext) -> ToolResult:
    query = _capped(_get(args, "query", str, required=True), "query", ctx.settings)
    if not query.strip():
        raise BadArgs("Query cannot be empty.", hint='Pass one or more search terms, e.g. {"query": "UserService"}.',
                      argument="query")
    limit = min(_positive(_get(args, "max_results", int, ctx.settings.text_default_max_results), "max_results"),
                TEXT_MAX_RESULTS)
    context = _get(args, "context_lines", int, ctx.settings.context_lines)
    if context < 0:
        raise BadArgs("Parameter 'context_lines' must be 0 or more.", argument="context_lines")
    request: dict[str, Any] = {"query": query, "max_results": limit, "context_lines": context,
                               "timeout_ms": _timeout_ms(ctx.settings)}
    if _extensions(args):
        request["file_types"] = _extensions(args)
    for key in ("include_path", "exclude_path"):  # sleuth.text takes folders, files or globs as they are
        if _strings(args, key):
            request[key] = _strings(args, key)
    try:
        result = native("sleuth.text", request, ctx)
    except ImportError as exc:  # a build without the index
        raise IndexNotReady("The text index is not available in this installation.") from exc
    results = []
    for hit in result["results"]:
        item: dict[str, Any] = {"path": hit["path"], "line": hit["line"], "score": round(float(hit["score"]), 3),
                                "snippet": _cut(maybe_redact(hit.get("snippet", ""), ctx))}
        before = [maybe_redact(t, ctx) for t in (hit.get("context") or {}).get("before", [])]
        after = [maybe_redact(t, ctx) for t in (hit.get("context") or {}).get("after", [])]
        while after and not after[-1].strip():  # blank tail lines (and the one after a final newline) say nothing
            after.pop()
        if before or after:
            item["context"] = {"before": before, "after": after}
        results.append(item)
    if result.get("timed_out"):
        raise _Timeout("search_text timed out", partial={"total": result["total"], "results": results})
    return _finish("search_text", {"total": result["total"], "results": results}, ctx)


def _modified(iso: str) -> str:
    try:
        return datetime.strptime(iso, "%Y-%m-%dT%H:%M:%SZ").strftime("%Y-%m-%d %H:%M:%S")
    except (TypeError, ValueError):
        return str(iso)


def _search_files(args: dict[str, Any], ctx: CommandContext) -> ToolResult:
    patterns = [_capped(p, "pattern", ctx.settings) for p in _strings(args, "pattern")]
    if "pattern" not in args or args["pattern"] is None:
        raise BadArgs("Required parameter 'pattern' is missing.", hint='Pass a glob such as "*.cs" or "**/User*.cs".',
                      argument="pattern")
    if not patterns:
        raise BadArgs("Pattern cannot be empty.", hint='Pass a glob such as "*.cs" or "**/User*.cs".',
                      argument="pattern")
    limit = _positive(_get(args, "max_results", int, 50), "max_results")
    path, include, exclude = _scope(args)
    directory = _get(args, "directory", str)
    request: dict[str, Any] = {"patterns": patterns + include + ["!" + g for g in exclude],
                               "max_results": min(limit, ctx.settings.max_results),
                               "timeout_ms": _timeout_ms(ctx.settings)}
    if directory or path:
        request["path"] = directory or path
    if _extensions(args):
        request["file_types"] = _extensions(args)
    result = native("sleuth.files", request, ctx)
    results = [{"path": item["path"], "size": item["size"], "modified": _modified(item["modified"])}
               for item in result["items"]]
    if result.get("timed_out"):
        raise _Timeout("search_files timed out", partial={"total": result["total"], "results": results})
    return _finish("search_files", {"total": result["total"], "results": results}, ctx)


def _grep(args: dict[str, Any], ctx: CommandContext) -> ToolResult:
    pattern = _capped(_get(args, "pattern", str, required=True), "pattern", ctx.settings)
    if not pattern.strip():
        raise BadArgs("Pattern cannot be empty.", hint='Pass the text to find, e.g. {"pattern": "TODO"}.',
                      argument="pattern")
    regex = _get(args, "regex", bool, False)
    case_sensitive = _get(args, "case_sensitive", bool, True)
    context = _get(args, "context_lines", int, 0)
    if context < 0:
        raise BadArgs("Parameter 'context_lines' must be 0 or more.", argument="context_lines")
    limit = _positive(_get(args, "max_results", int, 50), "max_results")
    path, include, exclude = _scope(args)
    file_pattern = _get(args, "file_pattern", str)
    request: dict[str, Any] = {
        "pattern": pattern, "fixed_strings": not regex, "case": "sensitive" if case_sensitive else "insensitive",
        "word": _get(args, "whole_word", bool, False), "invert": _get(args, "invert", bool, False),
        "context": context, "max_results": ctx.settings.max_results, "timeout_ms": _timeout_ms(ctx.settings),
        "include_globs": include + ([file_pattern] if file_pattern else []), "exclude_globs": exclude,
        "file_types": _extensions(args), "max_columns": 0,
    }
    if path:
        request["path"] = path
    result = native("sleuth.grep", request, ctx)
    results: list[dict[str, Any]] = []
    lines: dict[str, dict[int, str]] = {}
    found = [from_item(e) for e in result["matches"]]  # typed events: no item's "type" read here
    for e in found:
        lines.setdefault(e.path, {})[e.line] = e.text
    total = 0
    for e in found:
        if not isinstance(e, Match):
            continue
        total += 1
        if len(results) >= limit:
            continue
        item: dict[str, Any] = {"path": e.path, "line": e.line, "match": _cut(maybe_redact(e.text, ctx))}
        if context:
            text = lines[e.path]
            item["context"] = {
                "before": [_cut(maybe_redact(text[n], ctx)) for n in range(e.line - context, e.line) if n in text],
                "after": [_cut(maybe_redact(text[n], ctx)) for n in range(e.line + 1, e.line + context + 1)
                          if n in text],
            }
        results.append(item)
    if result["timed_out"]:
        raise _Timeout("grep timed out", partial={"total": total, "results": results})
    output: dict[str, Any] = {"total": total, "results": results}
    if result["truncated"]:
        output["total_is_lower_bound"] = True
    return _finish("grep", output, ctx)


def _wrap(run: Callable[[dict[str, Any], CommandContext], ToolResult]) -> Callable[[dict[str, Any], CommandContext], ToolResult]:
    def handler(raw: dict[str, Any], ctx: CommandContext) -> ToolResult:
        if not isinstance(raw, dict):
            raise BadArgs("Arguments must be a JSON object.")
        return run(raw, ctx)

    return handler


_PATH_PROPS: dict[str, Any] = {
    "include_path": {"type": "string", "description": "Only search under this directory (or glob, e.g. 'src/**')."},
    "exclude_path": {"type": "string", "description": "Leave out files under this directory (or glob)."},
}
_FILE_TYPE = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
              "description": "Filter by file extension (e.g. '.cs', '.ts'); a list allows several."}

SEARCH_TEXT_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["query"],
    "properties": {
        "query": {"type": "string", "minLength": 1,
                  "description": "The search query. Can be a single word, multiple words (AND logic), or a phrase "
                                 "in quotes; OR between terms, -term excludes, prefix* matches prefixes."},
        "max_results": {"type": "integer", "minimum": 1, "maximum": TEXT_MAX_RESULTS, "default": 20,
                        "description": "Maximum number of results to return (default: 20, max: 100)"},
        "file_type": _FILE_TYPE,
        **_PATH_PROPS,
        "context_lines": {"type": "integer", "minimum": 0, "default": 2,
                          "description": "Number of context lines before/after match (default: 2)"},
    },
}
SEARCH_FILES_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["pattern"],
    "properties": {
        "pattern": {"anyOf": [{"type": "string", "minLength": 1}, {"type": "array", "items": {"type": "string"}}],
                    "description": "Glob pattern to match file paths (e.g., '*.cs', '*Controller*', 'src/**/*.ts'); "
                                   "a list matches any of several."},
        "directory": {"type": "string", "description": "Only search in this directory (relative path)"},
        **_PATH_PROPS,
        "max_results": {"type": "integer", "minimum": 1, "default": 50,
                        "description": "Maximum number of results (default: 50)"},
    },
}
GREP_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["pattern"],
    "properties": {
        "pattern": {"type": "string", "minLength": 1,
                    "description": "The pattern to search for. Literal string by default, or regex if regex=true."},
        "regex": {"type": "boolean", "default": False,
                  "description": "If true, treat pattern as a regular expression (default: false)"},
        "case_sensitive": {"type": "boolean", "default": True,
                           "description": "If true, match is case-sensitive (default: true)"},
        "whole_word": {"type": "boolean", "default": False, "description": "Only match whole words (default: false)"},
        "invert": {"type": "boolean", "default": False,
                   "description": "Return lines that do NOT match the pattern (default: false)"},
        "file_pattern": {"type": "string",
                         "description": "Only search in files matching this glob pattern (e.g., '*.cs')"},
        "file_type": _FILE_TYPE,
        **_PATH_PROPS,
        "context_lines": {"type": "integer", "minimum": 0, "default": 0,
                          "description": "Number of context lines before/after match (default: 0)"},
        "max_results": {"type": "integer", "minimum": 1, "default": 50,
                        "description": "Maximum number of matches to return (default: 50)"},
    },
}

TOOLS = [
    ToolDefinition(
        name="search_text", profile="acode",
        description="Search for text content across all indexed files in the repository. Returns matching files "
                    "with relevance scores, line numbers, and code snippets. Use this tool when you need to find "
                    "code that contains specific terms, class names, function names, or other text patterns.",
        input_schema=SEARCH_TEXT_SCHEMA, handler=_wrap(_search_text), format_error=_format_error,
        capabilities=("search", "content", "ranked", "index"), query_keys=("query",), announce_rate_limit=True,
    ),
    ToolDefinition(
        name="search_files", profile="acode",
        description="Search for files by their path or name using glob patterns. Returns matching file paths "
                    "without reading file contents. Use this tool when you need to find files by name, "
                    "extension, or location.",
        input_schema=SEARCH_FILES_SCHEMA, handler=_wrap(_search_files), format_error=_format_error,
        capabilities=("search", "files", "glob"), query_keys=("pattern",), announce_rate_limit=True,
    ),
    ToolDefinition(
        name="grep", profile="acode",
        description="Search for a pattern across all indexed files using literal string or regex matching. "
                    "Returns all lines that match the pattern with file paths and line numbers. Use this tool "
                    "when you need to find specific text patterns, like TODO comments, error messages, or "
                    "specific code constructs.",
        input_schema=GREP_SCHEMA, handler=_wrap(_grep), format_error=_format_error,
        capabilities=("search", "content", "regex"), query_keys=("pattern",), announce_rate_limit=True,
    ),
]
