#!/usr/bin/env python3
"""Daily command shapes beyond the benchsuite, warm, against rg in the same run ("no query slower
than rg", issue 29): listings, counts, inverted counts, include globs, big outputs.

The benchsuite's queries are searches that print a few thousand lines; what people also type is
``rg --files``, ``rg -c word``, ``rg -v -c X``, ``rg -g '*.c' X`` and searches that print megabytes.
Each shape here is one ``rg`` command line and the ``sleuth`` command line a user types for it; the
server runs as ``bench/warm_cli.py`` starts it (its store in ``--cache``), and each command is a
whole process, timed alternately with rg's (medians of ``--runs``). ``same`` compares the sorted
output lines with rg's (a listing's and a count's order differ: rg prints as its threads finish).
``--old SLEUTH`` (another installation's ``sleuth`` script) starts that one's server too, in a
runtime folder of its own, and times it in the same turns. Usage::

    python bench/daily_shapes.py [--corpus DIR] [--cache DIR] [--runs 5] [--only NAME ...] [--old PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cold_grep import rg_binary, sleuth_command, timed  # noqa: E402
from warm_cli import old_environment, start_server, wait_fork_server, wait_ready  # noqa: E402

# name -> (rg's arguments, sleuth's arguments after the command name's word)
SHAPES: dict[str, tuple[list[str], list[str]]] = {
    "files": (["--files"], ["files"]),
    "grep_files": (["--files"], ["grep", "--files"]),
    "files_glob": (["--files", "-g", "*.c"], ["files", "*.c"]),
    "count_word": (["-c", "static"], ["grep", "-c", "static"]),
    "invert_count": (["-v", "-c", "PM_RESUME"], ["grep", "-v", "-c", "PM_RESUME"]),
    "glob_literal": (["-n", "-g", "*.c", "PM_RESUME"], ["grep", "-n", "-g", "*.c", "PM_RESUME"]),
    "type_literal": (["-n", "-tc", "PM_RESUME"], ["grep", "-n", "-tc", "PM_RESUME"]),
    "files_with_matches": (["-l", "static"], ["grep", "-l", "static"]),
    "files_without_match": (["--files-without-match", "PM_RESUME"], ["grep", "--files-without-match", "PM_RESUME"]),
    "big_output": (["-n", "static", "drivers"], ["grep", "-n", "static", "drivers"]),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux"))
    parser.add_argument("--cache", default=os.path.expanduser("~/.cache/sleuth-bench/fresh-index"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", action="append", choices=sorted(SHAPES))
    parser.add_argument("--old", help="another installation's sleuth script, timed in the same turns")
    ns = parser.parse_args()
    corpus = os.path.realpath(ns.corpus)
    rg, sleuth = rg_binary(), sleuth_command()
    runtime = tempfile.mkdtemp(prefix="sleuth-shapes-bench-")
    env = old_environment(os.path.join(runtime, "new"))
    old_env = old_environment(os.path.join(runtime, "old"))
    servers = [start_server(corpus, ns.cache, env=env)]
    if ns.old:
        servers.append(start_server(corpus, ns.cache, ns.old, old_env))
    try:
        for lsp, e in zip(servers, (env, old_env)):
            wait_ready(lsp, corpus, env=e)
        wait_fork_server(corpus, sleuth, env=env)
        if ns.old:
            wait_fork_server(corpus, [ns.old], env=old_env)
        print(f"corpus {corpus}; warm; {ns.runs} runs each, alternating; whole-process medians; "
              f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        old_head = f" {'old s':>7} {'old/new':>8}" if ns.old else ""
        print(f"{'shape':20} {'lines':>7} {'same':>5} {'rg s':>7} {'sleuth s':>9} {'rg/sleuth':>10}{old_head}")
        for name, (rg_args, sl_args) in SHAPES.items():
            if ns.only and name not in ns.only:
                continue
            rg_cmd, sl_cmd = [rg, "--color", "never", *rg_args], [*sleuth, *sl_args]
            old_cmd = [ns.old or "", *sl_args]
            _, rg_out = timed(rg_cmd, corpus)
            _, sl_out = timed(sl_cmd, corpus, env)
            same = sorted(rg_out.splitlines()) == sorted(sl_out.splitlines())
            rg_times, sl_times, old_times = [], [], []
            for turn in range(ns.runs):
                rg_times.append(timed(rg_cmd, corpus)[0])
                if ns.old and turn % 2:  # every other turn the old one first
                    old_times.append(timed(old_cmd, corpus, old_env)[0])
                sl_times.append(timed(sl_cmd, corpus, env)[0])
                if ns.old and not turn % 2:
                    old_times.append(timed(old_cmd, corpus, old_env)[0])
            rg_med, sl_med = statistics.median(rg_times), statistics.median(sl_times)
            old_cols = ""
            if ns.old:
                old_med = statistics.median(old_times)
                old_cols = f" {old_med:7.3f} {old_med / sl_med:7.2f}x"
            lines = sl_out.count(b"\n")
            print(f"{name:20} {lines:7d} {'yes' if same else 'NO':>5} {rg_med:7.3f} {sl_med:9.3f} "
                  f"{rg_med / sl_med:9.2f}x{old_cols}", flush=True)
        print(f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        for lsp in servers:
            lsp.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
