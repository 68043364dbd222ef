"""Differential tests of ``sleuth grep``'s path arguments (issue 30 item 4): read from the current
folder and shown as typed, as rg 15.2 reads and shows them, byte for byte with the same exit status.

Each command line runs from a sub-folder of the tree; Sleuth gets ``--root ..`` (its sandbox is the
tree, rg has none), so ``../x`` names a file inside the sandbox. Before, a relative path was read
from the first sandbox folder: ``../README.md`` from ``server/`` was refused as outside the folders,
and results were shown relative to the folder rather than as typed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import SLEUTH, write_tree
from tests.diff.rg import RG, needs_rg

pytestmark = [pytest.mark.rg, needs_rg]

TREE = {
    "README.md": "token at the top\nno match\n",
    "bench/a.py": "token = 1\n",
    "bench/deep/b.py": "x\ntoken = 2\n",
    "server/s.py": "token here\n",
    "server/pkg/t.py": "other\ntoken there\n",
    "server/.ignore-extra": "pkg/\n",
}

# (cwd, argv): the same words for rg and for sleuth grep
CASES = [
    ("server", ["-c", "token", "../README.md"]),
    ("server", ["-n", "token", "../bench"]),
    ("server", ["token", "../bench/", "../README.md", "s.py"]),
    ("server", ["-l", "token", ".."]),
    ("server", ["token", "pkg", "./s.py"]),
    ("server", ["--files", "../bench"]),
    ("server", ["--json", "token", "../bench/a.py"]),
    ("server", ["--ignore-file", ".ignore-extra", "token"]),
    ("bench/deep", ["-H", "token", "../../README.md", "b.py", "../a.py"]),
]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_tree(tmp_path_factory.mktemp("paths") / "ws", TREE)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _json_without_times(out: bytes) -> bytes:
    import json

    def strip(value: object) -> object:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in ("elapsed", "elapsed_total", "bytes_printed")}
        return [strip(v) for v in value] if isinstance(value, list) else value
    return b"".join(json.dumps(strip(json.loads(line)), sort_keys=True).encode() + b"\n" for line in out.splitlines())


@pytest.mark.parametrize("cwd, argv", CASES, ids=[f"{c}: {' '.join(a)}" for c, a in CASES])
def test_path_arguments_are_read_and_shown_as_rg_does(tree: Path, cwd: str, argv: list[str]) -> None:
    rg = subprocess.run([RG, "--no-config", "--sort", "path", *argv], cwd=tree / cwd, capture_output=True,
                        stdin=subprocess.DEVNULL, timeout=120)
    got = subprocess.run([SLEUTH, "grep", "--no-server", "--root", str(tree), "--sort", "path", *argv],
                         cwd=tree / cwd, capture_output=True, stdin=subprocess.DEVNULL, timeout=120)
    assert got.returncode == rg.returncode, got.stderr.decode()
    if "--json" in argv:
        assert _json_without_times(got.stdout) == _json_without_times(rg.stdout)
    else:
        assert got.stdout == rg.stdout


def test_the_sandbox_check_applies_to_the_path_as_read_from_here(tree: Path) -> None:
    """``..`` from ``server/`` is inside a sandbox of the tree and outside one of ``server/`` alone."""
    inside = subprocess.run([SLEUTH, "grep", "--no-server", "--root", "..", "-c", "token", "../README.md"],
                            cwd=tree / "server", capture_output=True, text=True, timeout=120)
    assert (inside.returncode, inside.stdout) == (0, "1\n"), inside.stderr
    outside = subprocess.run([SLEUTH, "grep", "--no-server", "-c", "token", "../README.md"],
                             cwd=tree / "server", capture_output=True, text=True, timeout=120)
    assert outside.returncode == 2 and "outside the workspace folders" in outside.stderr
    beyond = subprocess.run([SLEUTH, "grep", "--no-server", "--root", "..", "token", "../../"],
                            cwd=tree / "server", capture_output=True, text=True, timeout=120)
    assert beyond.returncode == 2 and "outside the workspace folders" in beyond.stderr


def test_files_path_is_read_from_here(tree: Path) -> None:
    proc = subprocess.run([SLEUTH, "files", "--no-server", "--root", "..", "--path", "../bench", "*.py"],
                          cwd=tree / "server", capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stdout) == (0, "bench/a.py\nbench/deep/b.py\n"), proc.stderr
