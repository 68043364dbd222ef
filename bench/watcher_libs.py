"""Which inotify library the server's own watcher uses: watchdog against watchfiles, measured.

Each library runs in a fresh process (so CPU time and inotify watches are its own) on a copy-free
big tree (default: the Linux tree of ``shared/bench/linux-corpus.sh``) and reports:

* start: seconds until every folder is watched, the process's CPU seconds for it, and the number of
  inotify watches it holds (``/proc/self/fdinfo``; ``fs.inotify.max_user_watches`` is the limit);
* idle: CPU seconds per second while nothing changes (watchfiles polls its Rust side every ``step_ms``);
* one file: change-to-event latency p50/p95 over ``--runs`` appends to files spread over the tree;
* many files: seconds from the first of ``--files`` rewrites until each path was reported, and the
  CPU seconds the watcher process spent on them.

Usage::

    python bench/watcher_libs.py [--corpus DIR] [--runs 40] [--files 1000]

The files written are ``.sleuth-watch-bench-*`` files in a scratch folder inside the corpus, removed
at the end (the tree itself is only read).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import threading
import time


def inotify_watches() -> int:
    total = 0
    for fd in os.listdir("/proc/self/fdinfo"):
        try:
            with open(f"/proc/self/fdinfo/{fd}") as handle:
                total += sum(1 for line in handle if line.startswith("inotify wd:"))
        except OSError:
            pass
    return total


def cpu() -> float:
    t = os.times()
    return t.user + t.system


def start_watchdog(root: str, events: "queue.Queue[str]") -> object:
    from watchdog import events as ev
    from watchdog.observers import Observer

    class Handler(ev.FileSystemEventHandler):
        def on_any_event(self, event) -> None:  # noqa: ANN001 - watchdog's event type
            events.put(os.fsdecode(event.dest_path or event.src_path))

    observer = Observer()
    # Without a filter watchdog also asks for IN_OPEN and IN_CLOSE_NOWRITE: every file a search reads is an
    # event, and adding the watches themselves (opening 5,000 folders) overflows the kernel queue.
    wanted = [ev.FileCreatedEvent, ev.DirCreatedEvent, ev.FileModifiedEvent, ev.FileDeletedEvent,
              ev.DirDeletedEvent, ev.FileMovedEvent, ev.DirMovedEvent, ev.FileClosedEvent]
    observer.schedule(Handler(), root, recursive=True, event_filter=wanted)
    observer.start()
    return observer


def start_watchfiles(root: str, events: "queue.Queue[str]") -> object:
    from watchfiles._rust_notify import RustNotify

    notify = RustNotify([root], False, False, 0, True, True)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            found = notify.watch(5, 1, 200, stop)  # the smallest debounce/step: the best latency it can give
            if isinstance(found, set):
                for _, path in found:
                    events.put(path)

    threading.Thread(target=loop, daemon=True).start()
    return stop


def child(lib: str, corpus: str, runs: int, files: int) -> dict[str, object]:
    scratch = os.path.join(corpus, ".sleuth-watch-bench")  # hidden: the index never sees it
    dirs = sorted(d for d, _, _ in os.walk(corpus) if "/.git" not in d)
    total_dirs = len(dirs)
    events: "queue.Queue[str]" = queue.Queue()
    c0, t0 = cpu(), time.perf_counter()
    (start_watchdog if lib == "watchdog" else start_watchfiles)(corpus, events)
    while inotify_watches() < total_dirs:  # watchdog adds its watches on its own thread
        time.sleep(0.005)
    started, start_cpu = time.perf_counter() - t0, cpu() - c0
    c_idle = cpu()
    time.sleep(2.0)
    idle_cpu = (cpu() - c_idle) / 2.0
    os.makedirs(scratch, exist_ok=True)
    picks = [dirs[(i * 7919) % len(dirs)] for i in range(runs)]
    latencies = []
    for i, d in enumerate(picks):
        path = os.path.join(d, f".sleuth-watch-bench-{i}")
        while not events.empty():
            events.get_nowait()
        began = time.perf_counter()
        with open(path, "a") as handle:
            handle.write("x\n")
        while events.get(timeout=10) != path:
            pass
        latencies.append(time.perf_counter() - began)
        os.unlink(path)
        time.sleep(0.02)
    time.sleep(0.3)
    while not events.empty():
        events.get_nowait()
    names = [os.path.join(scratch, f"f{i}.txt") for i in range(files)]
    c1, began = cpu(), time.perf_counter()
    for name in names:
        with open(name, "w") as handle:
            handle.write("rewritten\n")
    wanted = set(names)
    while wanted:
        wanted.discard(events.get(timeout=30))
    many = time.perf_counter() - began
    many_cpu = cpu() - c1
    shutil.rmtree(scratch)
    q = statistics.quantiles(latencies, n=20)
    return {"lib": lib, "dirs": total_dirs, "watches": inotify_watches(), "start_s": round(started, 3),
            "start_cpu_s": round(start_cpu, 3), "idle_cpu_s_per_s": round(idle_cpu, 4),
            "one_file_p50_ms": round(statistics.median(latencies) * 1000, 2),
            "one_file_p95_ms": round(q[18] * 1000, 2), f"{files}_files_s": round(many, 3),
            f"{files}_files_cpu_s": round(many_cpu, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux"))
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.corpus, args.runs, args.files)))
        return
    with open("/proc/sys/fs/inotify/max_user_watches") as handle:
        print(f"fs.inotify.max_user_watches = {handle.read().strip()}")
    for lib in ("watchdog", "watchfiles"):
        out = subprocess.run([sys.executable, __file__, "--child", lib, "--corpus", args.corpus,
                              "--runs", str(args.runs), "--files", str(args.files)],
                             capture_output=True, text=True, check=False)
        print(out.stdout.strip() or out.stderr.strip()[-2000:])


if __name__ == "__main__":
    main()
