"""``sleuth.index.build`` (docs/SPEC.md §4, §7): catch up incrementally (size/mtime rescan) or, with ``full``, rebuild.

The command waits for the work, reporting progress through the context's sink (the LSP's
work-done progress, the CLI's progress bar), and returns the resulting status. A cancel stops
waiting; a rebuild already under way carries on in the background and is published when done.
"""

from __future__ import annotations

from typing import Any

from sleuth.commands.args import Arg, parse_args
from sleuth.commands.context import CommandContext
from sleuth.engine.errors import IndexNotReady

__all__ = ["BUILD_ARGS", "run"]

BUILD_ARGS: dict[str, Arg] = {
    "full": Arg("bool", "Rebuild from scratch instead of catching up with changed files.", default=False),
    "wait": Arg("bool", "Wait for the build to finish (default) or return at once with the status.", default=True),
}


def run(raw: Any, ctx: CommandContext) -> dict[str, Any]:
    """Build or catch up; returns :func:`sleuth.commands.index_status.run`'s shape."""
    args = parse_args("sleuth.index.build", raw, BUILD_ARGS, ctx.settings)
    index = ctx.services.index
    if index is None:
        raise IndexNotReady("The index is disabled, so there is nothing to build.",
                            hint="Set index.enabled: true in the settings and restart the server.")
    status = index.build(full=args["full"], progress=ctx.progress, token=ctx.token, wait=args["wait"])
    ctx.token.raise_if_cancelled()
    return dict(status)
