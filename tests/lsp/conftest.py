"""Fixtures of the LSP end-to-end tests; the harness itself is :mod:`harness` (importable by the tests)."""

from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from harness import profile, sessions, start  # noqa: E402,F401 - fixtures re-exported for pytest
