"""Shared fixtures: the installed `sleuth`, rg, fallback skips, and the builders of `tests/fixtures.py`
(a temp tree, a command context, an index service), re-exported here."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable, Mapping

import pytest

from sleuth.engine import platform as _platform
from tests.fixtures import context, index_service, indexed_and_plain, started_index, workspace, write_tree  # noqa: F401 (re-exported)
from tests.rg_bin import find_rg

# The person's own settings (~/.config/sleuth/config.yml) must not change what the suite sees: every
# test, and every server or CLI process it starts, reads an empty user-level folder unless it sets its own.
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="sleuth-test-config-")

# `rg PAT` and `sleuth grep PAT` search standard input instead of the current folder when it is a file or
# a pipe (as under a CI runner that pipes it): every process the suite starts gets /dev/null, a
# device, unless a test hands it input itself.
_devnull = os.open(os.devnull, os.O_RDONLY)
os.dup2(_devnull, 0)
os.close(_devnull)

# How long a test waits for an event (an answer, an exit, a notification) before calling it a hang. Never a
# speed expectation: generous, so that the suite passes on a machine busy with other work (issue 27 item 6).
HANG_S = 120.0

RG = find_rg()
"""rg 15.2, the oracle of the differential tests (tests/rg_bin.py: the venv's, or installed once into a cache)."""


SLEUTH = str(Path(sys.executable).with_name("sleuth"))
"""The installed ``sleuth`` command (the script the README's install puts beside the interpreter):
how users, their editors and their assistants start Sleuth, so how the suite starts it. It differs
from ``python -m sleuth``: it is a plain script, the program's ``__main__`` that a process pool's
fork server imports (issue 27)."""
if not os.path.exists(SLEUTH):  # a bare checkout on sys.path, not an install: the tests would test something else
    raise RuntimeError(f"{SLEUTH} is missing: install Sleuth as the README says (pip install -e '.[test,rg]')")


def under_fallback(fallback: str, in_force: bool, why: str) -> pytest.MarkDecorator:
    """Skip a test of a mechanism that exists only where the fallback ``fallback`` (one of
    :data:`sleuth.engine.platform.FALLBACKS`) is NOT in force, saying so: ``in_force`` is the platform
    module's own answer, so the test is skipped where ``SLEUTH_FORCE_FALLBACKS`` forces it (README,
    "Platforms") or a platform lacks the mechanism, and runs everywhere else (the normal Linux run).
    ``why`` names what the test asserts that the fallback does not have; ``tests/platform`` tests the
    fallback itself. The one way the suite skips for a fallback, so that every such skip reads alike."""
    if fallback not in _platform.FALLBACKS:
        raise ValueError(f"{fallback!r} is not a fallback: {sorted(_platform.FALLBACKS)}")
    return pytest.mark.skipif(in_force, reason=f"fallback {fallback!r} in force "
                                               f"({_platform.FALLBACKS[fallback]}): {why}")


#: A UNIX socket that names its peer (the warm door's other-user refusal, its socket file's mode).
needs_unix_door = under_fallback("loopback-warm", _platform.warm_door() != "unix",
                                 "the test checks the UNIX-socket door, which is not listening")
#: The CLI fork server (it forks, takes the streams by SCM_RIGHTS, checks the peer's uid).
needs_fork_server = under_fallback("no-fork-server", not _platform.fork_server_available(),
                                   "the test checks the CLI fork server, which does not run")
#: Index-store locks that exclude each other (README, "Platforms": without fcntl or msvcrt none are
#: taken, and two processes are not kept from building or deleting the same store at once).
needs_locks = under_fallback("no-locks", not _platform.locks_exclude(),
                             "the test checks that store locks exclude each other, which takes none")


def run_sleuth(cwd: Path, *argv: str, cache: Path | None = None,
               env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``sleuth ARGV`` as a user runs it, with its cache (index, rate-limit windows) kept out
    of $HOME; ``env`` adds to the environment (a private ``XDG_CONFIG_HOME``, say)."""
    env = dict(os.environ, XDG_CACHE_HOME=str(cache or cwd.parent / "cache"), **(env or {}))
    return subprocess.run([SLEUTH, *argv], cwd=cwd, capture_output=True, text=True, timeout=120, env=env)


@pytest.fixture
def pool_as_in_a_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """Searches on this (main) thread go to the pool past ``IN_PROCESS_FILES`` files, as a server's do,
    not only past ``POOL_START_FILES`` (where a one-call process such as the CLI starts it): a test of
    the pool's own behaviour then needs no tree of thousands of files."""
    from sleuth.engine.grep import loop

    monkeypatch.setattr(loop, "POOL_START_FILES", loop.IN_PROCESS_FILES)


@pytest.fixture
def make_tree(tmp_path: Path) -> Callable[[Mapping[str, str | bytes]], Path]:
    def make(files: Mapping[str, str | bytes], name: str = "ws") -> Path:
        return write_tree(tmp_path / name, files)
    return make


# The machines this runs on are shared and noisy: no per-example deadlines, no "too slow" health check.
from hypothesis import HealthCheck, settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile(
    "sleuth", deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# SLEUTH_HYPOTHESIS_PROFILE=hunt: ten times the examples, to look for the rare failure a CI run would
# otherwise meet by chance (examples are random in every run).
_hypothesis_settings.register_profile("hunt", parent=_hypothesis_settings.get_profile("sleuth"), max_examples=1000)
_hypothesis_settings.load_profile(os.environ.get("SLEUTH_HYPOTHESIS_PROFILE", "sleuth"))
