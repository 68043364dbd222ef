"""A unit's results leave while the unit runs (issue 14 item 3), in final order.

Before, the collector saw a unit's results only when the whole unit was searched (up to 96 files
of a walk, 2,048 of a catalogue scan), so the first partial batch held the whole first unit. Here
the sink cancels the search on its first batch: the batch must hold less than the unit, which is
only possible if the head unit's results were released before it ended.
"""

from __future__ import annotations

import pathlib

import pytest

from sleuth.commands.args import parse_args
from sleuth.commands.context import CommandContext
from sleuth.commands.grep import GREP_ARGS, build_request
from sleuth.engine.cancel import CancelToken
from sleuth.engine.errors import Cancelled
from sleuth.engine.events import GrepEvent
from sleuth.engine.grep import GrepRequest, run_grep
from sleuth.engine.grep.loop import IN_PROCESS_FILES
from sleuth.engine.grep.units import CHUNK_FILES
from sleuth.engine.types import FileEntry
from tests.fixtures import context

PATTERN = r"(\w+\d) .*\1"


@pytest.fixture(autouse=True)
def _pool(pool_as_in_a_server: None) -> None:
    """A tree of ``IN_PROCESS_FILES + 44`` files is searched on the pool here, as in a server."""


def _tree(root: pathlib.Path, files: int) -> CommandContext:
    root.mkdir()
    for n in range(files):
        (root / f"f{n:04}.txt").write_text(f"filler {n}\nkey{n}7 again key{n}7\nmore\n")
    return context(root)


def _request(ctx: CommandContext) -> GrepRequest:
    return build_request(parse_args("sleuth.grep", {"pattern": PATTERN, "max_results": 10_000}, GREP_ARGS,
                                    ctx.settings), ctx)


def _cancel_on_first_batch(ctx: CommandContext, entries: list[FileEntry] | None) -> list[list[GrepEvent]]:
    token = CancelToken()
    batches: list[list[GrepEvent]] = []

    def sink(batch: list[GrepEvent]) -> None:
        batches.append(list(batch))
        token.cancel()

    with pytest.raises(Cancelled):
        run_grep(ctx.workspace, _request(ctx), token, sink=sink, entries=entries)
    return batches


def test_a_small_search_releases_its_unit_file_by_file(tmp_path: pathlib.Path) -> None:
    files = CHUNK_FILES - 6  # one unit, searched in this process
    ctx = _tree(tmp_path / "ws", files)
    batches = _cancel_on_first_batch(ctx, None)
    assert batches and {m.path for m in batches[0]} == {"f0000.txt"}
    assert len({m.path for batch in batches for m in batch}) < files  # the cancel stopped the unit


def test_the_pools_head_unit_streams_before_it_ends(tmp_path: pathlib.Path) -> None:
    files = IN_PROCESS_FILES + 44  # the pool, a walk cut into units of CHUNK_FILES
    ctx = _tree(tmp_path / "ws", files)
    batches = _cancel_on_first_batch(ctx, None)
    assert batches and len({m.path for m in batches[0]}) < CHUNK_FILES
    assert batches[0][0].path == "f0000.txt"


def test_a_list_unit_streams_too(tmp_path: pathlib.Path) -> None:
    files = IN_PROCESS_FILES + 44
    ctx = _tree(tmp_path / "ws", files)
    root = tmp_path / "ws"
    entries = [FileEntry(str(root / f"f{n:04}.txt"), f"f{n:04}.txt", 40, 1.0) for n in range(files)]
    batches = _cancel_on_first_batch(ctx, entries)
    assert batches and len({m.path for m in batches[0]}) < files // 8  # a list unit is 1/8 of the list here


@pytest.mark.parametrize("files", [CHUNK_FILES - 6, IN_PROCESS_FILES + 300])
def test_streamed_batches_are_the_answer_in_final_order_with_progress_to_the_end(tmp_path: pathlib.Path,
                                                                                 files: int) -> None:
    ctx = _tree(tmp_path / "ws", files)
    batches: list[list[GrepEvent]] = []
    progress: list[tuple[int, int | None]] = []
    streamed = run_grep(ctx.workspace, _request(ctx), CancelToken(), lambda done, total, _: progress.append((done, total)),
                        sink=lambda batch: batches.append(list(batch)))
    plain = run_grep(ctx.workspace, _request(ctx), CancelToken())
    assert [m for batch in batches for m in batch] == plain.items == streamed.items
    assert streamed.streamed == len(plain.items) == files and streamed.files_scanned == files
    assert len(batches) > 1
    assert [done for done, _ in progress] == sorted(done for done, _ in progress) and progress[-1][0] == files


def test_a_cancelled_search_streams_nothing_more() -> None:
    """Parts received after the cancel (several of the pool's head unit can wait in one batch) are not
    taken: before, each was still collected and flushed, a batch streamed after the LSP cancel (the
    held-search test of tests/lsp/test_streaming.py failed under load)."""
    from sleuth.engine.cancel import NullProgress
    from sleuth.engine.collect import Collector
    from sleuth.engine.grep.loop import _Gather
    from sleuth.engine.grep.unit_search import Part
    from sleuth.engine.events import Match
    from sleuth.engine.search import FileResult

    def part(path: str) -> Part:
        return Part([FileResult(path, events=[Match(path, 1, "x")], matched_lines=1)], 1)

    token = CancelToken()
    batches: list[list[GrepEvent]] = []
    gather = _Gather(Collector(100, sink=lambda batch: batches.append(list(batch))), NullProgress, None, token)
    assert gather.take(part("a"))
    token.cancel()
    assert not gather.take(part("b"))
    assert [[m.path for m in batch] for batch in batches] == [["a"]]
