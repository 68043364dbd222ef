"""Work-done progress and partial results for one invocation, fed from its worker thread.

The engine calls its :class:`~sleuth.engine.cancel.ProgressSink` and the command calls
``ctx.partial(batch)`` from a worker thread; nothing here writes to the connection from that
thread. Both classes hand each message to ``post`` (the event loop's ``call_soon_threadsafe``),
so messages leave in the order they were produced and before the response, which the loop
sends only after the worker has returned.

* :class:`WorkDoneReporter` — ``$/progress`` begin / report / end on the request's
  ``workDoneToken`` or on a token the server created (``window/workDoneProgress/create``);
  reports carry a percentage and "N of M files", at most one per ``REPORT_INTERVAL_S`` (a fast
  search does not flood the client; the last state held back is sent before ``end``), and, with a
  ``heartbeat``, at least one per ``HEARTBEAT_S`` while the work runs, repeating the latest state
  if the engine said nothing new (a file of a slow pattern can take longer than that): a person
  watching sees the search is alive.
* :class:`PartialSender` — ``$/progress {token, value: {<key>: [...]}}`` batches on the
  ``partialResultToken``, counting what was sent so the response can leave it out.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any, Callable

from lsprotocol import types

from sleuth.engine.words import plural

__all__ = ["WorkDoneReporter", "PartialSender", "Post", "Notify", "REPORT_INTERVAL_S", "HEARTBEAT_S"]

Post = Callable[[Callable[[], None]], None]  # run a callable on the event loop, from any thread
Notify = Callable[[str, Any], None]  # send a notification (loop thread only)

REPORT_INTERVAL_S = 0.1  # reports at most this often
HEARTBEAT_S = 0.2  # ... and, with a heartbeat, at least this often (a client sees a gap of up to ~250 ms)


class WorkDoneReporter:
    """begin → report* → end on one progress token; safe to call ``sink`` from any thread."""

    def __init__(self, post: Post, notify: Notify, token: Any, title: str, *, ready: bool = True,
                 heartbeat: bool = False) -> None:
        self._post = post
        self._notify = notify
        self.token = token
        self.title = title
        self._ready = ready  # False until the client acknowledged a server-created token
        self._state = "new"  # new -> begun -> ended (loop thread only)
        self._finished: str | None = None  # end message requested before the token was ready
        self._lock = threading.Lock()
        self._last_sent = 0.0
        self._latest: tuple[int | None, str] | None = None
        self._held = False  # the latest state was throttled and not sent yet
        self._heartbeat = heartbeat
        self._beat: asyncio.TimerHandle | None = None

    # -- loop thread -------------------------------------------------------------------
    def begin(self) -> None:
        if not self._ready or self._state != "new":
            return
        self._state = "begun"
        self._send(types.WorkDoneProgressBegin(title=self.title, cancellable=True, message="starting", percentage=0))
        if self._latest is not None:
            with self._lock:
                percentage, message = self._latest
                self._held = False
                self._last_sent = time.monotonic()
            self._report(percentage, message)
        if self._finished is not None:
            self.end(self._finished)
            return
        if self._heartbeat:
            try:
                self._beat = asyncio.get_running_loop().call_later(HEARTBEAT_S, self._tick)
            except RuntimeError:  # not on an event loop: no heartbeat
                self._beat = None

    def _tick(self) -> None:
        """The heartbeat: the latest state again when nothing was reported for ``HEARTBEAT_S``."""
        if self._state != "begun":
            return
        now = time.monotonic()
        with self._lock:
            quiet = now - self._last_sent
            if quiet >= HEARTBEAT_S - 0.005:
                self._last_sent = now
                self._held = False
                percentage, message = self._latest or (None, "working")
        if quiet >= HEARTBEAT_S - 0.005:
            self._report(percentage, message)
            quiet = 0.0
        loop = asyncio.get_running_loop()
        self._beat = loop.call_later(max(0.01, HEARTBEAT_S - quiet), self._tick)

    def created(self) -> None:
        """The client accepted the server-created token: start reporting on it."""
        self._ready = True
        self.begin()

    def end(self, message: str) -> None:
        if self._state == "ended":
            return
        if self._state == "new":
            self._finished = message  # sent once the token is ready (or never, if it never is)
            return
        if self._beat is not None:
            self._beat.cancel()
            self._beat = None
        with self._lock:
            held, self._held = self._held, False
            latest = self._latest
        if held and latest is not None:  # the last state the throttle held back
            self._report(*latest)
        self._state = "ended"
        self._send(types.WorkDoneProgressEnd(message=message))

    def _report(self, percentage: int | None, message: str) -> None:
        if self._state != "begun":
            return
        self._send(types.WorkDoneProgressReport(message=message, percentage=percentage, cancellable=True))

    def _send(self, value: Any) -> None:
        self._notify(types.PROGRESS, types.ProgressParams(token=self.token, value=value))

    # -- worker thread -----------------------------------------------------------------
    def sink(self, done: int, total: int | None, message: str = "") -> None:
        """The engine's progress sink: at most one report per ``REPORT_INTERVAL_S``."""
        percentage = None
        if total:
            percentage = max(0, min(100, int(done * 100 / total)))
        if total is not None:  # "N of M files", plus what the engine says it is doing
            text = f"{done} of {plural(total, 'file')}" + (f" · {message}" if message and "files" not in message else "")
        else:  # total unknown while the walk runs: the engine's own words, else "N files"
            text = message or plural(done, "file")
        now = time.monotonic()
        with self._lock:
            self._latest = (percentage, text)
            if now - self._last_sent < REPORT_INTERVAL_S:
                self._held = True
                return
            self._last_sent = now
            self._held = False
        self._post(lambda: self._report(percentage, text))


class PartialSender:
    """``ctx.partial`` for a request with a ``partialResultToken``."""

    def __init__(self, post: Post, notify: Notify, token: Any, key: str) -> None:
        self._post = post
        self._notify = notify
        self.token = token
        self.key = key
        self.sent = 0  # items handed to the loop (worker thread writes, loop reads after join)
        self._first_item: dict[str, Any] | None = None
        self._closed = False

    def __call__(self, batch: list[dict[str, Any]]) -> None:
        if not batch or self._closed:
            return
        items = list(batch)
        if self._first_item is None:
            self._first_item = items[0]
        self.sent += len(items)
        self._post(lambda: self._send(items))

    def _send(self, items: list[dict[str, Any]]) -> None:
        if self._closed:
            return
        self._notify(types.PROGRESS, types.ProgressParams(token=self.token, value={self.key: items}))

    def close(self) -> None:
        """The response is going out: anything produced later would contradict it."""
        self._closed = True

    def trim(self, result: dict[str, Any]) -> dict[str, Any]:
        """``result`` without the items already streamed.

        Commands are asked to leave streamed items out themselves (grep and files do); one
        that returns its full list (it still starts with the first streamed item) is trimmed here.
        """
        items = result.get(self.key)
        if isinstance(items, list) and self.sent and items and items[0] == self._first_item:
            result = dict(result)
            result[self.key] = items[self.sent:]
        return result
