"""The one compiled part: the index build's n-gram and pair-sort loops (README, "Why these dependencies").

Optional: where it cannot be compiled the install goes on and the build takes the numpy path.
``SLEUTH_PURE_WHEEL=1`` leaves it out, so the wheel stays ``py3-none-any``: the VS Code packages carry
one Sleuth wheel for every platform and Python (``vscode-client/scripts/bundle-wheels.mjs`` sets it)."""

import os

from setuptools import Extension, setup

GRAMS = Extension("sleuth.engine.index._grams", ["server/sleuth/engine/index/_grams.c"], extra_compile_args=["-O3"],
                  optional=True)

setup(ext_modules=[] if os.environ.get("SLEUTH_PURE_WHEEL") else [GRAMS])
