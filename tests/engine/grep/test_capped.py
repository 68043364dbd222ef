"""A capped search stops reading once its cap is reached (issue 29), and its answer stays the first
N items in final order.

A unit that alone found more items than ``max_results`` fills the answer whatever came before it, so it
stops there: before, a unit of a catalogue scan (up to 2,048 files) searched every file while the
collector already had its answer. Counted by the unit's own count of files searched, not by a clock.
"""

from __future__ import annotations

import pathlib

import pytest

from sleuth.commands import get_command
from sleuth.commands.args import parse_args
from sleuth.commands.context import CommandContext
from sleuth.commands.grep import GREP_ARGS, build_request
from sleuth.engine.cancel import CancelToken
from sleuth.engine.grep import GrepRequest, run_grep
from sleuth.engine.grep.unit_search import Part, Publisher, UnitToken, search_unit
from sleuth.engine.grep.units import LIST_UNIT_FILES, Unit, units
from sleuth.engine.types import FileEntry
from tests.fixtures import context

FILES = 600
LINES = 3  # matching lines a file


@pytest.fixture(autouse=True)
def _pool(pool_as_in_a_server: None) -> None:
    """Searches of a list run on the pool here, as in a server."""


def _tree(root: pathlib.Path, files: int = FILES) -> tuple[CommandContext, list[FileEntry]]:
    root.mkdir()
    for n in range(files):
        (root / f"f{n:04}.txt").write_text("".join(f"needle {n} {k}\nhay\n" for k in range(LINES)))
    entries = [FileEntry(str(root / f"f{n:04}.txt"), f"f{n:04}.txt", 60, 1.0) for n in range(files)]
    return context(root), entries


def _args(ctx: CommandContext, **args: object) -> GrepRequest:
    return build_request(parse_args("sleuth.grep", {"pattern": "needle", **args}, GREP_ARGS, ctx.settings), ctx)


@pytest.mark.parametrize("output, files_needed", [("content", 10 // LINES + 1), ("files_with_matches", 11)])
def test_a_unit_past_the_cap_stops_reading(tmp_path: pathlib.Path, output: str, files_needed: int) -> None:
    ctx, entries = _tree(tmp_path / "ws")
    unit = Unit("\0".join(e.path for e in entries), "\0".join(e.display for e in entries), len(entries))
    parts: list[Part] = []
    publisher = Publisher(lambda part: parts.append(part) is None)
    last = search_unit(unit, ctx.workspace, _args(ctx, max_results=10, output=output),
                       UnitToken(lambda: False, None, publisher))
    searched = last.scanned + sum(p.scanned for p in parts)
    assert not last.complete
    assert searched == files_needed  # one file past what the cap could take, not the unit's 600


@pytest.mark.parametrize("args", [{"output": "content"}, {"output": "files_with_matches"}, {"output": "count"},
                                  {"context": 1}, {"only_matching": True}, {"invert": True},
                                  {"max_matches_per_file": 2}, {"pattern": "needle|hay", "after": 2}])
def test_capped_answers_are_the_first_items_in_order(tmp_path: pathlib.Path, args: dict[str, object]) -> None:
    ctx, entries = _tree(tmp_path / "ws", 1500)
    whole = run_grep(ctx.workspace, _args(ctx, max_results=20_000, **args), CancelToken(), entries=entries)
    assert not whole.truncated
    for cap in (1, 2, 7, 100, 1000, len(whole.items) - 1):
        capped = run_grep(ctx.workspace, _args(ctx, max_results=cap, **args), CancelToken(), entries=entries)
        assert capped.items == whole.items[:cap]
        assert capped.truncated and capped.truncated_reason == "max_results"
    exact = run_grep(ctx.workspace, _args(ctx, max_results=len(whole.items), **args), CancelToken(),
                     entries=entries)
    assert exact.items == whole.items and not exact.truncated


def test_a_file_makes_no_more_events_than_the_cap_can_take(tmp_path: pathlib.Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "big.txt").write_text("needle\n" * 5000)
    ctx = context(root)
    parts: list[Part] = []
    publisher = Publisher(lambda part: parts.append(part) is None)
    last = search_unit(Unit(str(root / "big.txt"), "big.txt", 1), ctx.workspace, _args(ctx, max_results=10),
                       UnitToken(lambda: False, None, publisher))
    found = [r for part in [*parts, last] for r in part.results]
    assert [len(r.events or ()) for r in found] == [11]  # the file's first 11 matches, not its 5,000


def test_a_list_starts_with_small_units(tmp_path: pathlib.Path) -> None:
    """The first files of a long list go out in small units, so that every worker searches files a
    capped answer needs, not one worker the first 2,048 while the others search past the cap."""
    entries = [FileEntry(f"/x/f{n}", f"f{n}", 10, 1.0) for n in range(50_000)]
    sizes = [unit.count for unit in units(entries, None, CancelToken(), True)]
    assert sizes[:3] == [LIST_UNIT_FILES[0], 2 * LIST_UNIT_FILES[0], 4 * LIST_UNIT_FILES[0]]
    assert max(sizes) == LIST_UNIT_FILES[1] and sum(sizes) == len(entries)


def test_the_command_reports_the_cap(tmp_path: pathlib.Path) -> None:
    ctx, _ = _tree(tmp_path / "ws")
    result = get_command("sleuth.grep")({"pattern": "needle", "max_results": 5}, ctx)
    assert [m["path"] for m in result["matches"]] == ["f0000.txt"] * 3 + ["f0001.txt"] * 2
    assert result["truncated"] and result["files_scanned"] <= 3
