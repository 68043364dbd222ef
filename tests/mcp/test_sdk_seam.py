"""The MCP SDK's private attributes are reached in one module, :mod:`sleuth.mcp.sdk` (issue 32 item 5):
an SDK release that renames one breaks that module alone. The names are read from a live
``MCPServer`` (every attribute its constructor sets with a leading underscore), not listed here."""

from __future__ import annotations

import ast
from pathlib import Path

from mcp.server.mcpserver import MCPServer

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "sleuth"
SEAM = PACKAGE / "mcp" / "sdk.py"


def _private_names() -> set[str]:
    app = MCPServer("probe")
    return {name for name in vars(app) if name.startswith("_") and not name.startswith("__")}


def test_the_sdk_private_attributes_are_named_in_the_seam_only() -> None:
    private = _private_names()
    assert {"_tool_manager", "_lowlevel_server"} <= private  # the probe reads what it should
    reached = []
    for path in PACKAGE.rglob("*.py"):
        if path == SEAM:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in private and not (
                    isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                reached.append(f"{path.relative_to(PACKAGE)}:{node.lineno} .{node.attr}")
    assert not reached, reached


def test_the_seam_sets_a_tools_schemas_and_listens_to_a_notification() -> None:
    """What the seam does, through the SDK's own public reading of it (``list_tools``)."""
    import asyncio

    from mcp_types import NotificationParams

    from sleuth.mcp.sdk import on_notification, set_tool_schemas

    app = MCPServer("probe")

    def tool() -> str:
        return "ok"

    app.add_tool(tool, name="probe_tool")
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "additionalProperties": False}
    output = {"type": "object", "properties": {"n": {"type": "integer"}}}
    set_tool_schemas(app, "probe_tool", schema, output)
    listed = {t.name: t for t in asyncio.run(app.list_tools())}
    assert listed["probe_tool"].input_schema == schema
    assert listed["probe_tool"].output_schema == output

    async def changed(ctx: object, params: object) -> None:
        return None

    on_notification(app, "notifications/roots/list_changed", NotificationParams, changed)
