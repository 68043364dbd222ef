"""Restart after ``kill -9`` in the middle of an update (issue 34): time to ready, and to idle.

Usage::

    python bench/restart_after_kill.py [--files 12000] [--rewrite 1000] [--runs 3] [--dir /tmp/sleuth-kill9]

A tree of ``--files`` small C files is indexed; a process (the real :class:`IndexService`, as the
server runs it) opens the store, appends a line to ``--rewrite`` files, notifies them and is killed
with SIGKILL one second later, while it applies them. A fresh process then opens the same store:
printed are its time to ``ready`` (the catch-up: folder stamps or the full walk, which it says),
what it found pending, and its time until every change is applied. Median of ``--runs``, with the
machine's load; a restart that rebuilt instead would show a new ``last_build``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time

CHILD = r"""
import os, sys, time
from sleuth.engine.index import IndexService
from sleuth.engine.workspace import Workspace
root, cache, role, rewrite = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
began = time.perf_counter()
svc = IndexService(Workspace([root]), cache_dir=cache)
svc.start()
svc.wait_ready()
ready = time.perf_counter() - began
status = svc.status()
if role == "writer":
    paths = []
    for dirpath, _, names in sorted(os.walk(root)):
        paths += [os.path.join(dirpath, n) for n in sorted(names)]
    step = max(1, len(paths) // rewrite)
    chosen = paths[::step][:rewrite]
    for p in chosen:
        with open(p, "a") as f:
            f.write("int changed_while_running;\n")
    svc.notify_changed(chosen)
    print("notified", flush=True)
    time.sleep(3600)
began = time.perf_counter()
svc.wait_idle(3600)
idle = time.perf_counter() - began
print(f"{ready:.3f} {idle:.3f} {status['pending_updates']} {svc.upkeep.caught_up_by} {status['last_build']}", flush=True)
svc.stop()
"""


def make_tree(root: str, files: int) -> None:
    shutil.rmtree(root, ignore_errors=True)
    for i in range(files):
        folder = os.path.join(root, f"d{i % 60}", f"e{i % 7}")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"f{i}.c"), "w") as handle:
            handle.write(f"int func_{i}(void) {{ return {i}; }}\n" * 20)


def child(root: str, cache: str, role: str, rewrite: int) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", CHILD, root, cache, role, str(rewrite)],
                            stdout=subprocess.PIPE, text=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=12000)
    parser.add_argument("--rewrite", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", default="/tmp/sleuth-kill9")
    args = parser.parse_args()
    root, cache = os.path.join(args.dir, "ws"), os.path.join(args.dir, "cache")
    make_tree(root, args.files)
    shutil.rmtree(cache, ignore_errors=True)
    first = child(root, cache, "restart", 0)
    print(f"first build: {first.communicate()[0].strip()}  (load {os.getloadavg()[0]:.1f})", flush=True)
    readies, idles = [], []
    for _ in range(args.runs):
        writer = child(root, cache, "writer", args.rewrite)
        assert writer.stdout is not None
        assert writer.stdout.readline().strip() == "notified"
        time.sleep(1.0)  # the writer is applying the changes now
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        out = child(root, cache, "restart", 0).communicate()[0].split()
        readies.append(float(out[0]))
        idles.append(float(out[1]))
        print(f"restart after kill -9: ready {out[0]} s ({out[3]}, {out[2]} pending), idle {out[1]} s later, "
              f"last build {out[4]}", flush=True)
    print(f"median: ready {statistics.median(readies):.2f} s, then idle {statistics.median(idles):.2f} s "
          f"(load {os.getloadavg()[0]:.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
