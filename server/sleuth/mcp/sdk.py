"""What Sleuth needs of the ``mcp`` SDK (2.x) and the SDK offers no public way to do, in one place.

Why one place: these reach into ``MCPServer``'s private attributes (``_tool_manager``,
``_lowlevel_server``), which a minor release of the SDK may rename; when it does, this module is the
only one to change, and ``tests/mcp/test_sdk_seam.py`` fails until it is. Each is also a request to
the SDK (README, *Use Sleuth from an AI assistant*, "What the SDK does not offer"):

* :func:`set_tool_schemas`: a tool's input and output schemas given as JSON Schema. ``add_tool``
  derives them from the function's signature; Sleuth's schemas are the commands' own argument tables
  (unknown arguments refused by name), so they are set on the registered tool afterwards.
* :func:`on_notification`: a handler for a client notification ``MCPServer`` does not route
  (``notifications/roots/list_changed``), registered on the low-level server.
* :func:`run_stdio_with`: ``run_stdio_async`` with the transport's read stream wrapped (answering the
  lines the SDK cannot read, :mod:`sleuth.mcp.stdio`); the low-level server is what
  ``run_stdio_async`` itself runs, and ``MCPServer`` keeps no other handle to it.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server

__all__ = ["set_tool_schemas", "on_notification", "run_stdio_with"]


def set_tool_schemas(app: MCPServer, name: str, input_schema: dict[str, Any],
                     output_schema: dict[str, Any] | None) -> None:
    """The registered tool ``name`` answers ``tools/list`` with these schemas, not its signature's."""
    registered = app._tool_manager.get_tool(name)
    if registered is None:
        raise KeyError(f"no tool {name!r} registered")
    registered.parameters = input_schema
    registered.fn_metadata.output_schema = output_schema


def on_notification(app: MCPServer, method: str, params_type: type[Any],
                    handler: Callable[[Any, Any], Awaitable[None]]) -> None:
    """``handler(ctx, params)`` runs for each client notification ``method``."""
    app._lowlevel_server.add_notification_handler(method, params_type, handler)


async def run_stdio_with(app: MCPServer, wrap_reader: Callable[[Any, Any], Any]) -> None:
    """Serve ``app`` over stdio as ``run_stdio_async`` does, its read stream replaced by
    ``wrap_reader(read_stream, write_stream)``."""
    lowlevel = app._lowlevel_server
    async with stdio_server() as (read_stream, write_stream):
        await lowlevel.run(wrap_reader(read_stream, write_stream), write_stream,
                           lowlevel.create_initialization_options())
