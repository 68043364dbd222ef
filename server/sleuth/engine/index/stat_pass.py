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
"""

from __future__ import annotations

import subprocess
import sys
from typing import TYPE_CHECKING

from sleuth.engine.index.freshness import MTIME_SLACK_NS

if TYPE_CHECKING:
    from sleuth.engine.index.catalogue import Catalogue

__all__ = ["StatPass", "Differing", "stated_paths"]

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


def stated_paths(check: StatPass | None, cat: Catalogue) -> tuple[set[str], set[str]] | None:
    """``check``'s answer as paths of ``cat`` (the catalogue as read when the check started: a
    :class:`~sleuth.engine.index.lazy_catalogue.LazyCatalogue` not yet written), or None (check here)."""
    from sleuth.engine.index.lazy_catalogue import LazyCatalogue

    if check is None:
        return None
    if not isinstance(cat, LazyCatalogue):
        check.cancel()
        return None
    found = check.result(len(cat))
    if found is None:
        return None
    return {cat.stored_path(i) for i in found[0]}, {cat.stored_path(i) for i in found[1]}
