"""What a person sees of a slow search over LSP: time to the first partial result and the largest
gap between two signs of life (issue 14 item 3).

Usage (the corpus is ``../shared/bench/linux-corpus.sh``'s ``fs/`` subtree by default; run it alone)::

    flock /tmp/sleuth-bench.lock python bench/streaming.py [--corpus DIR] [--runs 3] [--pattern RE]

It starts the real server (``python -m sleuth serve``, stdio) twice: with the index off (the cold
walk) and with an index built into a scratch store (the catalogue scan a no-literal pattern takes).
Each run sends ``sleuth/grep`` with a ``workDoneToken`` and a ``partialResultToken`` and reads, from
the moment the request was written: when the first partial batch arrived, how many batches came,
when the response came, and the largest gap between two work-done reports (begin to the first
report, report to report, the last report to the response). It also checks that the streamed
matches plus the response's equal the answer of the same request without streaming, in order.
The default pattern is the back-reference search of issue 14 (the ``regex`` module, ~10 ms a file).
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lsp_client import SLEUTH, LspProcess, vscode_capabilities  # noqa: E402

PATTERN = r"(\w+\d) .*\1 .*\1"
_TOKENS = itertools.count(1)


def start(corpus: str, init: dict[str, Any], stderr_path: str) -> LspProcess:
    env = {k: v for k, v in os.environ.items() if k != "SLEUTH_TEST_COMMANDS"}
    lsp = LspProcess([SLEUTH, "serve"], cwd=corpus, env=env, stderr_path=stderr_path)
    uri = Path(corpus).as_uri()
    lsp.request("initialize", {"processId": os.getpid(), "rootUri": uri, "capabilities": vscode_capabilities(),
                               "workspaceFolders": [{"uri": uri, "name": os.path.basename(corpus)}],
                               "initializationOptions": init}, 60)
    lsp.notify("initialized", {})
    return lsp


def wait_ready(lsp: LspProcess, timeout: float = 600.0) -> None:
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        status = lsp.execute("sleuth.index.status", {}, 30).result
        if status.get("state") == "ready" and not status.get("pending_updates"):
            return
        time.sleep(0.1)
    raise RuntimeError("the index did not become ready")


def one_search(lsp: LspProcess, args: dict[str, Any]) -> dict[str, Any]:
    """One streamed search: its timings (seconds from the request) and whether it equals the plain answer."""
    n = next(_TOKENS)
    work, partial = f"w{n}", f"p{n}"
    before = len(lsp.progress_times)
    sent = time.perf_counter()
    response = lsp.request("sleuth/grep", {**args, "workDoneToken": work, "partialResultToken": partial})
    answered = sent + response.seconds
    events = lsp.progress_times[before:]
    batches = [(at, value) for at, token, value in events if token == partial]
    reports = [at for at, token, value in events if token == work and value.get("kind") in ("begin", "report")]
    marks = [sent, *reports, answered]
    streamed = [item for _, value in batches for item in value["matches"]]
    whole = lsp.execute("sleuth.grep", args).result["matches"]
    return {"first_partial": batches[0][0] - sent if batches else None, "response": response.seconds,
            "batches": len(batches), "reports": len(reports),
            "largest_gap": max(b - a for a, b in zip(marks, marks[1:])),
            "same": streamed + response.result["matches"] == whole, "matches": len(whole)}


def report(label: str, runs: list[dict[str, Any]]) -> None:
    def med(key: str) -> str:
        values = [r[key] for r in runs if r[key] is not None]
        return f"{statistics.median(values) * 1000:8.0f}" if values else "       -"

    print(f"{label:10} {med('first_partial')} {med('response')} {med('largest_gap')} "
          f"{statistics.median(r['batches'] for r in runs):8.0f} {statistics.median(r['reports'] for r in runs):8.0f} "
          f"{runs[0]['matches']:8} {all(r['same'] for r in runs)!s:>5}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux/fs"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pattern", default=PATTERN)
    parser.add_argument("--max-results", type=int, default=10_000)
    parser.add_argument("--only", choices=("walk", "index"), action="append")
    ns = parser.parse_args()
    args = {"pattern": ns.pattern, "max_results": ns.max_results, "timeout_ms": 300_000}
    print(f"corpus {ns.corpus}; pattern {ns.pattern!r}; medians of {ns.runs} runs, milliseconds from the request")
    print(f"{'path':10} {'1st part':>8} {'response':>8} {'max gap':>8} {'batches':>8} {'reports':>8} "
          f"{'matches':>8} {'same':>5}")
    with tempfile.TemporaryDirectory(prefix="sleuth-stream-") as scratch:
        for label in ns.only or ("walk", "index"):
            init: dict[str, Any] = {"cacheDir": scratch}
            if label == "walk":
                init["index"] = {"enabled": False}
            lsp = start(ns.corpus, init, os.path.join(scratch, f"{label}.stderr"))
            try:
                if label == "index":
                    wait_ready(lsp)
                one_search(lsp, args)  # warm-up: the pool's processes, the page cache
                report(label, [one_search(lsp, args) for _ in range(ns.runs)])
            finally:
                lsp.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
