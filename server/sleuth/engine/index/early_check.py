"""A cold call's freshness check, forked as soon as it knows a store exists: before its index stack is imported.

The cold CLI proves a store current by a ``stat`` of every catalogued file and folder (:mod:`.freshness`),
~0.2 s of one core on the Linux tree, which :class:`.aside.Aside` already runs in a forked child. Forked
from :meth:`.maintenance.Maintenance.open_read_only` it started only after the parent had imported numpy
and the index stack (~0.15 CPU-s of that call) and opened the store, and was still the longest part of
the call. Forked here, from :func:`sleuth.core.cold_store.current_store` before those imports, the child
reads what it needs without numpy (:func:`.map_file.stat_columns`: the mapped file's views) while the
parent imports and opens, and also runs the catalogue's ``quick_check`` that :func:`.store.open_current`
leaves a read-only caller to run (~40 ms of reading ``catalog.db`` whole, on the Linux tree).

Both map the same ``catalog.map``, checked the same way; its source (device, inode, size, time: the
file is only ever replaced) travels with the child's answer, and the parent uses the answer only when
the file it mapped itself is that one (:meth:`EarlyCheck.result`); else it makes the check itself.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from sleuth.engine.index.aside import Aside

if TYPE_CHECKING:
    from sleuth.engine.index.freshness import QuickCatchUp
    from sleuth.engine.index.map_file import Source
    from sleuth.engine.types import WalkOptions
    from sleuth.engine.workspace import Workspace

__all__ = ["EarlyCheck"]

Answer = tuple["Source", "QuickCatchUp | None"]


def _check(gen: str, workspace: Workspace, options: WalkOptions) -> Answer | None:
    """The child's task: the catch-up of ``gen``'s mapped columns, with the source it read them from."""
    from sleuth.engine.cancel import CancelToken
    from sleuth.engine.index import freshness
    from sleuth.engine.index.map_file import StatMapping, stat_columns
    from sleuth.engine.index.stat_pass import stated_later
    from sleuth.engine.index.store import catalogue_intact, connect_read_only

    conn = connect_read_only(os.path.join(gen, "catalog.db"))
    try:
        cols = stat_columns(gen, conn, crc=False)
        if cols is None:
            return None
        # The stat of every file first, in a thread: the checks below (the columns' CRC, the catalogue's,
        # the folder stamps') run meanwhile, and the answer is used only when they all hold.
        stated = stated_later(cols)
        try:
            if not cols.crc_holds():
                return None
            if not catalogue_intact(conn, mapped=True):  # (what open_current leaves a read-only caller: the tables read)
                return cols.source, None
            quick = freshness.quick_catch_up(conn, workspace, options, StatMapping(cols), CancelToken(), stated)
            return cols.source, quick
        finally:
            stated()  # (waited for here too: without a fork this runs in the caller, which must be left one thread)
    finally:
        conn.close()


class EarlyCheck:
    """The freshness check of generation ``gen`` for ``workspace`` walked with ``options``, started now."""

    def __init__(self, gen: str, workspace: Workspace, options: WalkOptions) -> None:
        self.gen = gen
        self._aside: Aside[Answer] = Aside(lambda: _check(gen, workspace, options))

    def result(self, source: Source | None) -> tuple[bool, QuickCatchUp | None]:
        """(whether the check was of the columns mapped from ``source``, its answer). Waits for the
        child; call it once, also when the answer is not wanted (the child is reaped here)."""
        answer = self._aside.result()
        if answer is None or source is None or answer[0] != source:
            return False, None
        return True, answer[1]
