"""A :class:`CancelToken` keeps a flag and makes its ``threading.Event`` only for a caller that waits
(issue 30: a cold ``sleuth grep`` never imports threading): a wait still ends at the cancel, whether
the cancel comes before the wait, during it from another thread, or by the token's deadline."""

from __future__ import annotations

import subprocess
import sys
import threading

from sleuth.engine.cancel import CancelToken
from tests.conftest import HANG_S


def test_a_wait_ends_at_the_cancel_from_another_thread() -> None:
    token = CancelToken()
    assert token.wait(0.001) is False
    started = threading.Event()

    def cancel_later() -> None:
        started.wait(HANG_S)
        token.cancel()

    canceller = threading.Thread(target=cancel_later)
    canceller.start()
    started.set()
    assert token.wait(HANG_S) is True and token.cancelled and not token.timed_out
    canceller.join(HANG_S)


def test_a_wait_after_the_cancel_or_the_deadline_returns_at_once() -> None:
    token = CancelToken()
    token.cancel()
    assert token.wait(HANG_S) is True
    late = CancelToken(timeout_ms=0)
    assert late.should_stop() and late.timed_out and not late.cancelled
    assert late.wait(HANG_S) is True
    parent = CancelToken()
    child = parent.with_deadline(60_000)
    parent.cancel()
    assert child.should_stop() and child.cancelled


def test_a_token_needs_no_threading_module() -> None:
    code = ("import sys; from sleuth.engine.cancel import CancelToken; t = CancelToken(); t.cancel(); "
            "assert t.cancelled and t.should_stop(); print('threading' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_S)
    assert done.returncode == 0 and done.stdout.strip() == "False", done.stderr
