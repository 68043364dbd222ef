"""Regression: ``file_types`` reached rg and ugrep as their own type names (``-t xyz``,
``--file-type=py``), so every item Sleuth accepts but the binary does not know — a bare extension,
``*.ext``, or any Sleuth type name ugrep spells differently (``py`` is ugrep's ``python``) — made
the backend exit 2 and the search fail with ``backend_unavailable``.

Guarded: each backend searches exactly the files the native walk selects for the same item.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sleuth.commands.profiles.backends import run_grep
from tests.regression.conftest import backend_params
from tests.fixtures import context


BACKENDS = backend_params("rg", "ugrep")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("file_types", [["xyz"], ["*.xyz"], [".xyz"], ["py"], ["py", "xyz"]])
def test_external_backend_selects_the_files_native_selects(tmp_path: Path, backend: str, file_types: list[str]):
    for name in ("a.xyz", "b.py", "c.txt"):
        (tmp_path / name).write_text("needle\n")
    ctx = context(tmp_path)
    args = {"pattern": "needle", "file_types": file_types}
    native = sorted(m["path"] for m in run_grep(args, ctx, "native")["matches"])
    external = run_grep(args, ctx, backend)
    assert external["exit_code"] == 0
    assert sorted(m["path"] for m in external["matches"]) == native


@pytest.mark.parametrize("backend", BACKENDS)
def test_include_globs_decide_before_file_types_in_every_backend(tmp_path: Path, backend: str):
    """rg's order (overrides before types): a file an include glob names is searched whatever its
    type, and one it does not name is skipped. ugrep ORed both lists of --include flags instead."""
    for name in ("a.xyz", "b.py", "c.txt"):
        (tmp_path / name).write_text("needle\n")
    ctx = context(tmp_path)
    args = {"pattern": "needle", "include_globs": ["a*"], "file_types": ["py"]}
    native = sorted(m["path"] for m in run_grep(args, ctx, "native")["matches"])
    assert native == ["a.xyz"]
    assert sorted(m["path"] for m in run_grep(args, ctx, backend)["matches"]) == native
