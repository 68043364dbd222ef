"""Argument validation shared by every command: one declarative table per command, checked once.

A command declares ``{name: Arg(...)}``; :func:`parse_args` turns the raw JSON object into a
plain dict with defaults filled in, or raises :class:`BadArgs` naming the argument and saying
how to fix it. Unknown keys are errors (a typo must not silently widen a search), and values
above a hard cap from :class:`Settings` are refused rather than clamped. :func:`json_schema`
renders the same table as JSON Schema, so documentation and validation cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Mapping

from sleuth.commands.config import Settings
from sleuth.engine.errors import BadArgs
from sleuth.engine.values import Value, fill

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Arg", "parse_args", "json_schema", "unwrap_arguments", "check_text", "coerce", "exceeds_depth",
           "check_depth", "MAX_ARGUMENT_DEPTH"]

MAX_ARGUMENT_DEPTH = 32  # no command's arguments nest beyond three levels; a seed tool's object a few more

_JSON_KINDS = {"string": "str", "integer": "int", "number": "number", "boolean": "bool", "array": "list",
               "object": "object", "null": "null"}


def coerce(kind: str, value: Any, *, loose: bool = False) -> Any:
    """``value`` as a ``kind`` (bool, int, number, str, list, object, null, or a JSON Schema type name),
    or :class:`ValueError`. The one type check behind every door's arguments (the commands' tables,
    the seed schemas, acode's ToolInput); each door words the error its own way. JSON has one number
    type, so an integral float is an int. ``loose``: ToolInput's conversions (seed 004, like .NET's
    ``Convert.ChangeType``): ``"5"`` is 5 and ``"true"``/``"false"`` are booleans."""
    kind = _JSON_KINDS.get(kind, kind)
    if kind == "bool":
        if isinstance(value, bool):
            return value
        if loose and isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
    elif kind in ("int", "number"):
        if isinstance(value, bool):
            raise ValueError(kind)
        if isinstance(value, float) and value.is_integer() and kind == "int":
            return int(value)
        if isinstance(value, int) or (kind == "number" and isinstance(value, float)):
            return value
        if loose and kind == "int" and isinstance(value, str):
            return int(value)  # ValueError when it is not a whole number
    elif kind == "str":
        if isinstance(value, str):
            return value
    elif kind == "list":
        if isinstance(value, list):
            return value
    elif kind == "object":
        if isinstance(value, dict):
            return value
    elif kind == "null":
        if value is None:
            return value
    raise ValueError(kind)


class Arg(Value):
    """One argument. ``kind`` is bool|int|number|str|str_list|str_or_list; ``cap`` names a Settings
    field; ``default_from``: the Settings field supplying the default."""

    __slots__ = ("kind", "description", "default", "required", "choices", "minimum", "maximum", "cap", "non_blank",
                 "default_from")
    kind: str
    description: str
    default: Any
    required: bool
    choices: tuple[Any, ...]
    minimum: float | None
    maximum: float | None
    cap: str | None
    non_blank: bool
    default_from: str | None

    def __init__(self, kind: str, description: str = "", default: Any = None, required: bool = False,
                 choices: tuple[Any, ...] = (), minimum: float | None = None, maximum: float | None = None,
                 cap: str | None = None, non_blank: bool = False, default_from: str | None = None) -> None:
        fill(self, "kind", kind)
        fill(self, "description", description)
        fill(self, "default", default)
        fill(self, "required", required)
        fill(self, "choices", choices)
        fill(self, "minimum", minimum)
        fill(self, "maximum", maximum)
        fill(self, "cap", cap)
        fill(self, "non_blank", non_blank)
        fill(self, "default_from", default_from)


def unwrap_arguments(raw: Any) -> Any:
    """The named-arguments object of a call, for every door: ``workspace/executeCommand`` sends
    ``arguments: [ {...} ]``, the others the bare object. Absent or empty -> ``{}``, and so is one
    empty value: Lua has one empty table for ``[]`` and ``{}``, so Neovim's ``arguments = {{}}``
    arrives as ``[[]]`` (and ``[null]`` means nothing either). Several values stay a list, which
    :func:`parse_args` (and the language server's invoker) refuse."""
    if raw is None:
        return {}
    if isinstance(raw, (list, tuple)):
        if len(raw) == 0:
            return {}
        if len(raw) == 1:
            return {} if raw[0] is None or raw[0] == [] else raw[0]
        return list(raw)
    return raw


def check_text(name: str, value: str, prefix: str = "") -> str:
    """``value`` unchanged, or :class:`BadArgs` when it is not valid Unicode text.

    JSON may spell a lone surrogate (``"\\ud800needle"`` is valid JSON); Python keeps it in the
    string, and it failed far away — encoding a literal to UTF-8 — as an internal error. It is a bad
    argument, named here with where it is (the character itself cannot be shown: it has no UTF-8)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise BadArgs(f"{prefix}'{name}' is not valid Unicode text: it holds a lone surrogate "
                      f"(U+{ord(value[exc.start]):04X}) at position {exc.start}.",
                      hint="Send text as UTF-8; in JSON, \\uD800-\\uDFFF escapes must come in high-low pairs.",
                      argument=name)
    return value


def exceeds_depth(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists and dicts more than ``limit`` levels deep (a scalar is level 0).
    Iterative: a value too deep to walk recursively is exactly what this looks for."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = item.values()
        elif not isinstance(item, (list, tuple)):
            continue
        if depth == limit:
            return True
        stack.extend((child, depth + 1) for child in item if isinstance(child, (dict, list, tuple)))
    return False


def check_depth(command: str, args: Any) -> None:
    """:class:`BadArgs` when a call's arguments nest deeper than :data:`MAX_ARGUMENT_DEPTH`, before
    any command, tool profile or log line walks them (each door's decoder has its own, larger bound:
    10,000 levels reached ``RecursionError`` in recursive walks)."""
    if exceeds_depth(args, MAX_ARGUMENT_DEPTH):
        raise BadArgs(f"{command}: the arguments nest more than {MAX_ARGUMENT_DEPTH} levels of lists and objects.",
                      hint="Pass flat values: strings, numbers, lists of strings.")


def _type_name(kind: str) -> str:
    return {"str_list": "a list of strings", "str_or_list": "a string or a list of strings",
            "number": "a number", "int": "an integer", "bool": "true or false", "str": "a string"}[kind]


def _check_type(command: str, name: str, arg: Arg, value: Any) -> Any:
    ok = True
    if arg.kind == "str_list" or arg.kind == "str_or_list":
        if isinstance(value, str) and arg.kind == "str_or_list":
            value = [value]
        ok = isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
        value = list(value) if ok else value
    else:
        try:
            value = coerce(arg.kind, value)
        except ValueError:
            ok = False
    if not ok:
        raise BadArgs(f"{command}: '{name}' must be {_type_name(arg.kind)}, got {type(value).__name__}.",
                      hint=f"Pass {name} as {_type_name(arg.kind)}.", argument=name)
    for text in value if isinstance(value, list) else (value,):
        if isinstance(text, str):
            check_text(name, text, f"{command}: ")
    return value


def parse_args(command: str, raw: Any, spec: Mapping[str, Arg], settings: Settings) -> dict[str, Any]:
    """Validated arguments with defaults; :class:`BadArgs` on the first problem found."""
    raw = unwrap_arguments(raw)
    if isinstance(raw, list):
        raise BadArgs(f"{command}: expected one object of named arguments, got a list of several values.",
                      hint='Pass arguments as [{"pattern": "..."}].')
    if not isinstance(raw, Mapping):
        raise BadArgs(f"{command}: arguments must be an object of named values, got {type(raw).__name__}.",
                      hint='Pass arguments as {"name": value, ...}.')
    unknown = sorted(set(raw) - set(spec))
    if unknown:
        raise BadArgs(f"{command}: unknown argument{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}.",
                      hint="Known arguments: " + ", ".join(sorted(spec)) + ".", argument=unknown[0])
    out: dict[str, Any] = {}
    for name, arg in spec.items():
        value = raw.get(name)
        if value is None:
            if arg.required:
                raise BadArgs(f"{command}: '{name}' is required.", hint=f"Pass {name}: {arg.description}",
                              argument=name)
            out[name] = getattr(settings, arg.default_from) if arg.default_from else arg.default
            continue
        value = _check_type(command, name, arg, value)
        if arg.non_blank and (not value or (isinstance(value, str) and not value.strip())
                              or (isinstance(value, list) and not any(v.strip() for v in value))):
            raise BadArgs(f"{command}: '{name}' must not be empty or blank.", hint=f"Pass {name}: {arg.description}",
                          argument=name)
        if arg.choices and value not in arg.choices:
            raise BadArgs(f"{command}: '{name}' must be one of {', '.join(map(str, arg.choices))}; got {value!r}.",
                          hint=f"Use one of {', '.join(map(str, arg.choices))}.", argument=name)
        if arg.minimum is not None and value < arg.minimum:
            raise BadArgs(f"{command}: '{name}' must be at least {arg.minimum:g}; got {value}.", argument=name,
                          hint=f"Pass a {name} of {arg.minimum:g} or more.")
        limit = getattr(settings, arg.cap) if arg.cap else arg.maximum
        if limit is not None and value > limit:
            raise BadArgs(f"{command}: '{name}' = {value} is above the limit of {limit:g}.", argument=name,
                          hint=f"Pass {name} <= {limit:g} (the server's hard cap; configurable as '{arg.cap or name}').")
        out[name] = value
    return out


def json_schema(spec: Mapping[str, Arg], settings: Settings | None = None) -> dict[str, Any]:
    """The argument table as a JSON Schema object (``additionalProperties: false``)."""
    settings = settings or Settings()
    props: dict[str, Any] = {}
    for name, arg in spec.items():
        if arg.kind == "str_list":
            prop: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
        elif arg.kind == "str_or_list":
            prop = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
        else:
            prop = {"type": {"bool": "boolean", "int": "integer", "number": "number", "str": "string"}[arg.kind]}
        if arg.description:
            prop["description"] = arg.description
        if arg.choices:
            prop["enum"] = list(arg.choices)
        if arg.minimum is not None:
            prop["minimum"] = arg.minimum
        limit = getattr(settings, arg.cap) if arg.cap else arg.maximum
        if limit is not None:
            prop["maximum"] = limit
        default = getattr(settings, arg.default_from) if arg.default_from else arg.default
        if default is not None:
            prop["default"] = default
        props[name] = prop
    return {"type": "object", "properties": props, "required": [n for n, a in spec.items() if a.required],
            "additionalProperties": False}
