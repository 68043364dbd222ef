"""Test hooks that hold one phase of the engine while a file exists, so end-to-end tests need no sleeps.

A test cannot make a real search or index build slow enough to observe "still running" on every
machine: CI's fast one finished a 2,000-file grep before the browser could read the picker's title.
Instead the test creates a file, names it in an environment variable before the server starts, and
deletes it when it has seen what it waits for. Unset in normal use: :func:`hold` returns at once.

- ``SLEUTH_TEST_INDEX_GATE``: the index waits before it loads or builds (state ``loading``).
- ``SLEUTH_TEST_CATCH_UP_GATE``: the index waits after it opened a published store, before it
  catches up (state ``loading``, the open under way: a grep waits for it).
- ``SLEUTH_TEST_SEARCH_GATE``: a grep waits after it has streamed its first batch, before the rest
  and before its answer (the first rows are on screen while the search is provably still running).
- ``SLEUTH_TEST_EXIT_GATE``: a forked CLI call's process (:mod:`sleuth.cli.fork_server`) waits after it
  reported its exit status, before its own exit (the output must have ended by then).
"""

from __future__ import annotations

import os
import time

from sleuth.engine.cancel import CancelToken

__all__ = ["INDEX_GATE_ENV", "CATCH_UP_GATE_ENV", "SEARCH_GATE_ENV", "EXIT_GATE_ENV", "hold", "held"]

INDEX_GATE_ENV = "SLEUTH_TEST_INDEX_GATE"
CATCH_UP_GATE_ENV = "SLEUTH_TEST_CATCH_UP_GATE"
SEARCH_GATE_ENV = "SLEUTH_TEST_SEARCH_GATE"
EXIT_GATE_ENV = "SLEUTH_TEST_EXIT_GATE"
POLL_S = 0.02


def hold(env_name: str, token: CancelToken) -> None:
    """Wait while the file named by ``$env_name`` exists; a cancel or the deadline ends the wait."""
    gate = os.environ.get(env_name)
    while gate and os.path.exists(gate) and not token.should_stop():
        time.sleep(POLL_S)


def held(env_name: str) -> bool:
    """Whether ``$env_name`` names a file that exists now (:func:`hold` would wait)."""
    gate = os.environ.get(env_name)
    return bool(gate) and os.path.exists(gate)
