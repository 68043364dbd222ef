"""``sleuth tools list|schema|describe|call``: the AI-assistant tool surface from a terminal.

``sleuth tools call NAME --args JSON`` prints the tool's ``content`` (exactly what a model would
read) and exits 1 when the result is an error; ``--KEY VALUE`` pairs after NAME are accepted too
(values parsed as JSON when they can be: ``--max_results 5 --regex true``), so seed 004's
``acode tool invoke search_text --query X`` maps onto ``sleuth tools call acode.search_text --query X``.
Settings are the server's defaults merged with the root's ``.agent/config.yml``; rate-limit
windows persist across invocations in the cache directory, so per-minute limits hold for a
script calling the CLI in a loop just as they do inside the server.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from typing import Any

from sleuth.cli.common import EXIT_ERROR, make_context, print_json, report_error, run_in_core, workspace_settings
from sleuth.commands.context import CommandContext
from sleuth.engine.errors import BadArgs, SleuthError

__all__ = ["add_parser", "parse_call_arguments", "state_path"]

EXIT_OK, EXIT_TOOL_ERROR = 0, 1
_TERMINAL_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("tools", help="list and call the tools offered to AI assistants",
                       description="The tool profiles of the seed contracts (forge, codex, kimi, acode).")
    actions = p.add_subparsers(dest="tools_action", metavar="ACTION", help="list, call, or a query tool")
    listing = actions.add_parser("list", help="list tools")
    listing.add_argument("--profile", help="only this profile's tools (forge, codex, kimi, acode)")
    listing.add_argument("--capability", help="only tools with this capability (e.g. regex, fuzzy, files)")
    listing.add_argument("--json", action="store_true", help="print the sleuth.tools.list result")
    listing.add_argument("--root", action="append", metavar="DIR", help="sandbox folder (repeatable; default: .)")
    listing.set_defaults(func=_list)
    for name, helptext in (("schema", "print a tool's JSON schema"), ("describe", "print a tool's description")):
        q = actions.add_parser(name, help=helptext)
        q.add_argument("name", metavar="NAME", help="the tool's name (sleuth tools list)")
        q.add_argument("--root", action="append", metavar="DIR", help="sandbox folder (repeatable; default: .)")
        q.set_defaults(func=_schema if name == "schema" else _describe)
    call = actions.add_parser(
        "call", help="call a tool", description="Call NAME with --args JSON (or --KEY VALUE pairs); prints its "
        "content; exit status 1 when the tool reports an error, 2 for an unknown tool or malformed call.",
        usage="sleuth tools call NAME [--args JSON] [--KEY VALUE ...] [--root DIR] [--json]")
    call.add_argument("name", metavar="NAME", help="the tool's name (sleuth tools list)")
    call.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    call.set_defaults(func=_call)
    p.set_defaults(func=lambda ns: (p.print_help(sys.stderr), EXIT_ERROR)[1])


def _context(roots: list[str] | None) -> CommandContext:
    return make_context(roots, settings=workspace_settings(roots))


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_call_arguments(rest: list[str]) -> tuple[dict[str, Any], list[str] | None, bool]:
    """``--args JSON`` and ``--KEY VALUE`` pairs -> (arguments, roots, as_json)."""
    arguments: dict[str, Any] = {}
    roots: list[str] | None = None
    as_json = False
    i = 0
    while i < len(rest):
        item = rest[i]
        if item == "--json":
            as_json = True
            i += 1
            continue
        if not item.startswith("--") or len(item) == 2:
            raise BadArgs(f"unexpected argument {item!r}.", hint="Use --args JSON or --KEY VALUE pairs.")
        key, eq, inline = item[2:].partition("=")
        if eq:
            value_text = inline
            i += 1
        elif i + 1 < len(rest):
            value_text = rest[i + 1]
            i += 2
        else:
            raise BadArgs(f"--{key} needs a value.", hint=f"Pass --{key} VALUE.")
        if key == "args":
            parsed = _value(value_text)
            if not isinstance(parsed, dict):
                raise BadArgs("--args must be a JSON object.", hint='For example --args \'{"pattern": "TODO"}\'.')
            arguments.update(parsed)
        elif key == "root":
            roots = (roots or []) + [value_text]
        else:
            arguments[key] = _value(value_text)
    return arguments, roots, as_json


def state_path() -> str:
    """The tool rate limits' windows, kept between CLI calls, beside the index stores."""
    from sleuth.engine.user_dirs import sleuth_cache_dir

    return os.path.join(sleuth_cache_dir(), "ratelimit.json")


def _with_persistent_limiter(ctx: CommandContext, run: Any) -> Any:
    """Run with a wall-clock limiter whose windows are loaded from and saved to :func:`state_path`."""
    from sleuth.engine.ratelimit import RateLimiter

    limiter = RateLimiter(clock=time.time)
    path = state_path()
    try:
        with open(path, encoding="utf-8") as handle:
            limiter.import_state(json.load(handle))
    except (OSError, ValueError):
        pass
    ctx.services.rate_limiter = limiter
    try:
        return run()
    finally:
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fresh = RateLimiter(clock=time.time)
            try:  # merge with what concurrent invocations saved meanwhile
                with open(path, encoding="utf-8") as handle:
                    fresh.import_state(json.load(handle))
            except (OSError, ValueError):
                pass
            fresh.import_state(limiter.export_state())
            tmp = f"{path}.{os.getpid()}"
            with open(tmp, "w", encoding="utf-8") as handle:
                json.dump(fresh.export_state(), handle)
            os.replace(tmp, path)
        except OSError:
            pass


def _list(ns: argparse.Namespace) -> int:
    args = {k: v for k, v in (("profile", ns.profile), ("capability", ns.capability)) if v}
    try:
        result = run_in_core("sleuth.tools.list", args, _context(ns.root))
    except SleuthError as error:
        return report_error(error)
    if ns.json:
        print_json(result)
        return EXIT_OK
    width = max((len(t["name"]) for t in result["tools"]), default=0)
    for tool in result["tools"]:
        aliases = f" (aliases: {', '.join(tool['aliases'])})" if tool.get("aliases") else ""
        summary = tool["description"].split(". ")[0].rstrip(".")
        sys.stdout.write(f"{tool['name']:<{width}}  {summary}{aliases}\n")
    return EXIT_OK


def _tool(ns: argparse.Namespace) -> Any:
    from sleuth.commands.profiles import lookup

    return lookup(ns.name, workspace_settings(ns.root))


def _schema(ns: argparse.Namespace) -> int:
    try:
        tool = _tool(ns)
    except SleuthError as error:
        return report_error(error)
    sys.stdout.write(json.dumps(tool.input_schema, ensure_ascii=False, indent=2) + "\n")
    return EXIT_OK


def _describe(ns: argparse.Namespace) -> int:
    try:
        tool = _tool(ns)
    except SleuthError as error:
        return report_error(error)
    sys.stdout.write(f"{tool.qualified_name}\n\n{tool.description}\n\nParameters:\n")
    required = set(tool.input_schema.get("required", ()))
    for name, prop in tool.input_schema.get("properties", {}).items():
        kind = prop.get("type") or "/".join(o.get("type", "?") for o in prop.get("anyOf", ()))
        extra = " (required)" if name in required else (f" (default {json.dumps(prop['default'])})"
                                                        if "default" in prop else "")
        sys.stdout.write(f"  {name}: {kind}{extra}  {prop.get('description', '')}".rstrip() + "\n")
    return EXIT_OK


def _open_index(ctx: CommandContext, name: str, roots: list[str] | None) -> Any:
    """The persistent index for a tool that answers from it (capability ``index``: acode.search_text),
    opened — or built the first time — as ``sleuth text`` opens it; None for every other tool.

    Without it such a tool could only ever answer ``index_not_ready`` from the CLI, telling the user
    to run ``sleuth index build`` even right after they had."""
    from sleuth.commands.config import Settings
    from sleuth.commands.profiles import lookup
    from sleuth.engine.index.service import IndexService

    try:
        tool = lookup(name, ctx.settings)
    except SleuthError:
        return None  # the call itself reports the unknown tool
    if "index" not in tool.capabilities:
        return None
    index = IndexService(ctx.workspace, Settings(deny_globs=ctx.settings.deny_globs).index_config())
    ctx.services.index = index
    index.start(ctx.progress)
    index.wait_ready()  # not ready (a build error): the tool answers its own index_not_ready
    return index


def _call(ns: argparse.Namespace) -> int:
    try:
        arguments, roots, as_json = parse_call_arguments(ns.rest)
    except SleuthError as error:
        return report_error(error)
    ctx = _context(roots)
    index = _open_index(ctx, ns.name, roots)
    try:
        envelope = _with_persistent_limiter(
            ctx, lambda: run_in_core("sleuth.tools.call", {"name": ns.name, "arguments": arguments}, ctx))
    except SleuthError as error:
        if error.code == "cancelled":
            return 130
        return report_error(error)
    finally:
        if index is not None:
            index.stop()
    if as_json:
        print_json(envelope)
    else:
        content = envelope["content"]
        if sys.stdout.isatty():  # seed 000 C-04: file text must not drive the terminal (escape sequences)
            content = _TERMINAL_UNSAFE.sub("\ufffd", content)
        sys.stdout.write(content + ("" if content.endswith("\n") else "\n"))
    return EXIT_TOOL_ERROR if envelope["is_error"] else EXIT_OK
