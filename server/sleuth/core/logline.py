"""One log line per invocation (docs/SPEC.md §8): command, sanitised query, result count, duration; every
transport writes the same line (``window/logMessage``, the MCP server's log, ``log_file``).

The query is what a user or a model typed, so before it is logged it is made safe: secrets
masked, the length capped, and written as a JSON string literal with ``$`` and backticks escaped
(:func:`sleuth.engine.redact.log_string`), so a line appended to a shell start-up file or shown
in a terminal is inert data. A command name that is not a plain dotted name is quoted the same way.
Every step looks at a bounded slice of the arguments: a 50 MB pattern is summarised as fast as a
short one (the line is built on the event loop). ``Settings.log_level`` (``error`` … ``debug``,
``off``) picks what is sent.
"""

from __future__ import annotations

import re
from typing import Any

from sleuth.engine.redact import REDACT_MARGIN, log_string, sanitize_query
from sleuth.engine.words import plural

__all__ = ["sanitise", "query_of", "result_count", "summary", "severity", "enabled", "MAX_QUERY_CHARS"]

MAX_QUERY_CHARS = 120
# query_of reads at most this much of the arguments: enough for the cut and its redaction margin.
_QUERY_SLICE = MAX_QUERY_CHARS + REDACT_MARGIN + 1
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_.:/-]{1,100}")
_LEVELS = {"error": 1, "warning": 2, "info": 3, "debug": 4, "off": 0}


def sanitise(text: Any) -> str:
    """``text`` safe for a log line: one line, no control characters, secrets masked, capped."""
    return sanitize_query(text if isinstance(text, str) else str(text), MAX_QUERY_CHARS)


def _bounded(value: Any, limit: int = _QUERY_SLICE) -> str:
    """``value`` as text, at most about ``limit`` characters, without converting more than that."""
    if isinstance(value, str):
        return value[:limit]
    if isinstance(value, (list, tuple)):
        parts: list[str] = []
        size = 0
        for item in value:
            if size >= limit:
                break
            part = _bounded(item, limit - size)
            parts.append(part)
            size += len(part) + 1
        return " ".join(parts)[:limit]
    if value is None or isinstance(value, (bool, int, float)):
        return str(value)[:limit]
    return f"<{type(value).__name__}>"


def query_of(args: Any) -> str | None:
    """The user-typed part of a command's arguments (pattern, query, globs, tool call), at most
    ``MAX_QUERY_CHARS`` plus the redaction margin: never a copy of a huge argument."""
    if not isinstance(args, dict):
        return None
    for key in ("pattern", "query", "patterns", "name"):
        if key in args:
            value = args[key]
            if key == "name" and isinstance(args.get("arguments"), dict):
                inner = query_of(args["arguments"])
                name = _bounded(value)
                return _bounded(f"{name} {inner}") if inner else name
            return _bounded(value)
    return None


def result_count(result: Any, streamed: int = 0) -> int | None:
    """How many results an invocation produced (streamed items included)."""
    if not isinstance(result, dict):
        return None
    for key in ("matches", "items", "files", "results", "tools"):
        if isinstance(result.get(key), list):
            return streamed + len(result[key])
    for key in ("count", "total"):
        if isinstance(result.get(key), int):
            return int(result[key])
    return None


def summary(command: str, args: Any, outcome: str, count: int | None, elapsed_ms: float) -> str:
    """``sleuth.grep query="foo" -> 12 results in 34 ms`` (or ``-> bad_args``); the query is a JSON string."""
    query = query_of(args)
    parts = [command if _PLAIN_NAME.fullmatch(command) else log_string(command[:_QUERY_SLICE], MAX_QUERY_CHARS)]
    if query is not None:
        parts.append(f"query={log_string(query, MAX_QUERY_CHARS)}")
    parts.append(f"-> {plural(count, 'result')}" if outcome == "ok" and count is not None else f"-> {outcome}")
    parts.append(f"in {elapsed_ms:.0f} ms")
    return " ".join(parts)


def enabled(log_level: str, severity: int) -> bool:
    """Whether a message of ``severity`` (1 error … 4 debug) passes ``log_level``."""
    return 0 < severity <= _LEVELS.get(log_level, 3)


def severity(outcome: str) -> int:
    """1 error (a bug), 2 warning (a refused call), 3 info (answered or cancelled)."""
    return 3 if outcome in ("ok", "cancelled") else (1 if outcome == "internal" else 2)
