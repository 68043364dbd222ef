"""What a command needs besides its arguments: sandbox, settings, cancellation, progress, streaming.

Transports build one :class:`CommandContext` per invocation. Services that live longer than a
request (index, rate limiter, metrics, open buffers) hang off :class:`Services`, shared by all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol, runtime_checkable

from sleuth.commands.config import Settings
from sleuth.engine.cancel import CancelToken, NullProgress, ProgressSink
from sleuth.engine.events import GrepEvent
from sleuth.engine.workspace import Workspace

if TYPE_CHECKING:  # the service brings numpy and SQLite, which a cold CLI command never loads
    from sleuth.engine.index.service import IndexService
    from sleuth.engine.metrics import Metrics  # (these two: the servers', read only where they run)
    from sleuth.engine.ratelimit import RateLimiter

__all__ = ["CommandContext", "Services", "PartialSink", "EventStream"]

# Receives a batch of result items (grep events, file items, text results) in final order.
PartialSink = Callable[[list[dict[str, Any]]], None]


@runtime_checkable
class EventStream(Protocol):
    """A partial sink that takes a grep's events themselves (:mod:`sleuth.engine.events`), not their
    items: a door printing in the same process (the CLI's printers), where the item form would be
    made only to be read back."""

    def __call__(self, batch: list[dict[str, Any]]) -> None: ...

    def events(self, batch: list[GrepEvent]) -> None: ...


@dataclass
class Services:
    """Long-lived collaborators; any may be None where a transport has no use for it (the CLI has no buffers)."""

    open_buffers: Mapping[str, str] | None = None  # absolute path -> unsaved text
    index: IndexService | None = None  # when enabled
    rate_limiter: RateLimiter | None = None
    metrics: Metrics | None = None  # a Metrics registry; None: the process-wide one

    @property
    def metrics_registry(self) -> Metrics:
        """Where invocations are counted: ``metrics`` when set, else the process-wide registry."""
        if self.metrics is not None:
            return self.metrics
        from sleuth.engine.metrics import DEFAULT

        return DEFAULT


@dataclass
class CommandContext:
    """One invocation's world."""

    workspace: Workspace
    settings: Settings = field(default_factory=Settings)
    token: CancelToken = field(default_factory=CancelToken)
    progress: ProgressSink = NullProgress
    partial: PartialSink | None = None
    services: Services = field(default_factory=Services)
