"""One log line per invocation (SPEC §8): command, sanitised query, result count, duration.

The query is what a user or a model typed, so before it is logged it is made safe to show:
control characters stripped, secrets masked and the length capped
(:func:`sleuth.engine.redact.sanitize_query`). Every transport writes the same line.
"""

from __future__ import annotations

from typing import Any

from sleuth.engine.redact import sanitize_query

__all__ = ["sanitise", "query_of", "result_count", "summary", "severity", "enabled"]

MAX_QUERY_CHARS = 120
_LEVELS = {"error": 1, "warning": 2, "info": 3, "debug": 4, "off": 0}


def sanitise(text: Any) -> str:
    """``text`` safe for a log line: one line, no control characters, secrets masked, capped."""
    return sanitize_query(text if isinstance(text, str) else str(text), MAX_QUERY_CHARS)


def query_of(args: Any) -> str | None:
    """The user-typed part of a command's arguments (pattern, query, globs, tool call)."""
    if not isinstance(args, dict):
        return None
    for key in ("pattern", "query", "patterns", "name"):
        if key in args:
            value = args[key]
            if key == "name" and isinstance(args.get("arguments"), dict):
                inner = query_of(args["arguments"])
                return f"{value} {inner}" if inner else str(value)
            return " ".join(map(str, value)) if isinstance(value, list) else str(value)
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
    """``sleuth.grep query="foo" -> 12 results in 34 ms`` (or ``-> bad_args``)."""
    query = query_of(args)
    parts = [command]
    if query is not None:
        parts.append(f'query="{sanitise(query)}"')
    parts.append(f"-> {count} results" if outcome == "ok" and count is not None else f"-> {outcome}")
    parts.append(f"in {elapsed_ms:.0f} ms")
    return " ".join(parts)


def severity(outcome: str) -> int:
    """1 error (a bug), 2 warning (a refused call), 3 info (answered or cancelled)."""
    return 3 if outcome in ("ok", "cancelled") else (1 if outcome == "internal" else 2)


def enabled(log_level: str, level: int) -> bool:
    """Whether a message of ``level`` (1 error … 4 debug) passes ``log_level``."""
    return 0 < level <= _LEVELS.get(log_level, 3)
