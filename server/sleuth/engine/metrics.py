"""In-process metrics for commands and tools (docs/SPEC.md §4 ``sleuth.metrics``, §8; seed 004 FR-015b-38, AC-073..076).

Per name (a command such as ``sleuth.grep`` or a tool such as ``acode.grep``): invocations,
latency percentiles p50/p95/p99 over the most recent :data:`RESERVOIR` calls, the result-count
distribution in fixed buckets, errors by code, and rate-limit hits. All methods are thread-safe.

Transports and commands call the module-level :func:`record` / :func:`record_rate_limited`
(which feed :data:`DEFAULT`), or a :class:`Metrics` of their own when they hold one in
``Services.metrics``. :func:`snapshot` returns plain JSON-ready data.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from dataclasses import dataclass, field

__all__ = ["Metrics", "DEFAULT", "record", "record_rate_limited", "snapshot", "reset", "BUCKETS", "RESERVOIR"]

RESERVOIR = 2048
# Upper bounds of the result-count buckets; the last bucket is open ("1001+").
BUCKETS: tuple[int, ...] = (0, 1, 5, 10, 20, 50, 100, 200, 500, 1000)


def _bucket_labels() -> list[str]:
    labels: list[str] = []
    low = 0
    for high in BUCKETS:
        labels.append(str(high) if low == high else f"{low}-{high}")
        low = high + 1
    labels.append(f"{low}+")
    return labels


_LABELS = _bucket_labels()


def _bucket(count: int) -> str:
    for i, high in enumerate(BUCKETS):
        if count <= high:
            return _LABELS[i]
    return _LABELS[-1]


def _percentile(sorted_values: list[float], p: float) -> float:
    """Nearest-rank percentile of an ascending list (0 for an empty one)."""
    if not sorted_values:
        return 0.0
    rank = max(1, math.ceil(p / 100.0 * len(sorted_values)))
    return sorted_values[rank - 1]


@dataclass
class _Series:
    invocations: int = 0
    errors: int = 0
    rate_limited: int = 0
    total_ms: float = 0.0
    max_ms: float = 0.0
    latencies: deque[float] = field(default_factory=lambda: deque(maxlen=RESERVOIR))
    results: dict[str, int] = field(default_factory=dict)
    errors_by_code: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        ordered = sorted(self.latencies)
        return {
            "invocations": self.invocations,
            "errors": self.errors,
            "errors_by_code": dict(sorted(self.errors_by_code.items())),
            "rate_limited": self.rate_limited,
            "latency_ms": {
                "p50": round(_percentile(ordered, 50), 3),
                "p95": round(_percentile(ordered, 95), 3),
                "p99": round(_percentile(ordered, 99), 3),
                "mean": round(self.total_ms / self.invocations, 3) if self.invocations else 0.0,
                "max": round(self.max_ms, 3),
                "samples": len(ordered),
            },
            "result_counts": {label: self.results[label] for label in _LABELS if label in self.results},
        }


class Metrics:
    """A thread-safe registry of per-name series."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._series: dict[str, _Series] = {}
        self._started = time.time()

    def record(self, name: str, duration_s: float, result_count: int | None = None, error_code: str | None = None) -> None:
        """One finished invocation: its wall time, how many results it returned, its error code if it failed."""
        ms = max(0.0, duration_s * 1000.0)
        with self._lock:
            series = self._series.setdefault(name, _Series())
            series.invocations += 1
            series.total_ms += ms
            series.max_ms = max(series.max_ms, ms)
            series.latencies.append(ms)
            if error_code:
                series.errors += 1
                series.errors_by_code[error_code] = series.errors_by_code.get(error_code, 0) + 1
            if result_count is not None and result_count >= 0:
                label = _bucket(result_count)
                series.results[label] = series.results.get(label, 0) + 1

    def record_rate_limited(self, name: str) -> None:
        """A call refused by the rate limiter (also recorded as an invocation with code ``rate_limited``)."""
        with self._lock:
            self._series.setdefault(name, _Series()).rate_limited += 1

    def snapshot(self) -> dict[str, object]:
        """Everything recorded so far, as JSON-ready data."""
        with self._lock:
            per_name = {name: series.to_dict() for name, series in sorted(self._series.items())}
            totals = {
                "invocations": sum(s.invocations for s in self._series.values()),
                "errors": sum(s.errors for s in self._series.values()),
                "rate_limited": sum(s.rate_limited for s in self._series.values()),
            }
            errors_by_code: dict[str, int] = {}
            for series in self._series.values():
                for code, n in series.errors_by_code.items():
                    errors_by_code[code] = errors_by_code.get(code, 0) + n
        totals["errors_by_code"] = dict(sorted(errors_by_code.items()))
        return {"since": self._started, "uptime_s": round(time.time() - self._started, 3), "totals": totals, "by_name": per_name}

    def reset(self) -> None:
        with self._lock:
            self._series.clear()
            self._started = time.time()


DEFAULT = Metrics()


def record(name: str, duration_s: float, result_count: int | None = None, error_code: str | None = None) -> None:
    """Record one invocation in the process-wide :data:`DEFAULT` metrics."""
    DEFAULT.record(name, duration_s, result_count, error_code)


def record_rate_limited(name: str) -> None:
    """Count one rate-limit refusal in :data:`DEFAULT`."""
    DEFAULT.record_rate_limited(name)


def snapshot() -> dict[str, object]:
    """The process-wide metrics as JSON-ready data."""
    return DEFAULT.snapshot()


def reset() -> None:
    DEFAULT.reset()
