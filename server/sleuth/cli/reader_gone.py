"""Notice that standard output's reader went away without writing to it (``sleuth grep PAT | head -1``).

A process learns that the reading end of its pipe closed only when its next write fails (EPIPE), and
rg stops there. A search that found its first line may not write again for a long time: the next
match can be thousands of files away, so ``| head -1`` waited for it (issue 30 item 2). On a pipe,
the writing end reports ``POLLERR`` as soon as no reader is left, with nothing written: a daemon
thread waits for it and calls back, and the search is cancelled as a failed write cancels it.

Only for a pipe (a file, a terminal or ``/dev/null`` never loses its reader), and only where
``select.poll`` exists; elsewhere the next write tells, as before.
"""

from __future__ import annotations

import os
import stat
TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing

if TYPE_CHECKING:
    from typing import Callable

__all__ = ["watch_reader"]


def watch_reader(fd: int, on_gone: Callable[[], None]) -> bool:
    """Call ``on_gone`` once, from a daemon thread, when pipe ``fd`` has no reader left; False (and
    nothing started) when ``fd`` is not a pipe or the platform cannot tell."""
    try:
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return False
    except OSError:
        return False
    import select
    import threading

    if not hasattr(select, "poll"):
        return False
    poller = select.poll()
    poller.register(fd, 0)  # no events asked: POLLERR (no reader) and POLLNVAL (fd closed) come anyway

    def wait() -> None:
        while not poller.poll():
            pass
        on_gone()

    threading.Thread(target=wait, name="sleuth-reader-gone", daemon=True).start()
    return True
