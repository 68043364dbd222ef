"""Typed grep events and the :class:`Sink` they are pushed to (ripgrep's ``Sink``: ``begin``,
``matched``, ``context``, ``finish``), so that each output format is a sink and streams as the search goes.

The engine's searcher makes :class:`Match` and :class:`Context` events (:mod:`sleuth.engine.search`),
its collector adds an :class:`End` per file for ``output`` ``files_with_matches``/``count``
(:mod:`sleuth.engine.collect`), and the commands layer hands them on: nothing below the doors reads
a ``"type"`` key. Their wire form is the ``sleuth.grep`` result object's items (docs/SPEC.md §4
``matches``: one dict per match or context line, or per file), what the LSP and MCP doors send and
a running server answers the warm CLI with. :func:`to_item` is the one place that writes an event
as an item (:func:`to_items` a batch), :func:`from_item` the one place that reads one back, and
:class:`Decoder` turns items, batch after batch, into events with the file boundaries made explicit
(:class:`Begin` before a file's first line, :class:`End` after its last) for a sink. A printer then
reads attributes, never a ``"type"`` key.

Slotted :class:`~sleuth.engine.values.Record` classes (slotted dataclasses before: six of them cost
a cold ``sleuth grep`` ~3 ms to build at import, and ``dataclasses`` itself pulls in ``inspect``),
an item without optional keys built directly: replaying 100,000 items through
the standard printer takes what the old printer over the dicts took (``bench/print_events.py``:
new/old 1.00, medians of 9, same run).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from operator import attrgetter

from sleuth.engine.values import Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import Any, Protocol
else:
    from sleuth.engine.plain_typing import Protocol

__all__ = ["Begin", "Submatch", "Match", "Context", "End", "Summary", "Event", "LineEvent", "GrepEvent", "Sink",
           "Decoder", "to_item", "to_items", "from_item", "to_rows", "from_rows", "to_wire"]


class Begin(Record):
    """A file's first event: ``path`` as it is displayed."""

    __slots__ = ("path",)

    def __init__(self, path: str) -> None:
        self.path = path


class Submatch(Record):
    """One match in a line: 1-based byte columns (``end_column`` exclusive) and its text."""

    __slots__ = ("column", "end_column", "match_text")

    def __init__(self, column: int, end_column: int, match_text: str) -> None:
        self.column = column
        self.end_column = end_column
        self.match_text = match_text


class Match(Record):
    """A matching line (with ``-o`` one match). ``column``/``end_column``/``match_text``: the first
    match; ``submatches``: every match when there are several; ``replacement``: the line (or match)
    replaced (``-r``), ``match_replacements``: each match replaced, in order (rg 15's ``--json``); ``cr``: the line ended in CRLF; ``offset``/``bytes_searched``: rg's byte counts
    (``byte_offsets``); ``binary_*``: where a binary file's NUL is (see :mod:`sleuth.engine.search`).

    A match over several lines (``multiline``) is one event per line, its span clipped to each line, so
    that a line-based client (an editor, a model) sees every line it covers. Two marks say where a
    match was clipped, for the printers that show a match once (rg's ``--vimgrep``, ``--json``,
    ``--count-matches``): ``continued``, the line's first span is the rest of a match begun on an
    earlier line (it is not a match of its own); ``runs_over``, its last span goes on past the line's
    end (over its terminator at least); ``joined``, rg's multi-line search holds the line in one block
    with the match line before it (it continues a match, or only follows one). ``unterminated`` (with
    ``byte_offsets``): the file's last line, with no line terminator after it (rg's printer ends it
    with ``\\r\\n`` under ``--crlf``, its JSON with nothing)."""

    __slots__ = ("path", "line", "text", "column", "end_column", "match_text", "submatches", "score", "replacement",
                 "cr", "offset", "bytes_searched", "binary_offset", "binary_stopped", "binary_after",
                 "match_replacements", "continued", "runs_over", "unterminated", "joined")

    def __init__(self, path: str, line: int, text: str, column: int = 1, end_column: int = 1, match_text: str = "",
                 submatches: list[Submatch] | None = None, score: float | None = None,
                 replacement: str | None = None, cr: bool = False, offset: int | None = None,
                 bytes_searched: int | None = None, binary_offset: int | None = None, binary_stopped: bool = False,
                 binary_after: int | None = None, match_replacements: list[str] | None = None,
                 continued: bool = False, runs_over: bool = False, unterminated: bool = False,
                 joined: bool = False) -> None:
        self.path = path
        self.line = line
        self.text = text
        self.column = column
        self.end_column = end_column
        self.match_text = match_text
        self.submatches = submatches
        self.score = score
        self.replacement = replacement
        self.cr = cr
        self.offset = offset
        self.bytes_searched = bytes_searched
        self.binary_offset = binary_offset
        self.binary_stopped = binary_stopped
        self.binary_after = binary_after
        self.match_replacements = match_replacements
        self.continued = continued
        self.runs_over = runs_over
        self.unterminated = unterminated
        self.joined = joined

    def spans(self) -> list[tuple[int, int]]:
        """0-based byte spans of the matches in the line (an inverted match's line: one empty span at 0)."""
        subs = self.submatches
        if subs:
            return [(s.column - 1, s.end_column - 1) for s in subs]
        return [(self.column - 1, self.end_column - 1)]

    def match_count(self) -> int:
        """How many matches rg counts for this event (``--count-matches``, ``--stats``): a match
        continued from the line before was counted there."""
        return (len(self.submatches) if self.submatches else 1) - self.continued


class Context(Record):
    """A context line (``-A``/``-B``/``-C``, ``--passthru``). ``binary_after``: an after-context line
    can be a file's last event."""

    __slots__ = ("path", "line", "text", "cr", "offset", "bytes_searched", "binary_offset", "binary_stopped",
                 "binary_after", "unterminated")

    def __init__(self, path: str, line: int, text: str, cr: bool = False, offset: int | None = None,
                 bytes_searched: int | None = None, binary_offset: int | None = None, binary_stopped: bool = False,
                 binary_after: int | None = None, unterminated: bool = False) -> None:
        self.path = path
        self.line = line
        self.text = text
        self.cr = cr
        self.offset = offset
        self.bytes_searched = bytes_searched
        self.binary_offset = binary_offset
        self.binary_stopped = binary_stopped
        self.binary_after = binary_after  # (a file's last event: an after-context line can be it)
        self.unterminated = unterminated


class End(Record):
    """A file's last event. ``count``: its matching lines (matches with ``-o``) when the search counted
    them (``output: count``), else None; ``matched``: whether the file matched (a whole-file item of
    ``files_with_matches``/``count``, or a match among its lines, which came before)."""

    __slots__ = ("path", "count", "matched")

    def __init__(self, path: str, count: int | None = None, matched: bool = False) -> None:
        self.path = path
        self.count = count
        self.matched = matched


class Summary(Record):
    """The end of a search, over every path argument: what the result objects said."""

    __slots__ = ("files_scanned", "files_matched", "elapsed_ms", "truncated", "errors")

    def __init__(self, files_scanned: int = 0, files_matched: int = 0, elapsed_ms: float = 0.0,
                 truncated: bool = False, errors: list[dict[str, str]] | None = None) -> None:
        self.files_scanned = files_scanned
        self.files_matched = files_matched
        self.elapsed_ms = elapsed_ms
        self.truncated = truncated
        self.errors = errors


Event = Begin | Match | Context | End | Summary
LineEvent = Match | Context  # what the searcher makes for one file
GrepEvent = Match | Context | End  # what a grep collects: lines, or whole files (files_with_matches, count)


class Sink(Protocol):
    """Receives a search's events in final order. ``event`` returns False when the sink wants no
    more (``-q`` found its match, the reader of standard output went away): the search is stopped."""

    def event(self, event: Event) -> bool: ...

    def finish(self, summary: Summary) -> None: ...


# ---------------------------------------------------------------- the result object's items

def from_item(item: dict[str, Any], path: str | None = None) -> Match | Context:
    """A ``match`` or ``context`` item as its typed event (the one place that reads the item form);
    ``path``: the path to show instead of the item's."""
    if path is None:
        path = item["path"]
    if item["type"] == "context":
        if len(item) == 4:  # the common case, without optional keys: built directly (a replay of 100,000)
            return Context(path, item["line"], item["text"])
        get = item.get
        return Context(path, item["line"], item["text"], bool(get("cr")), get("offset"),
                       get("bytes_searched"), get("binary_offset"), bool(get("binary_stopped")), get("binary_after"),
                       bool(get("unterminated")))
    if len(item) == 7:  # type, path, line, column, end_column, text, match_text
        return Match(path, item["line"], item["text"], item["column"], item["end_column"], item["match_text"])
    get = item.get
    subs = get("submatches")
    return Match(path, item["line"], item["text"], get("column", 1), get("end_column", 1),
                 get("match_text", ""),
                 [Submatch(s["column"], s["end_column"], s.get("match_text", "")) for s in subs] if subs else None,
                 get("score"), get("replacement"), bool(get("cr")), get("offset"), get("bytes_searched"),
                 get("binary_offset"), bool(get("binary_stopped")), get("binary_after"), get("match_replacements"),
                 bool(get("continued")), bool(get("runs_over")), bool(get("unterminated")), bool(get("joined")))


# Each field of a line event at once (in C), in the constructor's order; the fields after the first
# PLAIN ones are optional, and a plain event (most of them) has their defaults.
_MATCH_ROW = attrgetter(*Match.__slots__)  # type: ignore[attr-defined]
_CONTEXT_ROW = attrgetter(*Context.__slots__)  # type: ignore[attr-defined]
_MATCH_PLAIN, _CONTEXT_PLAIN = 6, 3  # path, line, text, column, end_column, match_text / path, line, text
_MATCH_TAIL = _MATCH_ROW(Match("", 0, ""))[_MATCH_PLAIN:]  # a plain event's optional fields: their defaults
_CONTEXT_TAIL = _CONTEXT_ROW(Context("", 0, ""))[_CONTEXT_PLAIN:]
_MATCH_SIZES = (_MATCH_PLAIN, len(Match.__slots__))


def to_rows(events: Iterable[LineEvent]) -> list[tuple[Any, ...]]:
    """Line events as plain tuples, a plain event's without its optional fields: how a pool worker's
    results cross to the collecting process (:meth:`sleuth.engine.search.FileResult.__reduce__`).
    Pickle writes and reads tuples in C; a slotted dataclass goes through ``copyreg`` one Python
    call per object (20,000 events: 106 ms to pickle, against 4 ms for their items)."""
    rows: list[tuple[Any, ...]] = []
    add = rows.append
    for event in events:
        if type(event) is Match:
            row = _MATCH_ROW(event)
            add(row[:_MATCH_PLAIN] if row[_MATCH_PLAIN:] == _MATCH_TAIL else row)
        else:
            row = _CONTEXT_ROW(event)
            add(row[:_CONTEXT_PLAIN] if row[_CONTEXT_PLAIN:] == _CONTEXT_TAIL else row)
    return rows


def to_wire(events: Iterable[GrepEvent], output: str = "content") -> list[tuple[Any, ...] | dict[str, Any]]:
    """``events`` for a stream that crosses a socket as JSON (the warm door's, :mod:`sleuth.core.warm_listener`):
    a plain line as its :func:`to_rows` tuple (an array: no keys written, read or looked up), anything
    else as its item. :meth:`Decoder.items` reads both. 2,161 match lines: the server's batches and the
    CLI's reading of them took ~40% less time than as items."""
    wire: list[tuple[Any, ...] | dict[str, Any]] = []
    add = wire.append
    for event in events:
        kind = type(event)
        if kind is Match:
            row = _MATCH_ROW(event)
            if row[_MATCH_PLAIN:] == _MATCH_TAIL:
                add(row[:_MATCH_PLAIN])
                continue
        elif kind is Context:
            row = _CONTEXT_ROW(event)
            if row[_CONTEXT_PLAIN:] == _CONTEXT_TAIL:
                add(row[:_CONTEXT_PLAIN])
                continue
        add(to_item(event, output))
    return wire


def from_rows(rows: Iterable[tuple[Any, ...]]) -> list[LineEvent]:
    """The events of :func:`to_rows`' tuples (their lengths tell a match from a context line)."""
    return [Match(*row) if len(row) in _MATCH_SIZES else Context(*row) for row in rows]


def to_item(event: GrepEvent, output: str = "content") -> dict[str, Any]:
    """The result object's item for ``event`` (the one place that writes the item form): the keys
    the engine sets, in its order; optional keys only when set. ``output``: an :class:`End` is a
    ``file`` item for ``files_with_matches`` (``"matched": false`` added for ``files_without_match``)
    and a ``count`` item for ``count``."""
    kind = type(event)
    if kind is Match:  # the common case first: every field read at once, a plain match's item made directly
        row = _MATCH_ROW(event)
        if row[_MATCH_PLAIN:] == _MATCH_TAIL:
            return {"type": "match", "path": row[0], "line": row[1], "column": row[3], "end_column": row[4],
                    "text": row[2], "match_text": row[5]}
    elif kind is Context:
        row = _CONTEXT_ROW(event)
        if row[_CONTEXT_PLAIN:] == _CONTEXT_TAIL:
            return {"type": "context", "path": row[0], "line": row[1], "text": row[2]}
    if isinstance(event, End):
        if output == "count":
            return {"type": "count", "path": event.path, "count": event.count}
        return {"type": "file", "path": event.path} if event.matched else {"type": "file", "path": event.path,
                                                                            "matched": False}
    if isinstance(event, Context):
        item: dict[str, Any] = {"type": "context", "path": event.path, "line": event.line, "text": event.text}
    else:
        item = {"type": "match", "path": event.path, "line": event.line, "column": event.column,
                "end_column": event.end_column, "text": event.text, "match_text": event.match_text}
        if event.submatches:
            item["submatches"] = [{"column": s.column, "end_column": s.end_column, "match_text": s.match_text}
                                  for s in event.submatches]
        if event.score is not None:
            item["score"] = event.score
        if event.replacement is not None:
            item["replacement"] = event.replacement
        if event.match_replacements is not None:
            item["match_replacements"] = list(event.match_replacements)
    if event.cr:
        item["cr"] = True
    for key in _OPTIONAL:
        value = getattr(event, key, None)
        if value is not None and value is not False:
            item[key] = value
    return item


_OPTIONAL = ("offset", "bytes_searched", "binary_offset", "binary_stopped", "binary_after", "continued",
             "runs_over", "unterminated", "joined")  # set: in the item


def to_items(events: Iterable[GrepEvent], output: str = "content") -> list[dict[str, Any]]:
    """The result object's items for ``events`` (a partial batch, or a result's list)."""
    return [to_item(event, output) for event in events]


class Decoder:
    """Items (batch after batch, in final order) to events for ``sink``, with :class:`Begin` and
    :class:`End` around each file's lines; or a search's own events (:meth:`events`: a door in the
    same process, no item form between). ``display`` rewrites each file's path once (the CLI shows
    paths as they were typed). ``stopped`` turns True once the sink wants no more; items after that
    are dropped."""

    __slots__ = ("sink", "display", "stopped", "_path", "_shown", "_matched")

    def __init__(self, sink: Sink, display: Callable[[str], str] | None = None) -> None:
        self.sink = sink
        self.display = display
        self.stopped = False
        self._path: str | None = None  # the open file's path as the items have it
        self._shown = ""
        self._matched = False

    def _enter(self, path: str) -> bool:
        """Make ``path`` the open file (closing the one before); False once the sink has stopped."""
        event = self.sink.event
        if self._path is not None and not event(End(self._shown, None, self._matched)):
            return self._stop()
        self._path, self._matched = path, False
        self._shown = self.display(path) if self.display is not None else path
        if not event(Begin(self._shown)):
            return self._stop()
        return True

    def items(self, items: Iterable[dict[str, Any] | list[Any]]) -> bool:
        """Push ``items``' events; False once the sink has stopped. An item may be a plain line's row
        (:func:`to_wire`: a list, its path first)."""
        if self.stopped:
            return False
        event = self.sink.event
        for item in items:
            if type(item) is list:  # a plain line's row: path, line, text[, column, end_column, match_text]
                if item[0] != self._path and not self._enter(item[0]):
                    return False
                if len(item) == _MATCH_PLAIN:
                    self._matched = True
                    going = event(Match(self._shown, item[1], item[2], item[3], item[4], item[5]))
                else:
                    going = event(Context(self._shown, item[1], item[2]))
                if not going:
                    return self._stop()
                continue
            path = item["path"]
            if path != self._path and not self._enter(path):
                return False
            kind = item["type"]
            if kind == "match" or kind == "context":
                if kind == "match":
                    self._matched = True
                going = event(from_item(item, self._shown))
            else:  # a whole file in one item: files_with_matches/files_without_match (``file``) or count
                self._path = None
                going = event(End(self._shown, item.get("count") if kind == "count" else None, item.get("matched", True)))
            if not going:
                return self._stop()
        return True

    def events(self, events: Iterable[GrepEvent]) -> bool:
        """Push a search's events (its collector's: lines, or an :class:`End` per file for
        ``files_with_matches``/``count``) as :meth:`items` pushes items'. They are this door's alone:
        a line's ``path`` becomes the shown one in place."""
        if self.stopped:
            return False
        event = self.sink.event
        for found in events:
            path = found.path
            if path != self._path and not self._enter(path):
                return False
            if type(found) is End:
                self._path = None
                going = event(End(self._shown, found.count, found.matched))
            else:
                if type(found) is Match:
                    self._matched = True
                found.path = self._shown
                going = event(found)
            if not going:
                return self._stop()
        return True

    def end_file(self) -> bool:
        """Close the open file (at the end of one path argument's search)."""
        if self._path is None or self.stopped:
            return not self.stopped
        self._path = None
        if not self.sink.event(End(self._shown, None, self._matched)):
            return self._stop()
        return True

    def _stop(self) -> bool:
        self.stopped = True
        return False
