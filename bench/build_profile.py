"""Where an index build's CPU goes (issue 34, "Build at the speed of the disk"), and the store's size.

Usage (the corpus is ``../shared/bench/linux-corpus.sh``'s tree; the machine is shared, so read the
ratios and the load, not a lone time)::

    python bench/build_profile.py [--corpus DIR] [--every 5] [--runs 3] [--no-profile] [--no-build]

The files are every ``--every``-th file of the index's own walk of the corpus, in walk order (5: about
15,600 files, 260 MB of the Linux tree, for quick turns; 1: the whole tree). Two measurements:

- ``profile``: one build worker's body (:func:`sleuth.engine.index.builder.worker_main`, as
  ``python -m sleuth.engine.index.worker`` runs it) over those files in this process, with the CPU
  (``time.process_time``, self time: a stage inside another is not counted twice) of each stage:
  ``read`` (open, fstat, read), ``ngrams`` (a chunk's distinct trigrams and underscore grams),
  ``postings add`` / ``postings encode`` (collecting the pairs; sorting and writing segments),
  ``symbols`` (the definition regex and the C blocks' members), ``sqlite`` (every statement: defs,
  symkeys and symbols rows, the optimizes, the vacuum) and ``other`` (the rest: chunk cutting, the
  batch JSON, the loop). The stages are timed by wrapping the functions the worker calls, not by
  copying its body, so what is timed is what runs.
- ``build``: :func:`sleuth.engine.index.build.full_build` (the worker processes, the catalogue in this
  process) over the same files, ``--runs`` times: wall time, the CPU of this process (the catalogue)
  and of the workers, the store's bytes against the files' bytes; and, in the same run, ``rg -c`` of a
  pattern that never matches over the same files with rg 14.1 and rg 15.2 (reading every byte on both
  cores: the "speed of the disk" the issue names), medians and ratios.
"""

from __future__ import annotations

import argparse
import contextlib
import io
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


class TimedConnection:
    """A connection whose statements count as the ``sqlite`` stage (sqlite3.Connection's methods cannot be patched)."""

    def __init__(self, conn: sqlite3.Connection, stages: Stages) -> None:
        self._conn, self._stages = conn, stages

    def execute(self, *args: Any) -> Any:
        with self._stages.stage("sqlite"):
            return self._conn.execute(*args)

    def executemany(self, *args: Any) -> Any:
        with self._stages.stage("sqlite"):
            return self._conn.executemany(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


# (module or class, attribute, stage): what the worker calls, per stage
PATCHES: list[tuple[Any, str, str]] = [
    (builder, "_read", "read"),
    (builder, "chunk_trigrams", "ngrams"),
    (postings.SegmentWriter, "add", "postings add"),
    (postings.SegmentWriter, "flush", "postings encode"),
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


def build_once(entries: list[FileEntry], base: str) -> dict[str, float]:
    shutil.rmtree(base, ignore_errors=True)
    self0, children0 = cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = full_build(base, entries, CancelToken(), lambda *a: None, None, {})
    wall = time.perf_counter() - started
    return {"wall": wall, "catalogue_cpu": cpu(resource.RUSAGE_SELF) - self0,
            "workers_cpu": cpu(resource.RUSAGE_CHILDREN) - children0,
            "store": float(store.directory_size(result.gen))}


def rg_read(rg: str, paths_file: str) -> tuple[float, float]:
    """Wall and CPU seconds of rg reading every listed file for a pattern found in none (both cores)."""
    before = cpu(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    with open(paths_file, "rb") as handle:
        paths = handle.read().split(b"\0")[:-1]
    subprocess.run([rg, "-c", "-j2", "--no-messages", "-F", NEVER, "--", *paths], stdout=subprocess.DEVNULL,
                   check=False)
    return time.perf_counter() - started, cpu(resource.RUSAGE_CHILDREN) - before


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux"))
    parser.add_argument("--every", type=int, default=5, help="every N-th file of the walk (1: all)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-profile", action="store_true")
    parser.add_argument("--no-build", action="store_true")
    ns = parser.parse_args()
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
            runs: dict[str, list[dict[str, float]]] = {"build": [], **{f"rg {v}": [] for v, b in rgs.items() if b}}
            for _ in range(ns.runs):
                for v, binary in rgs.items():
                    if binary:
                        wall, spent = rg_read(binary, paths_file)
                        runs[f"rg {v}"].append({"wall": wall, "cpu": spent})
                runs["build"].append(build_once(entries, os.path.join(work, "store")))
            med = {k: {f: statistics.median(r[f] for r in rs) for f in rs[0]} for k, rs in runs.items()}
            build = med["build"]
            print(f"\nfull_build, median of {ns.runs} (load {load()}): {build['wall']:.2f} s wall, CPU "
                  f"{build['catalogue_cpu'] + build['workers_cpu']:.1f} s (workers {build['workers_cpu']:.1f}, "
                  f"catalogue {build['catalogue_cpu']:.1f}), {corpus_bytes / 1e6 / build['wall']:.1f} MB/s")
            print(f"  store {build['store'] / 1e6:.1f} MB = {build['store'] / corpus_bytes:.1%} of the files' bytes")
            for name in runs:
                if name.startswith("rg"):
                    r = med[name]
                    print(f"  {name} reading the same files: {r['wall']:.2f} s wall, {r['cpu']:.2f} CPU-s;"
                          f" build / {name}: {build['wall'] / r['wall']:.1f}x wall")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
