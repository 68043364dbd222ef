"""Commands: argument schemas and validation, result shaping, tool profiles.

Every command is ``run(args: dict, ctx: CommandContext) -> dict``: the same function behind
``workspace/executeCommand``, the custom ``sleuth/*`` requests, the CLI and the tool profiles.
Nothing here imports pygls or lsprotocol.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from sleuth.searches import SEARCHES

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import Any
    from sleuth.commands.context import CommandContext

__all__ = ["COMMAND_MODULES", "COMMAND_NAMES", "get_command", "import_module", "CommandContext"]

# name -> module that defines ``run(args, ctx)``, the one such table (the registry in ``core/`` reads
# it); imported on first use so the CLI starts fast. The searches' modules come from their list.
COMMAND_MODULES: dict[str, str] = {
    **{search.command: search.module for search in SEARCHES},
    "sleuth.index.status": "sleuth.commands.index_status",
    "sleuth.index.build": "sleuth.commands.index_build",
    "sleuth.tools.list": "sleuth.commands.tools_list",
    "sleuth.tools.call": "sleuth.commands.tools_call",
    "sleuth.metrics": "sleuth.commands.metrics",
}

COMMAND_NAMES: tuple[str, ...] = tuple(COMMAND_MODULES)


def get_command(name: str) -> Callable[[dict[str, Any], CommandContext], dict[str, Any]]:
    """The ``run`` function of command ``name``; KeyError for an unknown name."""
    return import_module(COMMAND_MODULES[name]).run  # type: ignore[no-any-return]


def import_module(path: str) -> Any:
    """``importlib.import_module(path)`` for an absolute module path, without importing ``importlib``,
    whose package imports ``warnings``: ~0.3 ms of a cold ``sleuth grep`` (issue 30)."""
    __import__(path)
    return sys.modules[path]


def __getattr__(name: str) -> Any:
    """``CommandContext`` loads on first use: a CLI answered by a running server (the warm CLI,
    :mod:`sleuth.core.warm`) never builds one, and its import chain is a third of its start-up."""
    if name == "CommandContext":
        from sleuth.commands.context import CommandContext

        return CommandContext
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
