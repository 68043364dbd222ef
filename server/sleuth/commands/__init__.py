"""Commands: argument schemas and validation, result shaping, tool profiles.

Every command is ``run(args: dict, ctx: CommandContext) -> dict``: the same function behind
``workspace/executeCommand``, the custom ``sleuth/*`` requests, the CLI and the tool profiles.
Nothing here imports pygls or lsprotocol.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from sleuth.commands.context import CommandContext

__all__ = ["COMMAND_NAMES", "get_command", "CommandContext"]

# name -> module that defines ``run(args, ctx)``; imported on first use so the CLI starts fast.
_MODULES: dict[str, str] = {
    "sleuth.grep": "sleuth.commands.grep",
    "sleuth.files": "sleuth.commands.files",
    "sleuth.text": "sleuth.commands.text",
    "sleuth.index.status": "sleuth.commands.index_status",
    "sleuth.index.build": "sleuth.commands.index_build",
    "sleuth.tools.list": "sleuth.commands.tools_list",
    "sleuth.tools.call": "sleuth.commands.tools_call",
    "sleuth.metrics": "sleuth.commands.metrics",
}

COMMAND_NAMES: tuple[str, ...] = tuple(_MODULES)


def get_command(name: str) -> Callable[[dict[str, Any], CommandContext], dict[str, Any]]:
    """The ``run`` function of command ``name``; KeyError for an unknown name."""
    return importlib.import_module(_MODULES[name]).run  # type: ignore[no-any-return]
