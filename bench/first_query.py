"""The first query after start (issue 14.2): a grep sent while the index builds or loads, against rg.

Usage (the corpus is ``../shared/bench/linux-corpus.sh``'s tree; CPU is shared, so say how busy it was)::

    flock /tmp/sleuth-bench.lock python bench/first_query.py [--corpus DIR] [--cache DIR] [--runs 3]
        [--pattern PM_RESUME] [--skip-build] [--json out.json]

Each scenario starts the real server (``python -m sleuth serve``, stdio, VS Code's capabilities) on
the corpus and sends ``sleuth.grep`` right after ``initialized``, then asks ``sleuth.index.status``:

- ``build``: an empty store directory (``--cache``, wiped first): the first grep runs while the index
  is built from scratch;
- ``load``: the same store, now complete: the first grep runs while the server opens it and catches up;
  ``restart-to-ready`` is process start to the status saying ``ready`` (the end of the server's
  "Sleuth: indexing" progress, confirmed by ``sleuth.index.status``), median of ``--runs``;

and ``rg -n PATTERN`` runs in the same invocation, before and after each scenario (its median is the
ratio's base). The first grep's match lines must equal rg's, and the state the status reported right
after the answer is printed (``building``/``loading`` means the answer did not wait for the index).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lsp_bench import Server, rg_lines  # noqa: E402


def _lines(result: dict[str, Any]) -> set[tuple[str, int]]:
    return {(m["path"], m["line"]) for m in result["matches"] if m.get("type", "match") == "match"}


def first_grep(corpus: str, cache: str, stderr: str, pattern: str, expected: set[tuple[str, int]],
               wait_ready: bool = True) -> dict[str, Any]:
    """One server: grep right after ``initialized``, the state right after, then (optionally) time to ready."""
    server = Server(corpus, cache, stderr, 0.05, progress=True)
    try:
        sent = time.perf_counter()
        result, seconds = server.grep({"pattern": pattern, "max_results": 10_000})
        state_after = server.status()["state"]
        out: dict[str, Any] = {
            "first_grep_s": round(seconds, 3),
            "first_grep_after_start_s": round(sent - server.lsp.started, 3),
            "state_after_first_grep": state_after,
            "same_lines_as_rg": _lines(result) == expected,
            "matches": len(result["matches"]),
        }
        if wait_ready:
            ended = server.indexing_ended(timeout=900)
            server.wait(idle=False, timeout=900)
            confirmed = time.perf_counter()
            out["to_ready_s"] = round((ended or confirmed) - server.lsp.started, 2)
            out["status_ready_s"] = round(confirmed - server.lsp.started, 2)
            out["files"] = server.status()["files"]
        return out
    finally:
        server.close()


def restart_to_ready(corpus: str, cache: str, stderr: str) -> float:
    """Process start to the index ready, on a complete store, no query sent meanwhile."""
    server = Server(corpus, cache, stderr, 0.05, progress=True)
    try:
        ended = server.indexing_ended(timeout=900)
        server.wait(idle=False, timeout=900)
        return round((ended or time.perf_counter()) - server.lsp.started, 2)
    finally:
        server.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux"))
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "sleuth-first-query-cache"),
                        help="the store directory (wiped before the build scenario)")
    parser.add_argument("--pattern", default="PM_RESUME")
    parser.add_argument("--runs", type=int, default=3, help="restart-to-ready and load runs")
    parser.add_argument("--skip-build", action="store_true", help="keep the store in --cache (load scenarios only)")
    parser.add_argument("--stderr", default=os.path.join(tempfile.gettempdir(), "sleuth-first-query.stderr"))
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    corpus = os.path.realpath(args.corpus)
    rg_times: list[float] = []

    def rg() -> set[tuple[str, int]]:
        lines, took = rg_lines(corpus, [], args.pattern)
        rg_times.append(took)
        return lines

    expected = rg()
    rg()
    report: dict[str, Any] = {"corpus": corpus, "pattern": args.pattern, "cpus": os.cpu_count(),
                              "load_average_at_start": round(os.getloadavg()[0], 2)}
    print(f"corpus {corpus} ({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}); "
          f"rg -n {args.pattern}: {len(expected)} lines", flush=True)
    if not args.skip_build:
        shutil.rmtree(args.cache, ignore_errors=True)
        report["build"] = first_grep(corpus, args.cache, args.stderr, args.pattern, expected)
        rg()
        print(f"build: first grep {report['build']}", flush=True)
    loads = []
    readies = []
    for _ in range(args.runs):
        loads.append(first_grep(corpus, args.cache, args.stderr, args.pattern, expected))
        rg()
        readies.append(restart_to_ready(corpus, args.cache, args.stderr))
        rg()
    report["load"] = loads
    report["restart_to_ready_s"] = readies
    rg_median = statistics.median(rg_times)
    report["rg_s"] = [round(t, 3) for t in rg_times]
    report["rg_median_s"] = round(rg_median, 3)
    if "build" in report:
        report["build_ratio"] = round(report["build"]["first_grep_s"] / rg_median, 2)
    report["load_first_grep_median_s"] = statistics.median(r["first_grep_s"] for r in loads)
    report["load_ratio"] = round(report["load_first_grep_median_s"] / rg_median, 2)
    report["restart_to_ready_median_s"] = statistics.median(readies)
    report["load_average_at_end"] = round(os.getloadavg()[0], 2)
    for run in loads:
        print(f"load: first grep {run}", flush=True)
    print(f"rg median {rg_median:.3f} s of {report['rg_s']}", flush=True)
    if "build" in report:
        print(f"first grep during the build: {report['build']['first_grep_s']} s = {report['build_ratio']}x rg "
              f"(status after it: {report['build']['state_after_first_grep']})")
    print(f"first grep during a load: median {report['load_first_grep_median_s']} s = {report['load_ratio']}x rg")
    print(f"restart-to-ready: median {report['restart_to_ready_median_s']} s of {readies} "
          f"(load average {report['load_average_at_start']} -> {report['load_average_at_end']})")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=2)
    ok = all(r["same_lines_as_rg"] for r in loads) and report.get("build", {}).get("same_lines_as_rg", True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
