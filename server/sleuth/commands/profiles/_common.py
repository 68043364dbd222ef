"""What every profile shares: checking arguments against the seed's JSON schema, calling the
native commands, mapping display paths back to files, redaction, and plain-text output budgets.

The validator implements the JSON Schema subset the seeds use (``type``, ``enum``, ``minimum``,
``maximum``, ``minLength``, ``items``, ``required``, ``additionalProperties: false``, ``anyOf``)
and raises :class:`BadArgs` naming the argument, so each profile can word it the seed's way.
"""

from __future__ import annotations

import json
import os
from typing import Any, Mapping

from sleuth.commands import get_command
from sleuth.commands.args import check_text, coerce
from sleuth.commands.context import CommandContext
from sleuth.engine.errors import BadArgs, SleuthError
from sleuth.engine.redact import redact
from sleuth.engine.workspace import Workspace

__all__ = ["argument_of", "fit_lines", "validate", "dumps_compact", "dumps_spaced", "native", "absolute", "relative_to",
           "maybe_redact", "byte_len", "plain_error"]

_ARTICLE = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
            "array": "an array", "object": "an object", "null": "null"}


def _check(name: str, schema: Mapping[str, Any], value: Any) -> Any:
    if "anyOf" in schema:
        for option in schema["anyOf"]:
            try:
                return _check(name, option, value)
            except BadArgs:
                continue
        kinds = " or ".join(_ARTICLE.get(o.get("type", ""), "a valid value") for o in schema["anyOf"])
        raise BadArgs(f"'{name}' must be {kinds}.", argument=name)
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        for k in kinds:
            try:
                value = coerce(k, value)
                break
            except ValueError:
                continue
        else:
            want = " or ".join(_ARTICLE[k] for k in kinds)
            raise BadArgs(f"'{name}' must be {want}, got {json.dumps(value)[:60]}.", argument=name)
    if "enum" in schema and value not in schema["enum"]:
        raise BadArgs(f"'{name}' must be one of {', '.join(map(str, schema['enum']))}; got {value!r}.", argument=name)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            raise BadArgs(f"'{name}' must be >= {schema['minimum']}; got {value}.", argument=name)
        if "maximum" in schema and value > schema["maximum"]:
            raise BadArgs(f"'{name}' must be <= {schema['maximum']}; got {value}.", argument=name)
    if isinstance(value, str):
        check_text(name, value)
    if isinstance(value, str) and len(value) < schema.get("minLength", 0):
        raise BadArgs(f"'{name}' must not be empty.", argument=name)
    if isinstance(value, list) and "items" in schema:
        value = [_check(f"{name}[{i}]", schema["items"], item) for i, item in enumerate(value)]
    return value


def validate(schema: Mapping[str, Any], raw: Any, *, drop_nulls: bool = True) -> dict[str, Any]:
    """``raw`` checked against ``schema``; defaults are NOT filled in (profiles apply the seed's)."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise BadArgs(f"arguments must be a JSON object, got {type(raw).__name__}.")
    args = {k: v for k, v in raw.items() if not (drop_nulls and v is None)}
    props: Mapping[str, Any] = schema.get("properties", {})
    if schema.get("additionalProperties") is False:
        unknown = sorted(set(args) - set(props))
        if unknown:
            raise BadArgs(f"unknown field{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
                          f"allowed: {', '.join(props)}.", argument=unknown[0])
    for name in schema.get("required", ()):
        if name not in args:
            raise BadArgs(f"'{name}' is required.", argument=name)
    return {name: (_check(name, props[name], value) if name in props else value) for name, value in args.items()}


def argument_of(error: Exception) -> str | None:
    """The argument a :class:`BadArgs` blames; regex errors (with a ``position``) blame the pattern."""
    data = getattr(error, "data", {}) or {}
    return data.get("argument") or ("pattern" if "position" in data else None)


def dumps_compact(value: Any) -> str:
    """Compact JSON, UTF-8 text (what serde_json::to_string produces)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def dumps_spaced(value: Any) -> str:
    """Single-line JSON with ``", "``/``": "`` separators (seed 004's examples: ``"line": 15``)."""
    return json.dumps(value, ensure_ascii=False)


def byte_len(text: str) -> int:
    return len(text.encode("utf-8"))


def native(command: str, args: dict[str, Any], ctx: CommandContext) -> dict[str, Any]:
    """Run a native command with already-translated arguments.

    Never streams: a tool's answer is one string built from the complete native result, so the
    native command must not hand its items to a partial-result sink of the caller's.
    """
    if ctx.partial is not None:
        ctx = ctx.replace(partial=None)
    return get_command(command)(args, ctx)


def absolute(workspace: Workspace, display: str) -> str:
    """The file a display path names (inverse of :meth:`Workspace.display`)."""
    if workspace.multi:
        head, _, rest = display.partition("/")
        for root in workspace.roots:
            if root.name == head:
                return os.path.join(root.path, *rest.split("/")) if rest else root.path
    return os.path.join(workspace.roots[0].path, *display.split("/"))


def relative_to(workspace: Workspace, display: str, base: str) -> str:
    """A display path re-expressed relative to ``base`` (an absolute folder), with ``/``."""
    rel = os.path.relpath(absolute(workspace, display), base)
    return display if rel.startswith("..") else rel.replace(os.sep, "/")


def plain_error(error: SleuthError) -> str:
    """A failure as the plain-text tools (codex, kimi) word it: the message, then what to do."""
    return f"{error.message} {error.hint}".strip()


def maybe_redact(text: str, ctx: CommandContext) -> str:
    return redact(text) if ctx.settings.redaction and text else text


def fit_lines(lines: list[str], budget: int | None, note: str) -> tuple[list[str], bool]:
    """Plain-text tools: the leading lines that, joined by newlines with ``note`` after them, fit
    ``budget`` bytes; (lines, False) when everything fits or there is no budget."""
    if not budget or byte_len("\n".join(lines)) <= budget:
        return lines, False
    room = budget - byte_len(note) - 1
    kept: list[str] = []
    used = 0
    for line in lines:
        cost = byte_len(line) + (1 if kept else 0)
        if used + cost > room:
            break
        kept.append(line)
        used += cost
    return kept, True
