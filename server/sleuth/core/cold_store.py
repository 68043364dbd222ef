"""The cold CLI's index: a current store of its folders, read without writing, or none (scan).

Light on purpose, as the cold path is (``tests/cli/test_cold_start.py``): a folder without a store
costs a hash and one failed ``open`` here; SQLite loads only when a store exists, numpy and the
index stack only when it is worth opening, and only once the freshness check is forked
(:mod:`sleuth.engine.index.early_check`), so that the two overlap.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from sleuth.commands.config import Settings
    from sleuth.engine.index.config import IndexConfig
    from sleuth.engine.index.early_check import EarlyCheck
    from sleuth.engine.index.service import IndexService
    from sleuth.engine.workspace import Workspace

__all__ = ["current_store", "start_early_check", "import_index_stack", "published_generation", "SMALL_STORE_FILES"]

# A store of fewer files is not opened by a one-shot process: its scan costs less than loading the
# index stack (numpy alone ~130 ms here; a 160-file folder is scanned in ~60 ms, bench/cold_start.py).
SMALL_STORE_FILES = 500

# Read by OpenBLAS (numpy's) when numpy loads it: how many threads its pool starts.
_BLAS_THREADS = ("OPENBLAS_NUM_THREADS",)


def _import_numpy_single_threaded() -> None:
    """Import numpy with its OpenBLAS starting no thread pool: a one-shot call multiplies no matrices, and
    the pool's start was a quarter of numpy's import (0.74x the CPU of a plain ``import numpy``,
    ``farm-bench -n 15``, load ~6). The environment is given back at once, so that nothing this process
    starts later (a ``--pre`` command) sees the setting."""
    import sys

    if "numpy" in sys.modules:
        return
    saved = {key: os.environ.get(key) for key in _BLAS_THREADS}
    os.environ.update(dict.fromkeys(_BLAS_THREADS, "1"))
    try:
        import numpy  # noqa: F401
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def import_index_stack() -> None:
    """numpy (:func:`_import_numpy_single_threaded`) and the index stack, with no collection meanwhile and
    everything alive then frozen (:func:`sleuth.engine.heap.settle`): a one-shot call's modules live as long
    as it does, and their ~20,000 newest objects were walked by a young collection in the middle of numpy's
    import, for nothing (a cold grep on the Linux tree)."""
    import gc

    from sleuth.engine import heap

    enabled = gc.isenabled()
    gc.disable()
    try:
        _import_numpy_single_threaded()
        import sleuth.engine.index.service  # noqa: F401
    finally:
        heap.settle(collect=False)
        if enabled:
            gc.enable()


def current_store(workspace: Workspace, settings: Settings) -> IndexService | None:
    """The index a one-shot process (the cold CLI) may answer from: the published store of exactly
    ``workspace``'s roots, built with the index options ``settings`` (the person's and the folders'
    settings, as a server of these folders reads them) give, opened read-only with every change
    since it was written pending (read from disk: :meth:`IndexService.open_read_only`). None, with
    nothing opened, when the index is disabled, there is no store, it holds fewer than
    :data:`SMALL_STORE_FILES` files, or it cannot be trusted: the caller scans. Never builds or writes.
    Close it with ``stop()``."""
    if not settings.index_enabled or not workspace.roots:
        return None
    gen = published_generation(workspace, settings.index_path, SMALL_STORE_FILES)
    if gen is None:
        return None
    from sleuth.engine.index.early_check import EarlyCheck

    config = settings.index_config()
    early = EarlyCheck(gen, workspace, config.walk_options())  # (before numpy: they overlap)
    import_index_stack()
    from sleuth.engine.index.service import IndexService

    service = IndexService(workspace, config)
    if service.open_read_only(early):
        return service
    service.stop()
    return None


def start_early_check(workspace: Workspace, config: IndexConfig) -> EarlyCheck | None:
    """The freshness check of the published store of ``workspace`` under ``config``, forked now, before
    the caller imports the index stack (:mod:`sleuth.engine.index.early_check`: the two overlap); give it
    to :meth:`IndexService.open_read_only`. None, with nothing started, when there is no store."""
    gen = published_generation(workspace, config.index_path)
    if gen is None:
        return None
    from sleuth.engine.index.early_check import EarlyCheck

    return EarlyCheck(gen, workspace, config.walk_options())


def published_generation(workspace: Workspace, index_path: str | None, min_files: int = 0) -> str | None:
    """The folder of the published store of ``workspace`` (under ``index_path``), or None when there is
    none, it lies inside the workspace, or it catalogues fewer than ``min_files`` files."""
    from sleuth.engine.index.location import StoreInsideWorkspace, catalogue_files, current_name, store_dir

    try:
        base = store_dir([r.path for r in workspace.roots], index_path)
    except StoreInsideWorkspace:
        return None
    name = current_name(base)
    if name is None or not name.startswith("gen-"):
        return None
    gen = os.path.join(base, name)
    return None if min_files and catalogue_files(gen) < min_files else gen
