"""Every command with its metadata, in one table: what each transport needs to know about it.

Before this table the facts were spread over the LSP layer (which list a streaming command fills,
which commands must answer while every search worker is busy, which are rate limited); a second
transport would have copied them. A :class:`CommandInfo` says it once, and the module-level
views (:data:`STREAM_KEYS`, :data:`QUICK_COMMANDS`, :data:`RATE_LIMITED`) are derived from it. The
searches' entries are made from :data:`sleuth.searches.SEARCHES`; the modules come from
:data:`sleuth.commands.COMMAND_MODULES`.

The ``title`` and ``summary`` are written for a reader who chooses a tool from its description
(an AI model through MCP, a person reading ``sleuth --help``): what it finds, when to use it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sleuth.commands import COMMAND_MODULES, import_module
from sleuth.engine.values import Value, fill
from sleuth.searches import SEARCHES

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import Any, TypeAlias
    from sleuth.commands.args import Arg
    from sleuth.commands.context import CommandContext

__all__ = ["CommandInfo", "COMMANDS", "STREAM_KEYS", "QUICK_COMMANDS", "RATE_LIMITED", "PROGRESS_COMMANDS",
           "SEARCH_COMMANDS", "command_info"]

Runner: TypeAlias = "Callable[[dict[str, Any], CommandContext], dict[str, Any]]"


class CommandInfo(Value):
    """One command: how transports treat it (its module: :data:`sleuth.commands.COMMAND_MODULES`).
    ``args_attr``: the module's argument table (``GREP_ARGS``...), for schemas; ``stream_key``: the
    result list a streaming command fills (partial batches use it); ``quick``: cheap, must answer while
    every search worker is busy; ``rate_limited``: under ``native_rate_limit_per_minute``."""

    __slots__ = ("name", "title", "summary", "args_attr", "stream_key", "quick", "rate_limited", "read_only")
    name: str
    title: str
    summary: str
    args_attr: str | None
    stream_key: str | None
    quick: bool
    rate_limited: bool
    read_only: bool

    def __init__(self, name: str, title: str = "", summary: str = "", args_attr: str | None = None,
                 stream_key: str | None = None, quick: bool = False, rate_limited: bool = False,
                 read_only: bool = True) -> None:
        fill(self, "name", name)
        fill(self, "title", title)
        fill(self, "summary", summary)
        fill(self, "args_attr", args_attr)
        fill(self, "stream_key", stream_key)
        fill(self, "quick", quick)
        fill(self, "rate_limited", rate_limited)
        fill(self, "read_only", read_only)

    @property
    def module(self) -> str:
        """The module defining ``run(args, ctx)``; imported on first use so the CLI starts fast."""
        return COMMAND_MODULES[self.name]

    def runner(self) -> Runner:
        return import_module(self.module).run  # type: ignore[no-any-return]

    def args_spec(self) -> Mapping[str, "Arg"] | None:
        """The command's declared arguments (None for commands that parse their own)."""
        if self.args_attr is None:
            return None
        return getattr(import_module(self.module), self.args_attr)  # type: ignore[no-any-return]


_TABLE: tuple[CommandInfo, ...] = (
    *(CommandInfo(search.command, search.title, search.summary, args_attr=search.args_attr,
                  stream_key=search.stream_key, rate_limited=True) for search in SEARCHES),
    CommandInfo("sleuth.index.status", "Index status",
                "State of the workspace index (building, ready, error) with its counts.", quick=True),
    CommandInfo("sleuth.index.build", "Rebuild the index",
                "Start an index build (incremental unless full).", args_attr="BUILD_ARGS", read_only=False),
    CommandInfo("sleuth.tools.list", "List profile tools",
                "The AI-tool profiles' tools with their schemas.", quick=True),
    CommandInfo("sleuth.tools.call", "Call a profile tool", "Run one profile tool by name."),
    CommandInfo("sleuth.metrics", "Metrics", "Invocation counts and latencies.", quick=True),
)

COMMANDS: dict[str, CommandInfo] = {info.name: info for info in _TABLE}

# The derived views the transports use; STREAM_KEYS is a plain dict so test commands can add theirs.
STREAM_KEYS: dict[str, str] = {info.name: info.stream_key for info in _TABLE if info.stream_key}
QUICK_COMMANDS: frozenset[str] = frozenset(info.name for info in _TABLE if info.quick)
RATE_LIMITED: frozenset[str] = frozenset(info.name for info in _TABLE if info.rate_limited)
# Commands that may take a while: only they get a server-created progress token (a status request
# flashing a progress bar is noise; Neovim showed 26 of them in a short session).
PROGRESS_COMMANDS: frozenset[str] = frozenset(info.name for info in _TABLE if not info.quick)
# A person's searches: the index's upkeep and build step aside while one runs (sleuth.engine.foreground).
SEARCH_COMMANDS: frozenset[str] = frozenset(search.command for search in SEARCHES)


def command_info(name: str) -> CommandInfo:
    """The registry entry of ``name``; KeyError for an unknown command."""
    return COMMANDS[name]
