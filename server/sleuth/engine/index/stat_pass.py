"""The ``stat`` of every catalogued file, on the other core: a restarted server's half of its catch-up.

Proving a store current takes a ``stat`` of each of its files (:mod:`.freshness`): on the Linux tree
78,000 calls, ~0.25 CPU-s, while the same process reads the catalogue's rows and the posting
directories (~0.4 CPU-s). Threads would not overlap them (the interpreter lock), and a server has
threads, so it may not fork (:func:`sleuth.engine.platform.fork_aside`). So a second interpreter,
started bare (``-I -S``: no site, no Sleuth, ~20 ms), reads the ids, paths, sizes and times from the
catalogue itself (read-only) and prints the ids of the files that differ: ``-id`` for a path that is
no longer a regular file, ``id`` for one whose size or time moved (or that was never indexed). Any
failure (no interpreter, a crash, another row count than the caller's) answers None: the caller
then makes the check itself, as before.

Where the optional compiled loop exists (``_stats.c``: :data:`.native.stat_changed`) and the catalogue's
columns are at hand (:mod:`.catalogue_map`), :class:`NativeStatPass` makes the same check in a thread
instead: the loop releases the interpreter lock, so it runs on the other core without a second
interpreter (~20 ms to start, ~0.1 CPU-s to read the rows again) and at C's speed.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import TYPE_CHECKING, Callable, Mapping

from sleuth.engine.index import native
from sleuth.engine.index.freshness import MTIME_SLACK_NS, Stated
from sleuth.engine.index.map_file import StatMapping

if TYPE_CHECKING:
    import subprocess

    from sleuth.engine.index.catalogue import Catalogue
    from sleuth.engine.index.catalogue_map import Columns
    from sleuth.engine.index.map_file import StatColumns

__all__ = ["StatPass", "NativeStatPass", "Differing", "Stated", "stated_paths", "stated_now", "stated_later",
           "stated_of_sizes", "start_stat_pass"]

Differing = tuple[set[int], set[int]]  # (ids no longer a regular file, ids changed)

_CHILD = r"""
import os, sqlite3, stat, sys
from urllib.parse import quote
conn = sqlite3.connect("file:" + quote(sys.argv[1]) + "?mode=ro", uri=True)
out, lstat, is_file, rows, slack = [], os.lstat, stat.S_ISREG, 0, int(sys.argv[2])
for fid, path, size, mtime, first in conn.execute("SELECT id, path, size, mtime_ns, first_row FROM files"):
    rows += 1
    try:
        st = lstat(path)
    except OSError:
        out.append(-fid)
        continue
    if not is_file(st.st_mode):
        out.append(-fid)
    elif st.st_size != size or abs(st.st_mtime_ns - mtime) > slack or first < 0:
        out.append(fid)
sys.stdout.write(f"{rows}\n" + ",".join(map(str, out)))
"""


class StatPass:
    """The check of catalogue ``db``'s files, started now in a bare interpreter; :meth:`result` waits."""

    def __init__(self, db: str) -> None:
        import subprocess  # (here: a cold call, which never starts this interpreter, does not load it)

        try:
            self._child: subprocess.Popen[bytes] | None = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _CHILD, db, str(MTIME_SLACK_NS)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL)
        except OSError:
            self._child = None

    def result(self, rows: int) -> Differing | None:
        """The files that differ, or None when the check failed or read another number of ``rows``
        than the caller's catalogue holds (the store changed between the two reads)."""
        child, self._child = self._child, None
        if child is None:
            return None
        out, _ = child.communicate()
        if child.returncode != 0:
            return None
        count, _, ids = out.decode("ascii").partition("\n")
        if int(count) != rows:
            return None
        numbers = [int(n) for n in ids.split(",") if n]
        return {-n for n in numbers if n < 0}, {n for n in numbers if n > 0}

    def cancel(self) -> None:
        child, self._child = self._child, None
        if child is not None:
            child.kill()
            child.wait()


def stated_now(cols: StatColumns) -> Stated | None:
    """The check of ``cols``' files made here by the compiled loop, as paths; None without the loop
    (or when the columns do not hold their paths' bytes as the loop needs them)."""
    if native.stat_changed is None:
        return None
    try:
        found = native.stat_changed(cols.path_bytes(), cols.sizes, cols.mtimes, cols.firsts, MTIME_SLACK_NS)
    except (ValueError, MemoryError, TypeError):
        return None
    paths = cols.paths
    return {paths[-n - 1] for n in found if n < 0}, {paths[n - 1] for n in found if n > 0}


def stated_later(cols: StatColumns) -> Callable[[], Stated | None]:
    """:func:`stated_now` started now in a thread (the compiled loop releases the interpreter lock), as
    the call that waits for its answer: a freshness check gives it to :func:`.freshness.quick_catch_up`,
    which checks the folder stamps meanwhile (~25 ms of the cold call's check on the Linux tree, which
    ran after the ~55 ms of ``stat`` with a core idle) and waits only when it needs the files' answer.
    Without the loop, a call that answers None at once (the check then states each file itself)."""
    if native.stat_changed is None:
        return lambda: None
    found: list[Stated | None] = [None]

    def run() -> None:
        found[0] = stated_now(cols)

    thread = threading.Thread(target=run, name="sleuth-stat-pass", daemon=True)
    thread.start()

    def wait() -> Stated | None:
        thread.join()
        return found[0]

    return wait


def stated_of_sizes(sizes: Mapping[str, tuple[int, int, bool]]) -> Stated | None:
    """The compiled check of a freshness check's ``path -> (size, mtime_ns, indexed)`` (a rescan's: the
    catalogue as changed since the open), the interpreter lock released meanwhile; None without the loop."""
    if native.stat_changed is None or not sizes:
        return None
    if isinstance(sizes, StatMapping):  # (the stored columns themselves: no array made)
        return stated_now(sizes.cols)
    import numpy as np

    paths = list(sizes)
    columns = np.array(list(sizes.values()), np.int64).reshape(len(paths), 3)
    try:
        blob = b"\0".join(map(os.fsencode, paths))
        firsts = columns[:, 2] - 1  # (indexed: 1 -> 0, not indexed: 0 -> -1, as a first row)
        found = native.stat_changed(blob, np.ascontiguousarray(columns[:, 0]), np.ascontiguousarray(columns[:, 1]),
                                    np.ascontiguousarray(firsts), MTIME_SLACK_NS)
    except (ValueError, MemoryError, TypeError):
        return None
    return {paths[-n - 1] for n in found if n < 0}, {paths[n - 1] for n in found if n > 0}


class NativeStatPass:
    """:func:`stated_now` in a thread, started now (the loop releases the interpreter lock);
    :meth:`result` waits. ``rows``: the number of files it checked (the caller's catalogue's, as read)."""

    def __init__(self, cols: Columns) -> None:
        self.rows = len(cols)
        self._wait = stated_later(cols)

    def result(self) -> Stated | None:
        return self._wait()

    def cancel(self) -> None:
        self._wait()  # (a tenth of a second of lstat: not worth a way to stop it)


def start_stat_pass(db: str, cols: Columns | None) -> StatPass | NativeStatPass:
    """The check of catalogue ``db``'s files: by the compiled loop in a thread when it exists and the
    columns are read already, else by a second interpreter (which reads them itself)."""
    if cols is not None and native.stat_changed is not None:
        return NativeStatPass(cols)
    return StatPass(db)


def stated_paths(check: StatPass | NativeStatPass | None, cat: Catalogue) -> Stated | None:
    """``check``'s answer as paths of ``cat`` (the catalogue as read when the check started: a
    :class:`~sleuth.engine.index.lazy_catalogue.LazyCatalogue` not yet written), or None (check here)."""
    from sleuth.engine.index.lazy_catalogue import LazyCatalogue

    if check is None:
        return None
    if isinstance(check, NativeStatPass):
        return check.result() if isinstance(cat, LazyCatalogue) and check.rows == len(cat) else (check.cancel(), None)[1]
    if not isinstance(cat, LazyCatalogue):
        check.cancel()
        return None
    found = check.result(len(cat))
    if found is None:
        return None
    return {cat.stored_path(i) for i in found[0]}, {cat.stored_path(i) for i in found[1]}
