"""ripgrep's own integration tests as the contract of ``sleuth grep`` (issue 19; docs/SPEC.md §1: "a user
who knows rg needs no manual").

Every case of :mod:`tests.diff.rg_cases` is run through rg 15.2 (:mod:`tests.rg_bin`) and through
``sleuth grep`` with the same tree, command line and cwd (rg's harness conventions: stdout a pipe, stdin empty, rg's
``--path-separator /`` first); stdout must be byte for byte rg's (its lines sorted where rg's order is
unspecified) and the exit code the same. A case rg 15.2 itself fails (its output is not what its
test expected) is skipped; a case that needs a flag another change brings is skipped by
:data:`PENDING_FLAGS`; every deliberate difference is in :data:`DIFFERENCES` with its reason (an
``xfail(strict=True)``: a difference that goes away fails until it is taken out of the table).

``sleuth grep`` runs in this process (``sleuth.cli.main``: a subprocess per case costs ~0.3 s of
interpreter start, two minutes over the suite); ``SLEUTH_RG_SUITE_SUBPROCESS=1`` runs it as a
separate installed ``sleuth`` process instead, as a user does. This is the cold path;
:mod:`tests.diff.test_rg_suite_warm` runs the same cases through a server's warm door.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from tests.conftest import SLEUTH  # the installed command, as users start it

import pytest

from tests.diff.rg import RG, needs_rg
from tests.diff.rg_cases import ALL_CASES

pytestmark = [pytest.mark.rg, needs_rg]

# Flags that the engine change of issue 19 (h-rgeng) brings; a case that uses one waits for it.
PENDING_FLAGS: frozenset[str] = frozenset({
    "--null-data",  # not built: the searcher assumes \n line ends
})
_SHORT_WITH_VALUE = set("efgtABCmMjrEdTh")  # short flags whose value may follow in the same word

# Cases that wait for a change for a reason their flags do not show.
PENDING_CASES: dict[str, str] = {}

# name -> why Sleuth differs from rg there on purpose, or what it does not do yet.
DIFFERENCES: dict[str, str] = {
    # deliberate
    "misc::symlink_follow": "the sandbox: a link whose target is outside the folder searched (the cwd) is not "
                            "followed, even with -L (docs/SPEC.md §3)",
    "regression::r2480#2": "rg pastes a lone -e pattern into a group unparsed, so ')(' becomes the valid '(?:)()'; "
                           "Sleuth reports the syntax error",
    "feature::no_unicode": "--no-unicode is accepted, but Sleuth's regex is always Unicode-aware",
    # not yet
    "regression::r1446_respect_excludes_in_worktree": "a worktree's relative 'gitdir:' is read from the folder of "
                                                      "its .git file, as git reads it; rg reads it from its cwd, "
                                                      "which this case (and only it) depends on",
    "feature::f45_relative_cwd#3": "the sandbox: an --ignore-file outside the folder searched (../) is refused",
    # new in rg 15.x
    "regression::r3179_global_gitignore_cwd": "the sandbox: the folder searched and the --ignore-file are above the "
                                              "cwd (an absolute path outside it is refused)",
}


def _flags(args: list[str | bytes]) -> set[str]:
    found: set[str] = set()
    for arg in args:
        if not isinstance(arg, str) or arg == "--":
            if arg == "--":
                break
            continue
        if arg.startswith("--"):
            found.add(arg.split("=", 1)[0])
        elif arg.startswith("-") and len(arg) > 1:
            for ch in arg[1:]:
                if not ch.isalpha():
                    break
                found.add("-" + ch)
                if ch in _SHORT_WITH_VALUE:
                    break
    return found


def _pending(case: dict[str, Any]) -> str | None:
    wanted = sorted(_flags(case["args"]) & PENDING_FLAGS)
    return " ".join(wanted) if wanted else None


def _params() -> list[Any]:
    params = []
    for case in ALL_CASES:
        marks = []
        pending = _pending(case)
        if pending:
            marks.append(pytest.mark.skip(reason=f"needs {pending} (the engine change, h-rgeng)"))
        elif case["name"] in PENDING_CASES:
            marks.append(pytest.mark.skip(reason=PENDING_CASES[case["name"]]))
        elif case["name"] in DIFFERENCES:
            marks.append(pytest.mark.xfail(reason=DIFFERENCES[case["name"]], strict=True))
        params.append(pytest.param(case, id=case["name"], marks=marks))
    return params


def build(root: Path, ops: list[tuple[Any, ...]]) -> None:
    """The case's tree, each entry a second newer than the one before (``--sort modified`` is then defined)."""
    root.mkdir(parents=True, exist_ok=True)
    stamp = 1_600_000_000
    for op in ops:
        kind, rel = op[0], op[1]
        path = root / rel
        if kind == "file":
            content = op[2]
            if isinstance(content, str):  # a config file may name the test's folder ({DIR})
                content = content.replace("{DIR}", str(root)).encode()
            path.write_bytes(content)
        elif kind == "dir":
            path.mkdir(parents=True, exist_ok=True)
        elif kind == "size":
            with open(path, "wb") as handle:
                handle.truncate(op[2])
        elif kind == "link":
            link = root / op[2]
            if link.is_symlink() or link.exists():
                link.unlink()
            os.symlink(root / rel, link)
            continue
        elif kind == "remove":
            path.unlink()
            continue
        stamp += 1
        os.utime(path, (stamp, stamp))


def _argv(case: dict[str, Any], root: Path) -> list[str | bytes]:
    out: list[str | bytes] = []
    for arg in case["args"]:
        out.append(arg.replace("{DIR}", str(root)) if isinstance(arg, str) else arg)
    return ["--path-separator", "/", *out]


def _json_lines(out: bytes) -> bytes:
    """rg's JSON Lines without what differs from run to run or Sleuth does not count: times and the
    bytes printed (``absolute_offset`` and ``bytes_searched`` are compared: issue 30 item 6)."""
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items()
                    if k not in ("elapsed", "elapsed_total", "bytes_printed")}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value
    return b"".join(json.dumps(strip(json.loads(line)), sort_keys=True).encode() + b"\n"
                    for line in out.splitlines())


def _comparable(case: dict[str, Any], out: bytes) -> bytes:
    """Output with what differs from run to run taken out: --stats' times and byte counts (lines), --json's
    times and bytes printed, and the order where rg's is unspecified."""
    flags = _flags(case["args"])
    if "--stats" in flags and "--json" not in flags:
        keep = b"bytes searched" if case.get("bytes_searched") else None  # the case is about that count
        out = b"".join(line for line in out.splitlines(keepends=True)
                       if b"seconds" not in line and (b"bytes" not in line or (keep and keep in line)))
    if "--json" in flags:
        out = _json_lines(out)
    return _sorted(out) if case.get("sort") else out


def _sorted(out: bytes) -> bytes:
    lines = sorted(out.strip().split(b"\n"))
    return b"\n".join(lines) + b"\n"


def _env(case: dict[str, Any], root: Path) -> dict[str, str]:
    """The variables the case sets ({DIR}: its folder)."""
    return {k: v.replace("{DIR}", str(root)) for k, v in case.get("env", {}).items()}


def run_rg(case: dict[str, Any], root: Path) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k != "RIPGREP_CONFIG_PATH"} | _env(case, root)
    stdin = case.get("stdin")
    return subprocess.run([RG, *_argv(case, root)], cwd=root / case.get("cwd", ""), env=env, capture_output=True,
                          input=stdin.encode() if isinstance(stdin, str) else stdin,
                          stdin=None if stdin is not None else subprocess.DEVNULL, timeout=60)


class _Std(io.TextIOWrapper):
    """A captured standard stream that is not a terminal, as rg's harness has."""

    def isatty(self) -> bool:
        return False


def run_sleuth_grep(case: dict[str, Any], root: Path, cache: Path,
                    monkeypatch: pytest.MonkeyPatch) -> subprocess.CompletedProcess[bytes]:
    argv = ["grep", *_argv(case, root)]
    cwd = root / case.get("cwd", "")
    stdin = case.get("stdin")
    stdin_bytes = (stdin.encode() if isinstance(stdin, str) else stdin) or b""
    monkeypatch.setenv("SLEUTH_NO_SERVER", "1")
    for key, value in _env(case, root).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    if os.environ.get("SLEUTH_RG_SUITE_SUBPROCESS") or stdin is not None:  # piped input needs a real pipe
        return subprocess.run([SLEUTH, *argv], cwd=cwd, capture_output=True,  # stdin as rg's harness has it
                              input=stdin_bytes if stdin is not None else None,
                              stdin=None if stdin is not None else subprocess.DEVNULL, timeout=60)
    from sleuth.cli import main

    out, err, inp = io.BytesIO(), io.BytesIO(), io.BytesIO(stdin_bytes)
    streams = [_Std(b, encoding="utf-8", errors="surrogateescape", newline="", write_through=True)
               for b in (out, err, inp)]
    monkeypatch.setattr(sys, "stdout", streams[0])
    monkeypatch.setattr(sys, "stderr", streams[1])
    monkeypatch.setattr(sys, "stdin", streams[2])
    monkeypatch.chdir(cwd)
    try:
        code = main([a if isinstance(a, str) else os.fsdecode(a) for a in argv])
    except SystemExit as exit_:  # argparse's usage error
        code = exit_.code if isinstance(exit_.code, int) else 2
    streams[0].flush()
    streams[1].flush()
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


@pytest.mark.parametrize("case", _params())
def test_rg_case(case: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "ws"
    build(root, case["ops"])
    rg = run_rg(case, root)
    want = _comparable(case, rg.stdout)
    expected = case.get("expected")
    if expected is not None:
        expected_bytes = (expected.replace("{DIR}", str(root)).encode() if isinstance(expected, str) else expected)
        if _comparable(case, expected_bytes) != want:
            pytest.skip("rg 15.2 fails this case itself")
    check = case["check"]
    if (check == "stdout" and rg.returncode != 0) or (check == "err" and rg.returncode == 0) or (
            check == "exit" and rg.returncode != case.get("exit", 0)):
        pytest.skip("rg 15.2 fails this case itself")
    got = run_sleuth_grep(case, root, tmp_path / "cache", monkeypatch)
    have = _comparable(case, got.stdout)
    assert (have, got.returncode) == (want, rg.returncode), got.stderr.decode(errors="replace")
    if check == "stderr":
        assert got.stderr, "rg reports a message on stderr here; sleuth grep said nothing"
