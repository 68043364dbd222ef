"""Every command with its metadata, in one table: what each transport needs to know about it.

Before this table the facts were spread over the LSP layer (which list a streaming command fills,
which commands must answer while every search worker is busy, which are rate limited); a second
transport would have copied them. A :class:`CommandInfo` says it once, and the module-level
views (:data:`STREAM_KEYS`, :data:`QUICK_COMMANDS`, :data:`RATE_LIMITED`) are derived from it.

The ``title`` and ``summary`` are written for a reader who chooses a tool from its description
(an AI model through MCP, a person reading ``sleuth --help``): what it finds, when to use it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping

if TYPE_CHECKING:
    from sleuth.commands.args import Arg
    from sleuth.commands.context import CommandContext

__all__ = ["CommandInfo", "COMMANDS", "STREAM_KEYS", "QUICK_COMMANDS", "RATE_LIMITED", "PROGRESS_COMMANDS", "command_info"]

Runner = Callable[[dict[str, Any], "CommandContext"], dict[str, Any]]


@dataclass(frozen=True)
class CommandInfo:
    """One command: where it lives and how transports treat it."""

    name: str
    module: str  # defines ``run(args, ctx)``; imported on first use so the CLI starts fast
    title: str = ""
    summary: str = ""
    args_attr: str | None = None  # the module's argument table (``GREP_ARGS``...), for schemas
    stream_key: str | None = None  # the result list a streaming command fills (partial batches use it)
    quick: bool = False  # cheap: must answer while every search worker is busy
    rate_limited: bool = False  # under ``native_rate_limit_per_minute``
    read_only: bool = True

    def runner(self) -> Runner:
        return importlib.import_module(self.module).run  # type: ignore[no-any-return]

    def args_spec(self) -> Mapping[str, "Arg"] | None:
        """The command's declared arguments (None for commands that parse their own)."""
        if self.args_attr is None:
            return None
        return getattr(importlib.import_module(self.module), self.args_attr)  # type: ignore[no-any-return]


_TABLE: tuple[CommandInfo, ...] = (
    CommandInfo(
        "sleuth.grep", "sleuth.commands.grep", "Search file contents (regex or literal)",
        "Find the lines that match a regular expression (ripgrep syntax) or literal text in the workspace's "
        "files, honouring .gitignore. Use it for exact identifiers, strings, error messages and code "
        "patterns; each match comes back as `path:line: text`. Narrow with include_globs, file_types or "
        "path on big trees.",
        args_attr="GREP_ARGS", stream_key="matches", rate_limited=True),
    CommandInfo(
        "sleuth.files", "sleuth.commands.files", "Find files by name or glob",
        "List workspace files whose paths match globs (`*.py`, `src/**/*.ts`, `!` excludes), or rank them "
        "for a fuzzy Quick-Open query (`usrctl` finds UserController.cs). Use it to locate files before "
        "reading or grepping them.",
        args_attr="FILES_ARGS", stream_key="items", rate_limited=True),
    CommandInfo(
        "sleuth.text", "sleuth.commands.text", "Ranked text search (definitions first)",
        "Search the workspace's index for words: terms are ANDed, \"exact phrase\", a OR b, -exclude, "
        "prefix*; identifiers match by their parts (`user id` finds getUserId). Lines that define a "
        "match rank first. Use it when you know what something is about, not its exact spelling.",
        args_attr="TEXT_ARGS", stream_key="results", rate_limited=True),
    CommandInfo(
        "sleuth.symbols", "sleuth.commands.symbols", "Find symbol definitions by name",
        "Find where functions, classes, structs, methods, macros, enum members, fields and headings are "
        "defined, by name: exact ('PM_RESUME'), without case or underscores ('pmresume'), a prefix, or word "
        "starts ('gubi' finds getUserById). Each result has its kind, container, path and line. Filter by "
        "kind ('function', 'struct'...) and path. Use it to jump to a definition when you know its name.",
        args_attr="SYMBOLS_ARGS", stream_key="results", rate_limited=True),
    CommandInfo("sleuth.index.status", "sleuth.commands.index_status", "Index status",
                "State of the workspace index (building, ready, error) with its counts.", quick=True),
    CommandInfo("sleuth.index.build", "sleuth.commands.index_build", "Rebuild the index",
                "Start an index build (incremental unless full).", args_attr="BUILD_ARGS", read_only=False),
    CommandInfo("sleuth.tools.list", "sleuth.commands.tools_list", "List profile tools",
                "The AI-tool profiles' tools with their schemas.", quick=True),
    CommandInfo("sleuth.tools.call", "sleuth.commands.tools_call", "Call a profile tool",
                "Run one profile tool by name."),
    CommandInfo("sleuth.metrics", "sleuth.commands.metrics", "Metrics",
                "Invocation counts and latencies.", quick=True),
)

COMMANDS: dict[str, CommandInfo] = {info.name: info for info in _TABLE}

# The derived views the transports use; STREAM_KEYS is a plain dict so test commands can add theirs.
STREAM_KEYS: dict[str, str] = {info.name: info.stream_key for info in _TABLE if info.stream_key}
QUICK_COMMANDS: frozenset[str] = frozenset(info.name for info in _TABLE if info.quick)
RATE_LIMITED: frozenset[str] = frozenset(info.name for info in _TABLE if info.rate_limited)
# Commands that may take a while: only they get a server-created progress token (a status request
# flashing a progress bar is noise; Neovim showed 26 of them in a short session).
PROGRESS_COMMANDS: frozenset[str] = frozenset(info.name for info in _TABLE if not info.quick)


def command_info(name: str) -> CommandInfo:
    """The registry entry of ``name``; KeyError for an unknown command."""
    return COMMANDS[name]
