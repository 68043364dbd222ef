"""A grep as the engine takes it and gives it back: validated options in, collected events out."""

from __future__ import annotations


from sleuth.engine.events import GrepEvent
from sleuth.engine.types import FileError, MatchOptions, SearchOptions, SkipCounts, WalkOptions
from sleuth.engine.values import Record, Value, fill
from sleuth.engine.workspace import Target

__all__ = ["GrepRequest", "GrepOutcome"]


class GrepRequest(Value):
    """A validated grep: where to look, what to match, how to report."""

    __slots__ = ("targets", "walk", "match", "search")
    targets: tuple[Target, ...]
    walk: WalkOptions
    match: MatchOptions
    search: SearchOptions

    def __init__(self, targets: tuple[Target, ...], walk: WalkOptions, match: MatchOptions,
                 search: SearchOptions) -> None:
        fill(self, "targets", targets)
        fill(self, "walk", walk)
        fill(self, "match", match)
        fill(self, "search", search)


class GrepOutcome(Record):
    """What the collect step produced, before the commands layer shapes it (``items``: typed events,
    which the commands layer writes as the result object's items)."""

    __slots__ = ("items", "truncated", "truncated_reason", "timed_out", "files_scanned", "files_matched",
                 "match_events", "streamed", "skipped", "errors", "bytes_searched")

    def __init__(self, items: list[GrepEvent], truncated: bool, truncated_reason: str | None, timed_out: bool,
                 files_scanned: int, files_matched: int, match_events: int, streamed: int, skipped: SkipCounts,
                 errors: list[FileError] | None = None, bytes_searched: int | None = None) -> None:
        self.items = items
        self.truncated = truncated
        self.truncated_reason = truncated_reason
        self.timed_out = timed_out
        self.files_scanned = files_scanned
        self.files_matched = files_matched
        self.match_events = match_events
        self.streamed = streamed
        self.skipped = skipped
        self.errors: list[FileError] = [] if errors is None else errors
        self.bytes_searched = bytes_searched  # (asked with byte_offsets) rg --stats' count
