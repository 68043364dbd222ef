"""Test-only commands loaded into the server through the ``SLEUTH_TEST_COMMANDS`` hook.

``sleuth.test.endless`` works until it is cancelled (or reaches ``limit`` steps), streaming one
item per step and reporting progress, so a test can cancel it at any point and then prove it
stopped: ``sleuth.test.counter`` returns how many steps ran and whether the loop is still
running. ``sleuth.test.fail`` raises the Sleuth error named in its arguments; ``sleuth.test.echo``
returns what the command saw (arguments, settings, open buffers, folders).
"""

from __future__ import annotations


import threading
import time
from typing import Any

from sleuth.commands.context import CommandContext
from sleuth.engine import errors

STATE: dict[str, Any] = {"steps": 0, "running": 0, "lock": threading.Lock()}


def endless(args: dict[str, Any], ctx: CommandContext) -> dict[str, Any]:
    limit = int(args.get("limit", 10**9))
    step_s = float(args.get("step_ms", 5)) / 1000
    items: list[dict[str, Any]] = []
    with STATE["lock"]:
        STATE["running"] += 1
    try:
        for i in range(limit):
            if ctx.token.should_stop():
                break
            time.sleep(step_s)
            with STATE["lock"]:
                STATE["steps"] += 1
            item = {"n": i}
            if ctx.partial is not None:
                ctx.partial([item])
            else:
                items.append(item)
            ctx.progress(i + 1, limit if limit < 10**9 else None, "")
        ctx.token.raise_if_cancelled()
        return {"items": items, "total": len(items) + (limit if ctx.partial is not None else 0)}
    finally:
        with STATE["lock"]:
            STATE["running"] -= 1


def quiet(args: dict[str, Any], ctx: CommandContext) -> dict[str, Any]:
    """Runs until cancelled and never reports progress (one file of a slow pattern, as the client sees it)."""
    while not ctx.token.wait(0.01):
        pass
    ctx.token.raise_if_cancelled()
    return {}


def counter(args: dict[str, Any], ctx: CommandContext) -> dict[str, Any]:
    with STATE["lock"]:
        return {"steps": STATE["steps"], "running": STATE["running"]}


def fail(args: dict[str, Any], ctx: CommandContext) -> dict[str, Any]:
    name = args.get("error", "BadArgs")
    if name == "RuntimeError":
        raise RuntimeError("boom")
    cls = getattr(errors, name)
    if cls is errors.RateLimited:
        raise cls("slow down", retry_after_seconds=7)
    raise cls(f"raised {name}", position=3)


def echo(args: dict[str, Any], ctx: CommandContext) -> dict[str, Any]:
    return {
        "args": args,
        "folders": [r.path for r in ctx.workspace.roots],
        "names": [r.name for r in ctx.workspace.roots],
        "settings": ctx.settings.to_dict(),  # every setting: the trust tests check the guarded ones
        "buffers": dict(ctx.services.open_buffers or {}),
        "resolved": [t.path for t in ctx.workspace.resolve(args["path"])] if "path" in args else None,
    }


COMMANDS = {"sleuth.test.endless": endless, "sleuth.test.counter": counter, "sleuth.test.fail": fail,
            "sleuth.test.echo": echo, "sleuth.test.quiet": quiet}
STREAM_KEYS = {"sleuth.test.endless": "items"}
