"""``sleuth.tools.call {name, arguments}`` (docs/SPEC.md §5, §8): run one profile tool.

Returns ``{content, is_error}``: ``content`` is exactly the string the seed's tool returns and a
tool-level failure (bad arguments, sandbox, missing path, timeout, rate limit) is a result with
``is_error: true`` whose content carries the seed's own error. Only an unknown tool
(:class:`UnknownTool`) or a malformed call (:class:`BadArgs`) raise, becoming JSON-RPC errors.

Around every call: the per-tool sliding-window rate limit (``rate_limit_per_minute``, on unless
``rate_limit_enabled`` is false); when the window is nearly used up the envelope carries
``rate_limit: {remaining, limit, reset_after_seconds}``. Each call is logged (tool, sanitised
query, result count, duration) on the ``sleuth.tools`` logger and recorded in the metrics.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from typing import Any, Mapping

from sleuth.commands.args import unwrap_arguments
from sleuth.commands.context import CommandContext
from sleuth.commands.profiles import ToolDefinition, ToolResult, lookup
from sleuth.engine.errors import BadArgs, Cancelled, RateLimited, SleuthError
from sleuth.engine.ratelimit import Decision, RateLimiter
from sleuth.engine.redact import log_string

__all__ = ["run", "call_tool", "shared_limiter", "LOG"]

LOG = logging.getLogger("sleuth.tools")

_limiter_lock = threading.Lock()
_shared: RateLimiter | None = None


def shared_limiter() -> RateLimiter:
    """The process-wide limiter used when the transport did not put one in ``Services``."""
    global _shared
    with _limiter_lock:
        if _shared is None:
            _shared = RateLimiter()
        return _shared


def _limiter(ctx: CommandContext) -> RateLimiter:
    limiter = ctx.services.rate_limiter
    return limiter if limiter is not None else shared_limiter()


def _limit_for(tool: ToolDefinition, ctx: CommandContext) -> int:
    settings = ctx.settings
    if not settings.rate_limit_enabled:
        return 0
    per_tool = dict(settings.rate_limit_per_tool)  # seed 004 AC-085: (tool name, calls per minute) pairs
    for key in (tool.qualified_name, tool.name):
        if key in per_tool:
            return int(per_tool[key])
    return settings.rate_limit_per_minute


def _parse(raw: Any) -> tuple[str, dict[str, Any]]:
    raw = unwrap_arguments(raw)
    if not isinstance(raw, Mapping):
        raise BadArgs("sleuth.tools.call: expected an object {name, arguments}.",
                      hint='Call it as {"name": "forge.Search", "arguments": {"pattern": "TODO"}}.')
    unknown = sorted(set(raw) - {"name", "arguments"})
    if unknown:
        raise BadArgs(f"sleuth.tools.call: unknown field(s) {', '.join(map(repr, unknown))}.",
                      hint="Pass only 'name' and 'arguments'.", argument=unknown[0])
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise BadArgs("sleuth.tools.call: 'name' must be a non-empty string.",
                      hint="Call sleuth.tools.list for the tool names.", argument="name")
    arguments = raw.get("arguments", {})
    if arguments is None:
        arguments = {}
    if isinstance(arguments, str):  # some clients pass the model's JSON text through unparsed
        import json

        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError as exc:
            raise BadArgs(f"sleuth.tools.call: 'arguments' is not valid JSON ({exc}).", argument="arguments") from exc
    if not isinstance(arguments, dict):
        raise BadArgs("sleuth.tools.call: 'arguments' must be an object.", argument="arguments")
    return name.strip(), arguments


def _query(tool: ToolDefinition, arguments: dict[str, Any]) -> Any:
    for key in tool.query_keys:
        if key in arguments:
            return arguments[key]
    return None


def _rate_limited(tool: ToolDefinition, decision: Decision) -> RateLimited:
    seconds = decision.retry_after_whole_seconds
    return RateLimited(
        f"Search rate limit exceeded ({decision.limit}/min) for {tool.qualified_name}; "
        f"retry after {seconds} seconds.",
        retry_after_seconds=seconds, hint=f"Wait {seconds} seconds, or combine several searches into one.",
        limit=decision.limit, remaining=0,
    )


def call_tool(tool: ToolDefinition, arguments: dict[str, Any], ctx: CommandContext) -> tuple[ToolResult, Decision]:
    """Rate-limit, run and format one call; Cancelled propagates."""
    decision = _limiter(ctx).acquire(tool.qualified_name, _limit_for(tool, ctx))
    if not decision.allowed:
        error = _rate_limited(tool, decision)
        return ToolResult(tool.format_error(error), True, None, error.code), decision
    try:
        result = tool.handler(arguments, ctx)
    except Cancelled:
        raise
    except SleuthError as error:
        return ToolResult(tool.format_error(error), True, None, error.code), decision
    except Exception as exc:  # a bug must not take the conversation down: the model gets a readable error
        LOG.exception("tool %s failed", tool.qualified_name)
        error = SleuthError(f"Internal error in {tool.qualified_name}: {type(exc).__name__}: {exc}",
                            hint="Retry with different arguments; report this if it persists.")
        return ToolResult(tool.format_error(error), True, None, error.code), decision
    if tool.announce_rate_limit and decision.limit and decision.near_limit and not result.is_error:
        result = _announce(result, decision)
    return result, decision


def _announce(result: ToolResult, decision: Decision) -> ToolResult:
    """Seed 004 FR-015b-30: tell the agent, in the content it reads, that the limit is near."""
    import json

    try:
        payload = json.loads(result.content)
    except ValueError:
        return result
    if not isinstance(payload, dict):
        return result
    payload["rate_limit"] = {"remaining": decision.remaining, "limit": decision.limit,
                             "reset_after_seconds": math.ceil(decision.reset_after_seconds)}
    return ToolResult(json.dumps(payload, ensure_ascii=False), result.is_error, result.result_count, result.error_code)


def run(raw: Any, ctx: CommandContext) -> dict[str, Any]:
    """The ``sleuth.tools.call`` command."""
    name, arguments = _parse(raw)
    tool = lookup(name, ctx.settings)
    started = time.perf_counter()
    error_code: str | None = "cancelled"
    result: ToolResult | None = None
    try:
        result, decision = call_tool(tool, arguments, ctx)
        error_code = result.error_code
    finally:
        elapsed = time.perf_counter() - started
        registry = ctx.services.metrics_registry
        registry.record(tool.qualified_name, elapsed, result.result_count if result else None, error_code)
        if error_code == "rate_limited":
            registry.record_rate_limited(tool.qualified_name)
            LOG.warning("rate limit hit: tool=%s", tool.qualified_name)
        LOG.info("tool=%s query=%s results=%s duration_ms=%.1f error=%s", tool.qualified_name,
                 log_string(_query(tool, arguments)), result.result_count if result else None,
                 elapsed * 1000, error_code or "none")
    envelope: dict[str, Any] = {"content": result.content, "is_error": result.is_error}
    if decision.limit and (decision.near_limit or not decision.allowed):
        envelope["rate_limit"] = {"remaining": decision.remaining, "limit": decision.limit,
                                  "reset_after_seconds": round(decision.reset_after_seconds, 1)}
    return envelope
