"""Layered settings (SPEC §10), the one implementation every door uses.

Defaults <- the person's ``$XDG_CONFIG_HOME/sleuth/config.yml`` <- the first root's
``.agent/config.yml`` (a repository: only the keys :data:`sleuth.commands.settings_trust.TRUST`
gives it) <- the door's own layers, all the person's: the language server's
``initializationOptions`` and ``workspace/configuration``, the MCP server's flags; the CLI has none.
Values are validated by :func:`sleuth.commands.config.merge_settings`, which keeps the previous
value for anything bad. Each distinct problem (a refused repository key, a YAML error) is handed
out once per :class:`SettingsLayers` by :meth:`SettingsLayers.new_problems`; the door shows it
where a person looks (``window/showMessage``, the MCP log, stderr).

A module of its own, importing only the settings code: the warm CLI needs these settings to ask a
server and must start fast.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from sleuth.commands.config import AGENT_CONFIG_PATH, Settings, load_agent_config, load_user_config, user_config_path
from sleuth.commands.settings_trust import Layer, Origin, layered_settings

__all__ = ["SettingsLayers"]


@dataclass
class SettingsLayers:
    """The raw layers, the problems not shown yet and those already shown; :meth:`settings` merges."""

    user: Mapping[str, Any] = field(default_factory=dict)
    agent: Mapping[str, Any] = field(default_factory=dict)
    layers: list[tuple[str, Mapping[str, Any]]] = field(default_factory=list)  # (name, values): the person's
    where: str = ""  # where a refused repository key may be set instead (default: the person's config.yml)
    shown: set[str] = field(default_factory=set)
    pending: list[str] = field(default_factory=list)  # read errors, until new_problems hands them out

    def load_user(self) -> None:
        """Read the person's own ``config.yml``; a YAML error keeps the defaults and is a problem."""
        try:
            self.user = load_user_config()
        except ValueError as exc:
            self.user = {}
            self.pending.append(str(exc))

    def load_agent(self, root: str | None) -> None:
        """Read ``root``'s ``.agent/config.yml`` (nothing without a root); a YAML error is a problem."""
        self.agent = {}
        if root:
            try:
                self.agent = load_agent_config(root)
            except ValueError as exc:
                self.pending.append(str(exc))

    def set_layer(self, name: str, values: Mapping[str, Any]) -> None:
        """Replace the door's layer ``name`` (appended after the others the first time)."""
        for i, (existing, _) in enumerate(self.layers):
            if existing == name:
                self.layers[i] = (name, values)
                return
        self.layers.append((name, values))

    def settings(self) -> tuple[Settings, list[str]]:
        """Defaults updated by every layer in order; the read errors not handed out yet, then every
        layer's problems."""
        settings, problems = layered_settings([
            Layer(user_config_path(), Origin.PERSON, self.user),
            Layer(AGENT_CONFIG_PATH, Origin.REPOSITORY, self.agent),
            *(Layer(name, Origin.PERSON, values) for name, values in self.layers),
        ], self.where or user_config_path())
        return settings, self.pending + problems

    def new_problems(self, problems: list[str]) -> list[str]:
        """The problems not handed out before (each once per session); the pending read errors are
        handed out with them."""
        self.pending = []
        fresh = [p for p in dict.fromkeys(problems) if p not in self.shown]
        self.shown.update(fresh)
        return fresh
