"""The compiled parts: the index build's n-gram and pair-sort loops and its definition scan, the
searcher's candidate-line and newline loops, and the open's stat of every file (README, "Why these dependencies").

Optional: where they cannot be compiled the install goes on and the numpy and regex paths (the build) or a
second interpreter (the stat) run instead. The stat loop is POSIX (``lstat``): left out on Windows.
``SLEUTH_PURE_WHEEL=1`` leaves them out, so the wheel stays ``py3-none-any``: the VS Code packages carry
one Sleuth wheel for every platform and Python (``vscode-client/scripts/bundle-wheels.mjs`` sets it)."""

import os

from setuptools import Extension, setup

GRAMS = Extension("sleuth.engine.index._grams", ["server/sleuth/engine/index/_grams.c"], extra_compile_args=["-O3"],
                  optional=True)
SCAN = Extension("sleuth.engine.definitions._scan", ["server/sleuth/engine/definitions/_scan.c"],
                 extra_compile_args=["-O3"], optional=True)

LINES = Extension("sleuth.engine._lines", ["server/sleuth/engine/_lines.c"], extra_compile_args=["-O2"],
                  optional=True)
STATS = Extension("sleuth.engine.index._stats", ["server/sleuth/engine/index/_stats.c"], extra_compile_args=["-O2"],
                  optional=True)

setup(ext_modules=[] if os.environ.get("SLEUTH_PURE_WHEEL") else [GRAMS, SCAN, LINES] + ([STATS] if os.name == "posix" else []))
