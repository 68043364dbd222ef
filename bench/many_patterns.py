"""A grep given 10,000 patterns as a list, over LSP (issue 27 item 5): does it keep its time budget,
and is ``sleuth.index.status`` answered meanwhile?

One ``sleuth serve`` on a corpus (the Linux tree from ``bench/linux-corpus.sh`` when it is there),
its index built first. Then, for each form of the same 10,000 words (identifiers of the corpus'
headers, most of which occur) — a list, and one ``|``-joined string — a grep with ``timeout_ms``
3000 while a probe thread asks for ``sleuth.index.status`` every 50 ms. Prints per form: the grep's
round trip, its count and ``truncated_reason``, and the status probes' p50 and max round trip.

    python bench/many_patterns.py                        # ~/.cache/sleuth-bench/linux if present
    python bench/many_patterns.py --corpus DIR --cache /tmp/sleuth-many --words 10000

The machines this runs on are shared: quote figures with the load average printed alongside.

Measured (November 2026, the Linux tree, load average ~6 on 2 shared cores, timeout_ms 3000): before
(the index evaluated the 10,000-literal OR under its lock, without the deadline) list 16.1 s, joined
13.2 s, status max 14.2 s; after, list 3.07 s and 3.05 s, joined 3.06 s, all ``truncated_reason:
timeout``, status max 87 ms.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from lsp_client import LspProcess, vscode_capabilities  # noqa: E402

LINUX = Path.home() / ".cache" / "sleuth-bench" / "linux"


def corpus_words(corpus: Path, count: int) -> list[str]:
    """``count`` distinct identifiers from the corpus' first files (deterministic)."""
    found: set[str] = set()
    for path in sorted(corpus.rglob("*.[ch]")):
        found.update(re.findall(r"\b[a-z_][a-z0-9_]{5,}\b", path.read_text(errors="replace")))
        if len(found) >= count * 2:
            break
    return random.Random(27).sample(sorted(found), min(count, len(found)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=LINUX)
    parser.add_argument("--cache", type=Path, help="index store directory (default: a new temporary one)")
    parser.add_argument("--words", type=int, default=10_000)
    parser.add_argument("--timeout-ms", type=int, default=3000)
    parser.add_argument("--sleuth", default=str(Path(sys.executable).with_name("sleuth")))
    args = parser.parse_args()

    corpus = args.corpus
    cache = args.cache or Path(tempfile.mkdtemp(prefix="sleuth-many-"))
    words = corpus_words(corpus, args.words)
    print(f"corpus {corpus}  {len(words)} words  cache {cache}  load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores (shared)")
    lsp = LspProcess([args.sleuth, "serve"], cwd=str(corpus), stderr_path=str(cache.parent / "sleuth-many.stderr"))
    uri = corpus.as_uri()
    lsp.request("initialize", {"processId": os.getpid(), "rootUri": uri, "capabilities": vscode_capabilities(),
                               "workspaceFolders": [{"uri": uri, "name": corpus.name}],
                               "initializationOptions": {"cacheDir": str(cache), "rateLimitEnabled": False,
                                                         "maxPatternLength": 1_000_000}}, 60)
    lsp.notify("initialized", {})
    started = time.perf_counter()
    lsp.execute("sleuth.index.build", {"wait": True}, 3600)
    print(f"index ready in {time.perf_counter() - started:.1f} s")
    try:
        for form, pattern in (("list", words), ("joined", "|".join(words)), ("list", words)):
            done = threading.Event()
            status_ms: list[float] = []

            def probe() -> None:
                while not done.is_set():
                    status_ms.append(lsp.execute("sleuth.index.status", {}, 120).seconds * 1000)
                    done.wait(0.05)

            prober = threading.Thread(target=probe)
            prober.start()
            answer = lsp.execute("sleuth.grep", {"pattern": pattern, "timeout_ms": args.timeout_ms,
                                                 "max_results": 100}, 600)
            done.set()
            prober.join()
            result = answer.result
            print(f"{form:6}  grep {answer.seconds:6.2f} s  count {result['count']:5}  "
                  f"truncated_reason {result['truncated_reason']}  elapsed_ms {result['elapsed_ms']}  |  "
                  f"status x{len(status_ms)}: p50 {statistics.median(status_ms):.0f} ms, max {max(status_ms):.0f} ms")
    finally:
        lsp.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
