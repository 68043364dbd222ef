"""``sleuth.text`` over LSP on the ctags-judged definition queries: p50/p95/max and MRR@10, old code
against new in the same run (issue 29: "ranked text at its old speed").

Usage (the store is reused: build one first with ``bench/bench.py --build-only --cache DIR``)::

    flock /tmp/sleuth-bench.lock python bench/text_lsp.py --cache DIR [--old /tmp/old/server] [--style parts]

The queries are ``bench/quality.py``'s definition set (seed 2026; ``--style parts`` is the 100 queries
typed as all their parts, the issue's hold-out set; ``all`` is every style). Each server is a real
``sleuth serve`` (stdio, VS Code's capabilities, ``initializationOptions.cacheDir``); ``--old`` names a
source folder holding an older ``sleuth`` package (``git archive <rev> server | tar -x -C /tmp/old``),
run as ``python -m sleuth serve`` with that folder first on ``PYTHONPATH``. Both servers answer each
query in turn (old, new, then new, old for the next), after one warm-up pass over every query, so the
machine's load falls on both alike; the load average is printed with the figures. ``rg -i -l`` of the
query's words as one identifier, over the whole tree, is timed on a few of the queries (``--rg``) for
the same-run ratio the house rules ask for. Answers are compared line for line (path, line, score).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import quality  # noqa: E402
from lsp_bench import _rg  # noqa: E402
from lsp_client import LspProcess  # noqa: E402

from sleuth.engine.workspace import Workspace  # noqa: E402


def _stop(lsp: LspProcess) -> None:
    lsp.request("shutdown", None, 60)
    lsp.notify("exit")
    lsp.proc.wait(60)


def _ask(lsp: LspProcess, query: str) -> tuple[float, list[tuple[str, int, float]]]:
    response = lsp.execute("sleuth.text", {"query": query, "max_results": 20, "context_lines": 0}, 120)
    return response.seconds, [(r["path"], r["line"], r["score"]) for r in response.result["results"]]


def _files(lines: list[tuple[str, int, float]]) -> list[str]:
    return list(dict.fromkeys(path for path, _, _ in lines))


def _figures(label: str, times: list[float], ranks: list[int | None]) -> dict[str, float]:
    mrr = statistics.mean(1.0 / r if r else 0.0 for r in ranks)
    out = {"p50_ms": quality._pct(times, .5) * 1000, "p95_ms": quality._pct(times, .95) * 1000,
           "max_ms": max(times) * 1000, "mrr10": mrr}
    print(f"  {label:4} n={len(times)}  p50 {out['p50_ms']:6.1f} ms  p95 {out['p95_ms']:6.1f} ms  "
          f"max {out['max_ms']:7.1f} ms  MRR@10 {mrr:.3f}", flush=True)
    return out


def _rg_seconds(corpus: str, query: str, runs: int) -> float:
    words = quality.words_of(query)
    pattern = r"[\s_\-]*".join(words)
    rg = _rg()
    times = []
    for _ in range(runs):
        begun = time.perf_counter()
        subprocess.run([rg, "-i", "-l", pattern, "."], cwd=corpus, capture_output=True, check=False)
        times.append(time.perf_counter() - begun)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux"))
    parser.add_argument("--cache", default=os.path.expanduser("~/.cache/sleuth-bench/index"))
    parser.add_argument("--tags", default=os.path.expanduser("~/.cache/sleuth-bench"))
    parser.add_argument("--old", help="source folder holding the old 'sleuth' package")
    parser.add_argument("--style", default="parts", help="a quality.py definition style, or 'all'")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--rg", type=int, default=5, help="time rg on this many of the queries (3 runs each)")
    args = parser.parse_args()
    corpus = os.path.realpath(args.corpus)
    paths = _catalogue(corpus, args.cache)
    servers: dict[str, LspProcess] = {}
    if args.old:
        env = dict(os.environ, PYTHONPATH=os.path.realpath(args.old))
        servers["old"] = quality.serve(corpus, args.cache, [sys.executable, "-m", "sleuth", "serve"], env)
    servers["new"] = quality.serve(corpus, args.cache)
    sources = [p for p in paths if p.endswith(quality.SOURCE_EXTS)]
    styles = quality.definition_queries(corpus, sources, quality.tree_tags(corpus, sources, args.tags), 100, args.seed)
    items = [item for style, rows in styles.items() if args.style in ("all", style) for item in rows]
    style_of = [style for style, rows in styles.items() if args.style in ("all", style) for _ in rows]
    print(f"corpus {corpus}: {len(items)} definition queries ({args.style}); servers {', '.join(servers)}; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
          f"{subprocess.run([_rg(), '--version'], capture_output=True, text=True).stdout.splitlines()[0]}", flush=True)
    for query, *_ in items:  # warm-up: every query once on each server (page cache, lazy imports, FTS pages)
        for lsp in servers.values():
            _ask(lsp, query)
    times: dict[str, list[float]] = {name: [] for name in servers}
    ranks: dict[str, list[int | None]] = {name: [] for name in servers}
    answers: dict[str, list[list[tuple[str, int, float]]]] = {name: [] for name in servers}
    order = list(servers)
    for n, (query, _name, _kind, relevant) in enumerate(items):
        for name in (order if n % 2 == 0 else order[::-1]):
            took, lines = _ask(servers[name], query)
            times[name].append(took)
            ranks[name].append(quality._rank_of(_files(lines), relevant))
            answers[name].append(lines)
    load = os.getloadavg()[0]
    if args.style == "all":
        for style in styles:
            print(f" {style}:")
            for name in servers:
                picked = [i for i, s in enumerate(style_of) if s == style]
                _figures(name, [times[name][i] for i in picked], [ranks[name][i] for i in picked])
        print(" all:")
    figures = {name: _figures(name, times[name], ranks[name]) for name in servers}
    if "old" in servers:
        same = sum(a == b for a, b in zip(answers["old"], answers["new"]))
        print(f"  new/old: p50 {figures['new']['p50_ms'] / figures['old']['p50_ms']:.2f}  "
              f"p95 {figures['new']['p95_ms'] / figures['old']['p95_ms']:.2f}  "
              f"max {figures['new']['max_ms'] / figures['old']['max_ms']:.2f}; "
              f"same answer (path, line, score) for {same} of {len(items)} queries")
    if args.rg:
        picked = sorted(range(len(items)), key=lambda i: -times["new"][i])[:args.rg]  # the slowest ones
        for i in picked:
            query = items[i][0]
            rg_s = _rg_seconds(corpus, query, 3)
            print(f"  {query!r}: rg -i -l {rg_s * 1000:.0f} ms, new {times['new'][i] * 1000:.0f} ms: "
                  f"{rg_s / times['new'][i]:.1f}x faster than rg")
    print(f"load average {load:.2f} after the timed pass, {os.getloadavg()[0]:.2f} at the end")
    for lsp in servers.values():
        _stop(lsp)
    return 0


def _catalogue(corpus: str, cache: str) -> list[str]:
    """The files as ``quality.py`` lists them (the index's catalogue, in its order): the same list
    gives the same query set and the same cached ctags file."""
    from sleuth.commands.config import Settings
    from sleuth.engine.index import IndexService

    workspace = Workspace([corpus])
    service = IndexService(workspace, Settings().index_config(), cache_dir=cache)
    service.start()
    service.wait_ready()
    try:
        return [e.display for e in service.catalogue_entries(workspace, None, None) or []]
    finally:
        service.stop()


if __name__ == "__main__":
    sys.exit(main())
