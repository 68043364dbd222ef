"""``sleuth grep`` prints as it searches (issue 30 item 2): its first line is out while the search is
provably still running, and a reader that goes away (``| head -1``) or ``-q``'s first match stops
the whole run, as rg's.

Ordered by events, not clocks: the search gate (``SLEUTH_TEST_SEARCH_GATE``, :mod:`sleuth.engine.test_gates`)
holds the search after its first batch while a file exists; the test reads a line, then lets it go.
A path argument that does not exist, after the tree, tells whether the run went on (rg, and Sleuth,
report it on stderr): a stopped run never gets to it.
"""

from __future__ import annotations

import os
import queue
import subprocess
import threading
from pathlib import Path

import pytest

from tests.conftest import HANG_S, SLEUTH, run_sleuth, write_tree

FILES = 600  # several parts, and the pool (more than the in-process limit)


def _tree(root: Path) -> Path:
    return write_tree(root, {f"d{n % 7}/f{n:04}.txt": f"filler\nstreamword {n}\n" for n in range(FILES)})


def _start(cwd: Path, gate: Path, *argv: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ, XDG_CACHE_HOME=str(cwd.parent / "cache"), SLEUTH_TEST_SEARCH_GATE=str(gate))
    return subprocess.Popen([SLEUTH, "grep", "--no-server", *argv], cwd=cwd, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _first_line(proc: subprocess.Popen[bytes]) -> bytes:
    """The first line of ``proc``'s output, waited for on a thread (at most ``HANG_S``)."""
    lines: queue.Queue[bytes] = queue.Queue()
    assert proc.stdout is not None
    threading.Thread(target=lambda: lines.put(proc.stdout.readline()), daemon=True).start()  # type: ignore[union-attr]
    try:
        return lines.get(timeout=HANG_S)
    except queue.Empty:
        proc.kill()
        raise AssertionError("no line while the search was held: the output waits for the end of the search")


def test_the_first_line_is_out_while_the_search_is_held(tmp_path: Path) -> None:
    """``sleuth grep PAT . -``: the tree's first line is read while its search is held at the gate, and
    before standard input (the last path) has any end: printing only at the end would wait forever."""
    ws = _tree(tmp_path / "ws")
    whole = subprocess.run([SLEUTH, "grep", "--no-server", "streamword", ".", "-"], cwd=ws, input=b"streamword in\n",
                           capture_output=True, timeout=HANG_S,
                           env=dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache")))
    assert whole.returncode == 0 and whole.stdout.count(b"\n") == FILES + 1, whole.stderr
    gate = tmp_path / "search-gate"
    gate.write_text("held\n")
    proc = _start(ws, gate, "streamword", ".", "-")
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        first = _first_line(proc)
        assert proc.poll() is None  # still held: the line came before the search ended
        assert first == whole.stdout.splitlines(keepends=True)[0]
        gate.unlink()
        proc.stdin.write(b"streamword in\n")
        proc.stdin.close()
        rest = proc.stdout.read()
        err = proc.stderr.read()
        proc.wait(timeout=HANG_S)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert first + rest == whole.stdout  # the same bytes, in the same order, nothing lost
    assert rest.endswith(b"<stdin>:streamword in\n")


@pytest.mark.parametrize("release", [True, False], ids=["released", "held"])
def test_closing_the_pipe_stops_the_run_quietly(tmp_path: Path, release: bool) -> None:
    """``sleuth grep PAT tree missing | head -1``: once the reader is gone the search is cancelled
    (its pool too) and the run ends with status 0 and nothing on stderr; it never reaches ``missing``.
    ``held``: the next match is far away, the run writes nothing more (the search stays held at the
    gate): only noticing the closed pipe, not a failed write, can end it (sleuth.cli.reader_gone)."""
    ws = _tree(tmp_path / "ws")
    gate = tmp_path / "search-gate"
    gate.write_text("held\n")
    proc = _start(ws, gate, "streamword", ".", "missing")
    try:
        assert _first_line(proc).startswith(b"./d0/f0000.txt:")
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # head -1 is done
        if release:
            gate.unlink()
        proc.wait(timeout=HANG_S)  # (before reading stderr: a run still held never closes it)
        err = proc.stderr.read()
    finally:
        proc.kill()
    assert proc.returncode == 0 and err == b""


@pytest.mark.parametrize("flags", [(), ("--stats",), ("--json",), ("-c",)], ids=["lines", "stats", "json", "count"])
def test_ctrl_c_ends_the_run_with_130_and_searches_nothing_more(tmp_path: Path, flags: tuple[str, ...]) -> None:
    """Ctrl-C (SIGINT) during a cold search: the status a shell gives a process SIGINT ended (130, as
    rg's), not 2 as if a path had failed; the path after the tree is never reached (no message about
    it) and no summary follows. The search is held at the gate when the signal comes."""
    import signal

    ws = _tree(tmp_path / "ws")
    gate = tmp_path / "search-gate"
    gate.write_text("held\n")
    proc = _start(ws, gate, *flags, "streamword", ".", "missing")
    try:
        assert _first_line(proc)  # (the search is held at the gate after its first batch)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=HANG_S)
        assert proc.stdout is not None and proc.stderr is not None
        out, err = proc.stdout.read(), proc.stderr.read()
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert b"missing" not in err and b"matched lines" not in out and b'"type":"summary"' not in out


def test_quiet_stops_at_the_first_match(tmp_path: Path) -> None:
    """``-q``: the first match decides (status 0); the paths after it are not searched, as in rg."""
    ws = write_tree(tmp_path / "ws", {"a/x.txt": "needle\n"})
    proc = run_sleuth(ws, "grep", "--no-server", "-q", "needle", "a", "missing")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
