"""Server settings from their five layers (SPEC §10), recomputed whenever one layer changes.

Defaults ← the person's ``$XDG_CONFIG_HOME/sleuth/config.yml`` ← the first workspace folder's
``.agent/config.yml`` (a repository: only the keys :data:`sleuth.commands.settings_trust.TRUST`
gives it) ← ``initializationOptions`` ← ``workspace/configuration`` section ``sleuth`` (pulled
after ``initialized`` and on every ``workspace/didChangeConfiguration``; a client without the
pull model pushes its settings in that notification instead). Values are validated by
:func:`sleuth.commands.config.merge_settings`, which keeps the previous value for anything
bad; each distinct problem (a refused repository key included) is shown to the user once
(``window/showMessage``).

``initializationOptions`` may hold the settings flat, under ``sleuth`` or under ``settings``;
the transport keys ``storagePath`` / ``globalStoragePath`` / ``cacheDir`` (where the index may
live) and ``rescanIntervalSeconds`` (index upkeep without client file watching) are not settings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from sleuth.commands.config import AGENT_CONFIG_PATH, Settings, load_agent_config, load_user_config, user_config_path
from sleuth.commands.settings_trust import Layer, Origin, layered_settings

__all__ = ["ConfigLayers", "TRANSPORT_KEYS", "split_init_options"]

TRANSPORT_KEYS = ("storagePath", "globalStoragePath", "cacheDir", "storage_path", "cache_dir", "rescanIntervalSeconds")


def split_init_options(options: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """``initializationOptions`` as (settings mapping, transport options)."""
    if not isinstance(options, Mapping):
        return ({} if options is None else {"initializationOptions": options}), {}
    options = dict(options)
    transport = {k: options.pop(k) for k in TRANSPORT_KEYS if k in options}
    inner = options.pop("settings", None)
    if isinstance(inner, Mapping):
        options.update(inner)
    elif inner is not None:
        options["settings"] = inner  # reported as an unknown setting
    return options, transport


@dataclass
class ConfigLayers:
    """The raw layers and the problems already shown; :meth:`settings` merges them."""

    user: Mapping[str, Any] = field(default_factory=dict)
    agent: Mapping[str, Any] = field(default_factory=dict)
    init: Mapping[str, Any] = field(default_factory=dict)
    client: Mapping[str, Any] = field(default_factory=dict)
    shown: set[str] = field(default_factory=set)
    pending: list[str] = field(default_factory=list)  # problems found before the client could be told

    def load_user(self) -> None:
        """Read the person's own ``config.yml``; a YAML error keeps the defaults and goes to ``pending``."""
        try:
            self.user = load_user_config()
        except ValueError as exc:
            self.user = {}
            self.pending.append(str(exc))

    def load_agent(self, root: str | None) -> list[str]:
        """Read ``.agent/config.yml`` of ``root``; its problems (a YAML error keeps defaults) go to ``pending``."""
        self.agent = {}
        if not root:
            return []
        try:
            self.agent = load_agent_config(root)
        except ValueError as exc:
            self.pending.append(str(exc))
            return [str(exc)]
        return []

    def settings(self) -> tuple[Settings, list[str]]:
        """Defaults updated by every layer in order; problems of every layer."""
        where = (f"initializationOptions, the client's 'sleuth' settings (workspace/configuration) "
                 f"or {user_config_path()}")
        return layered_settings([
            Layer(user_config_path(), Origin.PERSON, self.user),
            Layer(AGENT_CONFIG_PATH, Origin.REPOSITORY, self.agent),
            Layer("initializationOptions", Origin.PERSON, self.init),
            Layer("workspace configuration 'sleuth'", Origin.PERSON, self.client),
        ], where)

    def new_problems(self, problems: list[str]) -> list[str]:
        """The problems not shown before (each is shown once per session)."""
        fresh = [p for p in problems if p not in self.shown]
        self.shown.update(fresh)
        return fresh
