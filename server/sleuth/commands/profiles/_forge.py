"""What the two forge tools share: their ``ToolError`` kinds and how Sleuth errors map onto them.

Forge tools fail with ``ToolError::BadArgs``, ``ToolError::SandboxViolation`` or
``ToolError::ExecutionFailed`` (seed 000 FR-SF-ERR, seed 001 FR-LS-ERR); the tool result then is
``{"error": {"kind": ..., "message": ...}}`` (docs/SPEC.md §5). A missing path, an unusable backend, a
timeout without results and a rate-limit refusal are all ``ExecutionFailed``.
"""

from __future__ import annotations

from typing import Any, Callable

from sleuth.commands.profiles._common import argument_of, dumps_compact
from sleuth.engine.errors import BadArgs, RateLimited, SandboxViolation, SleuthError

__all__ = ["forge_error", "error_content", "kind_of"]


def kind_of(error: SleuthError) -> str:
    if isinstance(error, BadArgs):
        return "BadArgs"
    if isinstance(error, SandboxViolation):
        return "SandboxViolation"
    return "ExecutionFailed"


def error_content(kind: str, message: str, **extra: Any) -> str:
    """The forge error object as the tool's output string."""
    return dumps_compact({"error": {"kind": kind, "message": message, **extra}})


def forge_error(tool: str) -> Callable[[SleuthError], str]:
    """A ``format_error`` for a forge tool: the Sleuth error's message and hint in forge's shape."""

    def format_error(error: SleuthError) -> str:
        extra: dict[str, Any] = {}
        if isinstance(error, RateLimited):
            extra["retry_after_seconds"] = error.data.get("retry_after_seconds")
        if "position" in error.data:
            extra["position"] = error.data["position"]
        message = error.message
        argument = argument_of(error)
        if argument and f"'{argument}'" not in message:
            message = f"invalid '{argument}': {message}"
        message = message if message.startswith(tool) else f"{tool}: {message}"
        if error.hint and error.hint not in message:
            message = f"{message} {error.hint}"
        return error_content(kind_of(error), message, **extra)

    return format_error
