"""An MCP tool call against the same call over LSP: p50/p95 of N round trips on one tree.

Run (not collected by pytest)::

    .venv/bin/python bench/mcp_vs_lsp.py [--root DIR] [--runs 50] [--pattern PATTERN]

Both servers are real processes over stdio on the same folder with the index on (its store in a
temporary cache, built before timing): ``sleuth serve`` driven by ``bench/lsp_client.py``
(``workspace/executeCommand sleuth.grep``), and ``sleuth mcp`` driven by the official SDK's client
in each protocol era (``tools/call grep``). Each figure is the client-side round trip of one call,
answer read and decoded. The MCP answer also carries its text rendering and paging fields and,
on a 2026-07-28 connection, the roots' input-required round trip.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from lsp_client import SLEUTH, LspProcess, vscode_capabilities  # noqa: E402


def summary(name: str, values: list[float], count: Any) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return (f"{name:<22} p50 {statistics.median(values) * 1000:7.2f} ms   p95 {p95 * 1000:7.2f} ms   "
            f"({len(values)} calls, {count} matches)")


def distinct_calls(args: dict[str, Any], runs: int) -> list[dict[str, Any]]:
    """``runs`` calls that differ in ``max_results`` by one (downwards): an MCP session holds a result for paging
    (``mcp/pages.py``), and a repeated call would time that instead of a search."""
    return [{**args, "max_results": args["max_results"] - i} for i in range(runs)]


def rg_times(root: str, pattern: str, runs: int) -> list[float]:
    """Whole-process wall times of ``rg -n PATTERN`` over the tree (the venv's rg), output read and dropped."""
    rg = shutil.which("rg", path=os.path.dirname(sys.executable)) or "rg"
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([rg, "-n", "-e", pattern], cwd=root, stdout=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - started)
    return times


def lsp_run(root: str, cache: str, args: dict[str, Any], runs: int) -> tuple[list[float], Any]:
    env = {**os.environ, "XDG_CACHE_HOME": cache}
    lsp = LspProcess([SLEUTH, "serve"], cwd=root, env=env)
    uri = pathlib.Path(root).as_uri()
    lsp.request("initialize", {"processId": os.getpid(), "rootUri": uri, "capabilities": vscode_capabilities(False),
                               "workspaceFolders": [{"uri": uri, "name": "ws"}],
                               "initializationOptions": {"cacheDir": cache}}, 60)
    lsp.notify("initialized", {})
    while lsp.execute("sleuth.index.status", {}).result.get("state") != "ready":
        time.sleep(0.2)
    for _ in range(3):
        lsp.execute("sleuth.grep", args)
    times, count = [], None
    for call in distinct_calls(args, runs):
        started = time.perf_counter()
        answer = lsp.execute("sleuth.grep", call)
        count = answer.result["count"]
        times.append(time.perf_counter() - started)
    lsp.close()
    return times, count


async def mcp_run(root: str, cache: str, args: dict[str, Any], runs: int, mode: str) -> tuple[list[float], Any]:
    from mcp import Client, StdioServerParameters
    from mcp_types import ListRootsResult, Root

    async def roots(ctx: Any) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=pathlib.Path(root).as_uri(), name="ws")])

    params = StdioServerParameters(command=SLEUTH, args=["mcp", "--cache-dir", cache,
                                                                 "--log-level", "warning"],
                                   cwd=root, env={**os.environ, "XDG_CACHE_HOME": cache})
    async with Client(params, mode=mode, list_roots_callback=roots, read_timeout_seconds=300) as client:
        await client.call_tool("grep", args)
        for _ in range(600):
            status = await client.call_tool("search_text", {"query": "x", "max_results": 1})
            if not status.is_error:
                break
        for _ in range(2):
            await client.call_tool("grep", args)
        times, count = [], None
        for call in distinct_calls(args, runs):
            started = time.perf_counter()
            result = await client.call_tool("grep", call)
            count = len(result.structured_content["matches"])
            times.append(time.perf_counter() - started)
    return times, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(pathlib.Path(sys.prefix) / "lib"), help="the tree (default: the venv's lib)")
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--pattern", default="def __init__")
    parser.add_argument("--max-results", type=int, default=50)
    parser.add_argument("--cache", help="a cache folder whose store is kept (default: a temporary one, built first)")
    parser.add_argument("--rg", action="store_true", help="also time `rg -n PATTERN` over the tree, --runs times")
    ns = parser.parse_args()
    root = os.path.realpath(ns.root)
    args = {"pattern": ns.pattern, "max_results": ns.max_results}
    files = sum(len(f) for _, _, f in os.walk(root))
    print(f"tree {root} ({files} files), grep {ns.pattern!r} max_results {ns.max_results}")
    with tempfile.TemporaryDirectory() as scratch:
        cache = ns.cache or scratch
        if ns.rg:
            print(summary("rg -n", rg_times(root, ns.pattern, ns.runs), None), flush=True)
        times, count = lsp_run(root, cache, args, ns.runs)
        print(summary("LSP executeCommand", times, count), flush=True)
        for mode in ("legacy", "auto"):
            times, count = asyncio.run(mcp_run(root, cache, args, ns.runs, mode))
            print(summary(f"MCP tools/call ({mode})", times, count), flush=True)


if __name__ == "__main__":
    main()
