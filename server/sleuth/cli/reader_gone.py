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
    import _thread
    import select

    if not hasattr(select, "poll"):
        return False
    poller = select.poll()
    poller.register(fd, 0)  # no events asked: POLLERR (no reader) and POLLNVAL (fd closed) come anyway

    def wait() -> None:
        while not poller.poll():
            pass
        on_gone()

    # A bare thread, not a threading.Thread: threading counts its threads, and a one-shot grep starts
    # its worker pool by fork only in a process that has one (sleuth.engine.platform.pool_start_method;
    # with a second thread the pool came from a fork server: slower to start, its workers not waited
    # for at exit). This thread only waits in poll() and takes no lock, so a fork leaves it behind
    # safely; like a daemon thread, it does not keep the process alive.
    _thread.start_new_thread(wait, ())
    return True
