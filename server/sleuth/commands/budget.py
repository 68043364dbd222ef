"""The output budget (docs/SPEC.md §8): shrink a result's list so its JSON fits ``max_output_bytes``.

Items are dropped from the end (the order is meaningful, so the kept prefix stays a valid
answer), ``truncated`` is set with ``truncated_reason: "max_output_bytes"``, and the result is
always complete, valid JSON — never a cut string. What the items mean is the caller's: a grep
counts its kept match events itself (:mod:`sleuth.commands.grep`).
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["fit_to_budget", "json_size", "shrink_to_budget"]


def _dumps(value: Any) -> str:
    import json  # (a call with an output budget only: the CLI's have none)

    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def json_size(value: Any) -> int:
    """Bytes of ``value`` as compact UTF-8 JSON (how transports and tools serialise it)."""
    return len(_dumps(value).encode("utf-8"))


def fit_to_budget(result: dict[str, Any], key: str, budget: int) -> dict[str, Any]:
    """``result`` with ``result[key]`` cut to the longest prefix that fits ``budget`` bytes (a new
    dict when cut; ``result`` itself when it fits)."""
    if json_size(result) <= budget:
        return result
    items = result[key]
    shrunk = dict(result, truncated=True, truncated_reason="max_output_bytes")

    def build(k: int) -> str:
        shrunk[key] = items[:k]
        return _dumps(shrunk)

    _, kept = shrink_to_budget(build, len(items), budget)
    shrunk[key] = items[:kept]
    return shrunk


def shrink_to_budget(build: Callable[[int], str], count: int, budget: int) -> tuple[str, int]:
    """The longest output ``build(k)`` (k items kept, k <= count) within ``budget`` bytes, and k.

    ``build`` must produce valid output for every k; the result for k = 0 is returned even when
    it alone is over budget (the caller decides what else to drop).
    """
    full = build(count)
    if len(full.encode("utf-8")) <= budget:
        return full, count
    lo, hi = 0, count - 1  # build(hi + 1) is over budget
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if len(build(mid).encode("utf-8")) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return build(lo), lo
