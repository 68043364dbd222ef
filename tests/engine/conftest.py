"""Shared fixtures for the engine tests that need an index: real temp trees, real services, a plain-scan oracle."""

from __future__ import annotations

import os
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.conftest import write_tree
from tests.fixtures import started_index


def scan(root: Path, needle: bytes, casei: bool = False) -> set[str]:
    """Files that really contain ``needle`` (the plain scan the index must never contradict)."""
    found: set[str] = set()
    pattern = re.compile(re.escape(needle), re.I if casei else 0)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.startswith("."):
                continue
            path = os.path.join(dirpath, name)
            with open(path, "rb") as handle:
                if pattern.search(handle.read()):
                    found.add(os.path.realpath(path))
    return found


@pytest.fixture
def kit() -> SimpleNamespace:
    """``kit.write_tree``, ``kit.start`` and ``kit.scan`` for the tests of this folder."""
    return SimpleNamespace(write_tree=write_tree, start=started_index, scan=scan)
