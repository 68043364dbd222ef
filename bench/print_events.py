#!/usr/bin/env python3
"""The CLI's printing of a big grep result, old (functions over the result's dicts) against new (typed
events through the standard printer sink), in the same run: what a warm call's replay costs.

Usage::

    python bench/print_events.py --old /work/main/server [--items 100000] [--runs 7]

Each side runs in its own process (``PYTHONPATH`` = its ``server/`` folder) over the same items
(match lines with a submatch, a context line every fourth, 40 lines a file), printing into an
in-memory buffer; medians of the printing time alone, and the ratio new/old.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

NEW_SERVER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "server")

_CHILD = r"""
import io, sys, time
n = int(sys.argv[1])
items = []
for i in range(n):
    path = f"drivers/net/file{i // 40:05}.c"
    if i % 4 == 3:
        items.append({"type": "context", "path": path, "line": i % 40 + 1, "text": "\tstatic int x = 0;"})
    else:
        items.append({"type": "match", "path": path, "line": i % 40 + 1, "column": 9, "end_column": 18,
                      "text": "\tif (x & PM_RESUME) return;", "match_text": "PM_RESUME"})
from sleuth.cli.grep_print import PrintOptions
options = PrintOptions(with_path=True, line_number=True, heading=False, context=True)
out = io.StringIO()
sys.stdout = out
start = time.perf_counter()
try:
    from sleuth.cli.grep_sinks import Standard
    from sleuth.engine.events import Decoder
    decoder = Decoder(Standard(options))
    decoder.items(items)
    decoder.end_file()
except ImportError:  # the old code
    from sleuth.cli.grep_print import print_events
    from sleuth.cli.grep_semantics import printable_events
    print_events(list(printable_events(items)), options)
took = time.perf_counter() - start
sys.stdout = sys.__stdout__
print(f"{took:.6f} {len(out.getvalue())}")
"""


def one(src: str, items: int) -> tuple[float, int]:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
    out = subprocess.run([sys.executable, "-c", _CHILD, str(items)], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    return float(out[0]), int(out[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="the old checkout's server/ folder")
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=7)
    ns = parser.parse_args()
    old_times, new_times, sizes = [], [], set()
    for _ in range(ns.runs):
        took, size = one(ns.old, ns.items)
        old_times.append(took)
        sizes.add(size)
        took, size = one(NEW_SERVER, ns.items)
        new_times.append(took)
        sizes.add(size)
    old, new = statistics.median(old_times), statistics.median(new_times)
    print(f"{ns.items} items, {ns.runs} runs alternating, load {os.getloadavg()[0]:.2f}; printing time, medians: "
          f"old {old:.3f} s, new {new:.3f} s, new/old {new / old:.2f}; same output size: {len(sizes) == 1}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
