"""LSP latency benchmark: first partial result, cancel-to-response, status while 8 searches run.

Run (not collected by pytest)::

    /work/venv/bin/python tests/lsp/latency_bench.py [--root /root/.cache/sleuth-bench/linux] [--runs 5]

One real server process over stdio (the installed ``sleuth serve``), the VS Code client profile,
the index switched off so the figures are the transport over a plain scan (``--index-cache DIR``
switches it on and builds or loads it first). Prints medians (and min/max) in milliseconds as JSON lines.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import pathlib
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from harness import Session, start_session  # noqa: E402
from pygls.exceptions import JsonRpcException  # noqa: E402

SLOW = r"\w{5}\s+\w{5}\s+\w{5}\s+\w{5}\s+\w{5}"  # linux_no_literal: scans every file


def stats(name: str, values: list[float], **extra: Any) -> None:
    print(json.dumps({"measure": name, "median_ms": round(statistics.median(values), 1),
                      "min_ms": round(min(values), 1), "max_ms": round(max(values), 1), "runs": len(values), **extra}),
          flush=True)


async def first_partial(session: Session, pattern: str, runs: int) -> None:
    firsts: list[float] = []
    totals: list[float] = []
    for i in range(runs):
        token = f"fp-{pattern}-{i}"
        started = time.perf_counter()
        pending = session.send("sleuth/grep", {"pattern": pattern, "partialResultToken": token,
                                               "workDoneToken": token + "-w", "max_results": 10000})
        first = asyncio.ensure_future(session.first_progress(token))
        await asyncio.wait({first, pending}, return_when=asyncio.FIRST_COMPLETED)
        if first.done():
            firsts.append((time.perf_counter() - started) * 1000)
        else:
            first.cancel()
        result = await pending
        totals.append((time.perf_counter() - started) * 1000)
        streamed = sum(len(v["matches"]) for v in session.progress.get(token, []) if "matches" in v)
    if firsts:
        stats("first_partial_result", firsts, pattern=pattern, matches=streamed + len(result["matches"]))
    stats("complete_response", totals, pattern=pattern)


async def cancel_latency(session: Session, runs: int) -> None:
    """Cancel a long scan 100 ms after it began; only answers that were RequestCancelled count."""
    latencies: list[float] = []
    finished_first = still_running = 0
    for i in range(runs):
        msg_id = session.next_id()
        work = f"cancel-{i}-w"
        pending = session.send("sleuth/grep", {"pattern": SLOW, "workDoneToken": work,
                                               "partialResultToken": f"cancel-{i}", "max_results": 10000}, msg_id)
        await session.first_progress(work)
        await asyncio.sleep(0.1)
        started = time.perf_counter()
        session.cancel(msg_id)
        try:
            await pending
            finished_first += 1
            continue
        except JsonRpcException as exc:
            assert exc.code == -32800, exc
        latencies.append((time.perf_counter() - started) * 1000)
        if (await session.workers())["running"]:
            still_running += 1
        await session.until_idle()
    if latencies:
        stats("cancel_to_response", latencies, pattern=SLOW, worker_still_running_after_response=still_running,
              finished_before_cancel=finished_first)


async def status_under_load(session: Session, runs: int, searches: int = 8) -> None:
    async def timed(call: Any) -> float:
        started = time.perf_counter()
        try:
            await call()
        except JsonRpcException:
            pass  # an answered error still measures the round trip
        return (time.perf_counter() - started) * 1000

    idle = [await timed(lambda: session.execute("sleuth.index.status", {})) for _ in range(runs)]
    stats("index_status_idle", idle)
    ids = [session.next_id() for _ in range(searches)]
    pending = [session.send("sleuth/grep", {"pattern": SLOW, "partialResultToken": f"load-{i}",
                                            "max_results": 10000}, msg_id) for i, msg_id in enumerate(ids)]
    while (await session.workers())["running"] < searches:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    busy_status = [await timed(lambda: session.execute("sleuth.index.status", {})) for _ in range(runs)]
    busy_workers = [await timed(lambda: session.workers()) for _ in range(runs)]
    busy_metrics = [await timed(lambda: session.execute("sleuth.metrics", {})) for _ in range(runs)]
    running = (await session.workers())["running"]
    stats("index_status_while_8_searches", busy_status, searches_running=running)
    stats("debug_workers_while_8_searches", busy_workers)
    stats("metrics_while_8_searches", busy_metrics)
    for msg_id in ids:
        session.cancel(msg_id)
    for future in pending:
        try:
            await future
        except JsonRpcException:
            pass
    await session.until_idle()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default="/root/.cache/sleuth-bench/linux")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", choices=["partial", "cancel", "status"], action="append")
    parser.add_argument("--index-cache", help="enable the index with this store directory (built before measuring)")
    args = parser.parse_args()
    only = set(args.only or ["partial", "cancel", "status"])
    root = pathlib.Path(args.root)
    options: dict[str, Any] = {"index": {"enabled": False}}
    if args.index_cache:
        options = {"index": {"enabled": True}, "cacheDir": args.index_cache}
    session = await start_session("vscode", [root], init_options=options)
    try:
        await session.workers()
        if args.index_cache:
            started = time.perf_counter()
            status = await session.execute("sleuth.index.build", {"wait": True})
            print(json.dumps({"measure": "index_ready", "seconds": round(time.perf_counter() - started, 1),
                              "files": status.get("files"), "state": status.get("state")}), flush=True)
        if "partial" in only:
            for pattern in ("[A-Z]+_RESUME", "PM_RESUME"):
                await first_partial(session, pattern, args.runs)
        if "cancel" in only:
            await cancel_latency(session, args.runs * 2)
        if "status" in only:
            await status_under_load(session, args.runs * 2)
    finally:
        await session.client.shutdown_session()
        await session.client.stop()


if __name__ == "__main__":
    asyncio.run(main())
