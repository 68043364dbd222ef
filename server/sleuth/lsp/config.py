"""The language server's two settings layers, on top of the core's (:mod:`sleuth.core.settings`).

Defaults ← the person's ``$XDG_CONFIG_HOME/sleuth/config.yml`` ← the first workspace folder's
``.agent/config.yml`` (a repository: only the keys :data:`sleuth.commands.settings_trust.TRUST`
gives it) ← ``initializationOptions`` ← ``workspace/configuration`` section ``sleuth`` (pulled
after ``initialized`` and on every ``workspace/didChangeConfiguration``; a client without the
pull model pushes its settings in that notification instead). The session
(:class:`sleuth.core.session.Session`) merges and validates them; each distinct problem (a refused
repository key included) is shown to the user once (``window/showMessage``).

``initializationOptions`` may hold the settings flat, under ``sleuth`` or under ``settings``;
the transport keys ``cacheDir`` (an explicit store location, for tests; the ``index.path`` setting
wins), ``storagePath`` / ``globalStoragePath`` (sent by the VS Code client; accepted and ignored: the
store is one per set of roots, whichever client opens it) and ``rescanIntervalSeconds`` (index
upkeep without client file watching) are not settings.
"""

from __future__ import annotations

from typing import Any, Mapping

from sleuth.commands.config import user_config_path

__all__ = ["TRANSPORT_KEYS", "INIT_LAYER", "CLIENT_LAYER", "split_init_options", "session_layers", "where_to_set"]

TRANSPORT_KEYS = ("storagePath", "globalStoragePath", "cacheDir", "storage_path", "cache_dir", "rescanIntervalSeconds")
INIT_LAYER = "initializationOptions"
CLIENT_LAYER = "workspace configuration 'sleuth'"


def session_layers() -> list[tuple[str, Mapping[str, Any]]]:
    """The layers this door adds after the person's and the repository's files, empty until the client speaks."""
    return [(INIT_LAYER, {}), (CLIENT_LAYER, {})]


def where_to_set() -> str:
    """Where a person sets what a repository may not (named in the message about a refused key)."""
    return f"initializationOptions, the client's 'sleuth' settings (workspace/configuration) or {user_config_path()}"


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
