#!/usr/bin/env python3
"""Warm CLI benchmark: ``sleuth grep`` answered by a running server against ``rg -n``, same run.

Starts ``sleuth serve`` on the Linux tree the way an editor does (stdio, the tree as the one
workspace folder, ``initializationOptions.cacheDir``), waits for its index to be ready and its warm
socket (:mod:`sleuth.core.warm`) to listen, then for each query: checks that the warm CLI prints the
same match lines as rg and exactly the bytes of the cold CLI (``--no-server``), and times whole
processes alternately (rg, warm sleuth, ...), printing medians and the ratio. ``srv ms`` is the
server's own time for the command (``elapsed_ms`` of a warm ``--result-json`` call of the same query,
median): the rest of ``warm`` is the call's fixed cost (the client's start, the fork, the child's
settings, the transport, printing, the exits). Usage::

    python bench/warm_cli.py [--corpus DIR] [--cache DIR] [--runs 5] [--only NAME] [--pattern P --flags '-C2']

By default the literal benchsuite queries (``linux_literal``, ``linux_literal_casei``, ``linux_word``);
``--only`` picks any of ``queries.BENCHSUITE``. The cache defaults to ``~/.cache/sleuth-bench/fresh-index``
(its store is reused when current; else the server builds it first, which takes minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cold_grep import _ENV, rg_binary, rg_lines, sleuth_command, timed  # noqa: E402
from lsp_client import SLEUTH, LspProcess, vscode_capabilities  # noqa: E402
from queries import BENCHSUITE  # noqa: E402

LITERAL = ("linux_literal", "linux_literal_casei", "linux_word")


def start_server(corpus: str, cache: str) -> LspProcess:
    lsp = LspProcess([SLEUTH, "serve"], cwd=corpus, env=_ENV)
    uri = "file://" + corpus
    lsp.request("initialize", {"processId": os.getpid(), "rootUri": uri, "capabilities": vscode_capabilities(),
                               "workspaceFolders": [{"uri": uri, "name": os.path.basename(corpus)}],
                               "initializationOptions": {"cacheDir": cache}, "trace": "off"}, 60)
    lsp.notify("initialized", {})
    return lsp


def wait_fork_server(corpus: str, sleuth: list[str], limit_s: float = 60) -> bool:
    """Make the first warm call (it starts the server's CLI fork server) and wait for that to listen."""
    from sleuth.core.warm_paths import fork_socket_path

    path = fork_socket_path([corpus])
    timed([*sleuth, "files", "--max-results", "1"], corpus)
    deadline = time.perf_counter() + limit_s
    while time.perf_counter() < deadline:
        if path and os.path.exists(path):
            time.sleep(1.0)  # its imports are done before it listens; one more second for the machine to settle
            return True
        time.sleep(0.1)
    return False


def server_elapsed_ms(command: list[str], corpus: str) -> float:
    """The server's ``elapsed_ms`` for a warm ``--result-json`` call (its command alone, nothing around it)."""
    return float(json.loads(timed(command, corpus)[1])["elapsed_ms"])


def wait_ready(lsp: LspProcess, corpus: str, limit_s: float = 3600) -> float:
    from sleuth.core.warm_paths import socket_path

    started = time.perf_counter()
    deadline = started + limit_s
    path = socket_path([corpus])
    while time.perf_counter() < deadline:
        status = lsp.execute("sleuth.index.status", {}).result
        if status.get("state") == "ready" and path and os.path.exists(path):
            return time.perf_counter() - started
        time.sleep(0.5)
    raise SystemExit(f"the index was not ready (or no socket at {path}) within {limit_s} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux"))
    parser.add_argument("--cache", default=os.path.expanduser("~/.cache/sleuth-bench/fresh-index"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", action="append")
    parser.add_argument("--pattern", help="time this query too (named 'extra'), with --flags")
    parser.add_argument("--flags", default="", help="rg flags of --pattern, space-separated (e.g. '-C2')")
    ns = parser.parse_args()
    corpus = os.path.realpath(ns.corpus)
    queries = list(BENCHSUITE)
    if ns.pattern:
        queries.append(("extra", ns.flags.split(), ns.pattern))
    names = ns.only or (["extra"] if ns.pattern else list(LITERAL))
    rg, sleuth = rg_binary(), sleuth_command()
    lsp = start_server(corpus, ns.cache)
    try:
        waited = wait_ready(lsp, corpus)
        forking = wait_fork_server(corpus, sleuth)
        print(f"corpus {corpus}; server ready (index and socket) after {waited:.1f} s; CLI fork server "
              f"{'listening' if forking else 'NOT listening'}; {ns.runs} runs each, alternating; "
              f"whole-process wall time, medians")
        print(f"{'query':22} {'lines':>6} {'=rg':>4} {'=cold':>6} {'rg s':>7} {'warm s':>7} {'srv ms':>7} {'rg/warm':>8}")
        speedups = []
        for name, flags, pattern in queries:
            if name not in names:
                continue
            rg_cmd = [rg, "-n", "--no-heading", "--with-filename", "--color", "never", *flags, pattern]
            sl_cmd = [*sleuth, "grep", "-n", "--no-heading", "--color", "never", *flags, pattern]
            _, rg_out = timed(rg_cmd, corpus)  # warm-up, and the reference answer
            _, warm_out = timed(sl_cmd, corpus)
            _, cold_out = timed([*sl_cmd, "--no-server"], corpus)
            same_rg = rg_lines(warm_out) == rg_lines(rg_out)
            rg_times, warm_times, server_ms = [], [], []
            for _ in range(ns.runs):
                rg_times.append(timed(rg_cmd, corpus)[0])
                warm_times.append(timed(sl_cmd, corpus)[0])
                server_ms.append(server_elapsed_ms([*sl_cmd, "--result-json"], corpus))
            rg_med, warm_med = statistics.median(rg_times), statistics.median(warm_times)
            speedups.append(rg_med / warm_med)
            print(f"{name:22} {len(rg_lines(rg_out)):6d} {'yes' if same_rg else 'NO':>4} "
                  f"{'yes' if warm_out == cold_out else 'NO':>6} {rg_med:7.3f} {warm_med:7.3f} "
                  f"{statistics.median(server_ms):7.1f} "
                  f"{rg_med / warm_med:7.1f}x", flush=True)
        if speedups:
            print(f"warm sleuth vs rg: worst {min(speedups):.1f}x faster, median {statistics.median(speedups):.1f}x")
    finally:
        lsp.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
