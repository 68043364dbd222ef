"""The index's optional compiled loops (``_grams.c``, ``_stats.c``, built by ``setup.py``), or None for each.

Why compiled: ``bench/build_profile.py`` put a quarter of a build worker's CPU in numpy's per-chunk
sort that drops repeated n-grams, and a sixth in sorting each segment's 64-bit pairs. A bitmap and
two counting passes do the same work ~7x and ~6x faster; a copy per run moves the merged segments'
lists (:mod:`.merge`). Optional: where the extension was not
compiled (no compiler at install, a source copy), or ``SLEUTH_FORCE_FALLBACKS=no-compiled-grams``,
the numpy paths run and give the same numbers (``tests/engine/index/test_native.py``). ``_stats.c``
states an opened store's files with the interpreter lock released (:mod:`.stat_pass`; without it, or with
``no-compiled-stats``, a second interpreter does), and the catch-up's folder checks at C's speed
(:mod:`.freshness`: the stamped folders' times, the catalogued files' folders once a run; without it the
same checks run in Python).
"""

from __future__ import annotations

from typing import Callable

from sleuth.engine.platform import compiled_module

__all__ = ["chunk_codes", "sort_pairs", "gather_runs", "stat_changed", "folder_runs", "stat_folders"]

chunk_codes: Callable[[bytes, int, int], bytes] | None = None  # distinct n-gram numbers, first-seen order
sort_pairs: Callable[[memoryview], bool] | None = None  # in-place sort of keys whose rows ascend
gather_runs: Callable[[object, object, object], bytearray] | None = None  # byte runs of a buffer, joined
# (NUL-joined paths, sizes, mtimes, first rows, slack) -> -(i + 1) gone, i + 1 changed; the GIL released (_stats.c)
stat_changed: Callable[[object, object, object, object, int], list[int]] | None = None
# (NUL-joined paths, n) -> [(folder, first position)] per run of paths sharing a folder (_stats.c)
folder_runs: Callable[[object, int], list[tuple[bytes, int]]] | None = None
# (NUL-joined folders, mtimes, ctimes) -> -(i + 1) no longer a folder, i + 1 times moved; the GIL released
stat_folders: Callable[[object, object, object], list[int]] | None = None

_grams = compiled_module("sleuth.engine.index._grams", "no-compiled-grams")
if _grams is not None:
    chunk_codes = _grams.chunk_codes
    sort_pairs = _grams.sort_pairs
    gather_runs = _grams.gather_runs

_stats = compiled_module("sleuth.engine.index._stats", "no-compiled-stats")  # POSIX only
if _stats is not None:
    stat_changed = _stats.stat_changed
    folder_runs = getattr(_stats, "folder_runs", None)  # (an extension built before them: Python's checks)
    stat_folders = getattr(_stats, "stat_folders", None)
