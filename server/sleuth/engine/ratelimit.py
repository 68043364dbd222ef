"""Sliding-window rate limits per key (docs/SPEC.md §8; seed 004 threat 3, FR-015b-28..31, AC-048..056).

One :class:`RateLimiter` is shared by every request of a server (or CLI process); each key (a tool
name such as ``acode.grep``) has its own window of acquisition times. :meth:`RateLimiter.acquire`
is atomic under a lock, so concurrent calls never admit more than ``limit`` per window.
The limit is passed per call, so a configuration change applies to the very next request.

A :class:`Decision` says whether the call may run, how many calls remain in the window, when the
oldest one leaves it (``retry_after_seconds`` when refused), and whether the caller should be
warned that the limit is near (``near_limit``: remaining at or below a fifth of the limit).
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable

__all__ = ["Decision", "RateLimiter", "DEFAULT_WINDOW_SECONDS"]

DEFAULT_WINDOW_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class Decision:
    """The outcome of one :meth:`RateLimiter.acquire`."""

    allowed: bool
    limit: int
    remaining: int
    retry_after_seconds: float  # 0 when allowed
    reset_after_seconds: float  # until the oldest counted call leaves the window

    @property
    def near_limit(self) -> bool:
        """True when the caller should be told how much budget is left."""
        return self.limit > 0 and self.remaining <= max(1, math.ceil(self.limit / 5))

    @property
    def retry_after_whole_seconds(self) -> int:
        """``retry_after_seconds`` rounded up, at least 1 when refused (what error payloads carry)."""
        return max(1, math.ceil(self.retry_after_seconds)) if not self.allowed else 0


class RateLimiter:
    """Thread-safe sliding windows keyed by name; ``limit <= 0`` means unlimited."""

    def __init__(self, window_seconds: float = DEFAULT_WINDOW_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        self._window = window_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._stamps: dict[str, deque[float]] = {}

    def acquire(self, key: str, limit: int) -> Decision:
        """Count one call for ``key`` if the window has room; never blocks."""
        if limit <= 0:
            return Decision(True, 0, 0, 0.0, 0.0)
        with self._lock:
            now = self._clock()
            stamps = self._stamps.setdefault(key, deque())
            horizon = now - self._window
            while stamps and stamps[0] <= horizon:
                stamps.popleft()
            if len(stamps) >= limit:
                wait = stamps[len(stamps) - limit] + self._window - now
                return Decision(False, limit, 0, max(wait, 0.001), max(wait, 0.001))
            stamps.append(now)
            reset = stamps[0] + self._window - now
            return Decision(True, limit, limit - len(stamps), 0.0, reset)

    def export_state(self) -> dict[str, list[float]]:
        """The live acquisition times per key (for a process that persists its windows, like the CLI)."""
        with self._lock:
            horizon = self._clock() - self._window
            return {key: [t for t in stamps if t > horizon] for key, stamps in self._stamps.items() if stamps}

    def import_state(self, state: dict[str, list[float]]) -> None:
        """Merge acquisition times saved by :meth:`export_state` (same clock, e.g. ``time.time``)."""
        with self._lock:
            for key, times in state.items():
                merged = sorted({*self._stamps.get(key, ()), *(float(t) for t in times)})
                self._stamps[key] = deque(merged)

    def reset(self, key: str | None = None) -> None:
        """Forget every window (or one key's)."""
        with self._lock:
            if key is None:
                self._stamps.clear()
            else:
                self._stamps.pop(key, None)
