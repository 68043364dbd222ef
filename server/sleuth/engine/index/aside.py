"""A side task in a forked child, its result taken later: two cores for a one-shot process.

The cold CLI proves its index fresh by a ``stat`` of every catalogued file (:mod:`.freshness`) and
must also load the catalogue and the posting directories; each is a few hundred milliseconds of one
core on the Linux tree, and threads would not overlap them (the interpreter lock: the checking
thread would wait up to a switch interval after each ``stat``). A child forked once the inputs are
read does the check while the parent loads; its answer comes back pickled through a pipe. Where
forking is not safe (:func:`sleuth.engine.platform.fork_aside`) the task runs in the caller when
its result is asked for. A child that fails answers None, which callers take as "cannot tell".
"""

from __future__ import annotations

import gc
import os
import pickle
from typing import Callable, Generic, TypeVar

from sleuth.engine.platform import fork_aside

__all__ = ["Aside"]

T = TypeVar("T")


class Aside(Generic[T]):
    """``task()`` started now in a child (or later, in this process); :meth:`result` waits for it.
    The child must touch nothing the parent holds open (SQLite connections above all): the task
    opens its own, and the child ends with ``os._exit`` (no cleanup of the parent's objects)."""

    def __init__(self, task: Callable[[], T | None]) -> None:
        self._task: Callable[[], T | None] | None = task
        self._pid = 0
        self._read = -1
        if fork_aside():
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child
                # No collection: the child lives ~0.1 s and ends with ``os._exit``. It inherits the parent's
                # allocation count, and a cold grep on the Linux tree ran a young collection of the parent's
                # ~20,000 newest objects in the child too (~3-10 ms, writing to pages it otherwise shares
                # untouched with its parent).
                gc.disable()
                os.close(read)
                code = 1
                try:
                    data = pickle.dumps(task(), protocol=pickle.HIGHEST_PROTOCOL)
                    with os.fdopen(write, "wb") as out:
                        out.write(data)
                    code = 0
                finally:
                    os._exit(code)
            os.close(write)
            self._pid, self._read, self._task = pid, read, None

    def result(self) -> T | None:
        """The task's answer; None when it failed (in the child: a crash, an exception)."""
        if self._task is not None:
            task, self._task = self._task, None
            return task()
        if self._read < 0:
            return None
        chunks = []
        with os.fdopen(self._read, "rb") as pipe:
            self._read = -1
            while chunk := pipe.read(1 << 20):
                chunks.append(chunk)
        _, status = os.waitpid(self._pid, 0)
        if status != 0 or not chunks:
            return None
        try:
            return pickle.loads(b"".join(chunks))
        except Exception:  # noqa: BLE001 - a half-written answer: cannot tell
            return None
