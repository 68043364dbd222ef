"""Load and memory under concurrent searches (issue 20 area 6): status latency and RSS growth.

One ``sleuth serve`` process on a corpus (the Linux tree from ``bench/linux-corpus.sh`` when it is
there, else a generated tree), its index ready. Then 8 client threads send searches back to back
(ripgrep's benchsuite literals, case-insensitive and word queries, an alternation, a regex with a
literal suffix, Quick-Open file queries, ranked text queries and a tool call), about 30% cancelled
right after they are sent, while an editor thread types into open buffers (``didChange``; the
corpus on disk is never written, other benchmarks may share it) and a probe thread asks for
``sleuth.index.status`` every 20 ms. Prints:

* status round trip under that load: p50, p95 (bar: <= 50 ms), max;
* the server's RSS (its own, and with its worker processes) after 100 and after 1,000 searches
  (bar: within 10%);
* how many requests were answered, cancelled, and lost (must be 0).

    python bench/load.py                          # ~/.cache/sleuth-bench/linux if present
    python bench/load.py --corpus DIR --cache /tmp/sleuth-load --searches 1000
    python bench/load.py --generate 20000         # a generated tree of 20,000 files

The machines this runs on are shared: quote figures with the load average printed alongside.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from lsp_client import SLEUTH, LspProcess, RpcError, descendants, vscode_capabilities  # noqa: E402

LINUX = Path.home() / ".cache" / "sleuth-bench" / "linux"
QUERIES: list[tuple[str, dict[str, Any]]] = [
    ("sleuth.grep", {"pattern": "PM_RESUME"}),
    ("sleuth.grep", {"pattern": "PM_RESUME", "case": "insensitive"}),
    ("sleuth.grep", {"pattern": "PM_RESUME", "word": True}),
    ("sleuth.grep", {"pattern": "[A-Z]+_RESUME"}),
    ("sleuth.grep", {"pattern": "ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT"}),
    ("sleuth.files", {"query": "mmcore"}),
    ("sleuth.files", {"patterns": ["**/*.rs"]}),
    ("sleuth.text", {"query": "spin_lock_irqsave"}),
    ("sleuth.tools.call", {"name": "forge.Search", "arguments": {"pattern": "PM_RESUME"}}),
]


def rss_mb(pid: int) -> float:
    """Current resident set (VmRSS) of ``pid`` in MB; 0 when it is gone."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def generate(root: Path, files: int) -> Path:
    """A deterministic tree of ``files`` C-like files (kept between runs)."""
    marker = root / f".generated-{files}"
    if marker.exists():
        return root
    rnd = random.Random(20)
    words = ["PM_RESUME", "spin_lock_irqsave", "ERR_SYS", "value", "struct", "return", "static", "int"]
    for i in range(files):
        path = root / f"d{i % 97}" / f"s{i // 97}" / f"f{i}.c"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(" ".join(rnd.choice(words) for _ in range(10)) for _ in range(60)) + "\n")
    marker.write_text("")
    return root


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path)
    parser.add_argument("--generate", type=int, metavar="FILES", help="use a generated tree of FILES files")
    parser.add_argument("--cache", type=Path, help="index store directory (default: a new temporary one)")
    parser.add_argument("--searches", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--cancel", type=float, default=0.3)
    args = parser.parse_args()

    if args.generate:
        corpus = generate(Path(tempfile.gettempdir()) / "sleuth-load-tree", args.generate)
    else:
        corpus = args.corpus or (LINUX if LINUX.is_dir() else generate(Path(tempfile.gettempdir()) / "sleuth-load-tree", 20000))
    cache = args.cache or Path(tempfile.mkdtemp(prefix="sleuth-load-cache-"))
    env = dict(os.environ)
    env.pop("SLEUTH_TEST_COMMANDS", None)
    print(f"corpus {corpus}  cache {cache}  load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (shared)")
    lsp = LspProcess([SLEUTH, "serve"], cwd=str(corpus), env=env,
                     stderr_path=str(cache.parent / "sleuth-load.stderr"))
    uri = corpus.as_uri()
    lsp.request("initialize", {"processId": os.getpid(), "rootUri": uri, "capabilities": vscode_capabilities(),
                               "workspaceFolders": [{"uri": uri, "name": corpus.name}],
                               "initializationOptions": {"cacheDir": str(cache), "rateLimitEnabled": False}}, 60)
    lsp.notify("initialized", {})
    started = time.perf_counter()
    lsp.execute("sleuth.index.build", {"wait": True}, 3600)
    print(f"index ready in {time.perf_counter() - started:.1f} s")

    buffers = [p for p in sorted(corpus.rglob("*.c"))[:4]] or [corpus / "scratch.txt"]
    for i, path in enumerate(buffers):
        lsp.notify("textDocument/didOpen", {"textDocument": {"uri": path.as_uri(), "languageId": "c", "version": 1,
                                                              "text": f"/* PM_RESUME typed {i} */\n"}})

    lock = threading.Lock()
    done = {"searches": 0, "answered": 0, "cancelled": 0, "errors": 0, "lost": 0}
    rss: dict[int, tuple[float, float]] = {}
    status_ms: list[float] = []
    stop = threading.Event()
    checkpoints = sorted({min(100, args.searches), args.searches})

    def sample(count: int) -> None:
        own = rss_mb(lsp.pid)
        rss[count] = (own, own + sum(rss_mb(child) for child in descendants(lsp.pid)))

    def client(seed: int) -> None:
        rnd = random.Random(seed)
        while not stop.is_set():
            with lock:
                if done["searches"] >= args.searches:
                    return
                done["searches"] += 1
            command, arguments = rnd.choice(QUERIES)
            cancel = rnd.random() < args.cancel
            result: dict[str, Any] = {}

            def run() -> None:
                try:
                    lsp.execute(command, arguments, 300)
                    result["ok"] = True
                except RpcError as error:
                    result["error"] = error.code
                except TimeoutError:
                    result["lost"] = True

            if cancel:  # the request's id is needed to cancel it: sent the raw way
                answer = _send_and_cancel(lsp, next(lsp._ids), command, arguments)  # noqa: SLF001
                key = {"ok": "answered", "cancelled": "cancelled", "error": "errors", "lost": "lost"}[answer]
            else:
                run()
                key = "answered" if result.get("ok") else ("lost" if result.get("lost") else "errors")
            with lock:
                done[key] += 1
                finished = done["answered"] + done["cancelled"] + done["errors"] + done["lost"]
            if finished in checkpoints and finished not in rss:
                sample(finished)

    def editor() -> None:
        version = 1
        while not stop.is_set():
            version += 1
            for path in buffers:
                lsp.notify("textDocument/didChange", {"textDocument": {"uri": path.as_uri(), "version": version},
                                                      "contentChanges": [{"text": f"/* PM_RESUME typed {version} */\n"}]})
            stop.wait(0.05)

    def probe() -> None:
        while not stop.is_set():
            response = lsp.execute("sleuth.index.status", {}, 60)
            status_ms.append(response.seconds * 1000)
            stop.wait(0.02)

    threads = [threading.Thread(target=client, args=(seed,), daemon=True) for seed in range(args.threads)]
    helpers = [threading.Thread(target=editor, daemon=True), threading.Thread(target=probe, daemon=True)]
    started = time.perf_counter()
    for thread in helpers + threads:
        thread.start()
    for thread in threads:
        thread.join()
    stop.set()
    for thread in helpers:
        thread.join(60)
    elapsed = time.perf_counter() - started
    lsp.close()

    print(f"{done['searches']} searches in {elapsed:.1f} s by {args.threads} threads, {args.cancel:.0%} cancelled: "
          f"answered {done['answered']}, cancelled {done['cancelled']}, errors {done['errors']}, lost {done['lost']}")
    print(f"sleuth.index.status under load ({len(status_ms)} probes): p50 {statistics.median(status_ms):.1f} ms, "
          f"p95 {percentile(status_ms, 0.95):.1f} ms, max {max(status_ms):.1f} ms  (bar: p95 <= 50 ms)")
    for count in checkpoints:
        if count in rss:
            print(f"RSS after {count} searches: server {rss[count][0]:.0f} MB, with workers {rss[count][1]:.0f} MB")
    if len(checkpoints) == 2 and all(c in rss for c in checkpoints):
        first, last = rss[checkpoints[0]], rss[checkpoints[1]]
        print(f"RSS growth {checkpoints[0]} -> {checkpoints[1]}: server {100 * (last[0] / first[0] - 1):+.1f}%, "
              f"with workers {100 * (last[1] / first[1] - 1):+.1f}%  (bar: within 10%)")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    return 0 if done["lost"] == 0 else 1


def _send_and_cancel(lsp: LspProcess, msg_id: int, command: str, arguments: dict[str, Any]) -> str:
    """Send ``command`` with id ``msg_id``, cancel it at once, wait for its one answer."""
    from lsp_client import _Pending

    pending = _Pending()
    with lsp._lock:  # noqa: SLF001
        lsp._pending[msg_id] = pending  # noqa: SLF001
    lsp._write({"jsonrpc": "2.0", "id": msg_id, "method": "workspace/executeCommand",  # noqa: SLF001
                "params": {"command": command, "arguments": [arguments]}})
    lsp.notify("$/cancelRequest", {"id": msg_id})
    if not pending.event.wait(300):
        return "lost"
    if b'"error"' in pending.body[:300]:
        return "cancelled" if b"-32800" in pending.body else "error"
    return "ok"


if __name__ == "__main__":
    raise SystemExit(main())
