"""The output budget (SPEC §8): shrink a result's list so its JSON fits ``max_output_bytes``.

Items are dropped from the end (the order is meaningful, so the kept prefix stays a valid
answer), ``truncated`` is set with ``truncated_reason: "max_output_bytes"``, and the result is
always complete, valid JSON — never a cut string.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["fit_to_budget", "json_size"]


def json_size(value: Any) -> int:
    """Bytes of ``value`` as compact UTF-8 JSON (how transports and tools serialise it)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def fit_to_budget(result: dict[str, Any], key: str, budget: int) -> dict[str, Any]:
    """``result`` with ``result[key]`` cut to the longest prefix that fits ``budget`` bytes."""
    if json_size(result) <= budget:
        return result
    items = result[key]
    shrunk = dict(result, truncated=True, truncated_reason="max_output_bytes")
    lo, hi = 0, len(items)  # invariant: items[:lo] fits (or lo == 0), items[:hi+1] does not
    while lo < hi:
        mid = (lo + hi + 1) // 2
        shrunk[key] = items[:mid]
        if json_size(shrunk) <= budget:
            lo = mid
        else:
            hi = mid - 1
    shrunk[key] = items[:lo]
    if "count" in shrunk and key == "matches":
        shrunk["count"] = sum(1 for item in shrunk[key] if item.get("type") != "context")
    return shrunk
