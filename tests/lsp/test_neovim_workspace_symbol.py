"""A real Neovim (headless) runs ``vim.lsp.buf.workspace_symbol()`` against ``sleuth serve``.

Neovim's built-in client, not a model of it: ``nvim_workspace_symbol.lua`` starts the server as
``vim.lsp.start_client`` does for a user, waits for the index, asks for a symbol and writes the
quickfix list Neovim filled. Skipped where no ``nvim`` is installed (``apt-get install neovim``).
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest
from harness import make_tree

from tests.conftest import SLEUTH

NVIM = shutil.which("nvim")


@pytest.mark.skipif(NVIM is None, reason="Neovim is not installed (apt-get install neovim)")
def test_neovim_workspace_symbol_fills_the_quickfix_list(tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {"src/users.py": "class UserService:\n    def get_user_by_id(self, uid):\n"
                                                       "        return uid\n"})
    out = tmp_path / "quickfix.txt"
    env = {**os.environ, "WS": str(root), "OUT": str(out), "CACHE": str(tmp_path / "cache"), "QUERY": "getuserbyid",
           "SLEUTH_COMMAND": SLEUTH}
    script = pathlib.Path(__file__).with_name("nvim_workspace_symbol.lua")
    proc = subprocess.run([str(NVIM), "--headless", "-u", "NONE", "-c", f"luafile {script}"], env=env,
                          capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0 and out.exists(), proc.stdout + proc.stderr
    assert out.read_text().splitlines() == ["users.py:2:9: [Method] get_user_by_id"]
