"""``multiline`` means rg's ``-U``, on the native engine and on the rg backend alike.

rg 14's ``-U`` lets a match cross lines through ``\\n``, ``\\s`` and negated classes, but ``.`` still
does not match ``\\n`` unless ``--multiline-dotall`` (or ``(?s)``) says so. The rg backend added
``--multiline-dotall``, so ``start.*end`` matched across lines there and not on the native engine.

A match over several lines is one event per line on the native engine (as ``rg -n`` prints it) and
one event at its first line on the rg backend (as ``rg --json`` reports it); each is compared with
rg's own form.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from sleuth.commands.config import Settings
from sleuth.commands.profiles.backends import run_grep
from tests.diff.rg import RG, needs_rg, rg_events
from tests.regression.conftest import backend_params
from tests.fixtures import context

TEXT = "start one\nmiddle\nend one\nstart two end two\nfoo\nbar\nx foo\n\nbar y\n"
PATTERNS = ["start.*end", "(?s)start.*end", r"foo\nbar", r"foo\s+bar", r"start[^x]*end", r"one.\w+|two", "o.e"]


def _rg_first_lines(cwd: Path, pattern: str) -> set[tuple[str, int]]:
    out = subprocess.run([str(RG), "--json", "-U", "-e", pattern], cwd=cwd, capture_output=True, text=True).stdout
    messages = [json.loads(raw) for raw in out.splitlines()]
    return {(m["data"]["path"]["text"], m["data"]["line_number"]) for m in messages if m["type"] == "match"}


@needs_rg
@pytest.mark.parametrize("backend", backend_params("native", "rg"))
@pytest.mark.parametrize("pattern", PATTERNS)
def test_multiline_matches_the_lines_rg_U_matches(tmp_path: Path, backend: str, pattern: str) -> None:
    (tmp_path / "a.txt").write_text(TEXT)
    if backend == "native":
        expected = {(path, line) for kind, path, line in rg_events(tmp_path, "-U", "-e", pattern) if kind == "match"}
    else:
        expected = _rg_first_lines(tmp_path, pattern)
    ctx = context(tmp_path, Settings(rate_limit_enabled=False))
    result = run_grep({"pattern": pattern, "multiline": True, "case": "sensitive"}, ctx, backend)
    got = {(m["path"], m["line"]) for m in result["matches"] if m["type"] == "match"}
    assert expected and got == expected
