"""``codex.grep_files`` (seed 002): paths of files containing a pattern, most recently modified first.

Behaves as ``rg --files-with-matches --sortr=modified --regexp PATTERN --no-messages [--glob INCLUDE]
-- SEARCH_PATH`` did for codex: ``pattern`` is trimmed and must not be empty, ``include`` is one glob
(trimmed; empty means none; a leading ``!`` excludes, as rg's ``--glob`` does), ``path`` (default: the
first workspace folder) must exist, ``limit`` defaults to 100, must be > 0 and is capped at 2000.
The answer is the newline-joined absolute paths (rg prints them as given, and the search path is
absolute), newest first; ``No matches found.`` when none (an error result, as codex reports
``success: false``). A search running past 30 s answers ``rg timed out after 30 seconds`` with no
partial output. Paths that are not valid UTF-8 are skipped, as codex's parser skips them.
"""

from __future__ import annotations

import os
from typing import Any

from sleuth.commands.args import check_text
from sleuth.commands.context import CommandContext
from sleuth.commands.profiles import ToolDefinition, ToolResult
from sleuth.commands.profiles._common import absolute, fit_lines, native, plain_error
from sleuth.engine.errors import BadArgs, NotFound, SandboxViolation

__all__ = ["TOOLS", "SCHEMA", "DEFAULT_LIMIT", "MAX_LIMIT", "TIMEOUT_SECONDS", "NO_MATCHES"]

TOOL = "grep_files"
DEFAULT_LIMIT = 100
MAX_LIMIT = 2000
TIMEOUT_SECONDS = 30
NO_MATCHES = "No matches found."
DESCRIPTION = ("Finds files whose contents match the pattern and lists them by modification time "
               "(most recently modified first).")

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "description": "Regular expression pattern to search for."},
        "include": {"type": "string",
                    "description": "Optional glob that limits which files are searched (e.g. \"*.rs\" or \"*.{ts,tsx}\")."},
        "path": {"type": "string",
                 "description": "Directory or file path to search. Defaults to the session's working directory."},
        "limit": {"type": "integer", "minimum": 0,
                  "description": f"Maximum number of file paths to return (defaults to {DEFAULT_LIMIT}, "
                                 f"at most {MAX_LIMIT})."},
    },
    "required": ["pattern"],
    "additionalProperties": False,
}

_JSON_TYPES = {"pattern": str, "include": str, "path": str}


def _parse(raw: dict[str, Any]) -> dict[str, Any]:
    """serde's view of the arguments: wrong types are parse errors, unknown fields are ignored."""
    if not isinstance(raw, dict):
        raise ValueError("invalid type: expected struct GrepFilesArgs")
    if "pattern" not in raw or raw["pattern"] is None:
        raise ValueError("missing field `pattern`")
    args: dict[str, Any] = {}
    for key, kind in _JSON_TYPES.items():
        value = raw.get(key)
        if value is None:
            continue
        if not isinstance(value, kind):
            raise ValueError(f"invalid type: {type(value).__name__} {value!r}, expected a string")
        try:
            args[key] = check_text(key, value)
        except BadArgs as exc:  # serde's wording: a parse error of the arguments
            raise ValueError(exc.message) from None
    limit = raw.get("limit")
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise ValueError(f"invalid value: {limit!r}, expected usize")
        args["limit"] = limit
    return args


def _grep_files(raw: dict[str, Any], ctx: CommandContext) -> ToolResult:
    try:
        args = _parse(raw)
    except ValueError as exc:
        return ToolResult(f"failed to parse function arguments: {exc}", True, None, "bad_args")
    pattern = args["pattern"].strip()
    if not pattern:
        return ToolResult("pattern must not be empty", True, None, "bad_args")
    limit = args.get("limit", DEFAULT_LIMIT)
    if limit == 0:
        return ToolResult("limit must be greater than zero", True, None, "bad_args")
    limit = min(limit, MAX_LIMIT)
    include = (args.get("include") or "").strip() or None
    path = args.get("path")
    try:
        target = ctx.workspace.resolve(path)[0] if path else None
    except NotFound:
        return ToolResult(f"unable to access `{path}`: No such file or directory (os error 2)", True, None, "not_found")
    except SandboxViolation as exc:
        return ToolResult(f"unable to access `{path}`: {exc.message} {exc.hint}", True, None, exc.code)
    request: dict[str, Any] = {
        "pattern": pattern, "case": "sensitive", "output": "files_with_matches",
        "max_results": ctx.settings.max_results, "timeout_ms": TIMEOUT_SECONDS * 1000,
        "path": target.path if target else ctx.workspace.roots[0].path,
    }
    if include:
        request["exclude_globs" if include.startswith("!") else "include_globs"] = [include.lstrip("!")]
    try:
        result = native("sleuth.grep", request, ctx)
    except BadArgs as exc:
        return ToolResult(f"rg failed: {exc.message}", True, None, exc.code)
    if result["timed_out"]:
        return ToolResult(f"rg timed out after {TIMEOUT_SECONDS} seconds", True, None, "timeout")
    found: list[tuple[float, str]] = []
    for item in result["matches"]:
        if "\ufffd" in item["path"]:
            continue  # not valid UTF-8 on disk: codex's parser drops such lines
        full = absolute(ctx.workspace, item["path"])
        try:
            mtime = os.stat(full).st_mtime
        except OSError:
            continue  # vanished since the search
        found.append((mtime, full))
    found.sort(key=lambda pair: (-pair[0], pair[1]))
    paths = [p for _, p in found[:limit]]
    if not paths:
        return ToolResult(NO_MATCHES, True, 0)
    note = "... (more paths omitted to fit the output budget; narrow the search or lower limit)"
    paths, cut = fit_lines(paths, ctx.settings.max_output_bytes, note)
    return ToolResult("\n".join(paths + ([note] if cut else [])), False, len(paths))


TOOLS = [
    ToolDefinition(
        name=TOOL, profile="codex", description=DESCRIPTION, input_schema=SCHEMA, handler=_grep_files,
        format_error=plain_error, capabilities=("search", "content", "regex", "files"), query_keys=("pattern",),
    ),
]
