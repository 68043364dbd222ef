"""``sleuth.metrics {name?, reset?}`` (docs/SPEC.md §4, §8; seed 004 AC-073..076): the metrics snapshot.

Invocations, latency p50/p95/p99, result-count distribution, errors by code and rate-limit hits
per command and tool (see :mod:`sleuth.engine.metrics`). ``name`` keeps only names starting with
it (``acode.`` for the acode tools); ``reset: true`` clears the counters after taking the snapshot.
"""

from __future__ import annotations

from typing import Any

from sleuth.commands.args import Arg, parse_args
from sleuth.commands.context import CommandContext

__all__ = ["run", "METRICS_ARGS"]

METRICS_ARGS: dict[str, Arg] = {
    "name": Arg("str", "Keep only commands and tools whose name starts with this (e.g. 'acode.')."),
    "reset": Arg("bool", "Clear the counters after taking the snapshot.", default=False),
}


def run(raw: Any, ctx: CommandContext) -> dict[str, Any]:
    args = parse_args("sleuth.metrics", raw, METRICS_ARGS, ctx.settings)
    prefix, reset = args["name"], args["reset"]
    registry = ctx.services.metrics_registry
    snap = registry.snapshot()
    if prefix:
        snap["by_name"] = {k: v for k, v in snap["by_name"].items() if k.startswith(prefix)}  # type: ignore[union-attr]
    if reset:
        registry.reset()
    return snap
