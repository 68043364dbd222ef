"""``sleuth.tools.list {profile?, capability?}`` (docs/SPEC.md §4, §5; seed 004 FR-015b-40..44): tool definitions.

Each entry: ``name`` (``profile.tool``), ``tool``, ``profile``, ``description``, ``input_schema``,
``read_only: true``, ``is_side_effecting: false``, ``risk: "low"``, ``requires_approval: false``
(seed 000 FR-SF-DEF-03/04), ``capabilities`` and ``aliases`` where the seed has them.
Listing is idempotent: profiles are imported once and never registered twice.
"""

from __future__ import annotations

from typing import Any

from sleuth.commands.args import Arg, parse_args
from sleuth.commands.context import CommandContext
from sleuth.commands.profiles import PROFILES, all_tools
from sleuth.engine.errors import BadArgs

__all__ = ["run", "TOOLS_LIST_ARGS"]

TOOLS_LIST_ARGS: dict[str, Arg] = {
    "profile": Arg("str", "Only this profile's tools (forge, codex, kimi, acode, sleuth).", non_blank=True),
    "capability": Arg("str", "Only tools with this capability (e.g. 'files', 'regex').", non_blank=True),
}


def run(raw: Any, ctx: CommandContext) -> dict[str, Any]:
    args = parse_args("sleuth.tools.list", raw, TOOLS_LIST_ARGS, ctx.settings)
    profile, capability = args["profile"], args["capability"]
    if profile is not None and profile not in PROFILES:
        raise BadArgs(f"sleuth.tools.list: no profile named {profile!r}.",
                      hint="Profiles: " + ", ".join(PROFILES) + ".", argument="profile")
    tools = [tool.to_dict() for tool in all_tools(profile, capability)]
    return {"tools": tools, "count": len(tools), "profiles": list(PROFILES),
            "default_profile": ctx.settings.tools_profile}
