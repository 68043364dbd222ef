"""The garbage collector's settings in a long-running Sleuth process (a server door): one place.

A big search answer is many short-lived container objects that all live until the answer is written:
20,000 lines are 20,000 typed events (:mod:`sleuth.engine.events`), their submatches, then as many
result items. With CPython's default young-generation threshold (700 allocations) a collection
starts every 700 of them, and every tenth walks the older generation where the answer's objects pile
up. Measured in-process on the Linux tree (one thread, CPU, medians of 5, load ~6), for
``\\w{5}\\s+\\w{5}`` capped at 20,000 matches: 254 ms with the default threshold, 169 ms with no
collection at all, 170 ms with a threshold of 7,000; ``EXPORT_SYMBOL_GPL -C2``: 57 / 51 / 53 ms.
Nothing here is cyclic garbage that must go sooner: a larger young generation costs a few hundred
kilobytes at most. :func:`settle` is the other half, after an index load: the catalogue's ~100,000
long-lived objects go to the permanent generation, where no collection walks them.
"""

from __future__ import annotations

import gc

__all__ = ["YOUNG_THRESHOLD", "ONE_SHOT_THRESHOLD", "tune", "settle"]

YOUNG_THRESHOLD = 10_000
"""Allocations between two young collections in a server (CPython's default: 700)."""

ONE_SHOT_THRESHOLD = 20_000
"""The same for a one-shot command (``sleuth grep`` and the others, not ``serve``/``mcp``): what such a
call allocates first lives as long as it does (modules, classes, functions, compiled patterns), and a cold
``sleuth grep`` in a small folder ran 21 young collections that found nothing to free, ~4 ms of its
~65 ms of CPU (issue 30; ``gc.callbacks``, thread CPU time). Cycles are still collected, in larger
batches."""


def tune(threshold: int = YOUNG_THRESHOLD) -> None:
    """Raise the young generation's threshold to ``threshold`` (never lower it); the older generations'
    thresholds stay. Called once a process serves searches (``core.session.Session``) and at the start
    of a one-shot command (``sleuth.cli.main``, with :data:`ONE_SHOT_THRESHOLD`)."""
    young, *older = gc.get_threshold()
    if young and young < threshold:
        gc.set_threshold(threshold, *older)


def settle(collect: bool = True) -> None:
    """Collect once, then move every object alive into the collector's permanent generation.

    The catalogue and its views are ~100,000 container objects that live as long as the store, and
    every search allocates tens of thousands of short-lived ones: without this each collection of
    the older generations walks the whole catalogue again. Measured in-process on the Linux tree,
    30 indexed ``-i PM_RESUME`` searches: the collector's time 153 -> 64 ms. Done after each build or
    load (``unfreeze`` first, so the collection finds a replaced catalogue's cycles; ~25 ms).

    ``collect=False``: only the freeze, for a process's first open of a store, where no catalogue was
    replaced: the collection found no unreachable object there (a restart's open of the Linux tree)
    and cost 17-50 CPU-ms before ``ready``. What it would have found stays until the next settle's
    ``unfreeze`` hands it back to the collector.
    """
    gc.unfreeze()
    if collect:
        gc.collect()
    gc.freeze()
