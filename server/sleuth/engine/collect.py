"""Collect per-file results in final order: limits, exact truncation, streaming (ripgrep's printer/sink side).

Files arrive already in final order (the walk yields them sorted and the scheduler re-orders
parallel results), so collecting is appending. ``max_results`` counts match and context events
alike (seed 001 FR-LS-06b); truncation is exact because one item beyond the limit is observed
and dropped (FR-LS-06a) before the search is told to stop. Items go to the partial-result sink
as soon as they are final, never the observed extra one.

Items are typed events (:mod:`sleuth.engine.events`): a file's :class:`Match` and :class:`Context`
lines, or with ``output`` ``files_with_matches``/``count`` one :class:`End` per file (its ``count``
set for ``count``), or with ``files_without_match`` one :class:`End` (``matched`` False) per file that
had no match. The commands layer writes them as the result object's items.
"""

from __future__ import annotations

from collections.abc import Callable

from sleuth.engine.events import Context, End, GrepEvent
from sleuth.engine.search import FileResult
from sleuth.engine.types import OutputMode

__all__ = ["Collector", "EventBatches", "item_count"]

EventBatches = Callable[[list[GrepEvent]], None]  # receives the collected events, batch after batch


def item_count(result: FileResult, output: OutputMode) -> int:
    """The items ``result`` gives the answer before any cap: its events (``content``: with ``--passthru``
    a file without a match has them too), one for a
    matching file (``files_with_matches``, ``count``), or one for a file searched whole without a
    match (``files_without_match``: rg's ``--files-without-match``; a file passed over as binary or
    too large, or one that could not be read, is neither)."""
    if output == "files_without_match":
        return 0 if result.matched_lines or result.error or result.skipped else 1
    if output == "content":  # (a file without a match has events with --passthru only: its lines as context)
        return len(result.events)
    return 1 if result.matched_lines else 0


class Collector:
    """Accumulates items up to ``max_results`` and knows whether more existed."""

    def __init__(self, max_results: int, output: OutputMode = "content", sink: EventBatches | None = None) -> None:
        self.max_results = max_results
        self.output = output
        self.sink = sink
        self.items: list[GrepEvent] = []
        self.truncated = False
        self.truncated_reason: str | None = None
        self.files_matched = 0
        self.match_events = 0
        self._sent = 0

    @property
    def full(self) -> bool:
        """True once an item past the limit was seen: nothing more can change the result."""
        return self.truncated

    def add(self, result: FileResult) -> bool:
        """Take one file's result; returns False when the caller should stop searching."""
        if self.truncated:
            return False
        if result.matched_lines:
            self.files_matched += 1
        if not item_count(result, self.output):
            return True
        items: list[GrepEvent]
        if self.output == "files_without_match":
            items = [End(result.display, None, False)]
        elif self.output == "files_with_matches":
            items = [End(result.display, None, True)]
        elif self.output == "count":
            items = [End(result.display, result.matched_lines if result.matches is None else result.matches, True)]
        else:
            items = result.events  # type: ignore[assignment]  # (a list of line events is a list of events)
        room = self.max_results - len(self.items)
        if len(items) > room:
            items = items[:room]
            self.truncated = True
            self.truncated_reason = "max_results"
        self.items.extend(items)
        self.match_events += sum(1 for item in items if not isinstance(item, Context))
        return not self.truncated

    def flush(self) -> None:
        """Send what is final and not yet sent to the partial-result sink."""
        if self.sink is not None and self._sent < len(self.items):
            batch = self.items[self._sent:]
            self._sent = len(self.items)
            self.sink(batch)

    @property
    def streamed(self) -> int:
        """How many items already went to the sink (the response leaves them out)."""
        return self._sent
