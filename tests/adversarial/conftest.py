"""The hardening suite (issues 20, 22, 23): each file is named for what it attacks; the LSP harness is importable."""

from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "lsp"))
