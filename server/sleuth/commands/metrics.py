"""``sleuth.metrics {name?, reset?}`` (SPEC §4, §8; seed 004 AC-073..076): the metrics snapshot.

Invocations, latency p50/p95/p99, result-count distribution, errors by code and rate-limit hits
per command and tool (see :mod:`sleuth.engine.metrics`). ``name`` keeps only names starting with
it (``acode.`` for the acode tools); ``reset: true`` clears the counters after taking the snapshot.
"""

from __future__ import annotations

from typing import Any

from sleuth.commands.args import unwrap_arguments
from sleuth.commands.context import CommandContext
from sleuth.engine import metrics as _metrics
from sleuth.engine.errors import BadArgs

__all__ = ["run"]


def run(raw: Any, ctx: CommandContext) -> dict[str, Any]:
    raw = unwrap_arguments(raw) or {}
    if not isinstance(raw, dict):
        raise BadArgs("sleuth.metrics: expected an object {name?, reset?}.")
    unknown = sorted(set(raw) - {"name", "reset"})
    if unknown:
        raise BadArgs(f"sleuth.metrics: unknown argument(s) {', '.join(map(repr, unknown))}.",
                      hint="Pass 'name' (a prefix) and/or 'reset', or nothing.", argument=unknown[0])
    prefix = raw.get("name")
    reset = raw.get("reset", False)
    if prefix is not None and not isinstance(prefix, str):
        raise BadArgs("sleuth.metrics: 'name' must be a string.", argument="name")
    if not isinstance(reset, bool):
        raise BadArgs("sleuth.metrics: 'reset' must be true or false.", argument="reset")
    registry = ctx.services.metrics if isinstance(ctx.services.metrics, _metrics.Metrics) else _metrics.DEFAULT
    snap = registry.snapshot()
    if prefix:
        snap["by_name"] = {k: v for k, v in snap["by_name"].items() if k.startswith(prefix)}  # type: ignore[union-attr]
    if reset:
        registry.reset()
    return snap
