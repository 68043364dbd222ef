"""What a command needs besides its arguments: sandbox, settings, cancellation, progress, streaming.

Transports build one :class:`CommandContext` per invocation. Services that live longer than a
request (index, rate limiter, metrics, open buffers) hang off :class:`Services`, shared by all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sleuth.commands.config import Settings
from sleuth.engine.cancel import CancelToken, NullProgress, ProgressSink
from sleuth.engine.events import GrepEvent
from sleuth.engine.values import Record
from sleuth.engine.workspace import Workspace

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:  # the service brings numpy and SQLite, which a cold CLI command never loads
    from typing import Any, Protocol, TypeAlias, runtime_checkable
    from sleuth.engine.index.service import IndexService
    from sleuth.engine.metrics import Metrics  # (these two: the servers', read only where they run)
    from sleuth.engine.ratelimit import RateLimiter
else:
    from sleuth.engine.plain_typing import Protocol, runtime_checkable

__all__ = ["CommandContext", "Services", "PartialSink", "EventStream"]

# Receives a batch of result items (grep events, file items, text results) in final order.
PartialSink: TypeAlias = "Callable[[list[dict[str, Any]]], None]"


@runtime_checkable
class EventStream(Protocol):
    """A partial sink that takes a grep's events themselves (:mod:`sleuth.engine.events`), not their
    items: a door printing in the same process (the CLI's printers), where the item form would be
    made only to be read back."""

    def __call__(self, batch: list[dict[str, Any]]) -> None: ...

    def events(self, batch: list[GrepEvent]) -> None: ...


class Services(Record):
    """Long-lived collaborators; any may be None where a transport has no use for it (the CLI has no
    buffers). ``open_buffers``: absolute path -> unsaved text; ``index``: when enabled; ``metrics``: a
    Metrics registry, None for the process-wide one."""

    __slots__ = ("open_buffers", "index", "rate_limiter", "metrics")

    def __init__(self, open_buffers: Mapping[str, str] | None = None, index: IndexService | None = None,
                 rate_limiter: RateLimiter | None = None, metrics: Metrics | None = None) -> None:
        self.open_buffers = open_buffers
        self.index = index
        self.rate_limiter = rate_limiter
        self.metrics = metrics

    @property
    def metrics_registry(self) -> Metrics:
        """Where invocations are counted: ``metrics`` when set, else the process-wide registry."""
        if self.metrics is not None:
            return self.metrics
        from sleuth.engine.metrics import DEFAULT

        return DEFAULT


class CommandContext(Record):
    """One invocation's world (a :class:`~sleuth.engine.values.Record`, not a dataclass: a cold CLI
    call builds no dataclass, issue 30; copies are made with ``replace``)."""

    __slots__ = ("workspace", "settings", "token", "progress", "partial", "services")

    def __init__(self, workspace: Workspace, settings: Settings | None = None, token: CancelToken | None = None,
                 progress: ProgressSink = NullProgress, partial: PartialSink | None = None,
                 services: Services | None = None) -> None:
        self.workspace = workspace
        self.settings = Settings() if settings is None else settings
        self.token = CancelToken() if token is None else token
        self.progress = progress
        self.partial = partial
        self.services = Services() if services is None else services
