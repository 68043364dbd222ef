"""The first query after start (issue 14.2, 34): a grep sent while the index builds or loads, against rg.

Usage (the corpus is ``../shared/bench/linux-corpus.sh``'s tree; CPU is shared, so say how busy it was)::

    flock /tmp/sleuth-bench.lock python bench/first_query.py [--corpus DIR] [--cache DIR] [--runs 3]
        [--pattern PM_RESUME] [--only build|load] [--grep-only] [--scan-floor] [--vs OTHER_SLEUTH] [--json out.json]

Each scenario starts the real server (``sleuth serve``, stdio, VS Code's capabilities) on the corpus and
sends ``sleuth.grep`` right after ``initialized`` (what a person does who opens a fresh clone and
searches at once), then asks ``sleuth.index.status``:

- ``build``: an empty store directory (wiped first): the first grep runs while the index is built from
  scratch; then (unless ``--grep-only``) process start to ``ready``: the build's own time;
- ``scan`` (``--scan-floor``): this ``sleuth`` with the index disabled (``initializationOptions``
  ``index.enabled: false``): the first grep with no index work at all, the floor the ``build``
  scenario can reach while the scan is what answers;
- ``load``: the same store, now complete: the first grep runs while the server opens it and catches up;
  ``restart-to-ready`` is process start to the status saying ``ready`` (the end of the server's
  "Sleuth: indexing" progress, confirmed by ``sleuth.index.status``).

Every scenario runs ``--runs`` times (medians); with ``--vs`` another checkout's ``sleuth`` runs each
scenario in turn with this one, each on its own store, so both meet the same load. The first grep is
timed from writing the request to reading its answer (``first_grep_s``; ``answer_after_start_s`` adds
the time from process start to the send). rg 14.1 and rg 15.2 (``tests/rg_bin.find_rg``) run
``rg -n PATTERN`` between the scenarios; the ratios are against their medians. The first grep's match
lines must equal rg's; the state the status reported right after the answer is printed
(``building``/``loading``: the answer did not wait for the index).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lsp_bench import Server, rg_lines  # noqa: E402
from lsp_client import SLEUTH  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tests.rg_bin import find_rg  # noqa: E402

RG_VERSIONS = {"rg 14.1": "14.1.0", "rg 15.2": "15.2.0"}


def _lines(result: dict[str, Any]) -> set[tuple[str, int]]:
    return {(m["path"], m["line"]) for m in result["matches"] if m.get("type", "match") == "match"}


def first_grep(corpus: str, cache: str, stderr: str, pattern: str, expected: set[tuple[str, int]],
               wait_ready: bool = True, sleuth: str = SLEUTH, settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """One server: grep right after ``initialized``, the state right after, then (optionally) time to ready."""
    server = Server(corpus, cache, stderr, 0.05, progress=True, sleuth=sleuth, settings=settings)
    try:
        sent = time.perf_counter()
        result, seconds = server.grep({"pattern": pattern, "max_results": 10_000})
        state_after = server.status()["state"]
        out: dict[str, Any] = {
            "first_grep_s": round(seconds, 3),
            "first_grep_after_start_s": round(sent - server.lsp.started, 3),
            "answer_after_start_s": round(sent - server.lsp.started + seconds, 3),
            "state_after_first_grep": state_after,
            "same_lines_as_rg": _lines(result) == expected,
            "matches": len(result["matches"]),
        }
        if wait_ready and state_after != "disabled":
            ended = server.indexing_ended(timeout=900)
            server.wait(idle=False, timeout=900)
            confirmed = time.perf_counter()
            out["to_ready_s"] = round((ended or confirmed) - server.lsp.started, 2)
            out["status_ready_s"] = round(confirmed - server.lsp.started, 2)
            out["files"] = server.status()["files"]
        return out
    finally:
        server.close()


def restart_to_ready(corpus: str, cache: str, stderr: str, sleuth: str = SLEUTH) -> float:
    """Process start to the index ready, on a complete store, no query sent meanwhile."""
    server = Server(corpus, cache, stderr, 0.05, progress=True, sleuth=sleuth)
    try:
        ended = server.indexing_ended(timeout=900)
        server.wait(idle=False, timeout=900)
        return round((ended or time.perf_counter()) - server.lsp.started, 2)
    finally:
        server.close()


def time_rg(rg: str, corpus: str, pattern: str) -> float:
    """One ``rg -n`` over the corpus (output captured, as :func:`lsp_bench.rg_lines` does), wall seconds."""
    started = time.perf_counter()
    subprocess.run([rg, "-n", "--null", "--no-heading", "-e", pattern], cwd=corpus, capture_output=True, check=False)
    return time.perf_counter() - started


def _median(runs: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in runs if r.get(key) is not None]
    return round(statistics.median(values), 3) if values else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux"))
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "sleuth-first-query-cache"),
                        help="the store directories' parent (one per command; wiped before each build)")
    parser.add_argument("--pattern", default="PM_RESUME")
    parser.add_argument("--runs", type=int, default=3, help="runs of each scenario (medians)")
    parser.add_argument("--only", choices=("build", "load"), action="append",
                        help="run only this scenario (repeatable; default both)")
    parser.add_argument("--skip-build", action="store_true", help="same as --only load (keeps the stores)")
    parser.add_argument("--grep-only", action="store_true",
                        help="build scenario: stop the server after the first grep's answer (no time to ready)")
    parser.add_argument("--vs", metavar="SLEUTH", help="another checkout's sleuth command, timed in turn (e.g. "
                        "/work/main/.venv/bin/sleuth): its ratios in the same run")
    parser.add_argument("--scan-floor", action="store_true",
                        help="build scenario: also this sleuth with the index disabled (the first grep with no "
                             "index work at all: what a build that never slows a search would give)")
    parser.add_argument("--stderr", default=os.path.join(tempfile.gettempdir(), "sleuth-first-query.stderr"))
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    corpus = os.path.realpath(args.corpus)
    scenarios = set(args.only or ("load",) if args.skip_build else args.only or ("build", "load"))
    commands = {"new": SLEUTH, **({"old": args.vs} if args.vs else {}),
                **({"scan": SLEUTH} if args.scan_floor and "build" in scenarios else {})}
    no_index = {"index": {"enabled": False}}
    rgs = {name: find_rg(version) for name, version in RG_VERSIONS.items()}
    rgs = {name: path for name, path in rgs.items() if path}
    rg_times: dict[str, list[float]] = {name: [] for name in rgs}

    def rg_round() -> None:
        for name, path in rgs.items():
            rg_times[name].append(time_rg(path, corpus, args.pattern))

    expected, _ = rg_lines(corpus, [], args.pattern)
    rg_round()
    report: dict[str, Any] = {"corpus": corpus, "pattern": args.pattern, "cpus": os.cpu_count(), "commands": commands,
                              "load_average_at_start": round(os.getloadavg()[0], 2), "runs": args.runs}
    print(f"corpus {corpus} ({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}); "
          f"rg -n {args.pattern}: {len(expected)} lines; {', '.join(rgs)}; commands {commands}", flush=True)
    builds: dict[str, list[dict[str, Any]]] = {name: [] for name in commands}
    loads: dict[str, list[dict[str, Any]]] = {name: [] for name in commands}
    readies: dict[str, list[float]] = {name: [] for name in commands}
    for run in range(args.runs):
        for name, sleuth in commands.items():  # in turn, so the machine's load falls on each alike
            cache = os.path.join(args.cache, name)
            if name == "scan":
                builds[name].append(first_grep(corpus, cache, args.stderr, args.pattern, expected,
                                               sleuth=sleuth, settings=no_index))
                print(f"no index {name} #{run + 1}: {builds[name][-1]}", flush=True)
                rg_round()
                continue
            if "build" in scenarios:
                shutil.rmtree(cache, ignore_errors=True)
                builds[name].append(first_grep(corpus, cache, args.stderr, args.pattern, expected,
                                               wait_ready=not args.grep_only, sleuth=sleuth))
                print(f"build {name} #{run + 1}: {builds[name][-1]}", flush=True)
                rg_round()
            if "load" in scenarios:
                if not os.path.isdir(cache) or ("build" in scenarios and args.grep_only):
                    shutil.rmtree(cache, ignore_errors=True)
                    restart_to_ready(corpus, cache, args.stderr, sleuth)  # a complete store to load
                loads[name].append(first_grep(corpus, cache, args.stderr, args.pattern, expected, sleuth=sleuth))
                rg_round()
                readies[name].append(restart_to_ready(corpus, cache, args.stderr, sleuth))
                print(f"load {name} #{run + 1}: {loads[name][-1]}; restart-to-ready {readies[name][-1]} s", flush=True)
                rg_round()
    rg_median = {name: round(statistics.median(times), 3) for name, times in rg_times.items()}
    report["rg_s"] = {name: [round(t, 3) for t in times] for name, times in rg_times.items()}
    report["rg_median_s"] = rg_median
    report["load_average_at_end"] = round(os.getloadavg()[0], 2)
    print(f"rg medians {rg_median} (of {len(next(iter(rg_times.values()), []))} runs each)")

    def ratios(seconds: float | None) -> str:
        if seconds is None:
            return ""
        return ", ".join(f"{seconds / t:.2f}x {name}" for name, t in rg_median.items())

    for name in commands:
        figures: dict[str, Any] = {}
        if builds[name]:
            grep_s = _median(builds[name], "first_grep_s")
            figures["build"] = {"runs": builds[name], "first_grep_median_s": grep_s,
                                "answer_after_start_median_s": _median(builds[name], "answer_after_start_s"),
                                "to_ready_median_s": _median(builds[name], "to_ready_s"),
                                "ratios": {r: round(grep_s / t, 2) for r, t in rg_median.items()}}
            b = figures["build"]
            print(f"{name}: first grep {'with the index disabled' if name == 'scan' else 'during the build'}: median {grep_s} s = {ratios(grep_s)} (answer "
                  f"{b['answer_after_start_median_s']} s after process start; states after it "
                  f"{[r['state_after_first_grep'] for r in builds[name]]})" + (
                      "" if b["to_ready_median_s"] is None else f"; process start to ready: median "
                      f"{b['to_ready_median_s']} s of {[r.get('to_ready_s') for r in builds[name]]}"))
        if loads[name]:
            grep_s = _median(loads[name], "first_grep_s")
            figures["load"] = {"runs": loads[name], "first_grep_median_s": grep_s,
                               "ratios": {r: round(grep_s / t, 2) for r, t in rg_median.items()},
                               "restart_to_ready_s": readies[name],
                               "restart_to_ready_median_s": statistics.median(readies[name])}
            print(f"{name}: first grep during a load: median {grep_s} s = {ratios(grep_s)}; restart-to-ready: "
                  f"median {figures['load']['restart_to_ready_median_s']} s of {readies[name]}")
        report[name] = figures
    print(f"load average {report['load_average_at_start']} -> {report['load_average_at_end']}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=2)
    runs = [r for name in commands for r in builds[name] + loads[name]]
    return 0 if all(r["same_lines_as_rg"] for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
