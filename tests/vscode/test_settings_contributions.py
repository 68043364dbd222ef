"""The extension's ``sleuth.*`` settings mirror the server's settings (docs/SPEC.md §10, §11).

Each server setting in ``vscode-client/package.json`` is fed to
:func:`sleuth.commands.settings_schema.merge_settings` the way the client sends it (nested on dots):
its default must be accepted and equal the server's default, a changed value must land in
exactly one field, and together the settings must reach every field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sleuth.commands.config import Settings
from sleuth.commands.settings_schema import merge_settings

PACKAGE = Path(__file__).resolve().parents[2] / "vscode-client" / "package.json"
CLIENT_ONLY = {"interpreter", "search.debounceMs", "search.maxResults", "trace.server"}
# Fields a VS Code user has no reason to set: none today; list a field here with the reason if one appears.
NOT_EXPOSED: set[str] = set()


def _server_settings() -> dict[str, dict[str, Any]]:
    props = json.loads(PACKAGE.read_text(encoding="utf-8"))["contributes"]["configuration"]["properties"]
    return {key[len("sleuth."):]: spec for key, spec in props.items() if key[len("sleuth."):] not in CLIENT_ONLY}


def _nested(key: str, value: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    node = out
    parts = key.split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value
    return out


def _changed(spec: dict[str, Any]) -> Any:
    """A valid value different from the default."""
    if spec.get("enum"):
        return next(v for v in spec["enum"] if v != spec["default"] and v is not None)
    kinds = spec["type"] if isinstance(spec["type"], list) else [spec["type"]]
    if "boolean" in kinds:
        return not spec["default"]
    if "integer" in kinds:
        return (spec.get("default") or 0) + 7
    if "number" in kinds:
        return 0.25
    if "array" in kinds:
        return ["changed/**"]
    if "object" in kinds:
        return {"acode.grep": 3}
    return "/tmp/changed"


def test_defaults_are_the_servers_defaults() -> None:
    for key, spec in _server_settings().items():
        if spec.get("default") is None:
            continue
        merged, problems = merge_settings(Settings(), _nested(key, spec["default"]), "package.json")
        assert problems == [], f"sleuth.{key}: {problems}"
        assert merged == Settings(), f"sleuth.{key}: default {spec['default']!r} differs from the server's"


def test_every_server_field_is_reachable_from_exactly_one_setting() -> None:
    reached: dict[str, str] = {}
    for key, spec in _server_settings().items():
        merged, problems = merge_settings(Settings(), _nested(key, _changed(spec)), "package.json")
        assert problems == [], f"sleuth.{key}: {problems}"
        changed = [name for name in Settings.field_names if getattr(merged, name) != getattr(Settings(), name)]
        assert len(changed) == 1, f"sleuth.{key} changed {changed}"
        assert changed[0] not in reached, f"sleuth.{key} and sleuth.{reached.get(changed[0])} both set {changed[0]}"
        reached[changed[0]] = key
    missing = set(Settings.field_names) - reached.keys() - NOT_EXPOSED
    assert not missing, f"server settings without a sleuth.* VS Code setting: {sorted(missing)}"
