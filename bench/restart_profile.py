"""Where a server restart's CPU goes (issue 34): the index's open and catch-up, phase by phase.

Usage (the store must exist: ``bench/first_query.py`` builds one in its ``--cache``)::

    python bench/restart_profile.py [--corpus DIR] [--cache DIR] [--runs 3] [--top 25] [--vs PYTHON]

Each run is a fresh process that imports the server's stack (``sleuth.lsp.server``: what a restart
pays before it can read ``initialize``), then opens the store and catches up exactly as a restarted
server's index thread does (:meth:`IndexService.inspect` runs that path in the caller's thread, so
one profiler sees all of it). The first run is profiled (``cProfile``): its top functions by
cumulative time are printed; every run gives wall and CPU seconds of the import and of the open.
``rg -n PATTERN`` runs before and after, in the same invocation, as the scale: the open is worth
having only while it costs a fraction of the scan it replaces. The whole restart over LSP (process
start to ``ready``) is ``bench/first_query.py --skip-build``'s ``restart-to-ready``.

``--vs PYTHON``: another checkout's environment (``/work/main/.venv/bin/python``), run in turn with
this one on the same store, so a change is compared with its baseline in the same run; then each
environment's ``sleuth serve`` is also restarted over LSP in turn (process start to the end of its
"indexing" progress, no query sent), as ``first_query.py`` times ``restart-to-ready``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lsp_bench import Server, rg_lines  # noqa: E402

CHILD = r"""
import cProfile, io, json, os, pstats, sys, time
profile = sys.argv[3] == "1"
wall, cpu = time.perf_counter(), time.process_time()
import sleuth.lsp.server  # noqa: F401 - the server's stack, as a restart imports it
imported = (time.perf_counter() - wall, time.process_time() - cpu)
from sleuth.engine.index import IndexService
from sleuth.engine.workspace import Workspace
service = IndexService(Workspace([sys.argv[1]]), cache_dir=sys.argv[2])
profiler = cProfile.Profile() if profile else None
wall, cpu = time.perf_counter(), time.process_time()
if profiler is not None:
    profiler.enable()
ok = service.inspect()
if profiler is not None:
    profiler.disable()
opened = (time.perf_counter() - wall, time.process_time() - cpu)
status = service.status()
out = {"ok": ok, "import": imported, "open": opened, "files": status["files"],
       "pending": status["pending_updates"], "caught_up_by": service.upkeep.caught_up_by}
if profiler is not None:
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(int(sys.argv[4]))
    out["profile"] = text.getvalue()
service.stop()
print(json.dumps(out))
"""


def _run(python: str, corpus: str, cache: str, profile: bool, top: int) -> dict[str, Any]:
    done = subprocess.run([python, "-c", CHILD, corpus, cache, "1" if profile else "0", str(top)],
                          check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


def _cpu_seconds(pid: int) -> float:
    """User + system time of ``pid`` and its waited-for children (``/proc``; 0 where there is none)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            fields = handle.read().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux"))
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "sleuth-first-query-cache"))
    parser.add_argument("--pattern", default="PM_RESUME")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--top", type=int, default=25, help="functions of the profile printed (0: no profile)")
    parser.add_argument("--vs", help="a baseline's Python (another checkout's environment), run in turn")
    args = parser.parse_args()
    corpus = os.path.realpath(args.corpus)
    rg_times = [rg_lines(corpus, [], args.pattern)[1]]
    print(f"corpus {corpus} ({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f})", flush=True)
    pythons = {"this": sys.executable, **({"baseline": args.vs} if args.vs else {})}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in pythons}
    for n in range(args.runs):
        for name, python in pythons.items():
            run = _run(python, corpus, args.cache, n == 0 and name == "this" and args.top > 0, args.top)
            if not run["ok"]:
                print(f"no usable store in {args.cache}: build one first (bench/first_query.py)", file=sys.stderr)
                return 1
            if "profile" in run:
                print(run.pop("profile"))
            runs[name].append(run)
        rg_times.append(rg_lines(corpus, [], args.pattern)[1])
    rg = statistics.median(rg_times)
    for key in ("import", "open"):
        medians = {}
        for name in pythons:
            wall = statistics.median(r[key][0] for r in runs[name])
            cpu = medians[name] = statistics.median(r[key][1] for r in runs[name])
            print(f"{name} {key}: median wall {wall:.3f} s ({wall / rg:.2f}x rg), CPU {cpu:.3f} s "
                  f"of {[round(r[key][1], 3) for r in runs[name]]}")
        if "baseline" in medians:
            print(f"{key} CPU this/baseline: {medians['this'] / medians['baseline']:.2f}")
    if args.vs:
        readies: dict[str, list[float]] = {name: [] for name in pythons}
        cpus: dict[str, list[float]] = {name: [] for name in pythons}
        for _ in range(args.runs):
            for name, python in pythons.items():
                server = Server(corpus, args.cache, os.devnull, 0.05, progress=True,
                                sleuth=os.path.join(os.path.dirname(python), "sleuth"))
                try:
                    ended = server.indexing_ended(timeout=300)
                    assert ended is not None, "no end of the indexing progress"
                    cpus[name].append(_cpu_seconds(server.lsp.pid))
                    readies[name].append(ended - server.lsp.started)
                finally:
                    server.close()
            rg_times.append(rg_lines(corpus, [], args.pattern)[1])
        rg = statistics.median(rg_times)
        for name in pythons:
            print(f"{name} restart-to-ready: median {statistics.median(readies[name]):.2f} s of "
                  f"{[round(t, 2) for t in readies[name]]}; CPU (server and its finished children, read "
                  f"just after ready) median {statistics.median(cpus[name]):.2f} s of {[round(t, 2) for t in cpus[name]]}")
        print(f"restart-to-ready this/baseline: "
              f"{statistics.median(readies['this']) / statistics.median(readies['baseline']):.2f}")
    last = runs["this"][-1]
    print(f"{last['files']} files, {last['pending']} pending, caught up by {last['caught_up_by']}; "
          f"rg -n {args.pattern} median {rg:.3f} s of {[round(t, 3) for t in rg_times]}; "
          f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
