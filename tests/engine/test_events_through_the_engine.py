"""Typed events through the engine (issue 32, 1): the searcher and the collector make
:mod:`sleuth.engine.events` objects, the commands layer writes them as the result object's items in one
place, and no module below the doors reads an item's ``"type"`` key."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, Mapping

import sleuth
from sleuth.commands.context import CommandContext
from sleuth.commands.grep import GREP_ARGS, build_request, run
from sleuth.commands.args import parse_args
from sleuth.engine.cancel import CancelToken
from sleuth.engine.events import Context, End, GrepEvent, Match, from_item, to_item, to_items
from sleuth.engine.grep import run_grep
from sleuth.engine.match import compile_matcher
from sleuth.engine.search import search_data
from sleuth.engine.types import MatchOptions, SearchOptions
from tests.fixtures import context

PACKAGE = Path(sleuth.__file__).parent
# Who may read a "type" key: the events module (the wire form's one reader and writer), and the rg
# backend reading rg's own --json messages.
READERS = {"engine/events.py": None, "commands/profiles/_external.py": 'msg.get("type")'}
TYPE_READ = re.compile(r"""\[\s*["']type["']\s*\]|\.get\(\s*["']type["']""")


def _search(data: bytes, pattern: str, **opts: Any) -> list:
    matcher = compile_matcher(MatchOptions(patterns=(pattern,), case="sensitive"))
    return search_data(data, "f", matcher, SearchOptions(**opts)).events


def test_the_searcher_makes_typed_events() -> None:
    lines = b"a\nhit one\r\nb\nhit\x00two\n"
    for opts in ({}, {"before": 1, "after": 1}, {"only_matching": True}, {"invert": True},
                 {"replace": None, "max_columns": 3}, {"binary": "convert", "byte_offsets": True, "after": 1}):
        found = _search(lines, "hit", **{"binary": "text", **opts})
        assert found and all(type(e) in (Match, Context) for e in found), opts
    [first, *_] = _search(lines, "hit", binary="convert", byte_offsets=True)
    assert (first.line, first.cr, first.offset, first.binary_offset) == (2, True, 2, 16)


def test_a_context_line_keeps_its_binary_after_on_the_wire() -> None:
    [*_, last] = _search(b"hit\nafter\n" + b"x" * 70000 + b"\x00\n", "hit", binary="convert", after=1)
    assert isinstance(last, Context) and last.binary_after == 70010
    assert to_item(last)["binary_after"] == 70010 and from_item(to_item(last)) == last


def _ctx(make_tree: Callable[[Mapping[str, str | bytes]], Path]) -> CommandContext:
    root = make_tree({"a.txt": "x\nneedle 1\ny\n", "b.txt": "needle 2\nneedle 3\n", "c.txt": "nothing\n"})
    return context(str(root))


def test_the_engine_streams_events_and_the_command_streams_their_items(make_tree) -> None:
    ctx = _ctx(make_tree)
    events: list[GrepEvent] = []
    for output in ("content", "files_with_matches", "count"):
        args = parse_args("sleuth.grep", {"pattern": "needle", "output": output, "context": 1}, GREP_ARGS, ctx.settings)
        events.clear()
        outcome = run_grep(ctx.workspace, build_request(args, ctx), CancelToken(), sink=events.extend)
        assert events == outcome.items and all(isinstance(e, (Match, Context, End)) for e in events)
        batches: list[list[dict[str, Any]]] = []
        ctx.partial = batches.append
        result = run({"pattern": "needle", "output": output, "context": 1}, ctx)
        ctx.partial = None
        assert [item for batch in batches for item in batch] == to_items(events, output)
        assert result["matches"] == []  # everything went to the stream
    assert to_items(events, "count") == [{"type": "count", "path": "a.txt", "count": 1},
                                         {"type": "count", "path": "b.txt", "count": 2}]


def test_the_output_budget_counts_the_match_events_it_kept(make_tree) -> None:
    ctx = _ctx(make_tree)
    whole = run({"pattern": "needle", "context": 1}, ctx)
    cut = run({"pattern": "needle", "context": 1, "max_output_bytes": 560}, ctx)
    assert cut["truncated_reason"] == "max_output_bytes" and 0 < len(cut["matches"]) < len(whole["matches"])
    assert cut["matches"] == whole["matches"][:len(cut["matches"])]
    assert cut["count"] == sum(1 for item in cut["matches"] if item["type"] == "match") < whole["count"]


def test_nothing_below_the_doors_reads_an_items_type_key() -> None:
    found = []
    for path in sorted([*PACKAGE.glob("engine/**/*.py"), *PACKAGE.glob("commands/*.py"),
                        PACKAGE / "commands/profiles/_external.py", PACKAGE / "commands/profiles/_ugrep.py"]):
        name = path.relative_to(PACKAGE).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if TYPE_READ.search(line) and name not in READERS or (
                    name in READERS and READERS[name] is not None and TYPE_READ.search(line)
                    and READERS[name] not in line):
                found.append(f"{name}:{number}: {line.strip()}")
    assert found == []


def test_a_files_events_cross_a_process_as_rows_and_come_back_equal() -> None:
    import pickle

    from sleuth.engine.events import from_rows, to_rows

    matcher = compile_matcher(MatchOptions(patterns=("hit",), case="sensitive"))
    data = b"a\nhit hit\r\nb\nc\nhit\n" + b"x" * 70000 + b"\x00\n"
    for opts in ({"before": 1, "after": 1}, {"binary": "convert", "byte_offsets": True}, {"only_matching": True},
                 {"replace": None}):
        result = search_data(data, "f", matcher, SearchOptions(**opts))
        assert result.events and pickle.loads(pickle.dumps(result)) == result, opts
        rows = to_rows(result.events)
        assert all(type(row) is tuple for row in rows) and from_rows(rows) == result.events
    plain = search_data(b"hit\n", "f", matcher, SearchOptions()).events
    assert to_rows(plain) == [("f", 1, "hit", 1, 4, "hit")]  # a plain match: no optional fields
