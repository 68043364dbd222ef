"""The channel a pool worker's parts come back on holds a whole part (issue 29, the warm CLI).

In a 64 KiB pipe a part of a few hundred lines went in by pieces, its worker woken once per piece
the dispatcher read while the other worker waited on the channel's lock. Where the platform lets a
process size a pipe (Linux), the channel's is 1 MiB; the parts that cross it are the same.
"""

from __future__ import annotations

import pathlib

import pytest

from sleuth.commands import get_command
from sleuth.engine.grep import pool
from tests.conftest import write_tree
from tests.fixtures import context

fcntl = pytest.importorskip("fcntl")


@pytest.mark.skipif(not hasattr(fcntl, "F_GETPIPE_SZ"), reason="only Linux sizes a pipe")
def test_the_parts_channel_holds_a_part_of_many_lines_whole(tmp_path: pathlib.Path, pool_as_in_a_server: None) -> None:
    line = "needle " + "x" * 90 + "\n"
    root = write_tree(tmp_path / "ws", {f"d{n % 7}/f{n:03}.txt": line * 60 for n in range(300)})
    args = {"pattern": "needle", "max_results": 20_000}
    pool.shutdown_pool()  # (this test starts its own, sized as the code now sizes it)
    pooled = get_command("sleuth.grep")(args, context(root))
    assert pool.running()
    with open("/proc/sys/fs/pipe-max-size", encoding="ascii") as limit:
        most = int(limit.read())
    assert fcntl.fcntl(pool._CHANNEL._writer.fileno(), fcntl.F_GETPIPE_SZ) == min(1 << 20, most)
    pool.shutdown_pool()
    here = get_command("sleuth.grep")(args, context(root))  # a one-call process's: in this process
    assert pooled["count"] == here["count"] == 300 * 60
    assert pooled["matches"] == here["matches"]


def test_each_worker_has_the_units_a_search_sends_ahead_queued(tmp_path: pathlib.Path,
                                                                 pool_as_in_a_server: None) -> None:
    """The executor's call queue holds ``QUEUED_UNITS`` units a worker (what a search sends ahead), not one
    beyond the workers: refilled by a thread of the server's that waits for the interpreter lock, it left a
    worker idle between two units; the answer is the same."""
    from concurrent.futures import process

    root = write_tree(tmp_path / "ws", {f"d{n % 7}/f{n:03}.txt": "needle\n" * 3 for n in range(600)})
    args = {"pattern": "needle", "max_results": 20_000}
    extra = process.EXTRA_QUEUED_CALLS
    pool.shutdown_pool()
    pooled = get_command("sleuth.grep")(args, context(root))
    assert pool.running()
    assert pool._POOL is not None and pool._POOL._call_queue._maxsize >= pool.QUEUED_UNITS * pool.workers()  # type: ignore[attr-defined]
    assert process.EXTRA_QUEUED_CALLS == extra  # only the pool's own executor is sized so
    pool.shutdown_pool()
    here = get_command("sleuth.grep")(args, context(root))
    assert pooled["matches"] == here["matches"] and pooled["count"] == 1800
