"""The CLI buffers its own output: ``PYTHONUNBUFFERED=1`` (most Python container images set it) or
``python -u`` must not turn every printed line into a ``write`` call (:mod:`sleuth.cli.std_streams`).

Counted, not timed: standard output is a Linux *packet-mode* pipe (``O_DIRECT``), where each ``write``
is a packet of at most ``PIPE_BUF`` bytes and each ``read`` returns one packet, so the reads that
return data count the writes (a write over ``PIPE_BUF`` bytes is split: more packets, never fewer).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.conftest import HANG_S, SLEUTH, write_tree

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or not hasattr(os, "O_DIRECT"),
                                reason="packet-mode pipes are Linux's")

LINES = 3000


def _packets(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, bytes]:
    """(writes the command made to its stdout, what it wrote)."""
    read_end, write_end = os.pipe2(os.O_DIRECT)
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=write_end,
                            stderr=subprocess.PIPE)
    os.close(write_end)
    packets: list[bytes] = []
    reader = threading.Thread(target=lambda: packets.extend(iter(lambda: os.read(read_end, 1 << 16), b"")),
                              daemon=True)
    reader.start()
    _, err = proc.communicate(timeout=HANG_S)
    reader.join(HANG_S)
    os.close(read_end)
    assert proc.returncode == 0, err
    return len(packets), b"".join(packets)


@pytest.mark.parametrize("unbuffered", ["env", "-u"])
@pytest.mark.parametrize("argv", [["grep", "--no-server", "-n", "needle"], ["grep", "-v", "zzz"], ["files"]])
def test_printed_lines_are_not_one_write_each(tmp_path: Path, argv: list[str], unbuffered: str) -> None:
    ws = write_tree(tmp_path / "ws", {f"d{n % 5}/f{n:03}.txt": "".join(f"needle {n} {i}\n" for i in range(30))
                                      for n in range(LINES // 30)})
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    cmd = [SLEUTH, *argv]
    if unbuffered == "env":
        env["PYTHONUNBUFFERED"] = "1"
    else:
        with open(SLEUTH, encoding="utf-8") as script:  # the installed script's own interpreter, with -u
            cmd = [script.readline()[2:].strip(), "-u", *cmd]
    writes, out = _packets(cmd, ws, env)
    lines = out.count(b"\n")
    assert lines >= LINES // 30 if argv == ["files"] else lines == LINES
    # buffered: about one write a 4 KiB packet, plus one flush per batch of results
    assert writes <= lines // 4, f"{writes} writes for {lines} lines"
