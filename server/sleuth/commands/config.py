"""Settings (SPEC §10): defaults <- the person's ``config.yml`` <- ``.agent/config.yml`` <- ``initializationOptions``
<- ``workspace/configuration``; what a repository's file may set is :mod:`sleuth.commands.settings_trust`'s table.

One frozen :class:`Settings`; every source is a plain mapping merged by :func:`merge_settings`,
which never raises: a bad value is reported in the returned problem list (the server shows it
once with ``window/showMessage``) and the previous value is kept.
Keys may be flat (``index_enabled``) or nested (``{"index": {"enabled": ...}}``), snake or camel case.
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass
from typing import Any, Mapping

from sleuth.engine.index.config import IndexConfig

__all__ = ["Settings", "merge_settings", "flat_settings", "field_of", "load_agent_config", "load_user_config",
           "user_config_path", "AGENT_CONFIG_PATH", "cli_settings"]

AGENT_CONFIG_PATH = os.path.join(".agent", "config.yml")


@dataclass(frozen=True)
class Settings:
    """Server-wide defaults and hard caps; a request above a hard cap is ``bad_args``."""

    # defaults a request may override
    case: str = "smart"
    context_lines: int = 2
    respect_gitignore: bool = True
    hidden: bool = False
    follow: bool = False
    timeout_ms: int = 20_000
    max_columns: int = 500
    default_max_results: int = 200
    text_default_max_results: int = 20
    # hard caps
    # The VS Code search view loads up to 20,000 matches (VS Code's own search.maxResults default).
    max_results: int = 20_000
    max_matches_per_file: int = 100_000
    max_files: int = 1_000_000
    max_file_size_bytes: int = 100 * 1024 * 1024
    max_depth: int = 256
    max_pattern_length: int = 1000
    # Patterns in one search (rg's repeated -e): 10,000 compile in well under a second; the cap keeps the
    # steps no deadline can interrupt (RE2's and Hyperscan's compiles, which hold the GIL) short.
    max_patterns: int = 20_000
    max_timeout_ms: int = 300_000
    # behaviour
    backend: str = "native"
    fuzzy_threshold: float = 0.6
    rate_limit_per_minute: int = 30
    rate_limit_enabled: bool = True
    rate_limit_per_tool: tuple[tuple[str, int], ...] = ()  # (tool name, calls per minute) overrides
    native_rate_limit_per_minute: int = 0  # 0 = off for native commands
    redaction: bool = True
    deny_globs: tuple[str, ...] = ()
    index_enabled: bool = True
    index_path: str | None = None
    log_level: str = "info"
    log_file: str | None = None
    tools_profile: str | None = None
    max_output_bytes: int | None = None

    def replace(self, **changes: Any) -> "Settings":
        return dataclasses.replace(self, **changes)

    def index_config(self) -> IndexConfig:
        """What the index takes from these settings (and all it takes: a change elsewhere keeps it)."""
        return IndexConfig(follow=self.follow, respect_gitignore=self.respect_gitignore, deny_globs=self.deny_globs,
                           max_file_size_bytes=self.max_file_size_bytes, index_path=self.index_path)


_ENUMS: dict[str, tuple[str, ...]] = {
    "case": ("smart", "sensitive", "insensitive"),
    "backend": ("native", "rg", "ugrep"),
    "log_level": ("error", "warning", "info", "debug", "off"),
}
_MINIMUM: dict[str, float] = {
    "context_lines": 0, "timeout_ms": 1, "max_columns": 0, "default_max_results": 1, "text_default_max_results": 1,
    "max_results": 1, "max_matches_per_file": 1, "max_files": 1, "max_file_size_bytes": 1, "max_depth": 0,
    "max_pattern_length": 1, "max_patterns": 1, "max_timeout_ms": 1, "rate_limit_per_minute": 0, "native_rate_limit_per_minute": 0,
    "max_output_bytes": 1, "fuzzy_threshold": 0.0,
}
# Aliases: seed 004's `.agent/config.yml` keys (under tools.search) and nested spellings.
_ALIASES: dict[str, str] = {
    "index.enabled": "index_enabled",
    "index.path": "index_path",
    "rate_limit.searches_per_minute": "rate_limit_per_minute",
    "rate_limit.per_minute": "rate_limit_per_minute",
    "rate_limit.enabled": "rate_limit_enabled",
    "rate_limit.per_tool": "rate_limit_per_tool",
    "rate_limit": "rate_limit_per_minute",
    "tools.profile": "tools_profile",
    "timeout_seconds": "timeout_ms",  # converted below
    "default_context_lines": "context_lines",
    "log.level": "log_level",
    "log.file": "log_file",
}
_FIELDS = {f.name: f for f in dataclasses.fields(Settings)}


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def _flatten(source: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in source.items():
        name = prefix + _snake(str(key))
        keep_whole = name in _FIELDS or name.endswith(("rate_limit.per_tool", "rate_limit_per_tool"))
        if isinstance(value, Mapping) and not keep_whole:
            flat.update(_flatten(value, name + "."))
        else:
            flat[name] = value
    return flat


def _coerce(name: str, value: Any) -> Any:
    """The typed value for field ``name``, or ValueError with a message a user can act on."""
    kind = _FIELDS[name].type
    if value is None and "None" in str(kind):
        return None
    if name == "rate_limit_per_tool":
        if not isinstance(value, Mapping) or not all(
                isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0
                for k, v in value.items()):
            raise ValueError("expected a mapping of tool name to calls per minute (an integer >= 0)")
        return tuple(sorted(value.items()))
    if "tuple" in str(kind):
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise ValueError("expected a list of glob strings")
        return tuple(value)
    if "bool" in str(kind):
        if not isinstance(value, bool):
            raise ValueError("expected true or false")
        return value
    if "float" in str(kind):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError("expected a number")
        value = float(value)
        if name == "fuzzy_threshold" and not 0.0 <= value <= 1.0:
            raise ValueError("expected a number between 0 and 1")
        return value
    if "int" in str(kind):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError("expected an integer")
        if value < _MINIMUM.get(name, 0):
            raise ValueError(f"expected an integer >= {int(_MINIMUM.get(name, 0))}")
        return value
    if not isinstance(value, str):
        raise ValueError("expected a string")
    if name in _ENUMS and value not in _ENUMS[name]:
        raise ValueError("expected one of " + ", ".join(_ENUMS[name]))
    return value


def flat_settings(source: Mapping[str, Any]) -> dict[str, Any]:
    """``source`` flattened to dotted snake-case keys, seed 004's ``tools.search.``/``sleuth.`` prefixes dropped."""
    flat = _flatten(source)
    for key in list(flat):
        for prefix in ("tools.search.", "sleuth."):
            if key.startswith(prefix):
                flat[key[len(prefix):]] = flat.pop(key)
    return flat


def field_of(key: str) -> str | None:
    """The :class:`Settings` field a flat key sets (aliases resolved), None when unknown."""
    name = _ALIASES.get(key, key)
    return name if name in _FIELDS else None


def merge_settings(base: Settings, source: Mapping[str, Any] | None, origin: str) -> tuple[Settings, list[str]]:
    """``base`` updated from ``source``; returns the new settings and one message per rejected key.

    No trust check here: :func:`sleuth.commands.settings_trust.layered_settings` screens a
    repository's layer before it reaches this function.
    """
    if not source:
        return base, []
    if not isinstance(source, Mapping):
        return base, [f"{origin}: expected an object of sleuth settings, got {type(source).__name__}; defaults kept."]
    changes: dict[str, Any] = {}
    problems: list[str] = []
    for key, value in flat_settings(source).items():
        name = field_of(key)
        if name is None:
            problems.append(f"{origin}: unknown setting '{key}' ignored; see the README for the list of settings.")
            continue
        try:
            if key == "timeout_seconds":
                if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                    raise ValueError("expected a positive number of seconds")
                value = int(value * 1000)
            changes[name] = _coerce(name, value)
        except ValueError as exc:
            problems.append(f"{origin}: setting '{key}' = {value!r} rejected ({exc}); keeping {getattr(base, name)!r}.")
    return base.replace(**changes), problems


def _read_yaml(path: str) -> dict[str, Any] | None:
    """The top-level mapping of YAML file ``path``; None when it does not exist; ValueError when broken."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError:
        return None
    import yaml  # only when the file exists: keeps CLI start-up lean

    try:
        data = yaml.safe_load(raw) or {}
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: invalid YAML ({exc}); fix it or delete it.") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping at the top level.")
    return data


def user_config_path() -> str:
    """The person's own settings file: ``$XDG_CONFIG_HOME/sleuth/config.yml`` (default ``~/.config``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "sleuth", "config.yml")


def load_user_config() -> dict[str, Any]:
    """The person's settings file ({} when absent; YAML errors raise ValueError): Sleuth's own file,
    so every top-level key is a setting (a ``sleuth:`` section is accepted too)."""
    return _read_yaml(user_config_path()) or {}


def load_agent_config(root: str) -> dict[str, Any]:
    """Sleuth's part of the workspace's ``.agent/config.yml`` ({} when absent); YAML errors raise ValueError.

    The file is shared with other tools (seed 004): only ``tools.search`` and a ``sleuth`` section
    count; every other key belongs to someone else and is neither applied nor reported.
    """
    data = _read_yaml(os.path.join(root, AGENT_CONFIG_PATH))
    if not data:
        return {}
    picked: dict[str, Any] = {}
    tools = data.get("tools")
    if isinstance(tools, Mapping) and isinstance(tools.get("search"), Mapping):
        picked.update(tools["search"])
    if isinstance(data.get("sleuth"), Mapping):
        picked.update(data["sleuth"])
    return picked


UNLIMITED = 2**62


def cli_settings(base: Settings | None = None) -> Settings:
    """A terminal user expects rg's behaviour: every result, no deadline, no size cap unless asked.

    Here (not in ``cli/``) because a server answering the warm CLI (:mod:`sleuth.core.warm`) runs
    the command with exactly these settings, so its output is the cold path's.

    What guards the person carries over from ``base`` (:func:`sleuth.cli.common.workspace_settings`): the deny
    globs (denied files are never read, whatever the transport), redaction, the backend and the
    index location.
    """
    base = base or Settings()
    return Settings(max_results=UNLIMITED, default_max_results=UNLIMITED, timeout_ms=0,
                    max_timeout_ms=UNLIMITED, max_file_size_bytes=UNLIMITED, max_files=UNLIMITED,
                    max_matches_per_file=UNLIMITED, max_depth=UNLIMITED, deny_globs=base.deny_globs,
                    redaction=base.redaction, backend=base.backend, index_path=base.index_path)
