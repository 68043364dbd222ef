#!/usr/bin/env python3
"""Warm CLI benchmark: ``sleuth grep`` answered by a running server against ``rg -n``, same run.

Starts ``sleuth serve`` on the Linux tree the way an editor does (stdio, the tree as the one
workspace folder, ``initializationOptions.cacheDir``), waits for its index to be ready and its warm
socket (:mod:`sleuth.core.warm`) to listen, then for each query: checks that the warm CLI prints the
same match lines as rg and exactly the bytes of the cold CLI (``--no-server``), and times whole
processes alternately (rg 15.2, rg 14.1, warm sleuth, ...), printing medians and the ratios against both
rg releases (rg 14.1 is the ``ripgrep`` 14.1.0 wheel, fetched once like the tests' oracle,
``tests/rg_bin.py``; without it only rg 15.2 is timed). ``srv ms`` is the
server's own time for the command (``elapsed_ms`` of a warm ``--result-json`` call of the same query,
median): the rest of ``warm`` is the call's fixed cost (the client's start, the fork, the child's
settings, the transport, printing, the exits). ``--old SLEUTH`` (another installation's ``sleuth`` script,
e.g. the main checkout's) starts that installation's server too, in a runtime folder of its own (its warm
doors apart from the new one's), and times its warm CLI in the same turns (``old s``, ``old/new``). Usage::

    python bench/warm_cli.py [--corpus DIR] [--cache DIR] [--runs 5] [--only NAME] [--pattern P --flags '-C2'] [--old PATH]

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
import tempfile
import time
from typing import Callable, TypeVar

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cold_grep import _ENV, rg_binary, rg_lines, sleuth_command, timed  # noqa: E402
from lsp_client import SLEUTH, LspProcess, vscode_capabilities  # noqa: E402
from queries import BENCHSUITE  # noqa: E402
from tests.rg_bin import find_rg  # noqa: E402

LITERAL = ("linux_literal", "linux_literal_casei", "linux_word")
T = TypeVar("T")


def start_server(corpus: str, cache: str, sleuth: str = SLEUTH, env: dict[str, str] | None = None) -> LspProcess:
    lsp = LspProcess([sleuth, "serve"], cwd=corpus, env=env or _ENV)
    uri = "file://" + corpus
    lsp.request("initialize", {"processId": os.getpid(), "rootUri": uri, "capabilities": vscode_capabilities(),
                               "workspaceFolders": [{"uri": uri, "name": os.path.basename(corpus)}],
                               "initializationOptions": {"cacheDir": cache}, "trace": "off"}, 60)
    lsp.notify("initialized", {})
    return lsp


def wait_fork_server(corpus: str, sleuth: list[str], limit_s: float = 60, env: dict[str, str] | None = None) -> bool:
    """Make the first warm call (it starts the server's CLI fork server) and wait for that to listen."""
    from sleuth.core.warm_paths import fork_socket_path

    path = fork_socket_path([corpus]) if env is None else _in_env(env, lambda: fork_socket_path([corpus]))
    timed([*sleuth, "files", "--max-results", "1"], corpus, env)
    deadline = time.perf_counter() + limit_s
    while time.perf_counter() < deadline:
        if path and os.path.exists(path):
            time.sleep(1.0)  # its imports are done before it listens; one more second for the machine to settle
            return True
        time.sleep(0.1)
    return False


def server_elapsed_ms(command: list[str], corpus: str, env: dict[str, str] | None = None) -> float:
    """The server's ``elapsed_ms`` for a warm ``--result-json`` call (its command alone, nothing around it)."""
    return float(json.loads(timed(command, corpus, env)[1])["elapsed_ms"])


def _in_env(env: dict[str, str], compute: Callable[[], T]) -> T:
    """``compute()`` with ``env`` as this process's environment (a socket path under another runtime folder)."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        return compute()
    finally:
        os.environ.clear()
        os.environ.update(saved)


def old_environment(runtime: str) -> dict[str, str]:
    """The old installation's environment: its own runtime folder, so its warm doors are not the new one's."""
    os.makedirs(runtime, mode=0o700, exist_ok=True)
    os.chmod(runtime, 0o700)
    return {**_ENV, "XDG_RUNTIME_DIR": runtime}


def wait_ready(lsp: LspProcess, corpus: str, limit_s: float = 3600, env: dict[str, str] | None = None) -> float:
    from sleuth.core.warm_paths import socket_path

    started = time.perf_counter()
    deadline = started + limit_s
    path = socket_path([corpus]) if env is None else _in_env(env, lambda: socket_path([corpus]))
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
    parser.add_argument("--old", help="another installation's sleuth script, timed in the same turns")
    ns = parser.parse_args()
    corpus = os.path.realpath(ns.corpus)
    queries = list(BENCHSUITE)
    if ns.pattern:
        queries.append(("extra", ns.flags.split(), ns.pattern))
    names = ns.only or (["extra"] if ns.pattern else list(LITERAL))
    rg, sleuth = rg_binary(), sleuth_command()
    rg14 = find_rg("14.1.0")
    # Each server in a runtime folder of its own: a server another checkout runs on the same tree would
    # otherwise own the warm doors (and answer the calls), or make this one its guest.
    runtime = tempfile.mkdtemp(prefix="sleuth-warm-bench-")
    env = old_environment(os.path.join(runtime, "new"))
    old_env = old_environment(os.path.join(runtime, "old"))
    servers = [start_server(corpus, ns.cache, env=env)]
    if ns.old:
        servers.append(start_server(corpus, ns.cache, ns.old, old_env))
    try:
        waited = max(wait_ready(lsp, corpus, env=e) for lsp, e in zip(servers, (env, old_env)))
        forking = wait_fork_server(corpus, sleuth, env=env) and (not ns.old or wait_fork_server(corpus, [ns.old],
                                                                                                env=old_env))
        print(f"corpus {corpus}; server{'s' if ns.old else ''} ready (index and socket) after {waited:.1f} s; "
              f"CLI fork server {'listening' if forking else 'NOT listening'}; {ns.runs} runs each, alternating; "
              f"whole-process wall time, medians; load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        old_head = f" {'old s':>7} {'old/new':>8}" if ns.old else ""
        rg14_head = f" {'rg14 s':>7} {'rg14/warm':>9}" if rg14 else ""
        print(f"{'query':22} {'lines':>6} {'=rg':>4} {'=cold':>6} {'rg15 s':>7} {'warm s':>7} {'srv ms':>7} "
              f"{'rg15/warm':>9}{rg14_head}{old_head}")
        speedups, speedups14 = [], []
        for name, flags, pattern in queries:
            if name not in names:
                continue
            rg_cmd = [rg, "-n", "--no-heading", "--with-filename", "--color", "never", *flags, pattern]
            sl_cmd = [*sleuth, "grep", "-n", "--no-heading", "--color", "never", *flags, pattern]
            old_cmd = [ns.old or "", *sl_cmd[len(sleuth):]]
            _, rg_out = timed(rg_cmd, corpus)  # warm-up, and the reference answer
            _, warm_out = timed(sl_cmd, corpus, env)
            _, cold_out = timed([*sl_cmd, "--no-server"], corpus, env)
            same = warm_out == cold_out and (not ns.old or timed(old_cmd, corpus, old_env)[1] == warm_out)
            same_rg = rg_lines(warm_out) == rg_lines(rg_out)
            rg14_cmd = [rg14 or "", *rg_cmd[1:]]
            rg_times, rg14_times, warm_times, old_times, server_ms = [], [], [], [], []
            for turn in range(ns.runs):
                rg_times.append(timed(rg_cmd, corpus)[0])
                if rg14:
                    rg14_times.append(timed(rg14_cmd, corpus)[0])
                if ns.old and turn % 2:  # every other turn the old one first: neither always follows rg
                    old_times.append(timed(old_cmd, corpus, old_env)[0])
                warm_times.append(timed(sl_cmd, corpus, env)[0])
                if ns.old and not turn % 2:
                    old_times.append(timed(old_cmd, corpus, old_env)[0])
                server_ms.append(server_elapsed_ms([*sl_cmd, "--result-json"], corpus, env))
            rg_med, warm_med = statistics.median(rg_times), statistics.median(warm_times)
            speedups.append(rg_med / warm_med)
            if rg14:
                speedups14.append(statistics.median(rg14_times) / warm_med)
            old_cols = ""
            if rg14:
                rg14_med = statistics.median(rg14_times)
                old_cols = f" {rg14_med:7.3f} {rg14_med / warm_med:8.1f}x"
            if ns.old:
                old_med = statistics.median(old_times)
                old_cols += f" {old_med:7.3f} {old_med / warm_med:7.2f}x"
            print(f"{name:22} {len(rg_lines(rg_out)):6d} {'yes' if same_rg else 'NO':>4} "
                  f"{'yes' if same else 'NO':>6} {rg_med:7.3f} {warm_med:7.3f} "
                  f"{statistics.median(server_ms):7.1f} "
                  f"{rg_med / warm_med:8.1f}x{old_cols}", flush=True)
        if speedups:
            against14 = f", rg 14.1: worst {min(speedups14):.1f}x" if speedups14 else ""
            print(f"warm sleuth vs rg 15.2: worst {min(speedups):.1f}x faster, median {statistics.median(speedups):.1f}x"
                  f"{against14}; "
                  f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        for lsp in servers:
            lsp.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
