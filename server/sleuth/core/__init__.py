"""The transport-neutral core: one command registry and one :class:`Session` every door wraps.

Layering: engine <- commands <- **core** <- transports (``lsp``, ``mcp``, ``cli``). The core owns
what every transport needs the same way — the workspace roots, the layered settings, the index
lifecycle (the index service and its watcher), and the invocation policy (validation of the
argument shape, rate limits, metrics, the log line, error mapping) — so that a transport only
turns its wire messages into :meth:`Session.invoke` calls and shapes the answer. Nothing here
imports pygls, lsprotocol or mcp.
"""

from sleuth.core.registry import COMMANDS, CommandInfo, QUICK_COMMANDS, RATE_LIMITED, STREAM_KEYS, command_info

__all__ = ["COMMANDS", "CommandInfo", "QUICK_COMMANDS", "RATE_LIMITED", "STREAM_KEYS", "command_info"]
