"""Who may set which setting: a repository's file, or only the person running Sleuth.

A repository is untrusted input: people run Sleuth on trees they just cloned, so what the tree's
``.agent/config.yml`` says must not choose where Sleuth writes, which program it runs, or switch
a safeguard off (VS Code's workspace trust and ``machine``-scoped settings are the model). The
repository keeps what seed 004 gives it — result caps, timeouts, rate limits, context lines, the
tool profile — and may *add* deny globs, never remove the person's.

:data:`TRUST` is the one table (every :class:`~sleuth.commands.config.Settings` field, with who
may set it); :func:`layered_settings` applies it to the layers both transports build:

* the LSP server: defaults <- the person's ``config.yml`` <- ``.agent/config.yml`` <-
  ``initializationOptions`` <- ``workspace/configuration``;
* the CLI: defaults <- the person's ``config.yml`` <- ``.agent/config.yml`` (then its own flags).

A refused key is reported once, naming the key and where the person may set it; the value the
person's layers gave is kept. A repository that restates the value already in force is not
reported (``redaction: true`` changes nothing).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from sleuth.commands.config import Settings, field_of, flat_settings, merge_settings

__all__ = ["Origin", "Trust", "Rule", "Layer", "TRUST", "layered_settings", "repository_may_set"]


class Origin(enum.Enum):
    """Where a layer of settings comes from."""

    REPOSITORY = "repository"  # a file inside the workspace (.agent/config.yml)
    PERSON = "person"  # the person's own file, the editor's settings, initializationOptions, CLI flags


class Trust(enum.Enum):
    """Who may set a key."""

    ANYONE = "anyone"  # seed 004 gives it to the repository
    PERSON = "person"  # names a path to write, a program to run, or turns a safeguard off
    ADD_ONLY = "add-only"  # a repository may add entries, never remove the person's (deny globs)


@dataclass(frozen=True)
class Rule:
    trust: Trust
    why: str = ""  # why a repository may not set it (shown in the refusal)


_ANY = Rule(Trust.ANYONE)
_WRITES = "it names a path Sleuth writes to"
_SAFEGUARD = "it would switch a safeguard off"

# Every Settings field; tests check that none is missing, so a new setting must be classified here.
TRUST: dict[str, Rule] = {
    # request defaults and hard caps (seed 004: result caps, timeouts, context lines)
    "case": _ANY, "context_lines": _ANY, "respect_gitignore": _ANY, "hidden": _ANY, "follow": _ANY,
    "timeout_ms": _ANY, "max_columns": _ANY, "default_max_results": _ANY, "text_default_max_results": _ANY,
    "max_results": _ANY, "max_matches_per_file": _ANY, "max_files": _ANY, "max_file_size_bytes": _ANY,
    "max_depth": _ANY, "max_pattern_length": _ANY, "max_timeout_ms": _ANY, "max_output_bytes": _ANY,
    "fuzzy_threshold": _ANY, "index_enabled": _ANY, "log_level": _ANY, "tools_profile": _ANY,
    # rate limits (seed 004 FR-015b-29: configurable in .agent/config.yml); turning them off is not
    "rate_limit_per_minute": _ANY, "rate_limit_per_tool": _ANY, "native_rate_limit_per_minute": _ANY,
    "rate_limit_enabled": Rule(Trust.PERSON, _SAFEGUARD + " (rate limiting)"),
    # the person's alone
    "redaction": Rule(Trust.PERSON, _SAFEGUARD + " (secret redaction)"),
    "backend": Rule(Trust.PERSON, "it names a program Sleuth runs"),
    "log_file": Rule(Trust.PERSON, _WRITES),
    "index_path": Rule(Trust.PERSON, _WRITES),
    "deny_globs": Rule(Trust.ADD_ONLY, "a repository may add deny globs, never remove yours"),
}


@dataclass(frozen=True)
class Layer:
    """One source of settings: its name as shown in messages, its origin and its raw mapping."""

    name: str
    origin: Origin
    values: Mapping[str, Any] | None


def repository_may_set(field: str) -> bool:
    """Whether a repository's file may set ``field`` (deny globs: add to)."""
    return TRUST[field].trust is not Trust.PERSON


def layered_settings(layers: Iterable[Layer], where: str, base: Settings | None = None) -> tuple[Settings, list[str]]:
    """``base`` (the defaults) updated by every layer in order; the problems of every layer.

    ``where`` names the person's sources for the refusal message (each transport has its own).
    Deny globs: a person's layer replaces the person's list; a repository's globs are kept aside
    and added after all layers, so no later layer and no ``!glob`` of the repository removes one.
    """
    current = base or Settings()
    problems: list[str] = []
    added: list[str] = []
    cleared: str | None = None
    for layer in layers:
        values = layer.values
        if layer.origin is Origin.REPOSITORY and isinstance(values, Mapping):
            values, globs, refused, empty = _screen(current, values, layer.name, where)
            added.extend(globs)
            problems.extend(refused)
            cleared = cleared or empty
        current, found = merge_settings(current, values, layer.name)
        problems.extend(found)
    if cleared and current.deny_globs:
        problems.append(f"{cleared}: 'deny_globs' = [] changes nothing: {TRUST['deny_globs'].why} "
                        f"({', '.join(current.deny_globs)}).")
    if added:
        current = current.replace(deny_globs=tuple(dict.fromkeys((*current.deny_globs, *added))))
    return current, problems


def _screen(current: Settings, values: Mapping[str, Any], name: str,
            where: str) -> tuple[dict[str, Any], list[str], list[str], str | None]:
    """A repository layer split into (keys it may set, deny globs it adds, refusals, its name when it
    sets ``deny_globs: []``)."""
    kept: dict[str, Any] = {}
    globs: list[str] = []
    refused: list[str] = []
    empty: str | None = None
    for key, value in flat_settings(values).items():
        field = field_of(key)
        rule = TRUST[field] if field is not None else _ANY  # unknown keys: merge_settings reports them
        if rule.trust is Trust.ANYONE:
            kept[key] = value
        elif rule.trust is Trust.ADD_ONLY:
            trial, bad = merge_settings(Settings(), {key: value}, name)
            if bad:
                refused.extend(bad)
                continue
            new = list(trial.deny_globs)
            negations = [g for g in new if g.startswith("!")]
            if negations:
                refused.append(f"{name}: deny glob(s) {', '.join(negations)} ignored: {rule.why}; set your "
                               f"own deny globs in {where}.")
            globs.extend(g for g in new if not g.startswith("!"))
            if not new:
                empty = name
        else:
            assert field is not None
            trial, bad = merge_settings(current, {key: value}, name)
            if not bad and getattr(trial, field) == getattr(current, field):
                continue  # restates what is in force: nothing to refuse
            refused.append(f"{name}: setting '{key}' ignored: a repository may not set it ({rule.why}); "
                           f"only you can, in {where}.")
    return kept, globs, refused, empty
