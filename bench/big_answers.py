#!/usr/bin/env python3
"""Big answers through the command layer, this checkout against another, with rg in the same run.

Issue 32 asks that typed events (which cross the worker pool as tuples, ~1-2 us an event) leave big
answers no slower. Each side runs in its own interpreter (``--vs PYTHON``: another checkout's venv, e.g.
the main before typed events), in a child that opens the published store read-only (as the cold CLI
does: nothing is written to ``--cache``), sets the garbage collector as its server would after the load
(``sleuth.engine.heap``, or the old ``gc.freeze``) and calls ``sleuth.grep`` from a worker thread, as a
server's search pool does. The children take turns, query by query, with ``rg`` (same pattern and flags, output
to a pipe) between them. Printed per query: the answer's size, each side's median wall and CPU (its pool workers' included), new/old
and rg/new, and whether both sides gave the same matches (a digest of them). Usage::

    python bench/big_answers.py --vs /path/to/old/.venv/bin/python [--corpus DIR] --cache DIR [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cold_grep import rg_binary  # noqa: E402

# (name, grep arguments, rg flags): ~20,000 matches each, capped as a client caps them; and an
# assistant's page of 100 (issue 29: a capped search stops when its cap is reached).
QUERIES = [
    ("no_literal_2w", {"pattern": r"\w{5}\s+\w{5}", "max_results": 20000}, []),
    ("no_literal_2w_page", {"pattern": r"\w{5}\s+\w{5}", "max_results": 100}, []),
    ("word_C2", {"pattern": "EXPORT_SYMBOL_GPL", "context": 2, "max_results": 20000}, ["-C2"]),
    ("literal_many", {"pattern": "EXPORT_SYMBOL_GPL", "max_results": 20000}, []),
]

CHILD = r"""
import hashlib, json, os, sys, time
from concurrent.futures import ThreadPoolExecutor
from sleuth.commands import get_command
from sleuth.commands.config import Settings
from sleuth.commands.context import CommandContext, Services
from sleuth.core.cold_store import current_store
from sleuth.engine.workspace import Workspace

corpus, cache, runs, args = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])
workspace = Workspace([corpus])
settings = Settings(index_path=cache, rate_limit_enabled=False)
service = current_store(workspace, settings)
if service is None:
    sys.exit("no current store under " + cache)
try:  # the collector as each side's server sets it: after its index load, and (new) for its searches
    from sleuth.engine import heap
    heap.tune(); heap.settle()
except ImportError:
    import gc
    gc.collect(); gc.freeze()
grep = get_command("sleuth.grep")
pool = ThreadPoolExecutor(1)  # a server's search thread: the engine's pool takes all but the first files
TICK = os.sysconf("SC_CLK_TCK")

def tree_cpu():  # CPU seconds of this process and its descendants (the engine's pool workers)
    total, todo = 0.0, [os.getpid()]
    while todo:
        pid = todo.pop()
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / TICK
            for task in os.listdir(f"/proc/{pid}/task"):
                todo += [int(c) for c in open(f"/proc/{pid}/task/{task}/children").read().split()]
        except OSError:
            pass
    return total

def once():
    ctx = CommandContext(workspace, settings=settings, services=Services(index=service))
    wall, cpu = time.perf_counter(), tree_cpu()
    result = pool.submit(grep, dict(args), ctx).result()
    return time.perf_counter() - wall, tree_cpu() - cpu, result

_, _, result = once()  # warm: the pool started, the pages in the page cache
times = [once()[:2] for _ in range(runs)]
matches = result["matches"]
digest = hashlib.sha256(json.dumps(matches, sort_keys=True).encode()).hexdigest()[:16]
print(json.dumps({"wall": [t[0] for t in times], "cpu": [t[1] for t in times], "items": len(matches),
                  "digest": digest}))
"""


def child(python: str, corpus: str, cache: str, runs: int, args: dict) -> dict:
    out = subprocess.run([python, "-c", CHILD, corpus, cache, str(runs), json.dumps(args)], cwd=corpus,
                         capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"{python}: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout)


def rg_once(rg: str, corpus: str, pattern: str, flags: list[str], lines: int) -> float:
    """rg until it has printed ``lines`` lines (``| head``: it stops on the closed pipe), as Sleuth stops
    at its cap."""
    start = time.perf_counter()
    proc = subprocess.Popen([rg, "-n", *flags, pattern, "."], cwd=corpus, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    for _ in range(lines):
        if not proc.stdout.readline():
            break
    proc.stdout.close()
    proc.wait()
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux"))
    ap.add_argument("--cache", required=True, help="a published store's cache folder (read only)")
    ap.add_argument("--vs", required=True, help="the other checkout's python")
    ap.add_argument("--runs", type=int, default=7, help="timed calls per child")
    ap.add_argument("--turns", type=int, default=3, help="old/new/rg turns per query")
    ap.add_argument("--only", default=None)
    opts = ap.parse_args()
    corpus = os.path.realpath(opts.corpus)
    rg = rg_binary()
    print(f"load at start {os.getloadavg()[0]:.2f}; new = {sys.executable}, old = {opts.vs}", flush=True)
    for name, args, flags in QUERIES:
        if opts.only and name != opts.only:
            continue
        sides: dict[str, dict[str, list[float]]] = {"old": {"wall": [], "cpu": []}, "new": {"wall": [], "cpu": []}}
        rg_s: list[float] = []
        seen: dict[str, tuple[int, str]] = {}
        for _ in range(opts.turns):
            for side, python in (("old", opts.vs), ("new", sys.executable)):
                got = child(python, corpus, opts.cache, opts.runs, args)
                sides[side]["wall"] += got["wall"]
                sides[side]["cpu"] += got["cpu"]
                seen[side] = (got["items"], got["digest"])
            rg_s.append(rg_once(rg, corpus, args["pattern"], flags, seen["new"][0]))
        med = {s: {k: statistics.median(v) for k, v in d.items()} for s, d in sides.items()}
        rg_med = statistics.median(rg_s)
        same = seen["old"] == seen["new"]
        print(f"{name}: {seen['new'][0]} items (same as old: {same}); wall ms old {med['old']['wall'] * 1e3:.0f} "
              f"new {med['new']['wall'] * 1e3:.0f} (new/old {med['new']['wall'] / med['old']['wall']:.2f}); "
              f"cpu ms old {med['old']['cpu'] * 1e3:.0f} new {med['new']['cpu'] * 1e3:.0f} "
              f"(new/old {med['new']['cpu'] / med['old']['cpu']:.2f}); rg to as many lines {rg_med * 1e3:.0f} ms; "
              f"load {os.getloadavg()[0]:.2f}", flush=True)


if __name__ == "__main__":
    main()
