"""Typed grep events (:mod:`sleuth.engine.events`): the result object's items decoded into events
with each file's begin and end, and written back as the same items."""

from __future__ import annotations

from typing import Any

from sleuth.engine.events import Begin, Context, Decoder, End, Event, Match, Submatch, Summary, from_item, to_item

MATCH = {"type": "match", "path": "a.py", "line": 2, "column": 1, "end_column": 4, "text": "foo foo",
         "match_text": "foo", "submatches": [{"column": 1, "end_column": 4, "match_text": "foo"},
                                             {"column": 5, "end_column": 8, "match_text": "foo"}]}
CONTEXT = {"type": "context", "path": "a.py", "line": 3, "text": "bar", "cr": True}
BINARY = {"type": "match", "path": "b.bin", "line": 1, "column": 1, "end_column": 2, "text": "x", "match_text": "x",
          "replacement": "y", "offset": 0, "bytes_searched": 9, "binary_offset": 4, "binary_stopped": True}
REPLACED = {**MATCH, "replacement": "X X", "match_replacements": ["X", "X"]}  # -r: rg 15's --json shows each


class Recorder:
    def __init__(self, stop_at: int | None = None) -> None:
        self.events: list[Event] = []
        self.stop_at = stop_at

    def event(self, event: Event) -> bool:
        self.events.append(event)
        return self.stop_at is None or len(self.events) < self.stop_at

    def finish(self, summary: Summary) -> None:
        self.events.append(summary)


def test_items_round_trip_through_their_events() -> None:
    for item in (MATCH, CONTEXT, BINARY, REPLACED, {**MATCH, "submatches": None, "score": 0.5}):
        expected: dict[str, Any] = {k: v for k, v in item.items() if v is not None}
        assert to_item(from_item(item)) == expected
    assert from_item(MATCH).submatches == [Submatch(1, 4, "foo"), Submatch(5, 8, "foo")]
    assert from_item(MATCH).spans() == [(0, 3), (4, 7)] and from_item(MATCH).match_count() == 2
    assert from_item(REPLACED).match_replacements == ["X", "X"]


def test_whole_file_items_are_ends() -> None:
    assert to_item(End("a", 3, True), "count") == {"type": "count", "path": "a", "count": 3}
    assert to_item(End("a", None, True), "files_with_matches") == {"type": "file", "path": "a"}


def test_the_decoder_frames_each_file_across_batches() -> None:
    sink = Recorder()
    decoder = Decoder(sink, display=lambda p: "./" + p)
    decoder.items([MATCH])
    decoder.items([CONTEXT, BINARY])  # a file may go on in the next batch
    decoder.end_file()
    kinds = [(type(e).__name__, getattr(e, "path", None)) for e in sink.events]
    assert kinds == [("Begin", "./a.py"), ("Match", "./a.py"), ("Context", "./a.py"), ("End", "./a.py"),
                     ("Begin", "./b.bin"), ("Match", "./b.bin"), ("End", "./b.bin")]
    assert sink.events[3] == End("./a.py", None, True)


def test_count_and_file_items_become_begin_and_end() -> None:
    sink = Recorder()
    decoder = Decoder(sink)
    decoder.items([{"type": "count", "path": "a", "count": 2}, {"type": "file", "path": "b"}])
    decoder.end_file()  # nothing open: nothing more
    assert sink.events == [Begin("a"), End("a", 2, True), Begin("b"), End("b", None, True)]


def test_a_sink_that_wants_no_more_stops_the_decoder() -> None:
    sink = Recorder(stop_at=2)
    decoder = Decoder(sink)
    assert decoder.items([MATCH, CONTEXT]) is False and decoder.stopped
    assert decoder.items([BINARY]) is False and decoder.end_file() is False
    assert [type(e) for e in sink.events] == [Begin, Match]


def test_an_inverted_line_has_one_empty_span() -> None:
    line = Match("a", 1, "no match here")  # -v: column 1, end 1, no match text
    assert line.spans() == [(0, 0)] and line.match_count() == 1
    assert isinstance(from_item({"type": "context", "path": "a", "line": 1, "text": ""}), Context)
