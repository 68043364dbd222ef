#!/usr/bin/env python3
"""``follow`` on the Linux tree with a few hundred links: the path rule's cost (issue 23's bar: within 10%).

The corpus is hard-linked (``cp -al``: no data copied, the shared corpus untouched) into ``--work``,
and ``--links`` symbolic links are added with a fixed seed: folder and file links to random places
in the tree (so the followed tree is bigger than the plain one), a few to an ancestor (loops) and
a few out of the tree (refused). Then, alternating, in fresh processes, medians of ``--runs``:

* ``sleuth files -L`` and ``sleuth grep -L PM_RESUME`` with the old code (``--old``: a source tree
  with a ``sleuth`` package, e.g. ``git archive <rev> server | tar -x -C /tmp/old``) and the new;
* ``rg -L -n PM_RESUME`` as the yardstick;
* ``sleuth.grep`` with ``follow`` on the ``rg`` backend, old (rg walks with ``-L``) and new (Sleuth's
  walk lists the files, rg searches them in batches), through a small driver.

Usage::

    python bench/follow_links.py --old /tmp/old/server [--corpus DIR] [--links 300] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
NEW = os.path.join(os.path.dirname(HERE), "server")
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

DRIVER = """
import sys
from sleuth.commands.config import Settings
from sleuth.commands.context import CommandContext
from sleuth.commands.profiles.backends import run_grep
from sleuth.engine.workspace import Workspace
ctx = CommandContext(Workspace([sys.argv[1]]), settings=Settings(backend="rg", rate_limit_enabled=False,
                     max_results=100000, timeout_ms=300000, max_timeout_ms=300000))
r = run_grep({"pattern": "PM_RESUME", "follow": True, "max_results": 100000, "timeout_ms": 300000}, ctx)
print(r["count"], r["files_scanned"], len(r["errors"]))
"""


def prepare(corpus: str, work: str, links: int) -> str:
    tree = os.path.join(work, "linux")
    marker = os.path.join(work, f".links-{links}")
    if os.path.exists(marker):
        return tree
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    subprocess.run(["cp", "-al", corpus, tree], check=True)
    rng = random.Random(23)
    dirs: list[str] = []
    files: list[str] = []
    for base, subdirs, names in os.walk(tree):
        subdirs[:] = [d for d in subdirs if d != ".git"]
        dirs.append(base)
        files.extend(os.path.join(base, n) for n in names[:3])
    made = 0
    for i in range(links):
        home = rng.choice(dirs)
        kind = i % 20
        if kind == 0:
            dest = os.path.dirname(home) or tree  # an ancestor: a loop, skipped with an error
        elif kind == 1:
            dest = "/usr/include"  # outside the workspace: refused
        elif kind < 8:
            dest = rng.choice(files)
        else:
            dest = rng.choice(dirs[1:])
        link = os.path.join(home, f"zz_link_{i}")
        try:
            os.symlink(os.path.relpath(dest, home) if dest.startswith(tree) else dest, link)
            made += 1
        except OSError:
            pass
    open(marker, "w").close()
    print(f"{made} links added under {tree}")
    return tree


def timed(cmd: list[str], cwd: str, pythonpath: str | None = None) -> tuple[float, bytes]:
    env = dict(_ENV)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start, proc.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux"))
    parser.add_argument("--work", default="/tmp/sleuth-follow-bench")
    parser.add_argument("--old", required=True, help="source folder holding the old 'sleuth' package")
    parser.add_argument("--links", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    ns = parser.parse_args()
    tree = prepare(ns.corpus, ns.work, ns.links)
    rg = shutil.which("rg") or os.path.join(os.path.dirname(sys.executable), "rg")
    py = sys.executable
    cases = {
        "files -L": ([py, "-m", "sleuth", "files", "-L", "--json"], True),
        "grep -L PM_RESUME": ([py, "-m", "sleuth", "grep", "-L", "--result-json", "PM_RESUME"], True),
        "rg backend, follow": ([py, "-c", DRIVER, tree], True),
    }
    rg_cmd = [rg, "-L", "-n", "--no-heading", "PM_RESUME"]
    print(f"corpus {tree} ({ns.links} links); {ns.runs} runs each, alternating; whole-process wall time, medians")
    print(f"{'case':22} {'old s':>8} {'new s':>8} {'new/old':>8} {'rg -L s':>8} {'new/rg':>7}")
    timed(rg_cmd, tree)
    for name, (cmd, _) in cases.items():
        timed(cmd, tree, ns.old)  # warm-up
        timed(cmd, tree, NEW)
        old_t, new_t, rg_t = [], [], []
        for _ in range(ns.runs):
            old_t.append(timed(cmd, tree, ns.old)[0])
            new_t.append(timed(cmd, tree, NEW)[0])
            rg_t.append(timed(rg_cmd, tree)[0])
        o, n, r = statistics.median(old_t), statistics.median(new_t), statistics.median(rg_t)
        print(f"{name:22} {o:8.3f} {n:8.3f} {n / o:8.2f} {r:8.3f} {n / r:7.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
