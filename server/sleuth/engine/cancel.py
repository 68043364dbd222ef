"""Cancellation tokens and progress sinks: the one mechanism behind LSP cancel, CLI Ctrl-C and ``timeout_ms``.

Python threads cannot be interrupted, so every long loop in the engine polls a :class:`CancelToken`
(cheaply: an ``Event.is_set`` plus a clock read) and stops at the next file or chunk. A token
can carry a deadline; the loop tells the two apart through :attr:`CancelToken.timed_out`
so a timeout returns partial results while a cancel raises :class:`~sleuth.engine.errors.Cancelled`.
"""

from __future__ import annotations

import _thread
import time
from collections.abc import Callable

from sleuth.engine.errors import Cancelled

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import Any, Protocol
else:
    from sleuth.engine.plain_typing import Protocol

__all__ = ["CancelToken", "ProgressSink", "NullProgress"]


class CancelToken:
    """Set by a transport (cancel request, Ctrl-C) or by its own deadline; polled by the engine."""

    __slots__ = ("_set", "_event", "_deadline", "_callbacks", "_lock", "timed_out")

    def __init__(self, timeout_ms: int | None = None) -> None:
        # A flag, and a threading.Event only for a caller that waits (wait): a cold grep never does, and
        # never imports threading (with _weakrefset ~0.5 ms of its start: issue 30)
        self._set = False
        self._event: Any = None
        self._deadline = None if timeout_ms is None else time.monotonic() + timeout_ms / 1000.0
        self._callbacks: list[Callable[[], None]] = []
        self._lock = _thread.allocate_lock()  # threading.Lock itself
        self.timed_out = False

    def cancel(self) -> None:
        """Ask the work to stop; idempotent and thread-safe."""
        with self._lock:
            if self._set:
                return
            self._fire()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def on_cancel(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once when the token is cancelled (at once if it already is)."""
        with self._lock:
            if not self._set:
                self._callbacks.append(callback)
                return
        callback()

    def with_deadline(self, timeout_ms: int | None) -> "CancelToken":
        """A token for one operation: cancelled with this one, and stopping at the earlier of the two
        deadlines. This token is left as it is, so a context reused for several commands does not
        inherit the first command's deadline."""
        if timeout_ms is None:
            return self
        child = CancelToken(timeout_ms)
        if self._deadline is not None and (child._deadline is None or self._deadline < child._deadline):
            child._deadline = self._deadline
        self.on_cancel(child.cancel)
        return child

    @property
    def deadline(self) -> float | None:
        """The absolute ``time.monotonic()`` deadline (shared by every process on the machine), or None."""
        return self._deadline

    def remaining_seconds(self) -> float | None:
        """Seconds until the deadline (never negative), or None without one: a per-buffer budget."""
        return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())

    @property
    def cancelled(self) -> bool:
        """True once cancelled by the caller (not by the deadline)."""
        return self._set and not self.timed_out

    def should_stop(self) -> bool:
        """The poll: True when the caller cancelled or the deadline passed (sets ``timed_out``)."""
        if self._set:
            return True
        if self._deadline is not None and time.monotonic() >= self._deadline:
            self.timed_out = True
            self._fire()
            return True
        return False

    def raise_if_cancelled(self) -> None:
        """Raise :class:`Cancelled` when the caller cancelled; a passed deadline does not raise."""
        if self.should_stop() and not self.timed_out:
            raise Cancelled("The operation was cancelled.")

    def wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds`` or until cancelled; returns True if cancelled meanwhile."""
        if self._set:
            return True
        with self._lock:
            if self._event is None:
                import threading

                self._event = threading.Event()
            event = self._event
        if self._set:  # set before the event existed (_fire found none to set)
            event.set()
        return bool(event.wait(seconds))

    def _fire(self) -> None:
        """The flag first, then the event of a caller waiting (:meth:`wait` checks the flag again once
        its event exists, so a wait never misses the cancel)."""
        self._set = True
        event = self._event
        if event is not None:
            event.set()


class ProgressSink(Protocol):
    """Receives ``(done, total, message)``; ``total`` is None while unknown (the walk is still running)."""

    def __call__(self, done: int, total: int | None, message: str) -> None: ...


def NullProgress(done: int, total: int | None, message: str) -> None:  # noqa: N802 - a sink, used like a constant
    """The sink for callers that do not show progress."""
