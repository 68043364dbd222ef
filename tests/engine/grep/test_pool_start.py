"""When a grep starts the worker pool (issue 30 item 1): by the number of files, not the folders' depth.

A walk hands folders two levels down to the pool's workers as subtrees; before, one such folder sent
the whole search to the pool, so a cold ``sleuth grep`` in a small tree paid for starting it. Now the
subtrees are walked here until ``POOL_START_FILES`` files (``IN_PROCESS_FILES`` where a pool runs or a
server's thread searches) have been seen: whatever part was walked here, the results are the ones
the pool or a plain walk gives, in the same order.
"""

from __future__ import annotations

import pathlib
import threading
from typing import Any

import pytest

from sleuth.commands import get_command
from sleuth.engine.grep import loop
from sleuth.engine.grep.pool import shutdown_pool
from tests.conftest import write_tree
from tests.fixtures import context


def _tree(root: pathlib.Path) -> pathlib.Path:
    """60 matching files over 5 levels, with ignore files at several depths and a hidden folder."""
    files: dict[str, str] = {".git/HEAD": "ref: refs/heads/main\n", ".gitignore": "*.log\n",
                             ".hidden/x/y/z.txt": "needle hidden\n"}
    for a in range(3):
        for b in range(2):
            files[f"a{a}/b{b}/.ignore"] = "skip*\n"
            files[f"a{a}/b{b}/skip.txt"] = "needle skipped\n"
            for c in range(2):
                for d in range(5):
                    files[f"a{a}/b{b}/c{c}/d/f{d}.txt"] = f"needle {a}{b}{c}{d}\nother\n"
                    files[f"a{a}/b{b}/c{c}/d/f{d}.log"] = "needle ignored\n"
        files[f"a{a}/top.txt"] = "needle top\n"
    return write_tree(root, files)


def _grep(root: pathlib.Path, **args: Any) -> list[tuple[str, int]]:
    result = get_command("sleuth.grep")({"pattern": "needle", "max_results": 10_000, **args},
                                        context(root))
    assert not result["errors"]
    return [(m["path"], m["line"]) for m in result["matches"] if m["type"] == "match"]


@pytest.fixture
def pooled(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per search that went to the pool."""
    calls: list[int] = []
    real = loop._in_pool

    def spy(*args: Any, **kwargs: Any) -> None:
        calls.append(1)
        real(*args, **kwargs)

    monkeypatch.setattr(loop, "_in_pool", spy)
    return calls


def test_a_small_deep_tree_is_searched_here_on_the_main_thread(tmp_path: pathlib.Path, pooled: list[int]) -> None:
    root = _tree(tmp_path / "ws")
    shutdown_pool()  # (one an earlier test started: with it running, past IN_PROCESS_FILES files go to it)
    found = _grep(root)
    assert len(found) == 3 * 2 * 2 * 5 + 3 and not pooled


@pytest.mark.parametrize("limit", [0, 1, 4, 13, 40, 10_000])
@pytest.mark.parametrize("depth", [None, 2, 3, 4])
def test_every_split_between_here_and_the_pool_gives_the_same_results(tmp_path: pathlib.Path, pooled: list[int],
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      limit: int, depth: int | None) -> None:
    """``limit`` files walked here (10,000: all of it here), the rest as subtrees on the pool; the same
    matches in the same order as a walk in one piece (``--sort modified`` never splits). The units
    walked before the limit are searched here too (their first lines out before the pool starts),
    so the pool starts only when the walk goes on past them."""
    root = _tree(tmp_path / "ws")
    args = {"max_depth": depth} if depth is not None else {}
    for name in ("POOL_START_FILES", "IN_PROCESS_FILES"):  # (the latter once an earlier case started the pool)
        monkeypatch.setattr(loop, name, 10_000)
    whole = _grep(root, **args)
    for name in ("POOL_START_FILES", "IN_PROCESS_FILES"):
        monkeypatch.setattr(loop, name, limit)
    split = _grep(root, **args)
    assert split == whole
    assert sorted(split) == sorted(_grep(root, sort="modified", **args))
    assert not pooled or limit < len(whole)  # every file searched matches: no pool before that many are seen


def test_a_server_thread_takes_the_pool_past_in_process_files(tmp_path: pathlib.Path, pooled: list[int],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A server searches on worker threads and keeps its pool: it hands a search over ``IN_PROCESS_FILES``
    to it (pays its start once), where a one-call process waits for ``POOL_START_FILES``."""
    root = _tree(tmp_path / "ws")
    shutdown_pool()
    monkeypatch.setattr(loop, "IN_PROCESS_FILES", 20)
    here = _grep(root)
    assert not pooled  # the main thread, no pool yet: 63 files are under POOL_START_FILES
    found: list[list[tuple[str, int]]] = []
    worker = threading.Thread(target=lambda: found.append(_grep(root)))
    worker.start()
    worker.join()
    assert pooled and found == [here]


def test_a_one_shot_search_streams_the_files_walked_first_before_it_starts_the_pool(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 30 item 2 (``sleuth grep PAT | head -1``): past ``POOL_START_FILES`` files a one-shot process
    (the main thread, no pool yet) hands the rest of the walk to the pool, but the files it walked up to
    then are searched here first, so their lines are streamed before the pool is even started (before,
    the whole search went to the pool and the first line waited for its start and its first unit)."""
    files = {f"a/f{n:03}.txt": f"needle {n}\n" for n in range(100)}  # plain files first in the walk ...
    files.update({f"z/{b}/c/f{n}.txt": "needle\n" for b in "pqrs" for n in range(30)})  # ... then subtrees
    root = write_tree(tmp_path / "ws", files)
    shutdown_pool()
    monkeypatch.setattr(loop, "POOL_START_FILES", 60)
    streamed: list[int] = []
    at_pool: list[int] = []
    real = loop._in_pool

    def spy(*args: Any, **kwargs: Any) -> None:
        at_pool.append(sum(streamed))
        real(*args, **kwargs)

    monkeypatch.setattr(loop, "_in_pool", spy)
    ctx = context(root)
    ctx.partial = lambda batch: streamed.append(len(batch))
    result = get_command("sleuth.grep")({"pattern": "needle", "max_results": 10_000}, ctx)
    assert not result["errors"] and sum(streamed) + len(result["matches"]) == 220
    assert at_pool and at_pool[0] >= 60  # the pool started, after the first files' lines were out


def test_a_worker_killed_is_replaced_and_the_next_grep_answers(tmp_path: pathlib.Path,
                                                               pool_as_in_a_server: None) -> None:
    """A pool worker that dies (SIGKILL, the out-of-memory killer) broke the executor for good: every
    later grep failed with ``BrokenProcessPool`` until the server restarted. Now the next search gets a
    new pool and the whole answer."""
    import os
    import signal
    import time

    from sleuth.engine.grep import pool
    from tests.conftest import HANG_S

    root = write_tree(tmp_path / "ws", {f"d{n % 9}/f{n:04}.txt": f"needle {n}\nhay\n" for n in range(600)})
    shutdown_pool(wait=True)
    try:
        first = _grep(root)
        assert len(first) == 600 and pool.running()
        executor = pool._pool()
        victim = next(iter(executor._processes))  # (no public list of an executor's workers)
        os.kill(victim, signal.SIGKILL)
        deadline = time.monotonic() + HANG_S
        while not getattr(executor, "_broken", False):  # the executor's thread notices the death: an event
            assert time.monotonic() < deadline, "the executor never saw its worker die"
            time.sleep(0.01)
        assert _grep(root) == first
        assert pool._pool() is not executor
    finally:
        shutdown_pool(wait=True)
