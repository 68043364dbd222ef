"""Test hook (``SLEUTH_TEST_COMMANDS``) for test_log_lines: redaction of a long text stalls until released.

Loaded inside the server process: it wraps :func:`sleuth.engine.redact.redact` so a call on more
than ``LONG`` characters waits for the file named by ``SLEUTH_TEST_RELEASE`` (bounded). A server
that redacts a huge query on its event loop then answers nothing behind it until the test lets
go, so the test needs no timing: the small request is answered or it is not.
"""

from __future__ import annotations

import os
import time

import sleuth.engine.redact as redact_module

LONG = 100_000
COMMANDS: dict = {}
_original = redact_module.redact


def _stalling_redact(text: str) -> str:
    release = os.environ.get("SLEUTH_TEST_RELEASE", "")
    if len(text) > LONG and release:
        deadline = time.monotonic() + 300
        while not os.path.exists(release) and time.monotonic() < deadline:
            time.sleep(0.01)
    return _original(text)


redact_module.redact = _stalling_redact
