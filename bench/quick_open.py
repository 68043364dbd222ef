"""Quick-Open ranking on the Linux tree without an index: MRR@10 and query latency of the ranker.

Usage::

    python bench/quick_open.py [--corpus DIR] [--misses 5] [--set holdout|project|all]

Two query sets:

- **holdout** (``bench/quick_open_holdout.tsv``, style / query / intended path): 110 queries for
  well-known files, written by hand before any tuning of :mod:`sleuth.engine.files.rank` against them, in
  five styles — ``initials`` (first letters of the name's words, ``dah`` for
  ``drm_atomic_helper.c``), ``humps`` (word prefixes run together, ``tcpinp``), ``folder_name``
  (folder and name, spaced or not: ``sched core``, ``schedcore``), ``prefix`` (a name's start, as
  typed: ``page_al``) and ``slash`` (``kvm/x86``). Never tune on it: it measures what tuning on the
  project's set did to queries nobody tuned for.
- **project**: ``bench/quality.py``'s generated styles (seed 2026, 100 a style) and
  ``bench/queries.py``'s, the figures the issue quotes.

The catalogue is the tree's walk (what ``sleuth.files`` ranks when no index is ready); each query is
one :func:`~sleuth.engine.files.rank.rank_paths_counted` call with ``limit=10`` after one warm-up query
(which prepares the path blobs). Latency is per query, in this process, as wall time and as this
process's CPU time (on a shared, loaded machine the CPU figures compare runs; wall time waits for
the other tenants): quote p50/p95 and compare runs made in the same minute.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sleuth.engine.cancel import CancelToken  # noqa: E402
from sleuth.engine.files.rank import rank_paths_counted  # noqa: E402
from sleuth.engine.types import FileEntry, SkipCounts, WalkOptions  # noqa: E402
from sleuth.engine.walk import walk  # noqa: E402
from sleuth.engine.workspace import Workspace  # noqa: E402

HOLDOUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "quick_open_holdout.tsv")


def holdout() -> dict[str, list[tuple[str, str]]]:
    styles: dict[str, list[tuple[str, str]]] = defaultdict(list)
    with open(HOLDOUT, encoding="utf-8") as handle:
        for line in handle:
            if line.strip() and not line.startswith("#"):
                style, query, path = line.rstrip("\n").split("\t")
                styles[style].append((query, path))
    return styles


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def run_set(label: str, styles: dict[str, list[tuple[str, str]]], paths: list[str], misses: int) -> None:
    print(f"{label}:")
    every: list[tuple[float, float, float]] = []
    for style, items in styles.items():
        rows = []
        shown = 0
        for query, target in items:
            began, cpu = time.perf_counter(), time.process_time()
            ranked, _total = rank_paths_counted(query, paths, limit=10)
            took, cpu = time.perf_counter() - began, time.process_time() - cpu
            names = [paths[i] for i, _ in ranked]
            rank = names.index(target) + 1 if target in names else None
            rows.append((1.0 / rank if rank else 0.0, took, cpu))
            if rank != 1 and shown < misses:
                print(f"      miss rank={rank}  {query!r} -> {target}, got {names[:3]}")
                shown += 1
        _line(style, rows)
        every += rows
    _line("all", every)


def _line(label: str, rows: list[tuple[float, float, float]]) -> None:
    mrr = statistics.mean(r for r, _, _ in rows) if rows else 0.0
    first = sum(1 for r, _, _ in rows if r == 1.0)
    lat = [t for _, t, _ in rows]
    cpu = [c for _, _, c in rows]
    print(f"  {label:12} n={len(rows):4}  MRR@10 {mrr:.3f}  first {first:4}  "
          f"p50 {_pct(lat, .5) * 1000:6.1f} ms  p95 {_pct(lat, .95) * 1000:6.1f} ms  "
          f"(CPU p50 {_pct(cpu, .5) * 1000:5.1f} ms  p95 {_pct(cpu, .95) * 1000:5.1f} ms)", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux"))
    parser.add_argument("--set", choices=("holdout", "project", "all"), default="all")
    parser.add_argument("--per-style", type=int, default=100)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--misses", type=int, default=0, help="print this many misses per style")
    args = parser.parse_args()
    workspace = Workspace([os.path.realpath(args.corpus)])
    paths = [e.display for e in walk(workspace, workspace.resolve(None, None), WalkOptions(), CancelToken(),
                                     SkipCounts(), [], stat=False) if isinstance(e, FileEntry)]
    began = time.perf_counter()
    rank_paths_counted("warm", paths, limit=10)
    print(f"{len(paths)} paths; first query (prepares the blobs) {time.perf_counter() - began:.2f} s")
    if args.set in ("holdout", "all"):
        run_set("hold-out set (bench/quick_open_holdout.tsv)", holdout(), paths, args.misses)
    if args.set in ("project", "all"):
        from quality import quick_open_queries  # the project's generated styles (seeded)

        run_set("project's set (bench/quality.py)", quick_open_queries(paths, args.per_style, args.seed),
                paths, args.misses)
    return 0


if __name__ == "__main__":
    sys.exit(main())
