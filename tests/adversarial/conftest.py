"""The adversarial suite (issues 20, 22, 23): hostile clients, hostile trees, failing machines.

The LSP end-to-end harness (``tests/lsp/harness.py``) is importable from here as ``harness``.
"""

from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "lsp"))
