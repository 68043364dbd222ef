#!/usr/bin/env python3
"""The server's side of an indexed literal grep, in-process, against ``rg -n`` in the same run.

Where the time of ``PM_RESUME`` / ``-i PM_RESUME`` / ``-w PM_RESUME`` (issue 16's warm-CLI queries)
goes once a server holds the index: for each query it prints the candidate files the index leaves
(and how many really match), the bytes the searcher reads of them, and medians of

* ``cand``: the candidate lookup (:meth:`IndexService.candidate_entries`), trigram postings to
  walk entries and pieces;
* ``verify``: searching every candidate unit in this thread (no pool), what the workers do between them
  (wall median, and ``CPU min``: the least thread CPU time, which other work on the machine disturbs less);
* ``grep``: the whole ``sleuth.grep`` command as a server runs it (pool included), wall and CPU
  (this process plus the pool's workers, from ``/proc``);
* ``rg``: ``rg -n`` over the tree, alternating with the ``grep`` runs.

Usage (a fresh store under ``--cache`` is built first unless one is there; ``bench.py --build-only
--cache DIR`` builds one too)::

    python bench/indexed_literal.py --cache /tmp/me/index [--runs 9] [--only linux_literal_casei]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from typing import Any, Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cold_grep import rg_binary  # noqa: E402
from queries import BENCHSUITE  # noqa: E402

from sleuth.commands import get_command  # noqa: E402
from sleuth.commands.args import parse_args  # noqa: E402
from sleuth.commands.config import Settings  # noqa: E402
from sleuth.commands.context import CommandContext, Services  # noqa: E402
from sleuth.commands.grep import GREP_ARGS, build_request  # noqa: E402
from sleuth.engine.cancel import CancelToken  # noqa: E402
from sleuth.engine.grep import pool  # noqa: E402
from sleuth.engine.grep.unit_search import Publisher, UnitToken, search_unit  # noqa: E402
from sleuth.engine.grep.units import units  # noqa: E402
from sleuth.engine.index import IndexService  # noqa: E402
from sleuth.engine.workspace import Workspace  # noqa: E402

LITERAL = ("linux_literal", "linux_literal_casei", "linux_word")
_TICK = os.sysconf("SC_CLK_TCK")


def _median_ms(fn: Callable[[], Any], runs: int) -> float:
    fn()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return 1000 * statistics.median(times)


def _thread_cpu_ms(fn: Callable[[], Any], runs: int) -> float:
    """The least CPU time this thread spent in ``fn`` over ``runs`` calls: on a machine other work
    loads, the verify's wall time says more about that work than about the searcher."""
    fn()
    spent = []
    for _ in range(runs):
        started = time.thread_time()
        fn()
        spent.append(time.thread_time() - started)
    return 1000 * min(spent)


def _cpu_s(pids: list[int]) -> float:
    """CPU seconds of these processes so far (utime + stime from ``/proc``)."""
    total = 0.0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / _TICK
        except OSError:
            pass
    return total


def _pids() -> list[int]:
    running = pool._POOL
    return [os.getpid(), *(getattr(running, "_processes", None) or {})] if running else [os.getpid()]


def _rg_lines(rg: str, corpus: str, flags: list[str], pattern: str) -> set[tuple[str, int]]:
    out = subprocess.run([rg, "-n", "--null", "--no-heading", *flags, "-e", pattern], cwd=corpus,
                         capture_output=True).stdout
    found = set()
    for raw in out.split(b"\n"):
        if b"\0" in raw:
            path, rest = raw.split(b"\0", 1)
            found.add((path.decode("utf-8", "replace"), int(rest.split(b":", 1)[0])))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux"))
    parser.add_argument("--cache", required=True)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--only", action="append", help="a BENCHSUITE name (repeatable); default the literal ones")
    ns = parser.parse_args()
    corpus = os.path.realpath(ns.corpus)
    names = ns.only or list(LITERAL)
    workspace, settings = Workspace([corpus]), Settings()
    service = IndexService(workspace, settings.index_config(), cache_dir=ns.cache)
    started = time.perf_counter()
    service.start()
    service.wait_ready()
    service.wait_idle(600)
    status = service.status()
    print(f"corpus {corpus}; index ready in {time.perf_counter() - started:.1f} s, store "
          f"{status['store_bytes'] / 1e6:.0f} MB ({status['store_bytes'] / max(status['bytes'], 1):.1%} of the corpus); "
          f"load {os.getloadavg()[0]:.1f}; medians of {ns.runs}", flush=True)
    print(f"{'query':22} {'cands':>6} {'match':>6} {'MB read':>8} {'cand ms':>8} {'verify ms':>10} {'CPU min':>8} {'grep ms':>8} "
          f"{'CPU ms':>7} {'rg ms':>7} {'rg/grep':>8} {'=rg':>4}")
    rg = rg_binary()
    command = get_command("sleuth.grep")
    try:
        for name, flags, pattern in BENCHSUITE:
            if name not in names:
                continue
            call = {"pattern": pattern, "max_results": settings.max_results, "max_columns": 0,
                    "case": "insensitive" if "-i" in flags else "sensitive", "word": "-w" in flags}
            ctx = CommandContext(workspace, settings, services=Services(index=service))
            request = build_request(parse_args("sleuth.grep", call, GREP_ARGS, settings), ctx)
            candidates = service.candidate_entries(workspace, request)
            assert candidates is not None, f"{name}: the index did not narrow"
            cand_ms = _median_ms(lambda: service.candidate_entries(workspace, request), ns.runs)
            pieces = dict(candidates.pieces.items()) if candidates.pieces is not None else {}
            read = sum(sum((p.size if end < 0 else end) - start for start, end in p.ranges) for p in pieces.values())
            read += sum(e.size for i, e in enumerate(candidates) if i not in pieces)
            work = list(units(candidates, None, CancelToken(), True))

            def verify() -> None:
                for unit in work:
                    search_unit(unit, workspace, request, UnitToken(lambda: False, None, Publisher(lambda part: True)))

            verify_ms = _median_ms(verify, ns.runs)
            verify_cpu_ms = _thread_cpu_ms(verify, ns.runs)

            def grep() -> dict[str, Any]:
                return command(call, CommandContext(workspace, settings, services=Services(index=service)))

            result = grep()
            got = {(m["path"], m["line"]) for m in result["matches"] if m["type"] == "match"}
            same = got == _rg_lines(rg, corpus, flags, pattern)
            grep_times, rg_times, cpu = [], [], []
            for _ in range(ns.runs):  # alternating, so that the machine's moods hit both
                before = time.perf_counter()
                _rg_lines(rg, corpus, flags, pattern)
                rg_times.append(time.perf_counter() - before)
                pids = _pids()
                cpu_before, before = _cpu_s(pids), time.perf_counter()
                grep()
                grep_times.append(time.perf_counter() - before)
                cpu.append(_cpu_s(pids) - cpu_before)
            grep_ms, rg_ms = 1000 * statistics.median(grep_times), 1000 * statistics.median(rg_times)
            print(f"{name:22} {len(candidates):6d} {result['files_matched']:6d} {read / 1e6:8.1f} {cand_ms:8.1f} "
                  f"{verify_ms:10.1f} {verify_cpu_ms:8.1f} {grep_ms:8.1f} {1000 * statistics.median(cpu):7.0f} {rg_ms:7.0f} "
                  f"{rg_ms / grep_ms:7.1f}x {'yes' if same else 'NO':>4}", flush=True)
    finally:
        service.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
