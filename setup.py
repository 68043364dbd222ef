"""The one compiled part: the index build's n-gram loop (README, "Why these dependencies"). Optional:
where it cannot be compiled the install goes on and the build takes the numpy path."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("sleuth.engine.index._grams", ["server/sleuth/engine/index/_grams.c"],
                             extra_compile_args=["-O3"], optional=True)])
