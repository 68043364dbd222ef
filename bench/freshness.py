"""Change-to-visible latency without client notifications (issue 14.1), measured over LSP.

Starts the real server (``python -m sleuth serve``, stdio) on a big tree (default: the Linux tree of
``shared/bench/linux-corpus.sh``) as a client with **no** capabilities (no ``didChangeWatchedFiles``,
no registration) and the periodic rescan an hour away, so only the server's own watcher can make a
change visible. Then, in a scratch folder it creates inside the tree (removed at the end):

* one file: append a line with a new token to an indexed file, then poll ``sleuth.grep`` (fixed
  string) until it reports the line; and write a new definition, then poll ``sleuth.text`` until
  it ranks it. Latency = from just before the write to the answer that shows it (so it includes
  one poll round trip at most);
* 1,000 files: rewrite 1,000 indexed files with a new token and poll grep until all 1,000 lines
  are reported; from the first write and from the last (the writing itself takes tens of ms).

Prints p50/p95 per kind and, for scale, ``rg``'s time for one of the same greps in the same run.
The issue's bar: visible to grep and text within 200 ms (p95). Run it alone::

    flock /tmp/sleuth-bench.lock python bench/freshness.py [--corpus DIR] [--cache DIR] [--runs 30] [--batches 5]

The index store goes to ``--cache`` (default ``~/.cache/sleuth-bench/fresh-index``; built on first use).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lsp_client import SLEUTH, LspProcess  # noqa: E402

POLL_S = 0.005


def quantiles(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return f"p50 {statistics.median(ms):7.1f} ms   p95 {p95:7.1f} ms   max {ms[-1]:7.1f} ms   (n={len(ms)})"


class Server:
    def __init__(self, corpus: str, cache: str, stderr_path: str) -> None:
        env = dict(os.environ)
        env.pop("SLEUTH_TEST_COMMANDS", None)
        self.lsp = LspProcess([SLEUTH, "serve"], cwd=corpus, env=env, stderr_path=stderr_path)
        uri = Path(corpus).as_uri()
        self.lsp.request("initialize", {
            "processId": os.getpid(), "rootUri": uri, "capabilities": {},  # a headless client: no watcher
            "initializationOptions": {"cacheDir": cache, "rescanIntervalSeconds": 3600}}, 60)
        self.lsp.notify("initialized", {})

    def execute(self, command: str, args: dict[str, Any]) -> dict[str, Any]:
        return self.lsp.execute(command, args, 120).result

    def settle(self, timeout: float = 1800.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            status = self.execute("sleuth.index.status", {})
            if status.get("state") == "ready" and not status.get("pending_updates") \
                    and (status.get("watcher") or {}).get("state") == "watching":
                return status
            if status.get("state") in ("error", "disabled") or time.monotonic() > deadline:
                raise RuntimeError(f"index not ready: {status}")
            time.sleep(0.2)

    def close(self) -> None:
        try:
            self.lsp.request("shutdown", None, 30)
            self.lsp.notify("exit")
        except Exception:  # noqa: BLE001 - the process is ended below anyway
            pass
        self.lsp.proc.wait(30)


def until_visible(check: Callable[[], bool], began: float, bound: float = 30.0) -> float:
    while not check():
        if time.perf_counter() - began > bound:
            raise RuntimeError(f"not visible after {bound} s")
        time.sleep(POLL_S)
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux"))
    parser.add_argument("--cache", default=os.path.expanduser("~/.cache/sleuth-bench/fresh-index"))
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--files", type=int, default=1000)
    args = parser.parse_args()
    corpus = os.path.realpath(args.corpus)
    scratch = os.path.join(corpus, "sleuth-fresh-bench")
    shutil.rmtree(scratch, ignore_errors=True)
    rg = shutil.which("rg") or os.path.join(os.path.dirname(sys.executable), "rg")
    server = Server(corpus, args.cache, "/tmp/sleuth-freshness-bench.log")
    try:
        began = time.perf_counter()
        status = server.settle()
        print(f"corpus {corpus}: {status['files']} files, ready after {time.perf_counter() - began:.1f} s")
        os.makedirs(scratch)
        one = os.path.join(scratch, "one.c")
        with open(one, "w") as handle:
            handle.write("/* appended to by bench/freshness.py */\n")
        batch = [os.path.join(scratch, f"batch{i:04}.c") for i in range(args.files)]
        for path in batch:
            with open(path, "w") as handle:
                handle.write("int nothing_yet;\n")
        server.settle()  # the scratch files are indexed: what follows are changes of indexed files

        def grep_count(token: str, limit: int = 10) -> int:
            found = server.execute("sleuth.grep", {"pattern": token, "fixed_strings": True, "max_results": limit})
            return sum(1 for m in found["matches"] if m["type"] == "match")

        grep_lat, text_lat = [], []
        for i in range(args.runs):
            token = f"fresh_{uuid.uuid4().hex[:12]}"
            began = time.perf_counter()
            with open(one, "a") as handle:
                handle.write(f"int {token};\n")
            grep_lat.append(until_visible(lambda: grep_count(token) == 1, began))
            name = f"fresh_handler_{uuid.uuid4().hex[:10]}"
            began = time.perf_counter()
            with open(os.path.join(scratch, f"def{i}.c"), "w") as handle:
                handle.write(f"#include <linux/types.h>\n\nstatic int {name}(void)\n{{\n\treturn 0;\n}}\n")
            text_lat.append(until_visible(
                lambda: any(r["path"].endswith(f"def{i}.c") for r in
                            server.execute("sleuth.text", {"query": name, "max_results": 5})["results"]), began))
            time.sleep(0.05)
        many_lat, after_last, writing = [], [], []
        for k in range(args.batches):
            server.settle()
            token = f"branch_{uuid.uuid4().hex[:12]}"
            began = time.perf_counter()
            for path in batch:
                with open(path, "w") as handle:
                    handle.write(f"int {token};\n")
            written = time.perf_counter()
            many_lat.append(until_visible(lambda: grep_count(token, args.files + 10) == args.files, began, 120))
            writing.append(written - began)
            after_last.append(many_lat[-1] - writing[-1])
        t0 = time.perf_counter()
        subprocess.run([rg, "-n", "-F", token, corpus], capture_output=True, check=False)
        rg_s = time.perf_counter() - t0
        print(f"one file, grep:   {quantiles(grep_lat)}")
        print(f"one file, text:   {quantiles(text_lat)}")
        print(f"{args.files} files, grep, from the first write: {quantiles(many_lat)}")
        print(f"{args.files} files, grep, from the last write:  {quantiles(after_last)}")
        print(f"  (writing the {args.files} files took {quantiles(writing)})")
        print(f"rg -n -F (one scan of the tree, same run): {rg_s * 1000:.0f} ms")
    finally:
        server.close()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
