"""Regression: the forge tools' ``case: "smart"`` meant two things depending on the ``backend``
setting. rg and ugrep got seed 001's rule (FR-LS: "if the pattern contains any ASCII uppercase A-Z,
use sensitive; otherwise insensitive"), while the native engine applied ripgrep's literal-based
rule (``foo\\S`` insensitive, ``Ärger`` sensitive) — same call, different matches.

Guarded: ``forge.Search`` decides smart case by the seed's ASCII rule, whichever backend runs it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sleuth.commands import get_command
from sleuth.commands.config import Settings
from tests.regression.conftest import backend_params
from tests.fixtures import context


BACKENDS = backend_params("native", "rg", "ugrep")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("pattern", "lines"), [
    ("foo\\S", [1]),  # an ASCII uppercase letter anywhere: sensitive
    ("Ärger", [3, 4]),  # no A-Z: insensitive, even with a non-ASCII capital
    ("bar", [5, 6]),
])
def test_forge_search_smart_case_follows_the_seed_on_every_backend(tmp_path: Path, backend: str, pattern: str,
                                                                    lines: list[int]):
    if backend == "ugrep" and not pattern.isascii():
        pytest.skip("ugrep 3's -i folds ASCII letters only (a limit of the binary, not of the case rule)")
    (tmp_path / "a.txt").write_text("foo1\nFOO2\närger\nÄrger\nbar\nBAR\n", encoding="utf-8")
    ctx = context(tmp_path, Settings(backend=backend, rate_limit_enabled=False))
    envelope = get_command("sleuth.tools.call")({"name": "forge.Search", "arguments": {"pattern": pattern}}, ctx)
    assert envelope["is_error"] is False, envelope["content"]
    found = json.loads(envelope["content"])["matches"]
    assert [m["data"]["line_number"] for m in found] == lines
