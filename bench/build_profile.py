"""Where an index build's CPU goes (issue 34, "Build at the speed of the disk"), and the store's size.

Usage (the corpus is ``../shared/bench/linux-corpus.sh``'s tree; the machine is shared, so read the
ratios and the load, not a lone time)::

    python bench/build_profile.py [--corpus DIR] [--every 5] [--runs 3] [--no-profile] [--no-build] [--old CHECKOUT]

The files are every ``--every``-th file of the index's own walk of the corpus, in walk order (5: about
15,600 files, 260 MB of the Linux tree, for quick turns; 1: the whole tree). Two measurements:

- ``profile``: one build worker's body (:func:`sleuth.engine.index.builder.worker_main`, as
  ``python -m sleuth.engine.index.worker`` runs it) over those files in this process, with the CPU
  (``time.process_time``, self time: a stage inside another is not counted twice) of each stage:
  ``read`` (open, fstat, read), ``ngrams`` (a chunk's distinct trigrams and underscore grams),
  ``postings add`` / ``postings encode`` / ``postings merge`` (collecting the pairs; sorting and writing
  segments; merging them into one),
  ``symbols`` (the definition scan, compiled or regex, and the C blocks' members, the keys, packing),
  ``sqlite ...`` (each kind of statement: defs, symkeys and symbols rows, segment directories, the
  optimizes, the vacuum) and ``other`` (the rest: chunk cutting, the batch JSON, the loop). The stages are timed by wrapping the functions the worker calls, not by
  copying its body, so what is timed is what runs.
- ``build``: :func:`sleuth.engine.index.build.full_build` (its worker processes, the catalogue in the
  calling process) over the same files in a child process, ``--runs`` times: wall time, CPU (the child
  and its workers), the store's bytes against the files' bytes; with ``--old CHECKOUT``, the same
  build by another checkout's code (``CHECKOUT/server`` first on the path) in turns with this one;
  and, in the same turns, ``rg -c -j2`` of a pattern that never matches over the same files with rg
  14.1 and rg 15.2 (reading every byte on both cores: the "speed of the disk" the issue names).
  Medians, ratios and the load.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Iterator

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from sleuth.engine.cancel import CancelToken  # noqa: E402
from sleuth.engine.index import builder, postings, store, symbols  # noqa: E402
from sleuth.engine.index.build import full_build  # noqa: E402
from sleuth.engine.index.config import IndexConfig  # noqa: E402
from sleuth.engine.types import FileEntry, SkipCounts  # noqa: E402
from sleuth.engine.walk import walk  # noqa: E402
from sleuth.engine.workspace import Target, Workspace  # noqa: E402
from tests.rg_bin import find_rg  # noqa: E402

NEVER = "sleuth_build_profile_never_matches_QZX"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def corpus_files(corpus: str, every: int) -> list[FileEntry]:
    """Every ``every``-th file of the index's walk of ``corpus``, in walk order."""
    workspace = Workspace([corpus])
    targets = [Target(r, r.path, True) for r in workspace.roots]
    found = walk(workspace, targets, IndexConfig().walk_options(), CancelToken(), SkipCounts(), [])
    entries = [e for e in found if isinstance(e, FileEntry)]
    return entries[::every]


class Stages:
    """Self CPU time per stage: a stage entered inside another is subtracted from the outer one."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self._stack: list[list[float]] = []  # per open stage: [start, time spent in inner stages]

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        frame = [time.process_time(), 0.0]
        self._stack.append(frame)
        try:
            yield
        finally:
            self._stack.pop()
            spent = time.process_time() - frame[0]
            self.cpu[name] = self.cpu.get(name, 0.0) + spent - frame[1]
            self.calls[name] = self.calls.get(name, 0) + 1
            if self._stack:
                self._stack[-1][1] += spent

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            with self.stage(name):
                return fn(*args, **kwargs)
        return timed


def _statement(sql: str) -> str:
    """``sqlite`` and the statement's leading words (``INSERT INTO defs``, ``VACUUM``): where the writes go."""
    words = sql.replace("(", " ").split()
    if "'optimize'" in sql:
        return f"sqlite optimize {words[2]}"
    return "sqlite " + " ".join(words[:3] if words[:1] == ["INSERT"] else words[:1])


class TimedConnection:
    """A connection whose statements count as the ``sqlite`` stage (sqlite3.Connection's methods cannot be patched)."""

    def __init__(self, conn: sqlite3.Connection, stages: Stages) -> None:
        self._conn, self._stages = conn, stages

    def execute(self, sql: str, *args: Any) -> Any:
        with self._stages.stage(_statement(sql)):
            return self._conn.execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> Any:
        with self._stages.stage(_statement(sql)):
            return self._conn.executemany(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


# (module or class, attribute, stage): what the worker calls, per stage
PATCHES: list[tuple[Any, str, str]] = [
    (builder, "_read", "read"),
    (builder, "chunk_trigrams", "ngrams"),
    (postings.SegmentWriter, "add", "postings add"),
    (postings.SegmentWriter, "flush", "postings encode"),
    (builder, "merge_segments", "postings merge"),
    (builder, "definitions_and_symbols", "symbols"),
    (symbols, "write", "symbols"),
]


def profile(entries: list[FileEntry], work: str) -> tuple[Stages, float]:
    """One worker's body over ``entries`` in this process, stage by stage; returns the stages and its whole CPU."""
    stages = Stages()
    listing = os.path.join(work, "files.txt")
    with open(listing, "w", encoding="utf-8", errors="surrogateescape") as handle:
        handle.writelines(f"{i + 1}\t{e.path}\n" for i, e in enumerate(entries))
    saved = [(owner, attr, owner.__dict__[attr]) for owner, attr, _ in PATCHES]
    saved_connect = store.connect
    try:
        for owner, attr, name in PATCHES:
            setattr(owner, attr, stages.wrap(name, owner.__dict__[attr]))
        store.connect = lambda *a, **k: TimedConnection(saved_connect(*a, **k), stages)  # type: ignore[assignment]
        out, sys.stdout = sys.stdout, io.StringIO()
        started = time.process_time()
        try:
            code = builder.worker_main([os.path.join(work, "shard-0.db"), listing, "-1", "0"])
        finally:
            whole = time.process_time() - started
            sys.stdout = out
        if code != 0:
            raise RuntimeError(f"worker body exited with {code}")
    finally:
        for owner, attr, fn in saved:
            setattr(owner, attr, fn)
        store.connect = saved_connect  # type: ignore[assignment]
    return stages, whole


def cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def build_child(listing: str, base: str) -> None:
    """``--child``: one full build of the listed files into ``base``, with whatever ``sleuth`` is on the path."""
    with open(listing, "rb") as handle:
        paths = [os.fsdecode(p) for p in handle.read().split(b"\0")[:-1]]
    entries = [FileEntry(p, p, os.path.getsize(p), 0.0) for p in paths]
    gen = full_build(base, entries, CancelToken(), lambda *a: None, None, {}).gen
    print(json.dumps({"store": store.directory_size(gen)}))


def build_once(checkout: str, paths_file: str, base: str) -> dict[str, float]:
    """A full build by ``checkout``'s code (its ``server`` first on the path) in a child process:
    wall time, CPU of the child (the catalogue) and its workers, the store's bytes."""
    shutil.rmtree(base, ignore_errors=True)
    env = dict(os.environ, PYTHONPATH=os.path.join(checkout, "server"))
    before = cpu(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", paths_file, base], env=env,
                          capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    return {"wall": wall, "cpu": cpu(resource.RUSAGE_CHILDREN) - before,
            "store": float(json.loads(done.stdout.strip().splitlines()[-1])["store"])}


def rg_read(rg: str, corpus: str, paths_file: str | None) -> tuple[float, float]:
    """Wall and CPU seconds of rg reading every file for a pattern found in none (both cores): the
    corpus folder itself, or the listed files in batches that fit a command line."""
    before = cpu(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    if paths_file is None:
        batches = [[corpus]]
    else:
        with open(paths_file, "rb") as handle:
            paths = handle.read().split(b"\0")[:-1]
        batches = [paths[i:i + 4000] for i in range(0, len(paths), 4000)]
    for batch in batches:
        subprocess.run([rg, "-c", "-j2", "--no-messages", "-F", NEVER, "--", *batch], stdout=subprocess.DEVNULL,
                       check=False)
    return time.perf_counter() - started, cpu(resource.RUSAGE_CHILDREN) - before


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux"))
    parser.add_argument("--every", type=int, default=5, help="every N-th file of the walk (1: all)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-profile", action="store_true")
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--old", help="another checkout (e.g. a worktree of main) whose build is timed in the same run")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    ns = parser.parse_args()
    if ns.child:
        build_child(*ns.child)
        return 0
    corpus = os.path.realpath(ns.corpus)
    entries = corpus_files(corpus, ns.every)
    corpus_bytes = sum(e.size for e in entries)
    print(f"{len(entries)} files, {corpus_bytes / 1e6:.0f} MB (every {ns.every}. file of {corpus}); load {load()}",
          flush=True)
    work = tempfile.mkdtemp(prefix="sleuth-build-profile-")
    try:
        if not ns.no_profile:
            stages, whole = profile(entries, work)
            stages.cpu["other"] = whole - sum(stages.cpu.values())
            print(f"\none worker's body in this process: {whole:.2f} CPU-s, {corpus_bytes / 1e6 / whole:.1f} MB/CPU-s"
                  f" (load {load()})")
            for name, spent in sorted(stages.cpu.items(), key=lambda kv: -kv[1]):
                print(f"  {name:16} {spent:7.2f} CPU-s {spent / whole:6.1%}  ({stages.calls.get(name, 0)} calls)")
        if not ns.no_build:
            rgs = {v: find_rg(v) for v in ("14.1.0", "15.2.0")}
            paths_file = os.path.join(work, "paths")
            with open(paths_file, "wb") as handle:
                handle.writelines(os.fsencode(e.path) + b"\0" for e in entries)
            here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            builds = {"build": here, **({"old build": os.path.realpath(ns.old)} if ns.old else {})}
            runs: dict[str, list[dict[str, float]]] = {name: [] for name in builds}
            runs.update({f"rg {v}": [] for v, b in rgs.items() if b})
            for _ in range(ns.runs):  # in turns, so each figure meets the same load
                for v, binary in rgs.items():
                    if binary:
                        wall, spent = rg_read(binary, corpus, paths_file if ns.every > 1 else None)
                        runs[f"rg {v}"].append({"wall": wall, "cpu": spent})
                for name, checkout in builds.items():
                    runs[name].append(build_once(checkout, paths_file, os.path.join(work, "store")))
            med = {k: {f: statistics.median(r[f] for r in rs) for f in rs[0]} for k, rs in runs.items()}
            print(f"\nmedians of {ns.runs} runs in turns (load {load()}):")
            for name in builds:
                b = med[name]
                print(f"  {name:10} {b['wall']:6.2f} s wall {b['cpu']:6.1f} CPU-s  {corpus_bytes / 1e6 / b['wall']:5.1f} MB/s"
                      f"  store {b['store'] / 1e6:.1f} MB = {b['store'] / corpus_bytes:.1%} of the files' bytes")
            for name in runs:
                if name.startswith("rg"):
                    r = med[name]
                    ratios = "  ".join(f"{b} / {name} {med[b]['wall'] / r['wall']:.1f}x" for b in builds)
                    print(f"  {name:10} {r['wall']:6.2f} s wall {r['cpu']:6.1f} CPU-s (reading every file for a"
                          f" pattern in none)  {ratios}")
            if ns.old:
                print(f"  old / new: {med['old build']['wall'] / med['build']['wall']:.2f}x wall,"
                      f" {med['old build']['cpu'] / med['build']['cpu']:.2f}x CPU")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
