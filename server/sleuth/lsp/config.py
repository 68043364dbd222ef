"""Server settings from their four layers (SPEC §10), recomputed whenever one layer changes.

Defaults ← the first workspace folder's ``.agent/config.yml`` ← ``initializationOptions`` ←
``workspace/configuration`` section ``sleuth`` (pulled after ``initialized`` and on every
``workspace/didChangeConfiguration``; a client without the pull model pushes its settings in
that notification instead). Values are validated by
:func:`sleuth.commands.config.merge_settings`, which keeps the previous value for anything
bad; each distinct problem is shown to the user once (``window/showMessage``).

``initializationOptions`` may hold the settings flat, under ``sleuth`` or under ``settings``;
the transport keys ``cacheDir`` (an explicit store location, for tests; the ``index.path`` setting
wins), ``storagePath`` / ``globalStoragePath`` (sent by the VS Code client; accepted and ignored: the
store is one per set of roots, whichever client opens it) and ``rescanIntervalSeconds`` (index
upkeep without client file watching) are not settings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from sleuth.commands.config import Settings, load_agent_config, merge_settings

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

    agent: Mapping[str, Any] = field(default_factory=dict)
    init: Mapping[str, Any] = field(default_factory=dict)
    client: Mapping[str, Any] = field(default_factory=dict)
    shown: set[str] = field(default_factory=set)
    pending: list[str] = field(default_factory=list)  # problems found before the client could be told

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
        current = Settings()
        problems: list[str] = []
        for source, origin in ((self.agent, ".agent/config.yml"), (self.init, "initializationOptions"),
                               (self.client, "workspace configuration 'sleuth'")):
            current, found = merge_settings(current, source, origin)
            problems.extend(found)
        return current, problems

    def new_problems(self, problems: list[str]) -> list[str]:
        """The problems not shown before (each is shown once per session)."""
        fresh = [p for p in problems if p not in self.shown]
        self.shown.update(fresh)
        return fresh
