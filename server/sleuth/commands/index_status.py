"""``sleuth.index.status`` (docs/SPEC.md §4, §7): state, files, bytes, pending updates, store path and size, last build."""

from __future__ import annotations

from typing import Any

from sleuth.commands.args import Arg, parse_args
from sleuth.commands.context import CommandContext

__all__ = ["STATUS_ARGS", "run"]

STATUS_ARGS: dict[str, Arg] = {}


def run(raw: Any, ctx: CommandContext) -> dict[str, Any]:
    """The index's status; ``state: "disabled"`` when the server runs without an index."""
    parse_args("sleuth.index.status", raw, STATUS_ARGS, ctx.settings)
    index = ctx.services.index
    if index is None:
        return {"state": "disabled", "files": 0, "bytes": 0, "pending_updates": 0, "store_path": None,
                "store_bytes": 0, "last_build": None, "last_build_seconds": None}
    return dict(index.status())
