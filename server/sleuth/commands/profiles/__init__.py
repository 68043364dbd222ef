"""Tool profiles: each seed's search tool, exactly, as a thin adapter onto the native commands (docs/SPEC.md §5).

A profile module (one per seed document) exports ``TOOLS``: a list of :class:`ToolDefinition`,
each carrying the seed's name, description and JSON schema, a ``handler`` that turns the seed's
arguments into native command calls and the native result into the seed's output string, and
``format_error`` that renders a Sleuth error in the seed's own error wording.

::

    profile   module                 tools
    forge     forge_search_files     search_files                 (seed 000)
    forge     forge_search           Search (search, rg, ripgrep, ugrep, ug)   (seed 001)
    codex     codex_grep_files       grep_files                   (seed 002)
    kimi      kimi_search_files      search_files                 (seed 003)
    acode     acode                  search_text, search_files, grep          (seed 004)
    sleuth    sleuth_symbols         find_symbols                 (Sleuth's own: workspace symbols)

:func:`lookup` resolves ``profile.tool`` (or an alias), or a bare tool name when it is
unambiguous within ``Settings.tools_profile`` (or across all profiles when none is configured).
"""

from __future__ import annotations

import importlib
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from sleuth.commands.config import Settings
from sleuth.commands.context import CommandContext
from sleuth.engine.errors import SleuthError, UnknownTool

__all__ = ["ToolDefinition", "ToolResult", "PROFILES", "all_tools", "lookup", "tools_for"]

# profile name -> modules defining its tools, in listing order
PROFILES: dict[str, tuple[str, ...]] = {
    "forge": ("sleuth.commands.profiles.forge_search_files", "sleuth.commands.profiles.forge_search"),
    "codex": ("sleuth.commands.profiles.codex_grep_files",),
    "kimi": ("sleuth.commands.profiles.kimi_search_files",),
    "acode": ("sleuth.commands.profiles.acode",),
    "sleuth": ("sleuth.commands.profiles.sleuth_symbols",),
}


@dataclass(frozen=True)
class ToolResult:
    """What a handler returns: the seed's output string plus what logs and metrics need."""

    content: str
    is_error: bool = False
    result_count: int | None = None
    error_code: str | None = None  # Sleuth's code (bad_args, timeout, ...) for metrics


@dataclass(frozen=True)
class ToolDefinition:
    """One tool as ``sleuth.tools.list`` shows it, plus how to run it."""

    name: str
    profile: str
    description: str
    input_schema: dict[str, Any]
    handler: Callable[[dict[str, Any], CommandContext], ToolResult] = field(repr=False, compare=False)
    format_error: Callable[[SleuthError], str] = field(repr=False, compare=False)
    aliases: tuple[str, ...] = ()
    capabilities: tuple[str, ...] = ()
    query_keys: tuple[str, ...] = ("query", "pattern")  # which argument is "the query" in logs
    announce_rate_limit: bool = False  # add ``rate_limit: {remaining, limit}`` to JSON content near the limit
    read_only: bool = True
    risk: str = "low"
    requires_approval: bool = False

    @property
    def qualified_name(self) -> str:
        return f"{self.profile}.{self.name}"

    def to_dict(self) -> dict[str, Any]:
        """The ``sleuth.tools.list`` entry."""
        entry: dict[str, Any] = {
            "name": self.qualified_name,
            "tool": self.name,
            "profile": self.profile,
            "description": self.description,
            "input_schema": self.input_schema,
            "read_only": self.read_only,
            "is_side_effecting": not self.read_only,
            "risk": self.risk,
            "requires_approval": self.requires_approval,
            "capabilities": list(self.capabilities),
        }
        if self.aliases:
            entry["aliases"] = list(self.aliases)
        return entry


_lock = threading.Lock()
_cache: dict[str, tuple[ToolDefinition, ...]] = {}


def tools_for(profile: str) -> tuple[ToolDefinition, ...]:
    """The tools of one profile (imported once; registration is idempotent)."""
    with _lock:
        cached = _cache.get(profile)
        if cached is None:
            tools: list[ToolDefinition] = []
            for module in PROFILES[profile]:
                tools.extend(importlib.import_module(module).TOOLS)
            cached = _cache[profile] = tuple(tools)
        return cached


def all_tools(profile: str | None = None, capability: str | None = None) -> list[ToolDefinition]:
    """Every tool, optionally only one profile's or only those with a capability."""
    if profile is not None and profile not in PROFILES:
        raise UnknownTool(f"No tool profile named {profile!r}.",
                          hint="Profiles: " + ", ".join(PROFILES) + ".", profile=profile)
    names = [profile] if profile else list(PROFILES)
    tools = [tool for name in names for tool in tools_for(name)]
    if capability:
        tools = [tool for tool in tools if capability in tool.capabilities]
    return tools


def _names(tool: ToolDefinition) -> tuple[str, ...]:
    return (tool.name, *tool.aliases)


def lookup(name: str, settings: Settings | None = None) -> ToolDefinition:
    """The tool ``name`` designates; :class:`UnknownTool` when none or several do."""
    settings = settings or Settings()
    if "." in name:
        profile, _, bare = name.partition(".")
        if profile in PROFILES:
            for tool in tools_for(profile):
                if bare in _names(tool):
                    return tool
            raise _unknown(name, profile)
    scope = settings.tools_profile if settings.tools_profile in PROFILES else None
    candidates = [tool for tool in all_tools(scope) if name in _names(tool)]
    if len(candidates) == 1:
        return candidates[0]
    if len(candidates) > 1:
        choices = ", ".join(tool.qualified_name for tool in candidates)
        raise UnknownTool(f"Tool name {name!r} is ambiguous: it could be {choices}.",
                          hint="Call it by its qualified name (profile.tool), or set the 'tools.profile' setting.",
                          tool=name, candidates=[tool.qualified_name for tool in candidates])
    raise _unknown(name, scope)


def _unknown(name: str, profile: str | None) -> UnknownTool:
    data: dict[str, Any] = {"tool": name}
    if profile == "acode" or name.startswith("acode."):
        data["error_code"] = "ACODE-SRC-005"
        message = f"Requested search tool is not available: {name!r}."
    else:
        message = f"No tool named {name!r}" + (f" in profile {profile!r}." if profile else ".")
    return UnknownTool(message, hint="Call sleuth.tools.list for the available tool names.", **data)
