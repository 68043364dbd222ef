"""A cold ``sleuth grep`` in a small folder against Python's own start-up and rg (issue 30 item 1).

Usage (run it alone; the figures are medians of whole processes, alternating, in one run)::

    python bench/cold_start.py [--folder DIR] [--runs 10] [--pattern PAT]

The folder defaults to this checkout's ``server/`` (about 160 files, the issue's case). Each round runs
``python -I -c pass`` (the floor any Python tool pays), ``rg -n PAT`` and the installed
``sleuth grep -n PAT --no-server`` (no warm server: what a script, a CI job or an assistant that shells
out pays on every call), and reads each one's wall time and CPU time (user + system, from the
children's rusage). Prints medians and the ratios the issue sets its bar in (sleuth / python -I).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from lsp_client import SLEUTH  # the installed command (bench/ is the script's folder, on sys.path)

RG = shutil.which("rg") or str(Path(sys.executable).with_name("rg"))


def _timed(argv: list[str], cwd: str) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", default=str(Path(__file__).resolve().parents[1] / "server"))
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--pattern", default="def run")
    args = parser.parse_args()
    env_note = "PYTHONDONTWRITEBYTECODE is set: modules without a .pyc are compiled on every call" \
        if os.environ.get("PYTHONDONTWRITEBYTECODE") else ""
    commands = {
        "python -I -c pass": [sys.executable, "-I", "-c", "pass"],
        "rg -n": [RG, "-n", args.pattern],
        "sleuth grep -n --no-server": [SLEUTH, "grep", "-n", args.pattern, "--no-server"],
    }
    _timed(commands["sleuth grep -n --no-server"], args.folder)  # .pyc files written, page cache warm
    walls: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, argv in commands.items():
            wall, cpu = _timed(argv, args.folder)
            walls[name].append(wall)
            cpus[name].append(cpu)
    print(f"folder {args.folder}, {args.runs} rounds, load {os.getloadavg()[0]:.2f} {env_note}")
    for name in commands:
        print(f"  {name:30s} wall {statistics.median(walls[name]) * 1000:7.1f} ms   "
              f"cpu {statistics.median(cpus[name]) * 1000:7.1f} ms")
    floor = statistics.median(walls["python -I -c pass"])
    sleuth = statistics.median(walls["sleuth grep -n --no-server"])
    print(f"sleuth / python -I: {sleuth / floor:.1f}x wall "
          f"({statistics.median(cpus['sleuth grep -n --no-server']) / max(statistics.median(cpus['python -I -c pass']), 1e-6):.1f}x cpu); "
          f"sleuth / rg: {sleuth / statistics.median(walls['rg -n']):.0f}x wall")


if __name__ == "__main__":
    main()
