"""How long a cancelled search keeps the server busy (issue 27 item 2).

Usage (the corpus is ``../shared/bench/linux-corpus.sh``'s tree by default; run it alone)::

    python bench/cancel_frees.py [--corpus DIR] [--runs 5] [--wait 1.0]

Starts the installed ``sleuth serve`` on the corpus with the index off (every search scans, on the
worker pool), then, per run: times a scanning grep alone (``SCAN``, the baseline), sends the
back-reference grep of the issue (``(\\w{3,}\\d)\\s.*\\1\\s.*\\1\\s.*\\1``), cancels it after ``--wait``
seconds and times the same scanning grep sent right after the cancel. Prints medians and the ratio
"after a cancel / alone": 1.0 means the cancelled search left nothing behind. Before the fix the
cancelled search's units kept the workers until its own deadline (the next grep waited ~20 s).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lsp_client import SLEUTH, LspProcess, vscode_capabilities  # noqa: E402

VICTIM = r"(\w{3,}\d)\s.*\1\s.*\1\s.*\1"
SCAN = r"\w{5}\s+\w{5}\s+\w{5}\s+\w{5}\s+\w{5}"  # the benchsuite's no-literal query: a full scan


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--wait", type=float, default=1.0, help="seconds between the victim and its cancel")
    args = parser.parse_args()
    corpus = str(Path(args.corpus).resolve())
    scratch = tempfile.mkdtemp(prefix="sleuth-cancel-bench-")
    env = {k: v for k, v in os.environ.items() if k != "SLEUTH_TEST_COMMANDS"}
    lsp = LspProcess([SLEUTH, "serve"], cwd=corpus, env=env, stderr_path=os.path.join(scratch, "stderr"))
    uri = Path(corpus).as_uri()
    lsp.request("initialize", {"processId": os.getpid(), "rootUri": uri, "capabilities": vscode_capabilities(),
                               "workspaceFolders": [{"uri": uri, "name": "corpus"}],
                               "initializationOptions": {"index": {"enabled": False}, "cacheDir": scratch}}, 120)
    lsp.notify("initialized", {})
    scan = {"pattern": SCAN, "max_results": 20000}
    lsp.execute("sleuth.grep", scan)  # warm the pool and the page cache
    alone, after = [], []
    for _ in range(args.runs):
        started = time.perf_counter()
        lsp.execute("sleuth.grep", scan)
        alone.append(time.perf_counter() - started)
        msg_id = next(lsp._ids)  # the victim, sent without waiting
        lsp._write({"jsonrpc": "2.0", "id": msg_id, "method": "workspace/executeCommand",
                    "params": {"command": "sleuth.grep", "arguments": [{"pattern": VICTIM}]}})
        time.sleep(args.wait)
        lsp.notify("$/cancelRequest", {"id": msg_id})
        started = time.perf_counter()
        lsp.execute("sleuth.grep", scan)
        after.append(time.perf_counter() - started)
    lsp.close()
    a, b = statistics.median(alone), statistics.median(after)
    print(f"scanning grep alone:          median {a:.2f} s  (runs: {', '.join(f'{x:.2f}' for x in alone)})")
    print(f"the same right after a cancel: median {b:.2f} s  (runs: {', '.join(f'{x:.2f}' for x in after)})")
    print(f"after a cancel / alone: {b / a:.2f}x")


if __name__ == "__main__":
    main()
