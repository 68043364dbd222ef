"""Warm == cold for every flag combination the differential tests use (issue 16's test list).

One ``sleuth serve`` on the differential tests' own tree (:mod:`tests.diff.test_rg_semantics_vs_rg`:
binary files, encodings, CRLF, compressed files); each of their command lines runs cold
(``--no-server``), through the warm door, and through the CLI fork server, and all three must print
the same bytes on both streams with the same exit status. rg's own integration cases each build a
tree of their own and run cold in ``tests/diff/test_rg_suite.py``.
"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import subprocess
import sys
from tests.conftest import SLEUTH  # the installed command, as users start it

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from test_warm_cli import FORKED, door_path, runtime_dir, started_fork_server_if_any  # noqa: E402,F401  (runtime_dir: a fixture)

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "lsp"))
from harness import start_session  # noqa: E402

from tests.diff.test_rg_semantics_vs_rg import BINARY, CRLF, ENCODING, FILES, ONLY_MATCHING, REPLACE, STDIN, ZIP  # noqa: E402

LINES = [*ONLY_MATCHING, *REPLACE, *BINARY, *ENCODING, *CRLF, *ZIP]
# Path arguments read from a sub-folder (issue 30 item 4), with --root naming the server's folder: the
# warm door answers them (the fork server declines --root), and must print what the cold path prints.
# rg's --json with byte offsets (issue 30 item 6): the server's index reads only the candidate chunks
# of a big plain file (sleuth.engine.pieces), the cold path reads it whole; the offsets and bytes
# searched must be the same (the times differ: compared without them).
WIDE = "".join(f"line {i} {'needle' if i in (40, 900, 2500) else 'hay'}\n" for i in range(3000)).encode()
JSON_LINES = [["--json", "needle", "big/wide.txt"], ["--json", "-m2", "needle", "big"], ["--json", "-C1", "needle"],
              ["--json", "hello", "bin/early.dat"]]
# Errors in the CLI's words (issue 30 item 3): the server's error object, reworded at the CLI door,
# and a usage error, read the same warm, forked and cold.
ERRORS = [["("], ["--timeout-ms", "0", "foo"], ["-C", "x", "foo"], ["--foo", "foo"]]
FROM_A_SUBFOLDER = [
    ("bin", ["-n", "hello", "../big/plain.txt", "t.txt"]),
    ("bin", ["hello"]),
    ("enc", ["-c", "foo", "..", "crlf.txt"]),
]


def _run(cwd: pathlib.Path, argv: list[str], stdin: bytes | None, how: str) -> tuple[int, bytes, bytes]:
    if how == "cold":
        cmd = [SLEUTH, "grep", "--sort", "path", *argv, "--no-server"]
    elif how == "warm":  # the warm door, from a fresh process
        cmd = [sys.executable, "-c", "import sys\nfrom sleuth.cli import main\nsys.exit(main(sys.argv[1:]))",
               "grep", "--sort", "path", *argv]
    else:
        cmd = [sys.executable, "-c", FORKED, "grep", "--sort", "path", *argv]
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, input=stdin,
                          stdin=None if stdin is not None else subprocess.DEVNULL, timeout=120, env=dict(os.environ))
    return proc.returncode, proc.stdout, proc.stderr


def _timeless(out: bytes) -> list[object]:
    """rg's JSON Lines without the times (the search's own, different in every run)."""
    def strip(value: object) -> object:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in ("elapsed", "elapsed_total")}
        return [strip(v) for v in value] if isinstance(value, list) else value
    return [strip(json.loads(line)) for line in out.splitlines()]


async def test_every_differential_command_line_prints_the_same_warm_forked_and_cold(
        tmp_path: pathlib.Path, runtime_dir: pathlib.Path) -> None:
    root = tmp_path / "sem"
    for rel, data in {**FILES, "big/wide.txt": WIDE}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    session = await start_session("vscode", [root], init_options={"cacheDir": str(tmp_path / "server-cache")})
    try:
        assert (await session.execute("sleuth.index.build", {"wait": True}))["state"] == "ready"
        for _ in range(200):
            if os.path.exists(door_path(root)):
                break
            await asyncio.sleep(0.05)
        # Where there is no fork server (a platform without one, or SLEUTH_FORCE_FALLBACKS) the warm
        # door alone answers: warm == cold is checked, the forked leg is not run.
        forks = await started_fork_server_if_any(root) is not None
        cases = [(argv, None) for argv in LINES + ERRORS] + [(argv, data) for argv, data in STDIN]
        for argv, data in cases:
            cold = await asyncio.to_thread(_run, root, argv, data, "cold")
            hot = await asyncio.to_thread(_run, root, argv, data, "warm")
            assert hot == cold, argv
            if forks:
                forked = await asyncio.to_thread(_run, root, argv, data, "fork")
                assert forked[0] != 99, f"{argv}: not forked"
                assert forked == cold, argv
        for argv in JSON_LINES:
            cold = await asyncio.to_thread(_run, root, argv, None, "cold")
            hot = await asyncio.to_thread(_run, root, argv, None, "warm")
            assert cold[0] == 0 and _timeless(cold[1])[-1]["data"]["stats"]["bytes_searched"] > 0, argv
            assert (hot[0], _timeless(hot[1]), hot[2]) == (cold[0], _timeless(cold[1]), cold[2]), argv
            if forks:
                forked = await asyncio.to_thread(_run, root, argv, None, "fork")
                assert (forked[0], _timeless(forked[1]), forked[2]) == (cold[0], _timeless(cold[1]), cold[2]), argv
        for sub, argv in FROM_A_SUBFOLDER:
            argv = ["--root", "..", *argv]
            cold = await asyncio.to_thread(_run, root / sub, argv, None, "cold")
            hot = await asyncio.to_thread(_run, root / sub, argv, None, "warm")
            assert cold[0] == 0 and hot == cold, (sub, argv)
        metrics = await session.execute("sleuth.metrics", {})
        assert metrics["by_name"]["sleuth.grep"]["invocations"] >= len(LINES)  # the server answered them
    finally:
        await asyncio.wait_for(session.client.shutdown_session(), 30)
        await session.client.stop()
