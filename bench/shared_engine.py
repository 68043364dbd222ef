"""One engine per workspace (issue 29): the memory and watchers of 1 door vs N doors on one tree.

Usage (the Linux corpus by default; the machine is shared, so quote the load it prints)::

    python bench/shared_engine.py [--corpus DIR] [--cache DIR] [--doors 3] [--runs 3]

Starts one ``sleuth serve`` (stdio, VS Code's capabilities, ``cacheDir``) on the corpus, waits for its
index, runs the two greps below, and reads, from ``/proc``, the PSS (``smaps_rollup``) of the door and
of every process under it (the search pool, its fork server) and the inotify instances among them.
Then the same with ``--doors`` servers on the same tree, started one after the other, each running
the two greps. It prints both, their ratio (the issue's target: N doors <= 1.3x one door's PSS, one
watcher) and, in the same run, ``rg``'s time and peak RSS for the same greps as a reference point,
with each door's median grep time against rg's (``--runs`` rounds).

``SLEUTH_OWN_ENGINE=1`` in the environment gives the figures of doors that do not share (the
"before" of the issue: one engine per door).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lsp_client import SLEUTH, LspProcess, descendants, inotify_instances, vscode_capabilities  # noqa: E402

GREPS = [{"pattern": "PM_RESUME"}, {"pattern": "[A-Z]+_RESUME"}]


def _rg() -> str:
    here = os.path.join(os.path.dirname(sys.executable), "rg")
    return here if os.path.exists(here) else (shutil.which("rg") or "rg")


def pss_kib(pid: int) -> int:
    """``Pss`` of ``/proc/PID/smaps_rollup`` (KiB); 0 for a process gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class Door:
    """One ``sleuth serve`` on the corpus."""

    def __init__(self, corpus: str, cache: str, stderr: str) -> None:
        env = {k: v for k, v in os.environ.items() if k != "SLEUTH_TEST_COMMANDS"}
        self.lsp = LspProcess([SLEUTH, "serve"], cwd=corpus, env=env, stderr_path=stderr)
        uri = Path(corpus).as_uri()
        self.lsp.request("initialize", {"processId": os.getpid(), "rootUri": uri, "capabilities": vscode_capabilities(),
                                        "workspaceFolders": [{"uri": uri, "name": os.path.basename(corpus)}],
                                        "initializationOptions": {"cacheDir": cache}}, 120)
        self.lsp.notify("initialized", {})

    def wait_ready(self, timeout: float = 1800.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            status = self.lsp.execute("sleuth.index.status", {}, 60).result
            if status.get("state") == "ready" and not status.get("pending_updates"):
                return status
            if time.monotonic() > deadline:
                raise RuntimeError(f"index not ready: {status}")
            time.sleep(0.2)

    def grep(self, args: dict[str, Any]) -> tuple[int, float]:
        response = self.lsp.execute("sleuth.grep", {**args, "max_results": 20_000}, 600)
        return response.result["count"], response.seconds

    def processes(self) -> list[int]:
        return [self.lsp.pid, *descendants(self.lsp.pid)]


def rg_run(corpus: str, pattern: str) -> tuple[float, float]:
    """(seconds, peak RSS MiB of rg) for ``rg -n pattern`` on the corpus."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    subprocess.run([_rg(), "-n", pattern], cwd=corpus, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - started
    return seconds, max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024


def measure(count: int, corpus: str, cache: str, runs: int, stderr: str) -> dict[str, Any]:
    """``count`` doors on the corpus, each running the greps ``runs`` times: PSS, inotify, grep medians."""
    doors: list[Door] = []
    try:
        for _ in range(count):
            door = Door(corpus, cache, stderr)
            doors.append(door)
            status = door.wait_ready()
        engines = sorted({(d.lsp.execute("sleuth.index.status", {}).result.get("engine") or {}).get("pid", 0)
                          for d in doors})
        times: dict[str, list[float]] = {g["pattern"]: [] for g in GREPS}
        by_role: dict[str, list[float]] = {"first door": [], "later doors": []}  # the host's and its guests'
        for _ in range(runs):
            for n, door in enumerate(doors):
                for args in GREPS:
                    _, seconds = door.grep(args)
                    times[args["pattern"]].append(seconds)
                    if args is GREPS[0]:
                        by_role["first door" if n == 0 else "later doors"].append(seconds)
        processes = [p for d in doors for p in d.processes()]
        return {"doors": count, "pss_mib": sum(pss_kib(p) for p in processes) / 1024,
                "inotify": inotify_instances(*processes), "processes": len(processes),
                "engines": engines, "files": status.get("files"),
                "grep_s": {k: statistics.median(v) for k, v in times.items()},
                "roles_s": {k: statistics.median(v) for k, v in by_role.items() if v}}
    finally:
        for door in reversed(doors):  # the guests first: the host's exit would make one of them take over
            door.lsp.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux"))
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "sleuth-shared-engine-bench"),
                        help="the doors' index store folder (built on the first run)")
    parser.add_argument("--doors", type=int, default=3)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--stderr", default=os.path.join(tempfile.gettempdir(), "sleuth-shared-engine.stderr"))
    ns = parser.parse_args()
    corpus = os.path.realpath(ns.corpus)
    runtime = tempfile.mkdtemp(prefix="sleuth-bench-run-")  # the doors' sockets: nobody else's server joins
    os.environ["XDG_RUNTIME_DIR"] = runtime
    try:
        load = os.getloadavg()
        print(f"corpus {corpus}; load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, {os.cpu_count()} cores; "
              f"SLEUTH_OWN_ENGINE={os.environ.get('SLEUTH_OWN_ENGINE', '')!r}")
        one = measure(1, corpus, ns.cache, ns.runs, ns.stderr)
        many = measure(ns.doors, corpus, ns.cache, ns.runs, ns.stderr)
        rg = {g["pattern"]: statistics.median(rg_run(corpus, g["pattern"])[0] for _ in range(ns.runs)) for g in GREPS}
        rg_rss = max(rg_run(corpus, g["pattern"])[1] for g in GREPS)
    finally:
        shutil.rmtree(runtime, ignore_errors=True)
    print(f"{one['files']} files indexed")
    for row in (one, many):
        greps = ", ".join(f"{p} {s * 1000:.0f} ms (rg/sleuth {rg[p] / s:.1f}x)" for p, s in row["grep_s"].items())
        roles = ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in row["roles_s"].items())
        print(f"  {GREPS[0]['pattern']} round trip by door: {roles}")
        print(f"{row['doors']} door(s): PSS {row['pss_mib']:.0f} MiB over {row['processes']} processes, "
              f"{row['inotify']} inotify instance(s), engine pid(s) {row['engines']}; grep medians: {greps}")
    print(f"rg {_rg()}: " + ", ".join(f"{p} {s * 1000:.0f} ms" for p, s in rg.items()) + f"; peak RSS {rg_rss:.0f} MiB")
    print(f"ratio PSS {many['doors']} doors / 1 door: {many['pss_mib'] / one['pss_mib']:.2f}x (target <= 1.3x); "
          f"inotify {many['inotify']} vs {one['inotify']}; load now {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
