"""The cold CLI's open of a published store (:meth:`ReadOnlyOpen.open_read_only`): a one-shot process
that must not write it. Apart from :mod:`.maintenance`, whose serving open, builds and catch-ups it
shares (:class:`~sleuth.engine.index.maintenance.Maintenance` is one): this path changes for a
one-shot call's start-up (its early freshness check, :mod:`.early_check`), the others for a server's.
"""

from __future__ import annotations

import gc
import os
import sqlite3
from typing import TYPE_CHECKING, Callable

from sleuth.engine.index import catalogue_map, freshness, store
from sleuth.engine.index.stat_pass import stated_later

if TYPE_CHECKING:
    from sleuth.engine.index.early_check import EarlyCheck
    from sleuth.engine.index.maintenance import Maintenance

__all__ = ["ReadOnlyOpen"]


class ReadOnlyOpen:
    """The read-only open, mixed into :class:`~sleuth.engine.index.maintenance.Maintenance`."""

    def open_read_only(self: "Maintenance", early: "EarlyCheck | None" = None,
                       meanwhile: Callable[[], None] | None = None) -> bool:
        """Open the published store for a one-shot process that must not write it (the cold CLI):
        no writer connection, no thread, no stale build removed, nothing applied. What changed since
        the store was written is found from the folder stamps (:mod:`.freshness`) and left pending,
        so every search reads those files from disk (the pending-change rule). False, with nothing
        left open, when there is no trusted store for these roots and options, or when the stamps
        cannot tell what changed (an ignore file edited, a folder unreadable, no stamps): the
        caller then scans, as it would without an index.

        The stamps' check runs in a forked child on the same columns (mapped: :mod:`.catalogue_map`)
        while this process makes its catalogue and posting readers: ``early``'s, forked by the caller
        before it imported all this (:mod:`.early_check`), when it checked the columns mapped here;
        else one forked now (:class:`.aside.Aside`).

        ``meanwhile``: called once the store is installed as it was built, before the check's answer is
        waited for, so that a one-shot call answers its question while the check finishes (on the Linux
        tree the check is the longest part of the call). That answer is not yet proven: the caller shows
        it only when this returns True with :meth:`IndexService.change_stamp` as it was in ``meanwhile``
        (the check found nothing changed), else it asks again, the changes then pending. When the
        check fails the store is closed again and False returned, as without ``meanwhile``."""
        from sleuth.engine.index.aside import Aside
        from sleuth.engine.index.lazy_catalogue import of_columns

        with self.state.lock:
            if self._thread is not None:
                if early is not None:
                    early.result(None)
                return self.state.ready
        opened = store.open_current(self.state.base, read_only=True)
        if opened is None:
            if early is not None:
                early.result(None)
            return False
        gen, catalog, shards, hold = opened
        check: Aside[freshness.QuickCatchUp] | None = None
        installed = False  # (by ``meanwhile``'s turn, before the check's answer)
        try:
            meta = self._identity(catalog)
            if meta is not None:
                # (read before the fork: the child's and ours; with an early check of this generation, the CRC is
                # the child's: it verified the same file, else ours below)
                cols, mapped = catalogue_map.open_columns(gen, catalog, crc=early is None or early.gen != gen)
                workspace, options, token = self.state.workspace, self.state.options, self.state.token
                db = os.path.join(gen, "catalog.db")
                gc.disable()  # ~100,000 objects that live as long as the process: no collection walks them
                try:
                    if early is None or early.gen != gen:
                        check = Aside(lambda: freshness.quick_catch_up_at(db, workspace, options, cols.stat_mapping(),
                                                                          token, stated_later(cols)))
                    cat = of_columns(cols, len(shards))  # (records made as a query touches them)
                    postings = self._posting_readers(gen, shards)
                finally:
                    gc.enable()
                if meanwhile is not None:  # (the store as built, nothing pending yet: an answer not yet proven)
                    self._install(gen, catalog, shards, hold, cat, postings, meta, writers=False)
                    installed = True
                    with self.state.lock:
                        self.state.phase = "ready"
                    meanwhile()
                if check is None and early is not None:  # (its child ran the catalogue's quick_check too)
                    used, quick = early.result(cols.source)
                    early = None
                    if not used:  # (another file than ours, or none mapped: checked here, now)
                        if not cols.intact():
                            meta = None
                        check = Aside(lambda: freshness.quick_catch_up_at(db, workspace, options, cols.stat_mapping(),
                                                                          token, stated_later(cols)))
                if check is not None:
                    if not store.catalogue_intact(catalog, mapped):  # (open_current left it to us: the child's time)
                        meta = None
                    quick = check.result()
        except (sqlite3.Error, OSError, ValueError, TypeError, IndexError, KeyError):  # a damaged store: the caller scans
            meta = None
            if check is not None:
                check.result()  # (the child is waited for)
        if early is not None:
            early.result(None)  # (the child is waited for)
        if meta is None or quick is None:
            with self.state.lock:
                if installed:
                    self._close()
                    self.state.phase = "absent"
                else:
                    for conn in [catalog, *shards]:
                        conn.close()
                    hold.close()
            return False
        if not installed:
            self._install(gen, catalog, shards, hold, cat, postings, meta, writers=False)
        self._pend(cat, quick.changed, quick.gone)
        self.caught_up_by = "stamps"
        with self.state.lock:
            if quick.changed or quick.gone:
                self.state.changes += 1  # (an answer made in ``meanwhile`` does not hold)
            self.state.unreadable = []
            self.state.phase = "ready"
        self.state.build_done.set()
        return True

