"""Sleuth's index figures measured over LSP: the real ``sleuth serve`` process on stdio, warm.

Usage (the corpus is ``../shared/bench/linux-corpus.sh``'s tree; CPU is shared, so run it alone)::

    flock /tmp/sleuth-bench.lock python bench/lsp_bench.py [--corpus DIR] [--cache DIR] [--runs 5]
        [--only NAME ...] [--json out.json]

Where ``bench/bench.py`` calls the command layer in its own process, this starts the server the way
an editor does (``python -m sleuth serve``, stdio), says ``initialize`` with the corpus as the one
workspace folder, VS Code's capabilities and ``initializationOptions.cacheDir`` (default: the store
``bench.py`` keeps, so an existing index is reused; a missing one is built first), and measures:

- ``start``: a first server until ``sleuth.index.status`` says ``ready`` (a build if the store is
  missing or stale), then ``shutdown``/``exit``;
- ``restart``: a second server from process start to ``initialize`` answered and to index ready (the
  end of the server's "Sleuth: indexing" work-done progress, confirmed by ``sleuth.index.status``);
- ``grep``: ripgrep's 8 benchsuite queries (``bench/queries.py``) as ``workspace/executeCommand``
  ``sleuth.grep`` round trips (median of ``--runs``), alternating with ``rg -n`` in the same run;
  the answer's match lines must be exactly rg's; the command's own ``elapsed_ms`` shows what the
  transport adds;
- ``change``: a new file written, ``workspace/didChangeWatchedFiles`` sent, ``sleuth.grep`` repeated
  until it finds the file's token;
- ``text`` / ``files``: ``sleuth.text`` and ``sleuth.files`` p50/p95 round trips over the generated
  query sets (Quick-Open MRR@10 as a sanity check that the answers are the in-process ones);
- peak RSS (``VmHWM``) of the server process and of its child processes (search pool, build workers).

Every round trip is timed from writing the request to reading the answer's last byte (the client's
JSON decoding excluded, see ``bench/lsp_client.py``). ``--only`` takes a benchsuite query name or one
of ``grep restart change text files`` (repeatable).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lsp_client import SLEUTH, LspProcess, descendants, peak_rss_mb, vscode_capabilities  # noqa: E402
from queries import BENCHSUITE, definition_queries, quick_open_queries  # noqa: E402

SECTIONS = ("grep", "restart", "change", "text", "files")
PROBE_TOKEN = "sleuth_lsp_probe_token_4243"


def _rg() -> str:
    here = os.path.join(os.path.dirname(sys.executable), "rg")
    return here if os.path.exists(here) else (shutil.which("rg") or "rg")


def rg_lines(corpus: str, flags: list[str], pattern: str) -> tuple[set[tuple[str, int]], float]:
    """``rg -n`` match lines as (display path, line) and its wall time (output captured, not parsed)."""
    started = time.perf_counter()
    out = subprocess.run([_rg(), "-n", "--null", "--no-heading", *flags, "-e", pattern], check=False,
                         cwd=corpus, capture_output=True).stdout
    took = time.perf_counter() - started
    lines = set()
    for raw in out.split(b"\n"):
        path, sep, rest = raw.partition(b"\0")
        if sep:
            lines.add((path.decode("utf-8", "replace"), int(rest.split(b":", 1)[0])))
    return lines, took


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 1)


class Server:
    """One ``sleuth serve`` process, initialized on ``corpus``; peak RSS tracked across its children."""

    def __init__(self, corpus: str, cache: str, stderr_path: str, poll_s: float = 0.05, progress: bool = True,
                 sleuth: str = SLEUTH, settings: dict[str, Any] | None = None) -> None:
        """``sleuth``: the command to start (another checkout's, for a baseline in the same run);
        ``settings``: more ``initializationOptions`` (e.g. ``{"index": {"enabled": False}}``)."""
        self.poll_s = poll_s
        env = dict(os.environ)
        env.pop("SLEUTH_TEST_COMMANDS", None)
        self.lsp = LspProcess([sleuth, "serve"], cwd=corpus, env=env,
                              stderr_path=stderr_path)
        self.children_rss: dict[int, float] = {}
        uri = Path(corpus).as_uri()
        params = {"processId": os.getpid(), "clientInfo": {"name": "Visual Studio Code", "version": "1.95.0"},
                  "rootUri": uri, "rootPath": corpus, "capabilities": vscode_capabilities(progress),
                  "workspaceFolders": [{"uri": uri, "name": os.path.basename(corpus)}],
                  "initializationOptions": {"cacheDir": cache, **(settings or {})}, "trace": "off"}
        self.lsp.request("initialize", params, 60)
        self.initialize_answered = time.perf_counter() - self.lsp.started
        self.lsp.notify("initialized", {})

    def grep(self, args: dict[str, Any]) -> tuple[dict[str, Any], float]:
        response = self.lsp.execute("sleuth.grep", args)
        return response.result, response.seconds

    def status(self) -> dict[str, Any]:
        return self.lsp.execute("sleuth.index.status", {}, 30).result

    def wait(self, *, idle: bool, timeout: float = 600.0) -> dict[str, Any]:
        """Poll the status until the index is ready (``idle``: and nothing pending or rebuilding)."""
        deadline = time.perf_counter() + timeout
        while True:
            status = self.status()
            state = status.get("state")
            settled = not status.get("pending_updates") and not status.get("rebuilding")
            if state in ("ready", "stale") and (not idle or (state == "ready" and settled)):
                return status
            if state in ("error", "disabled") or time.perf_counter() > deadline:
                raise RuntimeError(f"index not ready: {status}")
            time.sleep(self.poll_s)

    def indexing_ended(self, timeout: float = 2.0) -> float | None:
        """When the server's "Sleuth: indexing" work-done progress ended (perf_counter), if it did."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            events = list(self.lsp.progress_times)
            tokens = {t for _, t, v in events if isinstance(v, dict) and v.get("kind") == "begin"
                      and "indexing" in str(v.get("title", ""))}
            ends = [at for at, t, v in events if t in tokens and isinstance(v, dict) and v.get("kind") == "end"]
            if ends:
                return ends[0]
            time.sleep(0.01)
        return None

    def sample_rss(self) -> None:
        for pid in descendants(self.lsp.pid):
            peak = peak_rss_mb(pid)
            if peak is not None:
                self.children_rss[pid] = max(peak, self.children_rss.get(pid, 0.0))

    def close(self) -> None:
        self.lsp.close()


def corpus_paths(corpus: str) -> list[str]:
    """The indexed file set as the generators expect it (display paths, bytewise order): ``rg --files``."""
    out = subprocess.run([_rg(), "--files", "--null"], check=False, cwd=corpus, capture_output=True).stdout
    paths = [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]
    return sorted(paths, key=lambda p: p.encode("utf-8", "surrogateescape"))


def bench_grep(server: Server, corpus: str, names: set[str] | None, runs: int, max_results: int) -> list[dict[str, Any]]:
    rows = []
    for name, flags, pattern in BENCHSUITE:
        if names is not None and name not in names:
            continue
        call = {"pattern": pattern, "max_results": max_results, "max_columns": 0,
                "case": "insensitive" if "-i" in flags else "sensitive", "word": "-w" in flags}
        expected, _ = rg_lines(corpus, flags, pattern)  # warm-up of both, and the full-set comparison
        result, _ = server.grep(call)
        if result.get("truncated"):  # the timed call stops early: compare with an untruncated one
            result, _ = server.grep({**call, "max_results": max(10_000, len(expected) * 2)})
        got = {(m["path"], m["line"]) for m in result["matches"] if m["type"] == "match"}
        rg_times, rt_times, in_server = [], [], []
        for _ in range(runs):  # alternate so both see the same machine load
            rg_times.append(rg_lines(corpus, flags, pattern)[1])
            response = server.lsp.execute("sleuth.grep", call)
            rt_times.append(response.seconds)
            in_server.append(response.result["elapsed_ms"] / 1000)
        rg_s, rt_s, cmd_s = statistics.median(rg_times), statistics.median(rt_times), statistics.median(in_server)
        row = {"name": name, "rg_lines": len(expected), "sleuth_lines": len(got), "same_lines": got == expected,
               "rg_s": round(rg_s, 4), "sleuth_s": round(rt_s, 4), "speedup": round(rg_s / rt_s, 1),
               "command_s": round(cmd_s, 4), "transport_ms": round((rt_s - cmd_s) * 1000, 1),
               "answer_kb": round(response.size / 1024, 1), "decode_ms": round(response.decode_seconds * 1000, 1),
               "files_read": result["files_scanned"]}
        rows.append(row)
        server.sample_rss()
        print(f"  {name:26} lines {len(got):5}/{len(expected):5} same={got == expected!s:5} rg {rg_s * 1000:7.1f} ms"
              f"  sleuth {rt_s * 1000:7.1f} ms (command {cmd_s * 1000:6.1f})  x{row['speedup']:<6}"
              f" answer {row['answer_kb']:7.1f} KB  files read {result['files_scanned']}", flush=True)
    return rows


def bench_change(server: Server, corpus: str) -> dict[str, Any]:
    """File written + didChangeWatchedFiles -> first grep that finds it (repeated every ~5 ms).

    The server has answered one search first, as a server in use has: the first search after a start
    builds the catalogue's result order once (~0.2 s), which is not what a saved change costs."""
    probe = os.path.join(corpus, "sleuth_lsp_bench_probe.c")
    uri = Path(probe).as_uri()
    out: dict[str, Any] = {}
    server.grep({"pattern": PROBE_TOKEN})
    try:
        with open(probe, "w") as handle:
            handle.write(f"int {PROBE_TOKEN};\n")
        started = time.perf_counter()
        server.lsp.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri, "type": 1}]})
        greps = 0
        while time.perf_counter() - started < 10:
            greps += 1
            if server.grep({"pattern": PROBE_TOKEN})[0]["count"]:
                out["change_visible_to_grep_ms"] = ms(time.perf_counter() - started)
                break
            time.sleep(0.005)
        out["change_greps"] = greps
        server.wait(idle=True, timeout=30)
        out["change_indexed_ms"] = ms(time.perf_counter() - started)
    finally:
        os.remove(probe)
        server.lsp.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri, "type": 3}]})
        server.wait(idle=True, timeout=30)
    return out


def bench_text(server: Server, corpus: str, paths: list[str], count: int) -> dict[str, Any]:
    times, in_server = [], []
    for query, _name in definition_queries(corpus, paths, count):
        response = server.lsp.execute("sleuth.text", {"query": query, "max_results": 20, "context_lines": 0})
        times.append(response.seconds)
        if isinstance(response.result.get("elapsed_ms"), (int, float)):
            in_server.append(response.result["elapsed_ms"] / 1000)
    out = {"text_queries": len(times), "text_p50_ms": ms(pct(times, 0.5)), "text_p95_ms": ms(pct(times, 0.95))}
    if in_server:
        out["text_command_p50_ms"] = ms(pct(in_server, 0.5))
    return out


def bench_files(server: Server, paths: list[str], count: int) -> dict[str, Any]:
    times, in_server, reciprocal = [], [], []
    for query, target in quick_open_queries(paths, count):
        response = server.lsp.execute("sleuth.files", {"query": query, "max_results": 10})
        times.append(response.seconds)
        if isinstance(response.result.get("elapsed_ms"), (int, float)):
            in_server.append(response.result["elapsed_ms"] / 1000)
        ranked = [item["path"] for item in response.result["items"]]
        reciprocal.append(next((1.0 / (i + 1) for i, p in enumerate(ranked[:10]) if p == target), 0.0))
    out = {"files_queries": len(times), "files_p50_ms": ms(pct(times, 0.5)), "files_p95_ms": ms(pct(times, 0.95)),
           "quick_open_mrr10": round(statistics.mean(reciprocal), 3)}
    if in_server:
        out["files_command_p50_ms"] = ms(pct(in_server, 0.5))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux"))
    parser.add_argument("--cache", default=os.path.expanduser("~/.cache/sleuth-bench/index"),
                        help="index store directory (initializationOptions.cacheDir); bench.py's by default")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="a benchsuite query name or one of: " + " ".join(SECTIONS) + " (repeatable)")
    parser.add_argument("--max-results", type=int, default=10_000,
                        help="sleuth.grep max_results (bench.py passes the hard cap, 10000)")
    parser.add_argument("--no-progress", action="store_true",
                        help="a client without window.workDoneProgress (no progress per command; restart-to-ready polls)")
    parser.add_argument("--poll-ms", type=float, default=50, help="sleuth.index.status polling interval")
    parser.add_argument("--text-queries", type=int, default=100)
    parser.add_argument("--files-queries", type=int, default=100)
    parser.add_argument("--stderr", default=os.path.join(tempfile.gettempdir(), "sleuth-lsp-bench.stderr"),
                        help="where the server's stderr goes")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    corpus = os.path.realpath(args.corpus)
    query_names = {n for n, _, _ in BENCHSUITE}
    only = set(args.only or [])
    unknown = only - query_names - set(SECTIONS)
    if unknown:
        parser.error(f"--only: unknown {', '.join(sorted(unknown))}")
    sections = set(SECTIONS) if not only else (only & set(SECTIONS)) | ({"grep"} if only & query_names else set())
    names = (only & query_names) or None
    rg_version = subprocess.run([_rg(), "--version"], check=False, capture_output=True, text=True).stdout.split("\n")[0]
    report: dict[str, Any] = {"corpus": corpus, "rg": rg_version, "transport": "stdio", "runs": args.runs}
    print(f"corpus {corpus}  ({rg_version}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f})",
          flush=True)

    # -- a first server: makes sure the store exists and is current, then goes away --------------
    started = time.perf_counter()
    first = Server(corpus, args.cache, args.stderr, args.poll_ms / 1000, not args.no_progress)
    try:
        if not args.no_progress:
            first.indexing_ended(timeout=600)
        status = first.wait(idle=True)
    finally:
        first.close()
    report["first_ready_s"] = round(time.perf_counter() - started, 2)
    report.update(files=status["files"], corpus_bytes=status["bytes"], store_bytes=status["store_bytes"],
                  store_path=status["store_path"], last_build_seconds=status.get("last_build_seconds"))
    print(f"first server ready in {report['first_ready_s']} s  files {status['files']}  corpus "
          f"{status['bytes'] / 1e6:.0f} MB  store {status['store_bytes'] / 1e6:.0f} MB at {status['store_path']}",
          flush=True)

    # -- restart to ready ---------------------------------------------------------------------------
    server = Server(corpus, args.cache, args.stderr, args.poll_ms / 1000, not args.no_progress)
    try:
        # The server ends its "Sleuth: indexing" progress when the index is ready: waiting for that
        # notification costs the server nothing, where polling the status every few ms slows its catch-up.
        ended = server.indexing_ended(timeout=600) if not args.no_progress else None
        server.wait(idle=False)
        confirmed = time.perf_counter()
        report["restart_initialize_answered_s"] = round(server.initialize_answered, 2)
        report["restart_to_ready_s"] = round((ended or confirmed) - server.lsp.started, 2)
        report["restart_status_ready_s"] = round(confirmed - server.lsp.started, 2)
        server.wait(idle=True)
        report["restart_to_idle_s"] = round(time.perf_counter() - server.lsp.started, 2)
        print(f"restart-to-ready {report['restart_to_ready_s']} s (process start -> initialize answered "
              f"{report['restart_initialize_answered_s']} s -> indexing progress ended; status says ready at "
              f"{report['restart_status_ready_s']} s, idle at {report['restart_to_idle_s']} s)", flush=True)

        if "grep" in sections:
            report["benchsuite"] = bench_grep(server, corpus, names, args.runs, args.max_results)
        if "change" in sections:
            report.update(bench_change(server, corpus))
            print(f"change visible to grep {report.get('change_visible_to_grep_ms')} ms "
                  f"({report['change_greps']} greps), indexed {report['change_indexed_ms']} ms", flush=True)
        paths = corpus_paths(corpus) if sections & {"text", "files"} else []
        if "text" in sections:
            report.update(bench_text(server, corpus, paths, args.text_queries))
            print(f"sleuth.text p50 {report['text_p50_ms']} ms p95 {report['text_p95_ms']} ms "
                  f"(command p50 {report.get('text_command_p50_ms')} ms, {report['text_queries']} queries)", flush=True)
        if "files" in sections:
            report.update(bench_files(server, paths, args.files_queries))
            print(f"sleuth.files p50 {report['files_p50_ms']} ms p95 {report['files_p95_ms']} ms "
                  f"(command p50 {report.get('files_command_p50_ms')} ms)  Quick-Open MRR@10 "
                  f"{report['quick_open_mrr10']}", flush=True)
        server.sample_rss()
        report["server_peak_rss_mb"] = round(peak_rss_mb(server.lsp.pid) or 0.0, 1)
        report["children_peak_rss_mb"] = round(max(server.children_rss.values(), default=0.0), 1)
        report["children"] = len(server.children_rss)
        report["server_requests"] = dict(server.lsp.server_requests)
        print(f"peak RSS: server {report['server_peak_rss_mb']} MB, largest of {report['children']} child "
              f"processes {report['children_peak_rss_mb']} MB", flush=True)
    finally:
        server.close()
    report["load_average_end"] = os.getloadavg()[0]
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(report, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
