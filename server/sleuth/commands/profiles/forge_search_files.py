"""``forge.search_files`` (seed 000): exact / regex / fuzzy content search returning one JSON object string.

Translation onto ``sleuth.grep`` (through the configured backend):
``mode`` exact -> fixed strings, regex -> the regex dialect, fuzzy -> approximate matching with at
most ``floor(len(query) * (1 - fuzzy_threshold))`` edits (1..4), every hit scored by normalised
Levenshtein similarity and kept only at or above ``fuzzy_threshold`` (CFG-SF-04).
Symlinked directories are never traversed, whatever ``follow_symlinks`` says (FR-SF-VAL-08).
``path`` must be an existing directory inside the sandbox (FR-SF-VAL-06/07).

Output (FR-SF-OUT): ``{path, query, mode, case, matches[{path, line, column, match_text, line_text,
before, after, score}], returned, max_results, truncated, truncated_reason, stats{files_scanned,
files_matched, matches_total, elapsed_ms}, errors}`` ordered by path, line, column; match paths are
relative to the requested directory. The serialised object never exceeds ``max_output_bytes``
(argument or the ``max_output_bytes`` setting): matches are dropped from the end and
``truncated_reason`` becomes ``"max_output_bytes"``, and the JSON stays valid.
"""

from __future__ import annotations

import math
import posixpath
import time
from typing import Any

from rapidfuzz.distance import Levenshtein

from sleuth.commands.budget import shrink_to_budget
from sleuth.commands.context import CommandContext
from sleuth.commands.profiles import ToolDefinition, ToolResult
from sleuth.commands.profiles._common import byte_len, dumps_compact, maybe_redact, relative_to, validate
from sleuth.commands.profiles._external import ascii_case
from sleuth.commands.profiles._forge import forge_error
from sleuth.commands.profiles.backends import run_grep
from sleuth.engine.errors import BadArgs, NotFound
from sleuth.engine.events import Match, Submatch, from_item

__all__ = ["TOOLS", "SCHEMA", "search_files", "fuzzy_edits"]

TOOL = "search_files"
DESCRIPTION = "Search file contents"  # FR-SF-DEF-02, verbatim

# FR-SF-VAL schema, verbatim, plus the optional output budget of docs/SPEC.md §8.
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "query": {"type": "string"},
        "mode": {"type": "string", "enum": ["exact", "regex", "fuzzy"], "default": "exact"},
        "case": {"type": "string", "enum": ["sensitive", "insensitive", "smart"], "default": "smart"},
        "recursive": {"type": "boolean", "default": True},
        "max_depth": {"type": "integer", "minimum": 1},
        "max_results": {"type": "integer", "minimum": 1},
        "max_matches_per_file": {"type": "integer", "minimum": 1},
        "max_file_size_bytes": {"type": "integer", "minimum": 1},
        "max_files": {"type": "integer", "minimum": 1},
        "context_lines": {"type": "integer", "minimum": 0, "default": 0},
        "include_hidden": {"type": "boolean", "default": False},
        "follow_symlinks": {"type": "boolean", "default": False},
        "respect_gitignore": {"type": "boolean", "default": True},
        "include_globs": {"type": "array", "items": {"type": "string"}},
        "exclude_globs": {"type": "array", "items": {"type": "string"}},
        "max_output_bytes": {"type": "integer", "minimum": 256},
    },
    "required": ["path", "query"],
}


def fuzzy_edits(query: str, threshold: float) -> int:
    """Edits a fuzzy search allows so that a hit can still reach ``threshold`` similarity."""
    return max(1, min(4, math.floor(len(query) * (1.0 - threshold) + 1e-9)))


def _score(query: str, found: str, insensitive: bool) -> float:
    if insensitive:
        query, found = query.lower(), found.lower()
    return round(Levenshtein.normalized_similarity(query, found), 4)


def _validate(raw: Any) -> dict[str, Any]:
    args = validate(SCHEMA, raw)
    for key in ("path", "query"):
        if not args[key].strip():
            raise BadArgs(f"'{key}' must be non-empty after trimming whitespace.", argument=key)
    if args.get("recursive") is False and args.get("max_depth", 1) != 1:
        raise BadArgs("'max_depth' must be absent or 1 when 'recursive' is false.", argument="max_depth")
    return args


def search_files(raw: Any, ctx: CommandContext) -> dict[str, Any]:
    """The seed 000 result object (before the output budget)."""
    started = time.perf_counter()
    args = _validate(raw)
    settings = ctx.settings
    mode, case, query = args.get("mode", "exact"), args.get("case", "smart"), args["query"]
    target = ctx.workspace.resolve(args["path"])[0]  # sandbox check first, then existence
    if not target.is_dir:
        raise NotFound(f"'{args['path']}' is not a directory; search_files searches a directory tree.",
                       hint="Pass the folder that contains it and narrow with include_globs.", path=args["path"])
    limit = args.get("max_results", settings.default_max_results)
    if limit > settings.max_results:
        raise BadArgs(f"'max_results' = {limit} is above the configured cap of {settings.max_results}.",
                      argument="max_results")
    context = args.get("context_lines", 0)
    native: dict[str, Any] = {
        "pattern": query, "path": target.path, "fixed_strings": mode == "exact", "case": case,
        "recursive": args.get("recursive", True), "context": context,
        # context events count toward the native limit; ask for enough to see limit + 1 matches
        "max_results": min(settings.max_results, (limit + 1) * (1 + 2 * context)),
        "hidden": args.get("include_hidden", False), "follow": False,
        "no_ignore": not args.get("respect_gitignore", True),
        "include_globs": args.get("include_globs", []), "exclude_globs": args.get("exclude_globs", []),
        "max_columns": 0,
    }
    if mode == "fuzzy":
        native["fuzzy"] = fuzzy_edits(query, settings.fuzzy_threshold)
    for key in ("max_depth", "max_matches_per_file", "max_file_size_bytes", "max_files"):
        if key in args:
            native[key] = args[key]
    result = run_grep(native, ctx)
    matches, files_matched = _matches(result["matches"], query, mode, case, context, target.path, ctx)
    truncated, reason = _truncation(result, len(matches), limit, args.get("max_files"))
    shown = matches[:limit]
    output: dict[str, Any] = {
        "path": posixpath.normpath(args["path"].strip().replace("\\", "/")),
        "query": query, "mode": mode, "case": case,
        "matches": shown, "returned": len(shown), "max_results": limit,
        "truncated": truncated, "truncated_reason": reason,
        "stats": {"files_scanned": result["files_scanned"], "files_matched": files_matched,
                  "matches_total": len(matches), "elapsed_ms": int((time.perf_counter() - started) * 1000)},
        "errors": [{"path": relative_to(ctx.workspace, e["path"], target.path), "error": e["error"]}
                   for e in result["errors"]],
    }
    if result["timed_out"]:
        output["timed_out"] = True
    budget = min(b for b in (args.get("max_output_bytes"), settings.max_output_bytes) if b) if (
        args.get("max_output_bytes") or settings.max_output_bytes) else None
    if budget:
        output = _fit(output, budget)
    return output


def _truncation(result: dict[str, Any], found: int, limit: int, max_files: int | None) -> tuple[bool, str | None]:
    """FR-SF-SRC-08 / FR-SF-OUT: whether more exists than is shown, and why.

    More matches than ``limit`` were seen: ``max_results``. The native scan stopped at its own event
    cap (context lines included) before ``limit + 1`` matches were seen: more may exist, also
    ``max_results``. The walk reached ``max_files``: ``max_files``. A timeout truncates with no
    reason from the seed's list (``timed_out: true`` says why).
    """
    if found > limit or result.get("truncated_reason") == "max_results":
        return True, "max_results"
    if max_files and result["files_scanned"] >= max_files:
        return True, "max_files"
    if result["timed_out"]:
        return True, None
    return False, None


def _matches(events: list[dict[str, Any]], query: str, mode: str, case: str, context: int, base: str,
             ctx: CommandContext) -> tuple[list[dict[str, Any]], int]:
    found = [from_item(item) for item in events]  # typed events: no item's "type" read here
    lines: dict[str, dict[int, str]] = {}
    for e in found:
        lines.setdefault(e.path, {})[e.line] = maybe_redact(e.text, ctx)
    out: list[dict[str, Any]] = []
    files: set[str] = set()
    threshold = ctx.settings.fuzzy_threshold
    insensitive = ascii_case([query], case) == "insensitive"
    rel: dict[str, str] = {}
    for e in found:
        if not isinstance(e, Match):
            continue
        text = lines[e.path]
        subs = e.submatches or [Submatch(e.column, e.end_column, e.match_text)]
        path = rel.setdefault(e.path, relative_to(ctx.workspace, e.path, base))
        before = [text[n] for n in range(e.line - context, e.line) if n in text] if context else []
        after = [text[n] for n in range(e.line + 1, e.line + context + 1) if n in text] if context else []
        for sub in subs:
            score = None
            if mode == "fuzzy":
                score = _score(query, sub.match_text, insensitive)
                if score < threshold:
                    continue
            out.append({"path": path, "line": e.line, "column": sub.column,
                        "match_text": maybe_redact(sub.match_text, ctx), "line_text": text[e.line],
                        "before": before, "after": after, "score": score})
            files.add(path)
    return out, len(files)


def _fit(output: dict[str, Any], budget: int) -> dict[str, Any]:
    """FR-SF-OUT-03/05: drop trailing matches until the JSON fits; keep it valid."""
    if byte_len(dumps_compact(output)) <= budget:
        return output
    matches = output["matches"]

    def build(k: int) -> str:
        return dumps_compact(dict(output, matches=matches[:k], returned=k, truncated=True,
                                  truncated_reason="max_output_bytes"))

    text, kept = shrink_to_budget(build, len(matches), budget)
    shrunk = dict(output, matches=matches[:kept], returned=kept, truncated=True, truncated_reason="max_output_bytes")
    if byte_len(text) > budget:  # even with no matches: drop per-file errors, then the echoed query
        shrunk["errors"] = []
        if byte_len(dumps_compact(shrunk)) > budget:
            shrunk["query"] = shrunk["query"][:64]
    return shrunk


def _handler(raw: dict[str, Any], ctx: CommandContext) -> ToolResult:
    output = search_files(raw, ctx)
    return ToolResult(dumps_compact(output), False, output["returned"])


TOOLS = [
    ToolDefinition(
        name=TOOL, profile="forge", description=DESCRIPTION, input_schema=SCHEMA, handler=_handler,
        format_error=forge_error(TOOL), capabilities=("search", "content", "regex", "fuzzy"),
        query_keys=("query",),
    ),
]
