"""Regression: with ``backend: rg`` (or ``ugrep``), a ``path`` naming a denied file or a file in a
denied folder was handed to the binary as an explicit argument, and rg searches explicit files
whatever its ``-g`` globs say: the denied file was read and its lines returned.

Guarded: docs/SPEC.md §3 — deny globs are never read or listed, whatever the arguments or the backend.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sleuth.commands.config import Settings
from sleuth.commands.profiles.backends import run_grep
from tests.regression.conftest import backend_params
from tests.fixtures import context


BACKENDS = backend_params("native", "rg", "ugrep")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", ["secrets.txt", "keys/k.pem", "keys"])
def test_a_path_naming_a_denied_file_finds_nothing(tmp_path: Path, backend: str, path: str):
    (tmp_path / "keys").mkdir()
    (tmp_path / "secrets.txt").write_text("needle\n")
    (tmp_path / "keys" / "k.pem").write_text("needle\n")
    ctx = context(tmp_path, Settings(deny_globs=("secrets.txt", "keys/")))
    result = run_grep({"pattern": "needle", "path": path}, ctx, backend)
    assert result["matches"] == []
