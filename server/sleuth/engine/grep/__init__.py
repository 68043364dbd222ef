"""The grep loop: walk -> schedule -> search -> collect (ripgrep's ``main.rs::search``), on every core.

Python threads share one interpreter lock, so reading and matching a gigabyte of files on two cores
needs processes. The parts, each doing one thing:

* :mod:`.request` — what is asked (:class:`GrepRequest`) and what comes back (:class:`GrepOutcome`);
* :mod:`.units` — work cut into *units* in final order, all in one encoding (:class:`~.units.Unit`):
  runs of files and, for big scans, whole subtrees a worker walks itself;
* :mod:`.unit_search` — searching one unit (in a pool worker or here), publishing its results as
  they are found (:class:`~.unit_search.Part`), so a slow unit streams instead of arriving whole;
* :mod:`.pool` — the worker processes, the per-search stop flags and the channel parts come back on;
* :mod:`.buffer` — :func:`grep_buffer`: one buffer that is no file (standard input);
* :mod:`.loop` — :func:`run_grep`: feeds units, re-orders what comes back into final order,
  collects and streams it, and reports progress while any unit runs.
"""

from __future__ import annotations

from sleuth.engine.grep.buffer import STDIN_DISPLAY, grep_buffer
from sleuth.engine.grep.loop import prepare, run_grep
from sleuth.engine.grep.request import GrepOutcome, GrepRequest

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["GrepRequest", "GrepOutcome", "run_grep", "prepare", "shutdown_pool", "grep_buffer", "STDIN_DISPLAY"]


def __getattr__(name: str) -> Any:
    """``shutdown_pool`` on first use: :mod:`.pool` brings multiprocessing (~8 ms), which a search small
    enough to run in one process (a cold ``sleuth grep`` in a small folder) never needs."""
    if name == "shutdown_pool":
        from sleuth.engine.grep.pool import shutdown_pool

        return shutdown_pool
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
