#!/usr/bin/env python3
"""``sleuth grep PAT | head -1`` against ``rg PAT | head -1``: time to the first line, time until the
process has left once its reader went away, and the whole output's time (issue 30 item 2).

Usage (run it alone; the machine's load is printed with the figures)::

    python bench/first_line.py [--corpus DIR] [--runs 7] [--pattern RE ...] [--old SRC] [--no-server]

Each command is a whole process whose standard output is a pipe read here, as ``| head -1`` reads
it; runs alternate (rg, sleuth, [old sleuth], rg, ...) and medians are printed with the ratio to rg's
median of the same run:

* ``first``: from the start to the first whole line read;
* ``head``: then the pipe is closed, as ``head`` does, and the process waited for: what the shell's
  pipeline costs (rg stops at its next write; Sleuth's search is cancelled, pool and all);
* ``total``: another run read to the end: the whole output's time, old and new (``--old SRC``: a
  source checkout's ``server/`` folder, started as ``python -m sleuth`` with that folder first on
  ``PYTHONPATH``; the new code is started the same way, so their start-up is alike).

Cold by default (``--no-server``); ``--warm CACHE`` starts ``sleuth serve`` on the corpus with its
index in ``CACHE`` (as ``bench/warm_cli.py`` does; built first when not current, which takes minutes),
waits for it and its CLI fork server, and lets it answer (the old CLI asks it for a whole answer).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cold_grep import _ENV, rg_binary  # noqa: E402

PATTERNS = ("PM_RESUME", "[A-Z]+_SUSPEND", r"\w+_lock_irqsave")
NEW_SERVER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "server")


def first_line(cmd: list[str], cwd: str, env: dict[str, str]) -> tuple[float, float, bytes]:
    """(seconds to the first line, seconds until the process left after its pipe closed, the line)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    first = time.perf_counter() - start
    proc.stdout.close()
    proc.wait()
    return first, time.perf_counter() - start, line


def whole(cmd: list[str], cwd: str, env: dict[str, str]) -> tuple[float, int]:
    start = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         env=env).stdout
    return time.perf_counter() - start, out.count(b"\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux"))
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--pattern", action="append")
    parser.add_argument("--old", help="a checkout's server/ folder to time as the old code")
    parser.add_argument("--warm", metavar="CACHE", help="start a server with its index in CACHE and let it answer")
    ns = parser.parse_args()
    server = None
    if ns.warm:
        from warm_cli import start_server, wait_fork_server, wait_ready

        ns.corpus = os.path.realpath(ns.corpus)
        server = start_server(ns.corpus, ns.warm)
        print(f"server ready after {wait_ready(server, ns.corpus):.1f} s; fork server "
              f"{'listening' if wait_fork_server(ns.corpus, [sys.executable, '-m', 'sleuth']) else 'NOT listening'}")
    try:
        return _run(ns)
    finally:
        if server is not None:
            server.close()


def _run(ns: argparse.Namespace) -> int:
    rg = rg_binary()
    flags = ["-n", "--no-heading", "--color", "never"]
    tools: list[tuple[str, list[str], dict[str, str]]] = [("rg", [rg, *flags], _ENV)]
    server_flag = [] if ns.warm else ["--no-server"]
    for name, src in (("sleuth", NEW_SERVER), ("old", ns.old)):
        if src:
            env = dict(_ENV, PYTHONPATH=os.path.abspath(src))
            tools.append((name, [sys.executable, "-m", "sleuth", "grep", *server_flag, *flags], env))
    print(f"corpus {ns.corpus}; {ns.runs} runs each, alternating; medians in seconds (ratio to rg's); "
          f"load {os.getloadavg()[0]:.2f}; {'warm (a server answers)' if ns.warm else 'cold (--no-server)'}")
    for pattern in ns.pattern or PATTERNS:
        times: dict[str, dict[str, list[float]]] = {name: {"first": [], "head": [], "total": []} for name, _, _ in tools}
        lines: dict[str, int] = {}
        for name, cmd, env in tools:  # warm-up
            whole([*cmd, pattern], ns.corpus, env)
        for _ in range(ns.runs):
            for name, cmd, env in tools:
                first, head, _line = first_line([*cmd, pattern], ns.corpus, env)
                times[name]["first"].append(first)
                times[name]["head"].append(head)
            for name, cmd, env in tools:
                total, count = whole([*cmd, pattern], ns.corpus, env)
                times[name]["total"].append(total)
                lines[name] = count
        base = {kind: statistics.median(values) for kind, values in times["rg"].items()}
        print(f"\n{pattern!r}: rg {lines['rg']} lines" + "".join(f", {n} {lines[n]}" for n, _, _ in tools[1:]))
        print(f"  {'':8} {'first':>15} {'| head -1':>15} {'total':>15}")
        for name, _, _ in tools:
            cells = []
            for kind in ("first", "head", "total"):
                med = statistics.median(times[name][kind])
                cells.append(f"{med:7.3f} ({med / base[kind]:4.1f}x)")
            print(f"  {name:8} " + " ".join(f"{c:>15}" for c in cells), flush=True)
    print(f"\nload after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
