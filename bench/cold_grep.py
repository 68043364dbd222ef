#!/usr/bin/env python3
"""Cold grep benchmark: ``sleuth grep`` (no index, fresh process) against ``rg -n`` in the same run.

For each of ripgrep's benchsuite queries on the Linux tree it checks that both report the same
match lines, then times whole processes alternately (rg, sleuth, rg, sleuth, ...) and prints
medians and the ratio. Usage::

    python bench/cold_grep.py [--corpus DIR] [--runs 5] [--only NAME]

The corpus is the Linux 6.1 tree made by the shared ``linux-corpus.sh`` (default
``~/.cache/sleuth-bench/linux``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

from queries import BENCHSUITE as QUERIES  # noqa: E402 - ripgrep's benchsuite names, flags, patterns


def rg_binary() -> str:
    found = shutil.which("rg") or os.path.join(os.path.dirname(sys.executable), "rg")
    if not os.path.exists(found):
        sys.exit("rg not found: pip install --only-binary=:all: ripgrep")
    return found


def sleuth_command() -> list[str]:
    script = shutil.which("sleuth") or os.path.join(os.path.dirname(sys.executable), "sleuth")
    return [script] if os.path.exists(script) else [sys.executable, "-m", "sleuth"]


# An installed Python package has its bytecode cached; a machine that sets PYTHONDONTWRITEBYTECODE
# would make every sleuth start compile its modules from source again (~50 ms), which no user pays.
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(cmd: list[str], cwd: str, env: dict[str, str] | None = None) -> tuple[float, bytes]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          env=env or _ENV)  # no path: a piped stdin would be searched instead (rg and sleuth alike)
    return time.perf_counter() - start, proc.stdout


def rg_lines(out: bytes) -> set[tuple[str, int]]:
    lines = set()
    for raw in out.splitlines():
        path, line, _ = raw.split(b":", 2)
        lines.add((path.decode("utf-8", "replace"), int(line)))
    return lines


def sleuth_lines(out: bytes) -> set[tuple[str, int]]:
    return {(m["path"], m["line"]) for m in json.loads(out)["matches"] if m["type"] == "match"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", action="append")
    ns = parser.parse_args()
    rg, sleuth = rg_binary(), sleuth_command()
    print(f"corpus {ns.corpus}; {ns.runs} runs each, alternating; whole-process wall time, medians")
    print(f"{'query':28} {'lines':>6} {'same':>5} {'rg s':>7} {'sleuth s':>9} {'ratio':>6}")
    ratios = []
    for name, flags, pattern in QUERIES:
        if ns.only and name not in ns.only:
            continue
        rg_cmd = [rg, "-n", "--no-heading", "--with-filename", "--color", "never", *flags, pattern]
        sl_cmd = [*sleuth, "grep", "--result-json", *flags, pattern]
        _, rg_out = timed(rg_cmd, ns.corpus)  # warm-up, and the reference answer
        _, sl_out = timed(sl_cmd, ns.corpus)
        expected, got = rg_lines(rg_out), sleuth_lines(sl_out)
        rg_times, sl_times = [], []
        for _ in range(ns.runs):
            rg_times.append(timed(rg_cmd, ns.corpus)[0])
            sl_times.append(timed(sl_cmd, ns.corpus)[0])
        rg_med, sl_med = statistics.median(rg_times), statistics.median(sl_times)
        ratios.append(sl_med / rg_med)
        print(f"{name:28} {len(expected):6d} {'yes' if got == expected else 'NO':>5} {rg_med:7.3f} {sl_med:9.3f} "
              f"{sl_med / rg_med:6.2f}", flush=True)
        if got != expected:
            print(f"  only rg: {sorted(expected - got)[:5]}  only sleuth: {sorted(got - expected)[:5]}")
    if ratios:
        print(f"worst ratio {max(ratios):.2f}, median ratio {statistics.median(ratios):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
