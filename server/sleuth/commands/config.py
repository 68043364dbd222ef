"""Settings (docs/SPEC.md §10): defaults <- the person's ``config.yml`` <- ``.agent/config.yml`` <- ``initializationOptions``
<- ``workspace/configuration``; what a repository's file may set is :mod:`sleuth.commands.settings_trust`'s table.

One frozen :class:`Settings`; what each key may be and who may set it is the schema,
:mod:`sleuth.commands.settings_schema`, which parses every layer once and merges it
(:func:`~sleuth.commands.settings_schema.merge_settings`: the schema is made from :class:`Settings`,
so it imports this module and never the other way); a bad value is reported in
the returned problem list (the server shows it once with ``window/showMessage``) and the previous
value is kept. Files are read by :mod:`sleuth.commands.settings_yaml` (caps, libyaml, bounded aliases).
"""

from __future__ import annotations

import os

from sleuth.engine.values import Value, fill

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:  # imported by index_config(): a CLI call reads its settings without the index's types
    from typing import Any
    from sleuth.engine.index.config import IndexConfig

__all__ = ["Settings", "load_agent_config", "load_user_config", "find_agent_config",
           "user_config_path", "AGENT_CONFIG_PATH", "AGENT_SECTIONS", "cli_settings"]

AGENT_CONFIG_PATH = os.path.join(".agent", "config.yml")


class Settings(Value):
    """Server-wide defaults and hard caps; a request above a hard cap is ``bad_args``.

    Each field is a class annotation with its default; an instance holds only what was given
    (``Settings(max_results=10)``, or every field in this order) and reads the rest from the class.
    A :class:`~sleuth.engine.values.Value` rather than a frozen dataclass: a cold CLI call builds no
    dataclass and never imports ``dataclasses`` (with ``inspect``, ~5 ms of its start-up, issue 30).
    The schema reads the fields from :attr:`field_names` and their types from the annotations."""

    __slots__ = ("__dict__",)  # (the given fields; the class holds the defaults)

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

    def __init__(self, *values: Any, **named: Any) -> None:
        if len(values) > len(self.field_names):
            raise TypeError(f"Settings takes at most {len(self.field_names)} values")
        named.update(zip(self.field_names, values))
        unknown = named.keys() - self.__annotations__.keys()
        if unknown:
            raise TypeError(f"unknown settings: {', '.join(sorted(unknown))}")
        for name, value in named.items():
            fill(self, name, value)

    field_names = tuple(__annotations__)  # (a Record's come from __slots__: these, from the annotations)

    def to_dict(self) -> dict[str, Any]:
        """Every field by name (``dataclasses.asdict``)."""
        return dict(zip(self.field_names, self.fields()))

    def index_config(self) -> IndexConfig:
        """What the index takes from these settings (and all it takes: a change elsewhere keeps it)."""
        from sleuth.engine.index.config import IndexConfig

        return IndexConfig(follow=self.follow, respect_gitignore=self.respect_gitignore, deny_globs=self.deny_globs,
                           max_file_size_bytes=self.max_file_size_bytes, index_path=self.index_path)


def user_config_path() -> str:
    """The person's own settings file: ``$XDG_CONFIG_HOME/sleuth/config.yml`` (default ``~/.config``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "sleuth", "config.yml")


def load_user_config() -> dict[str, object]:
    """The person's settings file ({} when absent; a file not read raises ValueError): Sleuth's own file,
    so every top-level key is a setting (a ``sleuth:`` section is accepted too)."""
    from sleuth.commands.settings_yaml import read_settings_file

    return read_settings_file(user_config_path()) or {}


# Sleuth's parts of seed 004's shared file, in the order they apply (a `sleuth:` section wins).
AGENT_SECTIONS = (("tools", "search"), ("sleuth",))


def load_agent_config(root: str) -> dict[str, object]:
    """Sleuth's part of the workspace's ``.agent/config.yml`` ({} when absent); a file not read raises
    ValueError.

    The file is shared with other tools (seed 004): only ``tools.search`` and a ``sleuth`` section
    count; every other key belongs to someone else and is neither parsed, applied nor reported.
    """
    from sleuth.commands.settings_yaml import read_settings_file

    return read_settings_file(os.path.join(root, AGENT_CONFIG_PATH), AGENT_SECTIONS) or {}


def find_agent_config(folder: str) -> str | None:
    """The folder whose ``.agent/config.yml`` governs ``folder``, found as git finds a repository: the
    nearest one from ``folder`` up to the repository's top (the first folder holding ``.git``). Outside
    a repository only ``folder``'s own counts: a file in some parent (``/tmp``, a home folder) is
    nobody's settings for this tree."""
    current = os.path.abspath(folder)
    in_repository = False
    probe = current
    while True:
        if os.path.exists(os.path.join(probe, ".git")):
            in_repository = True
            break
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    while True:
        if os.path.isfile(os.path.join(current, AGENT_CONFIG_PATH)):
            return current
        if not in_repository or os.path.exists(os.path.join(current, ".git")):
            return None
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


UNLIMITED = 2**62


def cli_settings(base: Settings | None = None) -> Settings:
    """A terminal user expects rg's behaviour: every result, no deadline, no size cap unless asked.

    Here (not in ``cli/``) because a server answering the warm CLI (:mod:`sleuth.core.warm`) runs
    the command with exactly these settings, so its output is the cold path's.

    What guards the person carries over from ``base`` (:func:`sleuth.cli.common.workspace_settings`): the deny
    globs (denied files are never read, whatever the transport), redaction, the backend and the
    index location; and where the call's log line goes (``log_file``, ``log_level``): the CLI reads its
    settings once and passes this one object down (:func:`sleuth.core.invocation.run_once` logs by it).
    """
    base = base or Settings()
    return Settings(max_results=UNLIMITED, default_max_results=UNLIMITED, timeout_ms=0,
                    max_timeout_ms=UNLIMITED, max_file_size_bytes=UNLIMITED, max_files=UNLIMITED,
                    max_matches_per_file=UNLIMITED, max_depth=UNLIMITED, deny_globs=base.deny_globs,
                    redaction=base.redaction, backend=base.backend, index_path=base.index_path,
                    log_file=base.log_file, log_level=base.log_level)

