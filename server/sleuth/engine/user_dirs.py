"""The person's cache folder, computed in one place for the index store, the warm doors' fallback
folder and the CLI's tool rate-limit state.

Light (``os`` and :mod:`sleuth.engine.platform`, which owns the platform's conventions): the CLI's
fork client reaches it (through :mod:`sleuth.core.warm_paths`) on every warm call before anything
else is loaded.
"""

from __future__ import annotations

import os

from sleuth.engine.platform import cache_base

__all__ = ["cache_home", "sleuth_cache_dir"]


def cache_home() -> str:
    """The platform's per-user cache folder: ``$XDG_CACHE_HOME`` or ``~/.cache``; ``~/Library/Caches``
    on macOS; ``%LOCALAPPDATA%`` on Windows (:func:`sleuth.engine.platform.cache_base`)."""
    return cache_base()


def sleuth_cache_dir() -> str:
    """Sleuth's own folder in it: index stores (one per set of roots) and small state files."""
    return os.path.join(cache_home(), "sleuth")
