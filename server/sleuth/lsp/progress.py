"""Work-done progress and partial results for one invocation, fed from its worker thread.

The engine calls its :class:`~sleuth.engine.cancel.ProgressSink` and the command calls
``ctx.partial(batch)`` from a worker thread; nothing here writes to the connection from that
thread. Both classes hand each message to ``post`` (the event loop's ``call_soon_threadsafe``),
so messages leave in the order they were produced and before the response, which the loop
sends only after the worker has returned.

* :class:`WorkDoneReporter` — ``$/progress`` begin / report / end on the request's
  ``workDoneToken`` or on a token the server created (``window/workDoneProgress/create``);
  reports carry a percentage and "N of M files" and are throttled so a fast walk does not
  flood the client.
* :class:`PartialSender` — ``$/progress {token, value: {<key>: [...]}}`` batches on the
  ``partialResultToken``, counting what was sent so the response can leave it out.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from lsprotocol import types

from sleuth.engine.words import plural

__all__ = ["WorkDoneReporter", "PartialSender", "Post", "Notify"]

Post = Callable[[Callable[[], None]], None]  # run a callable on the event loop, from any thread
Notify = Callable[[str, Any], None]  # send a notification (loop thread only)

REPORT_INTERVAL_S = 0.1


class WorkDoneReporter:
    """begin → report* → end on one progress token; safe to call ``sink`` from any thread."""

    def __init__(self, post: Post, notify: Notify, token: Any, title: str, *, ready: bool = True) -> None:
        self._post = post
        self._notify = notify
        self.token = token
        self.title = title
        self._ready = ready  # False until the client acknowledged a server-created token
        self._state = "new"  # new -> begun -> ended (loop thread only)
        self._finished: str | None = None  # end message requested before the token was ready
        self._lock = threading.Lock()
        self._last_sent = 0.0
        self._last_percentage = -1
        self._latest: tuple[int | None, str] | None = None

    # -- loop thread -------------------------------------------------------------------
    def begin(self) -> None:
        if not self._ready or self._state != "new":
            return
        self._state = "begun"
        self._send(types.WorkDoneProgressBegin(title=self.title, cancellable=True, message="starting", percentage=0))
        if self._latest is not None:
            percentage, message = self._latest
            self._report(percentage, message)
        if self._finished is not None:
            self.end(self._finished)

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
        """The engine's progress sink: throttled to one report per interval or percent step."""
        percentage = None
        if total:
            percentage = max(0, min(100, int(done * 100 / total)))
        if total is not None:  # "N of M files", plus what the engine says it is doing
            text = f"{done} of {plural(total, 'file')}" + (f" · {message}" if message and "files" not in message else "")
        else:  # total unknown while the walk runs: the engine's own words, else "N files"
            text = message or plural(done, "file")
        now = time.monotonic()
        with self._lock:
            due = now - self._last_sent >= REPORT_INTERVAL_S
            if not due and (percentage is None or percentage == self._last_percentage):
                self._latest = (percentage, text)
                return
            self._last_sent = now
            self._last_percentage = percentage if percentage is not None else self._last_percentage
            self._latest = (percentage, text)
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
