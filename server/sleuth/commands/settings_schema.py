"""The one settings schema (docs/SPEC.md §10, issue 28): every key, its type, its range and who may set it.

Why: a repository's ``.agent/config.yml`` once got past the trust screen with a doubled prefix
(``sleuth.sleuth.log_file``): the screen resolved a spelling one way, the merge another. Now every
layer is parsed once, by :func:`parse_layer`, into :class:`Parsed` — typed values keyed by
:class:`~sleuth.commands.config.Settings` field — and everything after (the trust screen, the merge)
reads fields, never spellings. How a key is read:

* each key is normalised once (camelCase -> snake_case, lower case, ``-`` -> ``_``); nested mappings
  and dotted keys are the same path (``index: {path}`` is ``index.path``);
* a path may start with one section prefix (``sleuth.`` or ``tools.search.``, seed 004's), stripped
  once; then it must be a spelling in :data:`SPELLINGS` exactly, else it is an unknown key: reported
  and dropped, never passed on;
* the value is checked against the field's :class:`Key` (type, range, choices); a bad value is
  reported and the previous value kept.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from dataclasses import dataclass
from typing import Iterator, Mapping

from sleuth.commands.config import Settings

__all__ = ["Trust", "Rule", "Key", "SCHEMA", "TRUST", "SPELLINGS", "SettingValue", "Entry", "Parsed", "parse_layer",
           "merge_settings", "normalise_key", "SECTION_PREFIXES"]

# What a setting's value may be once parsed (the types of Settings' fields).
SettingValue = bool | int | float | str | None | tuple[str, ...] | tuple[tuple[str, int], ...]


class Trust(enum.Enum):
    """Who may set a key."""

    ANYONE = "anyone"  # seed 004 gives it to the repository
    PERSON = "person"  # names a path to write, a program to run, or turns a safeguard off
    ADD_ONLY = "add-only"  # a repository may add entries, never remove the person's (deny globs)


@dataclass(frozen=True)
class Rule:
    trust: Trust
    why: str = ""  # why a repository may not set it (shown in the refusal)
    strictest: bool = False  # a cap: with several roots, the smallest any root's file sets wins


_ANY = Rule(Trust.ANYONE)
_CAP = Rule(Trust.ANYONE, strictest=True)
_WRITES = "it names a path Sleuth writes to"
_SAFEGUARD = "it would switch a safeguard off"

# Every Settings field; tests check that none is missing, so a new setting must be classified here.
TRUST: dict[str, Rule] = {
    # request defaults and hard caps (seed 004: result caps, timeouts, context lines)
    "case": _ANY, "context_lines": _ANY, "respect_gitignore": _ANY, "hidden": _ANY, "follow": _ANY,
    "timeout_ms": _CAP, "max_columns": _CAP, "default_max_results": _CAP, "text_default_max_results": _CAP,
    "max_results": _CAP, "max_matches_per_file": _CAP, "max_files": _CAP, "max_file_size_bytes": _CAP,
    "max_depth": _CAP, "max_pattern_length": _CAP, "max_patterns": _CAP, "max_timeout_ms": _CAP,
    "max_output_bytes": _CAP, "fuzzy_threshold": _ANY, "index_enabled": _ANY, "log_level": _ANY, "tools_profile": _ANY,
    # rate limits (seed 004 FR-015b-29: configurable in .agent/config.yml); turning them off is not
    "rate_limit_per_minute": _CAP, "rate_limit_per_tool": _ANY, "native_rate_limit_per_minute": _ANY,
    "rate_limit_enabled": Rule(Trust.PERSON, _SAFEGUARD + " (rate limiting)"),
    # the person's alone
    "redaction": Rule(Trust.PERSON, _SAFEGUARD + " (secret redaction)"),
    "backend": Rule(Trust.PERSON, "it names a program Sleuth runs"),
    "log_file": Rule(Trust.PERSON, _WRITES),
    "index_path": Rule(Trust.PERSON, _WRITES),
    "deny_globs": Rule(Trust.ADD_ONLY, "a repository may add deny globs, never remove yours"),
}


@dataclass(frozen=True)
class Key:
    """One setting: its field, the type of its value, its range or choices, and who may set it."""

    field: str
    kind: type  # bool, int, float, str, tuple (of globs) or dict (tool name -> calls per minute)
    optional: bool  # None is a value (unset)
    minimum: float = 0
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    rule: Rule = _ANY

    def coerce(self, value: object) -> SettingValue:
        """The typed value, or ValueError with a message a person can act on."""
        if value is None and self.optional:
            return None
        if self.kind is dict:
            if not isinstance(value, Mapping) or not all(
                    isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0
                    for k, v in value.items()):
                raise ValueError("expected a mapping of tool name to calls per minute (an integer >= 0)")
            return tuple(sorted(value.items()))
        if self.kind is tuple:
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
                raise ValueError("expected a list of glob strings")
            if len(value) > MAX_GLOBS:  # each is compiled into every walk's rules
                raise ValueError(f"expected at most {MAX_GLOBS} globs")
            return tuple(value)
        if self.kind is bool:
            if not isinstance(value, bool):
                raise ValueError("expected true or false")
            return value
        if self.kind in (int, float):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or (self.kind is int and
                                                                                   not isinstance(value, int)):
                raise ValueError("expected an integer" if self.kind is int else "expected a number")
            number = self.kind(value)
            if number < self.minimum or (self.maximum is not None and number > self.maximum):
                bound = f"between {self.minimum:g} and {self.maximum:g}" if self.maximum is not None else \
                    f">= {self.minimum:g}"
                raise ValueError(f"expected {'an integer' if self.kind is int else 'a number'} {bound}")
            return number
        if not isinstance(value, str):
            raise ValueError("expected a string")
        if self.choices and value not in self.choices:
            raise ValueError("expected one of " + ", ".join(self.choices))
        return value


MAX_GLOBS = 1000

_CHOICES: dict[str, tuple[str, ...]] = {
    "case": ("smart", "sensitive", "insensitive"),
    "backend": ("native", "rg", "ugrep"),
    "log_level": ("error", "warning", "info", "debug", "off"),
}
_MINIMUM: dict[str, float] = {
    "timeout_ms": 1, "default_max_results": 1, "text_default_max_results": 1, "max_results": 1,
    "max_matches_per_file": 1, "max_files": 1, "max_file_size_bytes": 1, "max_pattern_length": 1, "max_patterns": 1,
    "max_timeout_ms": 1, "max_output_bytes": 1,
}
_MAXIMUM: dict[str, float] = {"fuzzy_threshold": 1.0}


def _key(name: str) -> Key:
    text = str(Settings.__annotations__[name])  # (a string: the module reads its annotations lazily)
    kind: type = (dict if name == "rate_limit_per_tool" else tuple if text.startswith("tuple") else
                  bool if text == "bool" else float if text == "float" else int if text.startswith("int") else str)
    return Key(name, kind, "None" in text, _MINIMUM.get(name, 0), _MAXIMUM.get(name), _CHOICES.get(name, ()),
               TRUST[name])


SCHEMA: dict[str, Key] = {name: _key(name) for name in Settings.field_names}


@dataclass(frozen=True)
class Spelling:
    """A path that names a field; ``scale`` converts its unit (``timeout_seconds`` -> ``timeout_ms``)."""

    field: str
    scale: int = 1


# Every accepted path: each field's own name, seed 004's keys (under tools.search) and nested forms.
SPELLINGS: dict[str, Spelling] = {name: Spelling(name) for name in SCHEMA} | {
    "index.enabled": Spelling("index_enabled"),
    "index.path": Spelling("index_path"),
    "rate_limit": Spelling("rate_limit_per_minute"),
    "rate_limit.searches_per_minute": Spelling("rate_limit_per_minute"),
    "rate_limit.per_minute": Spelling("rate_limit_per_minute"),
    "rate_limit.enabled": Spelling("rate_limit_enabled"),
    "rate_limit.per_tool": Spelling("rate_limit_per_tool"),
    "tools.profile": Spelling("tools_profile"),
    "timeout_seconds": Spelling("timeout_ms", 1000),
    "default_context_lines": Spelling("context_lines"),
    "log.level": Spelling("log_level"),
    "log.file": Spelling("log_file"),
}
SECTION_PREFIXES = ("sleuth.", "tools.search.")
MAX_ENTRIES = 10_000  # keys walked in one layer: a person's JSON layer is bounded too


@dataclass(frozen=True)
class Entry:
    """A parsed setting: its typed value and the path it was spelled as (for messages)."""

    value: SettingValue
    key: str


@dataclass(frozen=True)
class Parsed:
    """One layer after parsing: typed values by field, and one message per dropped key or value."""

    values: dict[str, Entry]
    problems: list[str]


_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")


def normalise_key(key: object) -> str:
    """One key segment as the schema spells it: snake case, lower case, ``_`` for ``-``."""
    return _CAMEL.sub(r"_\1", str(key)).lower().replace("-", "_")


def _spelling(path: str) -> tuple[Spelling, str] | None:
    """The field a full path names, with the path shown in messages (one section prefix stripped)."""
    if path in SPELLINGS:
        return SPELLINGS[path], path
    for prefix in SECTION_PREFIXES:
        if path.startswith(prefix) and path[len(prefix):] in SPELLINGS:
            return SPELLINGS[path[len(prefix):]], path[len(prefix):]
    return None


def parse_layer(source: object, origin: str, current: Settings | None = None) -> Parsed:
    """``source`` (a layer's raw mapping) parsed into the schema; see the module docstring.

    ``current`` only words the message about a rejected value ("keeping ...")."""
    current = current or Settings()
    if source is None or (isinstance(source, Mapping) and not source):
        return Parsed({}, [])
    if not isinstance(source, Mapping):
        return Parsed({}, [f"{origin}: expected an object of sleuth settings, got {type(source).__name__}; "
                           "defaults kept."])
    values: dict[str, Entry] = {}
    problems: list[str] = []
    # Depth first in document order (a later spelling of a field wins, as in the file), without recursion.
    stack: list[tuple[str, Iterator[tuple[object, object]]]] = [("", iter(source.items()))]
    walked = 0
    while stack:
        prefix, items = stack[-1]
        for raw_key, value in items:
            walked += 1
            if walked > MAX_ENTRIES:
                problems.append(f"{origin}: more than {MAX_ENTRIES} keys; the rest ignored.")
                return Parsed(values, problems)
            path = prefix + normalise_key(raw_key)
            found = _spelling(path)
            if isinstance(value, Mapping) and (found is None or SCHEMA[found[0].field].kind is not dict):
                stack.append((path + ".", iter(value.items())))
                break
            if found is None:
                problems.append(f"{origin}: unknown setting '{path}' ignored; see the README for the list of settings.")
                continue
            spelling, shown = found
            key = SCHEMA[spelling.field]
            try:
                if spelling.scale != 1:
                    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                        raise ValueError("expected a positive number of seconds")
                    value = int(value * spelling.scale)
                values[spelling.field] = Entry(key.coerce(value), shown)
            except (ValueError, OverflowError) as exc:
                problems.append(f"{origin}: setting '{shown}' = {_short(value)} rejected ({exc}); "
                                f"keeping {getattr(current, spelling.field)!r}.")
        else:
            stack.pop()
    return Parsed(values, problems)


def merge_settings(base: Settings, source: Mapping[str, object] | None, origin: str) -> tuple[Settings, list[str]]:
    """``base`` updated from one person's layer ``source``; returns the new settings and one message per
    dropped key or value (:func:`parse_layer` reads it).

    No trust check here: :func:`sleuth.commands.settings_trust.layered_settings` screens a
    repository's layer on the parsed fields.
    """
    parsed = parse_layer(source, origin, base)
    return base.replace(**{name: entry.value for name, entry in parsed.values.items()}), parsed.problems


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
