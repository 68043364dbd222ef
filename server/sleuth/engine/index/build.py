"""A full build: walk -> distribute files over one worker process per shard -> catalogue -> publish.

Python threads share one interpreter lock, and indexing is CPU work (trigram extraction and
sorting, the definition regex: about 14 MB/s per core here), so each shard is written by its own worker process
(``python -m sleuth.engine.index.worker``: a plain subprocess, safe in a threaded server).
Files are dealt to the shard with fewer bytes so both finish together. The parent writes the
catalogue as results arrive and reports progress; the workers pause while a person's search runs
(:mod:`.build_pause`); a cancel or a worker error terminates the
workers and deletes the build directory — an unfinished build is never published.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from sleuth.engine.cancel import CancelToken, ProgressSink
from sleuth.engine.errors import Cancelled
from sleuth.engine.index import catalogue_map, store
from sleuth.engine.index.build_pause import PAUSE_FILE, PAUSE_MAX_S, BuildPause
from sleuth.engine.index.catalogue import Catalogue, FileRecord
from sleuth.engine.types import FileEntry
from sleuth.engine.words import plural

__all__ = ["BuildResult", "IndexBuildError", "full_build"]


class IndexBuildError(RuntimeError):
    """A build failed for a reason a person must hear (a worker's error text, e.g. a full disk)."""


@dataclass
class BuildResult:
    gen: str
    files: int
    bytes: int
    seconds: float
    pauses: int = 0  # times a worker waited for a search (:mod:`.build_pause`)


def _deal(entries: Sequence[FileEntry], shards: int) -> list[list[tuple[int, str]]]:
    """Per shard, ``(file_id, path)`` in path order; ids follow ``entries`` order (1-based); bytes balanced."""
    loads = [0] * shards
    per_shard: list[list[tuple[int, str]]] = [[] for _ in range(shards)]
    for i in sorted(range(len(entries)), key=lambda i: -entries[i].size):
        s = min(range(shards), key=loads.__getitem__)
        loads[s] += entries[i].size + 4096
        per_shard[s].append((i + 1, entries[i].path))
    for items in per_shard:
        items.sort()  # path order inside a shard: neighbouring files, warmer directory caches
    return per_shard


def _pump(proc: subprocess.Popen[str], shard: int, outbox: "queue.Queue[tuple[int, Any]]") -> None:
    """Forward a worker's JSON lines to ``outbox``; ``(shard, None)`` marks its end."""
    assert proc.stdout is not None
    for line in proc.stdout:
        try:
            outbox.put((shard, json.loads(line)))
        except ValueError:
            continue
    outbox.put((shard, None))


def full_build(base: str, entries: Sequence[FileEntry], token: CancelToken, progress: ProgressSink,
               max_bytes: int | None, meta: dict[str, str],
               on_worker_start: Callable[[list[int]], None] | None = None,
               before_complete: Callable[[sqlite3.Connection], None] | None = None,
               max_pause_s: float = PAUSE_MAX_S) -> BuildResult:
    """Index ``entries`` (the walk's files, in result order) into a new published generation.
    ``before_complete(catalog)`` adds to the catalogue inside its last transaction (the walk's
    folder stamps: :mod:`.freshness`); ``max_pause_s``: the longest one wait for a search."""
    started = time.monotonic()
    os.makedirs(base, exist_ok=True)
    store.remove_stale_builds(base)
    build = os.path.join(base, f"build-{time.time_ns()}-{os.getpid()}")
    os.makedirs(build)
    outbox: "queue.Queue[tuple[int, Any]]" = queue.Queue()
    procs: list[subprocess.Popen[str]] = []
    pause: BuildPause | None = None
    try:
        open(os.path.join(build, store.READERS), "wb").close()
        pause = BuildPause(build, max_pause_s)  # before the workers: a search running now pauses their first file
        catalog = store.connect(os.path.join(build, "catalog.db"), building=True)
        store.create_catalog(catalog)
        for s, items in enumerate(_deal(entries, store.SHARDS)):
            listing = os.path.join(build, f"files-{s}.txt")
            with open(listing, "w", encoding="utf-8", errors="surrogateescape") as handle:
                handle.writelines(f"{fid}\t{path}\n" for fid, path in items)
            proc = subprocess.Popen(
                [sys.executable, "-m", "sleuth.engine.index.worker", os.path.join(build, f"shard-{s}.db"),
                 listing, str(-1 if max_bytes is None else max_bytes), str(s)],
                stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, encoding="utf-8",
                env=_child_env(),
            )
            procs.append(proc)
            threading.Thread(target=_pump, args=(proc, s, outbox), daemon=True).start()
        if on_worker_start is not None:
            on_worker_start([p.pid for p in procs])
        total = len(entries)
        done = nbytes = finished = pauses = 0
        completed = [False] * store.SHARDS
        catalog.execute("BEGIN")
        progress(0, total, f"indexing {plural(total, 'file')}")
        while finished < store.SHARDS:
            if token.should_stop():
                raise Cancelled("The index build was cancelled.")
            pause.check()
            try:
                shard, message = outbox.get(timeout=0.2)
            except queue.Empty:
                continue
            if message is None:
                finished += 1
                if not completed[shard]:
                    raise IndexBuildError(f"index worker {shard} exited with {procs[shard].wait()} before finishing")
                continue
            if message[0] == "done":
                completed[shard] = True
                continue
            if message[0] in ("paused", "resumed"):
                pauses += message[0] == "paused"
                progress(done, total, "indexing waits for a search" if message[0] == "paused"
                         else f"indexed {done} of {plural(total, 'file')}")
                continue
            if message[0] == "error":  # the worker's own words (e.g. "No space left on device"), not just its status
                raise IndexBuildError(f"index worker {shard} failed: {message[1]}")
            rows = []
            for fid, size, mtime_ns, first_row, offsets, _error, wide, lines, plain in message[1]:
                entry = entries[fid - 1]
                rows.append(Catalogue.row_values(FileRecord(size, mtime_ns, first_row, tuple(offsets), None, bool(wide),
                                                            tuple(lines), bool(plain), id=fid, path=entry.path,
                                                            display=entry.display, shard=shard)))
            catalog.executemany(Catalogue.INSERT, rows)
            done += len(rows)
            nbytes += message[2]
            progress(done, total, f"indexed {done} of {plural(total, 'file')}")
        pause.close()  # (the workers optimize their shards now: nothing left to pause)
        pause = None
        for proc in procs:
            if proc.wait(timeout=60) != 0:
                raise IndexBuildError(f"index worker exited with {proc.returncode}")
        if before_complete is not None:
            before_complete(catalog)
        catalogue_map.write(build, conn=catalog)  # (the mapped copy a process opens in milliseconds)
        store.mark_complete(catalog, built_at=str(time.time()), seconds=f"{time.monotonic() - started:.2f}",
                            **meta)
        catalog.execute("COMMIT")
        catalog.close()
        for s in range(store.SHARDS):
            os.remove(os.path.join(build, f"files-{s}.txt"))
        os.remove(os.path.join(build, PAUSE_FILE))
        gen = store.publish(base, build)
        return BuildResult(gen, total, nbytes, time.monotonic() - started, pauses)
    except BaseException:
        if pause is not None:
            pause.close()
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        shutil.rmtree(build, ignore_errors=True)
        raise


def _child_env() -> dict[str, str]:
    """The worker's environment: ours, with the package importable even from a source checkout."""
    env = dict(os.environ)
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    env["PYTHONPATH"] = package_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env
