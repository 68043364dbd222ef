"""Memory after expensive queries (issue 22): the server's RSS after a plain query, then after the set.

One ``sleuth serve`` on the corpus (the Linux tree from ``bench/linux-corpus.sh`` when present), its
index ready; a plain literal grep, RSS read (the server's own, and with its worker processes); then
the expensive set the issue names, each with ``timeout_ms`` 5,000 — a back-reference pattern, a
backtracking look-behind, fuzzy 4 on a 200-character pattern, a multiline ``[\\s\\S]*`` search, a
1,000-term text query, 10,000 patterns — and the plain grep again, RSS read again.

    python bench/rss_expensive.py [--corpus DIR] [--cache DIR]

The machines this runs on are shared: quote the load average printed alongside.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from load import LINUX, rss_mb  # noqa: E402
from lsp_client import SLEUTH, LspProcess, RpcError, descendants, vscode_capabilities  # noqa: E402

PLAIN = ("sleuth.grep", {"pattern": "PM_RESUME", "max_results": 200})
EXPENSIVE = [
    ("back-reference", "sleuth.grep", {"pattern": r"(\w+\d) .*\1 .*\1"}),
    ("look-behind backtracking", "sleuth.grep", {"pattern": r"(a+)+$(?<=b)"}),
    ("fuzzy 4, 200 characters", "sleuth.grep", {"pattern": "x" * 200, "fuzzy": 4}),
    ("multiline [\\s\\S]*", "sleuth.grep", {"pattern": r"struct[\s\S]*PM_RESUME", "multiline": True}),
    ("1,000-term text query", "sleuth.text", {"query": " ".join(f"w{i}" for i in range(1000))}),
    ("10,000 patterns", "sleuth.grep", {"pattern": [f"word{i}x" for i in range(10000)]}),
]


def rss(pid: int) -> tuple[float, float]:
    """(the server's RSS, the server's plus its workers') in MB."""
    own = rss_mb(pid)
    return own, own + sum(rss_mb(child) for child in descendants(pid))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=LINUX)
    parser.add_argument("--cache", type=Path, default=None)
    args = parser.parse_args()
    cache = args.cache or Path(tempfile.mkdtemp(prefix="sleuth-rss-cache-"))
    print(f"corpus {args.corpus}  cache {cache}  load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (shared)")
    lsp = LspProcess([SLEUTH, "serve"], cwd=str(args.corpus))
    uri = args.corpus.as_uri()
    lsp.request("initialize", {"processId": os.getpid(), "rootUri": uri, "capabilities": vscode_capabilities(),
                               "workspaceFolders": [{"uri": uri, "name": args.corpus.name}],
                               "initializationOptions": {"cacheDir": str(cache), "rateLimitEnabled": False}}, 60)
    lsp.notify("initialized", {})
    lsp.execute("sleuth.index.build", {"wait": True}, 3600)
    lsp.execute(*PLAIN)
    plain = rss(lsp.pid)
    print(f"after a plain query: server {plain[0]:.0f} MB, with workers {plain[1]:.0f} MB")
    for name, command, arguments in EXPENSIVE:
        started = time.perf_counter()
        try:
            result = lsp.execute(command, {**arguments, "timeout_ms": 5000}, 120).result
            outcome = "timed out" if result.get("timed_out") else f"answered ({result.get('truncated_reason') or 'complete'})"
        except RpcError as error:
            outcome = f"error {error.code}: {str(error)[:80]}"
        print(f"  {name}: {outcome} in {time.perf_counter() - started:.2f} s")
    lsp.execute(*PLAIN)
    after = rss(lsp.pid)
    print(f"after the expensive set: server {after[0]:.0f} MB, with workers {after[1]:.0f} MB "
          f"(server x{after[0] / plain[0]:.2f})")
    lsp.close()


if __name__ == "__main__":
    main()
