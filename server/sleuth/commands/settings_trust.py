"""Who may set which setting: a repository's file, or only the person running Sleuth.

A repository is untrusted input: people run Sleuth on trees they just cloned, so what the tree's
``.agent/config.yml`` says must not choose where Sleuth writes, which program it runs, or switch
a safeguard off (VS Code's workspace trust and ``machine``-scoped settings are the model). The
repository keeps what seed 004 gives it — result caps, timeouts, rate limits, context lines, the
tool profile — and may *add* deny globs, never remove the person's.

:data:`TRUST` (in the schema, :mod:`sleuth.commands.settings_schema`: every
:class:`~sleuth.commands.config.Settings` field, with who may set it) is applied here, on parsed
fields, never on spellings, by :func:`layered_settings` to the layers every door builds:

* the LSP server: defaults <- the person's ``config.yml`` <- every root's ``.agent/config.yml`` <-
  ``initializationOptions`` <- ``workspace/configuration``;
* the MCP server: the same, with its flags as the last layer;
* the CLI: defaults <- the person's ``config.yml`` <- every root's ``.agent/config.yml`` (then its own flags).

With several roots there is one repository layer per root: each adds its deny globs (rebased onto
its root when the file sits above it, :func:`rebase_glob`), a cap is the strictest any of them sets,
and for any other key the first root that sets it wins.

A refused key is reported once, naming the key and where the person may set it; the value the
person's layers gave is kept. A repository that restates the value already in force is not
reported (``redaction: true`` changes nothing).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Iterable, Mapping

from sleuth.commands.config import Settings
from sleuth.commands.settings_schema import TRUST, Entry, Rule, SettingValue, Trust, parse_layer

__all__ = ["Origin", "Trust", "Rule", "Layer", "TRUST", "layered_settings", "repository_may_set", "rebase_glob"]


class Origin(enum.Enum):
    """Where a layer of settings comes from."""

    REPOSITORY = "repository"  # a file inside the workspace (.agent/config.yml)
    PERSON = "person"  # the person's own file, the editor's settings, initializationOptions, CLI flags


@dataclass(frozen=True)
class Layer:
    """One source of settings: its name as shown in messages, its origin and its raw mapping.

    ``below``: for a repository's file found above the root it governs, the root's path relative to
    the file's folder (``sub/dir``), so the file's anchored deny globs are rebased onto the root."""

    name: str
    origin: Origin
    values: Mapping[str, object] | None
    below: str = ""


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
    from_repository: dict[str, SettingValue] = {}  # what earlier roots' files set (several roots)
    for layer in layers:
        parsed = parse_layer(layer.values, layer.name, current)
        problems.extend(parsed.problems)
        changes = {field: entry.value for field, entry in parsed.values.items()}
        if layer.origin is Origin.REPOSITORY:
            changes, globs, refused, empty = _screen(current, parsed.values, layer, where, from_repository)
            added.extend(globs)
            problems.extend(refused)
            cleared = cleared or empty
            from_repository.update(changes)
        current = current.replace(**changes)
    if cleared and current.deny_globs:
        problems.append(f"{cleared}: 'deny_globs' = [] changes nothing: {TRUST['deny_globs'].why} "
                        f"({', '.join(current.deny_globs)}).")
    if added:
        current = current.replace(deny_globs=tuple(dict.fromkeys((*current.deny_globs, *added))))
    return current, problems


def _screen(current: Settings, values: Mapping[str, Entry], layer: Layer, where: str,
            earlier: Mapping[str, SettingValue]) -> tuple[dict[str, SettingValue], list[str], list[str], str | None]:
    """A repository layer's parsed values split into (changes it may make, deny globs it adds, refusals,
    its name when it sets ``deny_globs: []``). ``earlier``: what other roots' files set before it."""
    kept: dict[str, SettingValue] = {}
    globs: list[str] = []
    refused: list[str] = []
    empty: str | None = None
    for field, entry in values.items():
        rule = TRUST[field]
        value = entry.value
        if rule.trust is Trust.ANYONE:
            if field in earlier:  # several roots: the strictest cap, else the first root's value
                previous = earlier[field]
                if not (rule.strictest and isinstance(value, (int, float)) and isinstance(previous, (int, float))):
                    continue
                value = min(previous, value)
            kept[field] = value
        elif rule.trust is Trust.ADD_ONLY:
            new = [g for g in value if isinstance(g, str)] if isinstance(value, tuple) else []
            negations = [g for g in new if g.startswith("!")]
            if negations:
                refused.append(f"{layer.name}: deny glob(s) {', '.join(negations)} ignored: {rule.why}; set your "
                               f"own deny globs in {where}.")
            globs.extend(rebased for g in new if not g.startswith("!") for rebased in rebase_glob(g, layer.below))
            if not new:
                empty = layer.name
        elif value != getattr(current, field):  # restating what is in force: nothing to refuse
            refused.append(f"{layer.name}: setting '{entry.key}' ignored: a repository may not set it ({rule.why}); "
                           f"only you can, in {where}.")
    return kept, globs, refused, empty


def rebase_glob(glob: str, below: str) -> list[str]:
    """A deny glob written relative to a file's folder, as globs relative to ``below`` (a folder under it).

    The engine's own glob rules (:func:`~sleuth.engine.ignore_rules.glob_file`) decide the two ends:
    when the glob covers ``below`` itself or a folder above it, everything there is denied (``/**``);
    when no file below ``below`` can match, it is dropped. Otherwise an unanchored glob (``*.key``)
    stays, and an anchored one loses the leading segments ``below`` consumed (``denied/x/**`` under
    ``denied`` is ``/x/**``), or keeps itself from a ``**`` on (which matches at any depth).
    """
    if not below or below == ".":
        return [glob]
    from sleuth.engine.ignore_rules import glob_file

    compiled = glob_file([glob], override=False)
    view = compiled.view() if compiled is not None else None
    segments = below.split("/")
    for segment in segments:
        if view is None:
            return []
        if view.match(segment, True):
            return ["/**"]
        view = view.child(segment)
    if view is None:
        return []
    slash = "/" if glob.endswith("/") else ""
    body = glob[:-1] if slash else glob
    if "/" not in body:
        return [glob]
    parts = body.lstrip("/").split("/")
    for i in range(min(len(segments), len(parts))):
        if parts[i] == "**":
            return ["/" + "/".join(parts[i:]) + slash]
    return ["/" + "/".join(parts[len(segments):]) + slash] if len(parts) > len(segments) else ["/**"]
