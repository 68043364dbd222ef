"""The collector and a store's long-lived objects: collected once, then frozen (:func:`settle_heap`)."""

from __future__ import annotations

import gc

__all__ = ["settle_heap"]


def settle_heap() -> None:
    """Collect once, then move every object alive into the collector's permanent generation.

    The catalogue and its views are ~100,000 container objects that live as long as the store, and
    every search allocates tens of thousands of short-lived ones: without this each collection of
    the older generations walks the whole catalogue again. Measured in-process on the Linux tree,
    30 indexed ``-i PM_RESUME`` searches: the collector's time 153 -> 64 ms. Done after each build or
    load (``unfreeze`` first, so the collection finds a replaced catalogue's cycles; ~25 ms).
    """
    gc.unfreeze()
    gc.collect()
    gc.freeze()
