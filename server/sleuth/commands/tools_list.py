"""``sleuth.tools.list {profile?, capability?}`` (SPEC §4, §5; seed 004 FR-015b-40..44): tool definitions.

Each entry: ``name`` (``profile.tool``), ``tool``, ``profile``, ``description``, ``input_schema``,
``read_only: true``, ``is_side_effecting: false``, ``risk: "low"``, ``requires_approval: false``
(seed 000 FR-SF-DEF-03/04), ``capabilities`` and ``aliases`` where the seed has them.
Listing is idempotent: profiles are imported once and never registered twice.
"""

from __future__ import annotations

from typing import Any

from sleuth.commands.args import unwrap_arguments
from sleuth.commands.context import CommandContext
from sleuth.commands.profiles import PROFILES, all_tools
from sleuth.engine.errors import BadArgs

__all__ = ["run"]

_ALLOWED = {"profile", "capability"}


def run(raw: Any, ctx: CommandContext) -> dict[str, Any]:
    raw = unwrap_arguments(raw) or {}
    if not isinstance(raw, dict):
        raise BadArgs("sleuth.tools.list: expected an object {profile?, capability?}.")
    unknown = sorted(set(raw) - _ALLOWED)
    if unknown:
        raise BadArgs(f"sleuth.tools.list: unknown argument(s) {', '.join(map(repr, unknown))}.",
                      hint="Pass 'profile' and/or 'capability', or nothing.", argument=unknown[0])
    profile = raw.get("profile")
    capability = raw.get("capability")
    for key, value in (("profile", profile), ("capability", capability)):
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise BadArgs(f"sleuth.tools.list: '{key}' must be a non-empty string.", argument=key)
    if profile is not None and profile not in PROFILES:
        raise BadArgs(f"sleuth.tools.list: no profile named {profile!r}.",
                      hint="Profiles: " + ", ".join(PROFILES) + ".", argument="profile")
    tools = [tool.to_dict() for tool in all_tools(profile, capability)]
    return {"tools": tools, "count": len(tools), "profiles": list(PROFILES),
            "default_profile": ctx.settings.tools_profile}
