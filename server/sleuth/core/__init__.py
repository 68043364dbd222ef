"""The transport-neutral core: one command registry and one :class:`Session` every door wraps.

Layering: engine <- commands <- **core** <- transports (``lsp``, ``mcp``, ``cli``). The core owns
what every transport needs the same way — the workspace roots, the layered settings, the index
lifecycle (the index service and its watcher), and the invocation policy (validation of the
argument shape, rate limits, metrics, the log line, error mapping) — so that a transport only
turns its wire messages into :meth:`Session.invoke` calls and shapes the answer. Nothing here
imports pygls, lsprotocol or mcp.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the CLI's fork client loads this package
if TYPE_CHECKING:
    from typing import Any

__all__ = ["COMMANDS", "CommandInfo", "QUICK_COMMANDS", "RATE_LIMITED", "STREAM_KEYS", "command_info"]


def __getattr__(name: str) -> Any:
    """The registry's names, loaded on first use: the CLI's fork client imports ``sleuth.core.warm_paths``
    only, and every millisecond of its start-up is in every warm answer."""
    if name in __all__:
        from sleuth.core import registry

        return getattr(registry, name)
    raise AttributeError(f"module 'sleuth.core' has no attribute {name!r}")
