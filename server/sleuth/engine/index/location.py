"""Where a set of roots keeps its index store, and which generation is live: light on purpose.

A cold ``sleuth grep`` asks this on every call, before it knows whether an index exists for its
folders (:mod:`sleuth.engine.index.snapshot`); it needs no SQLite and no numpy (~130 ms to import
here), so a folder without a store pays a hash and one failed ``open``. The rest of the store's
rules (schema, publishing, locks) are in :mod:`sleuth.engine.index.store`, which re-exports these.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from sleuth.engine.roots_key import roots_key
from sleuth.engine.user_dirs import sleuth_cache_dir

__all__ = ["default_cache_dir", "store_dir", "StoreInsideWorkspace", "current_name", "catalogue_files"]


def default_cache_dir() -> str:
    """Where stores go without ``index.path``: Sleuth's folder in the platform cache folder
    (:func:`sleuth.engine.user_dirs.sleuth_cache_dir`)."""
    return sleuth_cache_dir()


class StoreInsideWorkspace(ValueError):
    """The store would lie inside a workspace folder: refused (the index would index itself, and
    a folder shared with others, a repository, would carry the cache)."""


def store_dir(roots: Iterable[str], index_path: str | None = None) -> str:
    """The store directory of a set of workspace roots: ``<index_path or the cache dir>/<hash of the roots>``.

    It depends on the roots (and the ``index.path`` setting) only, never on which client asks: the
    editor, the CLI, a second window or an MCP host on the same folders share one store (one writer,
    many readers: :func:`sleuth.engine.index.store.build_lock`, :data:`sleuth.engine.index.store.READERS`).
    Raises :class:`StoreInsideWorkspace` when that directory is inside one of the roots.
    """
    roots = list(roots)
    key = roots_key(roots)
    base = os.path.abspath(os.path.expanduser(index_path)) if index_path else default_cache_dir()
    real = os.path.realpath(base)
    for root in roots:
        inside = os.path.realpath(root)
        if real == inside or real.startswith(inside.rstrip(os.sep) + os.sep):
            what = f"index.path {index_path!r}" if index_path else f"the cache directory {base!r}"
            raise StoreInsideWorkspace(
                f"{what} lies inside the workspace folder {root!r}; the index store must live outside "
                "the folders it indexes. Set index.path to a directory outside the workspace.")
    return os.path.join(base, key)


def current_name(base: str) -> str | None:
    """The name ``CURRENT`` gives the live generation of the store at ``base``, or None (no store)."""
    try:
        with open(os.path.join(base, "CURRENT"), encoding="utf-8") as handle:
            return handle.read().strip()
    except OSError:
        return None


def catalogue_files(gen: str) -> int:
    """How many files the catalogue of generation ``gen`` holds (0 when it cannot be read): whether
    opening the index is worth its start-up at all. From ``catalog.map``'s header when there is one
    (``count(*)`` reads the whole ``files`` table: 4% of a cold call on the Linux tree), else SQLite
    only, read-only, no numpy."""
    import sqlite3
    from urllib.parse import quote

    from sleuth.engine.index.map_file import header_files

    mapped = header_files(gen)
    if mapped is not None:
        return mapped

    try:
        conn = sqlite3.connect(f"file:{quote(os.path.join(gen, 'catalog.db'))}?mode=ro", uri=True)
    except sqlite3.Error:
        return 0
    try:
        (count,) = conn.execute("SELECT count(*) FROM files").fetchone()
        return int(count)
    except sqlite3.Error:
        return 0
    finally:
        conn.close()
