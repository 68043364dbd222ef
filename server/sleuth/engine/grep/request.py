"""A grep as the engine takes it and gives it back: validated options in, collected events out."""

from __future__ import annotations

from dataclasses import dataclass, field

from sleuth.engine.events import GrepEvent
from sleuth.engine.types import FileError, MatchOptions, SearchOptions, SkipCounts, WalkOptions
from sleuth.engine.workspace import Target

__all__ = ["GrepRequest", "GrepOutcome"]


@dataclass(frozen=True)
class GrepRequest:
    """A validated grep: where to look, what to match, how to report."""

    targets: tuple[Target, ...]
    walk: WalkOptions
    match: MatchOptions
    search: SearchOptions


@dataclass
class GrepOutcome:
    """What the collect step produced, before the commands layer shapes it (``items``: typed events,
    which the commands layer writes as the result object's items)."""

    items: list[GrepEvent]
    truncated: bool
    truncated_reason: str | None
    timed_out: bool
    files_scanned: int
    files_matched: int
    match_events: int
    streamed: int
    skipped: SkipCounts
    errors: list[FileError] = field(default_factory=list)
