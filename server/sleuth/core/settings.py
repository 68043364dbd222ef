"""Layered settings (docs/SPEC.md §10), the one implementation every door uses.

Defaults <- the person's ``$XDG_CONFIG_HOME/sleuth/config.yml`` <- every root's ``.agent/config.yml``
(a repository: only the keys :data:`sleuth.commands.settings_schema.TRUST` gives it; each root's file
found as git finds a repository, :func:`sleuth.commands.config.find_agent_config`) <- the door's own
layers, all the person's: the language server's ``initializationOptions`` and
``workspace/configuration``, the MCP server's flags; the CLI has none. Every layer is parsed once
into the schema (:func:`sleuth.commands.settings_schema.parse_layer`), which drops and reports
anything bad. Each distinct problem (a refused repository key, a file not read) is handed out once
per :class:`SettingsLayers` by :meth:`SettingsLayers.new_problems`; the door shows it where a person
looks (``window/showMessage``, the MCP log, stderr).

Files that change are followed (issue 28): :meth:`SettingsLayers.refresh` looks again for each
root's file and compares the files' stat signatures (a few ``stat`` calls, microseconds), so a
session calls it before every request and the next request sees a rule the repository added.

A module of its own, importing only the settings code: the warm CLI needs these settings to ask a
server and must start fast.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from sleuth.commands.config import (AGENT_CONFIG_PATH, Settings, find_agent_config, load_agent_config,
                                    load_user_config, user_config_path)
from sleuth.engine.values import Record, Value, fill

__all__ = ["SettingsLayers", "AgentFile"]

Signature = tuple[int, int, int] | None  # (mtime_ns, size, inode) of a file; None when absent


def _signature(path: str) -> Signature:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


# Each file as last read, by folder: (signature, Sleuth's part, the error) — the CLI's settings and the
# session that runs its command read the same file once, not twice.
_READ: dict[str, tuple[Signature, Mapping[str, object], str | None]] = {}


class AgentFile(Value):
    """The ``.agent/config.yml`` that governs one root: where it is (None: no file), as read."""

    __slots__ = ("root", "folder", "signature", "values")
    root: str
    folder: str | None
    signature: Signature
    values: Mapping[str, object]

    def __init__(self, root: str, folder: str | None, signature: Signature, values: Mapping[str, object]) -> None:
        fill(self, "root", root)
        fill(self, "folder", folder)
        fill(self, "signature", signature)
        fill(self, "values", values)

    @property
    def name(self) -> str:
        """How messages name it: ``.agent/config.yml`` at the root, else its full path."""
        if self.folder is None or self.folder == self.root:
            return AGENT_CONFIG_PATH
        return os.path.join(self.folder, AGENT_CONFIG_PATH)

    @property
    def below(self) -> str:
        """The root's path relative to the file's folder ("" when the file is the root's own)."""
        if self.folder is None or self.folder == self.root:
            return ""
        return os.path.relpath(self.root, self.folder).replace(os.sep, "/")


class SettingsLayers(Record):
    """The raw layers, the problems not shown yet and those already shown; :meth:`settings` merges.
    ``layers``: a door's own (name, values), over the person's and the repositories'; ``where``: where a
    refused repository key may be set instead (default: the person's config.yml); ``pending``: read
    errors, until :meth:`new_problems` hands them out."""

    __slots__ = ("user", "agents", "layers", "where", "shown", "pending", "user_signature")

    def __init__(self, user: Mapping[str, object] | None = None, agents: list[AgentFile] | None = None,
                 layers: list[tuple[str, Mapping[str, object]]] | None = None, where: str = "",
                 shown: set[str] | None = None, pending: list[str] | None = None,
                 user_signature: Signature = None) -> None:
        self.user: Mapping[str, object] = {} if user is None else user
        self.agents: list[AgentFile] = [] if agents is None else agents
        self.layers: list[tuple[str, Mapping[str, object]]] = [] if layers is None else layers
        self.where = where
        self.shown: set[str] = set() if shown is None else shown
        self.pending: list[str] = [] if pending is None else pending
        self.user_signature = user_signature

    def load_user(self) -> None:
        """Read the person's own ``config.yml``; a file not read keeps the defaults and is a problem."""
        path = user_config_path()
        self.user_signature = _signature(path)
        try:
            self.user = load_user_config()
        except ValueError as exc:
            self.user = {}
            self.pending.append(str(exc))

    def load_agent(self, root: str | None) -> None:
        """One root's files (see :meth:`load_agents`); nothing without a root."""
        self.load_agents([root] if root else [])

    def load_agents(self, roots: Sequence[str]) -> None:
        """Read each root's governing ``.agent/config.yml``; a file not read is a problem."""
        self.agents = [self._read_agent(root) for root in roots]

    def _read_agent(self, root: str) -> AgentFile:
        folder = find_agent_config(root)
        if folder is None:
            return AgentFile(root, None, None, {})
        signature = _signature(os.path.join(folder, AGENT_CONFIG_PATH))
        cached = _READ.get(folder)
        if cached is None or cached[0] != signature:
            try:
                cached = (signature, load_agent_config(folder), None)
            except ValueError as exc:
                cached = (signature, {}, str(exc))
            _READ[folder] = cached
        if cached[2] is not None:
            self.pending.append(cached[2])
        return AgentFile(root, folder, signature, cached[1])

    def refresh(self) -> bool:
        """Read again what changed on disk (a root's file added, edited or removed; the person's file);
        True when anything did."""
        changed = False
        if _signature(user_config_path()) != self.user_signature:
            self.load_user()
            changed = True
        for i, agent in enumerate(self.agents):
            folder = find_agent_config(agent.root)
            signature = _signature(os.path.join(folder, AGENT_CONFIG_PATH)) if folder is not None else None
            if folder != agent.folder or signature != agent.signature:
                self.agents[i] = self._read_agent(agent.root)
                changed = True
        return changed

    def set_layer(self, name: str, values: Mapping[str, object]) -> None:
        """Replace the door's layer ``name`` (appended after the others the first time)."""
        for i, (existing, _) in enumerate(self.layers):
            if existing == name:
                self.layers[i] = (name, values)
                return
        self.layers.append((name, values))

    def settings(self) -> tuple[Settings, list[str]]:
        """Defaults updated by every layer in order; the read errors not handed out yet, then every
        layer's problems. When no layer sets anything (no settings file, the usual case of a cold CLI
        call) the defaults, without importing the schema and trust tables (~5 ms of a call)."""
        if not self.user and not any(agent.values for agent in self.agents) and not any(v for _, v in self.layers):
            return Settings(), list(self.pending)
        from sleuth.commands.settings_trust import Layer, Origin, layered_settings

        settings, problems = layered_settings([
            Layer(user_config_path(), Origin.PERSON, self.user),
            *(Layer(agent.name, Origin.REPOSITORY, agent.values, agent.below) for agent in self.agents),
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
