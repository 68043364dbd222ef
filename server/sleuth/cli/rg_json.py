"""``sleuth grep --json``: rg's JSON Lines (``begin``, ``match``, ``context``, ``end`` per file, then
``summary``), the format tools that parse rg read (VS Code's own search provider does); a sink of
the search's events (:mod:`sleuth.cli.grep_sinks`), so each line is printed as its file is searched.

The CLI asks ``sleuth.grep`` for ``byte_offsets``: each event's ``offset`` is rg's
``absolute_offset`` (its line's first byte in the file, after decoding as rg's), and a file's last
event carries its ``bytes_searched`` (rg's count: all of it, up to the last matching line with
``-m``, up to the NUL of a binary file); a binary file's ``end`` has its NUL's offset as rg's. The
line numbers and the submatches' ``start``/``end`` are exact; a line's text carries ``\\n`` as its
end (the result keeps no line terminator). ``bytes_printed`` is 0 and the per-file times are 0; the
summary's are the search's own. ``--result-json`` prints the ``sleuth.grep`` result object instead.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from sleuth.cli.grep_print import line_bytes
from sleuth.engine.events import Begin, Context, End, Event, Match, Summary

__all__ = ["Json"]


def _data(text: str) -> dict[str, str]:
    """rg's arbitrary data: ``{"text": ...}`` for UTF-8, else ``{"bytes": base64}``."""
    raw = line_bytes(text)
    try:
        return {"text": raw.decode("utf-8")}
    except UnicodeDecodeError:
        import base64

        return {"bytes": base64.b64encode(raw).decode("ascii")}


def _terminator(event: Match | Context) -> bytes:
    """The line's end as the file has it: ``\\r\\n`` (``cr``) or ``\\n``; none after a last line that
    has none (``unterminated``; a lone ``\\r`` there stays)."""
    if event.unterminated:
        return b"\r" if event.cr else b""
    return b"\r\n" if event.cr else b"\n"


def _elapsed(seconds: float) -> dict[str, Any]:
    whole = int(seconds)
    return {"secs": whole, "nanos": int((seconds - whole) * 1e9), "human": f"{seconds:.6f}s"}


def _emit(kind: str, data: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"type": kind, "data": data}, ensure_ascii=False, separators=(",", ":")) + "\n")


class Json:
    """rg's JSON printer: the messages of each file as it is searched, then the summary; ``quiet``
    (``-q``): the summary alone; ``inverted`` (``-v``): a match line has no submatches, as in rg;
    ``multiline`` (``-U``): a match line waits for the next event, which may join its record;
    ``line_numbers`` False (``-N``): every ``line_number`` is null, as rg writes it."""

    def __init__(self, quiet: bool = False, inverted: bool = False, multiline: bool = False,
                 line_numbers: bool = True) -> None:
        self.emit = (lambda kind, data: None) if quiet else _emit
        self.inverted = inverted
        self.line_numbers = line_numbers
        self.totals = {"bytes_searched": 0, "bytes_printed": 0, "matched_lines": 0, "matches": 0,
                       "searches": 0, "searches_with_match": 0}
        self._path: dict[str, str] = {}
        self._lines = self._matches = self._searched = 0
        self._binary: int | None = None
        self._held: list[Match] = []  # the lines of one record (rg's block of a multi-line search) so far
        self.multiline = multiline  # (-U) a match line may join the next: held until that one shows

    def event(self, event: Event) -> bool:
        kind = type(event)
        if kind is Match:  # held until the next event shows whether it joins them (rg's one record)
            if self._held and not event.joined and not (  # type: ignore[union-attr]
                    self._held[-1].runs_over and event.line == self._held[-1].line + 1):  # type: ignore[union-attr]
                self.line(self._held)
                self._held = []
            self._held.append(event)  # type: ignore[arg-type]
            if not self.multiline and not event.runs_over:  # type: ignore[union-attr]
                self.line(self._held)  # (no line joins it: out at once)
                self._held = []
            return True
        if self._held:
            self.line(self._held)
            self._held = []
        if kind is Context:
            self.line([event])  # type: ignore[list-item]
        elif kind is Begin:
            self._path = _data(event.path)  # type: ignore[union-attr]
            self._lines = self._matches = self._searched = 0
            self._binary = None
            self.emit("begin", {"path": self._path})
        elif kind is End:
            self.end()
        return True

    def line(self, events: list[Match] | list[Context]) -> None:
        """One record: a context line, a match line, or the lines of a match that runs over their ends
        (rg's one record for them, its submatches' offsets counted from the first line's start)."""
        head = events[0]
        is_match = type(head) is Match
        raw = b""
        subs: list[dict[str, Any]] = []
        spans: list[list[int]] = []  # [start, end] in ``raw`` of each match, its pieces joined
        for event in events:
            base = len(raw)
            raw += line_bytes(event.text) + _terminator(event)
            if not is_match or self.inverted:
                continue
            found = event.spans()  # type: ignore[union-attr]
            for i, (a, b) in enumerate(found):
                end = len(raw) if i == len(found) - 1 and event.runs_over else base + b  # type: ignore[union-attr]
                if i == 0 and event.continued and spans:  # type: ignore[union-attr]
                    spans[-1][1] = end
                else:
                    spans.append([base + a, end])
        replaced = (head.match_replacements or ()) if is_match and len(events) == 1 else ()  # type: ignore[union-attr]
        for i, (a, b) in enumerate(spans):  # -r: rg 15 prints each match replaced
            sub = {"match": _data(raw[a:b].decode("utf-8", "surrogateescape"))}
            if i < len(replaced):
                sub["replacement"] = _data(replaced[i])
            subs.append({**sub, "start": a, "end": b})
        for event in events:
            if self._binary is None:
                self._binary = event.binary_offset if event.binary_offset is not None else \
                    (event.binary_after if is_match else None)  # type: ignore[union-attr]
            self._searched = event.bytes_searched or self._searched  # the file's last line event carries it
        if is_match:
            self._lines += len(events)
            self._matches += len(subs)
        self.emit("match" if is_match else "context", {
            "path": self._path, "lines": _data(raw.decode("utf-8", "surrogateescape")), "line_number": head.line if self.line_numbers else None,
            "absolute_offset": head.offset or 0, "submatches": subs})

    def end(self) -> None:
        lines = self._lines
        self.emit("end", {"path": self._path, "binary_offset": self._binary, "stats": {
            "elapsed": _elapsed(0.0), "searches": 1, "searches_with_match": 1 if lines else 0,
            "bytes_searched": self._searched, "bytes_printed": 0, "matched_lines": lines, "matches": self._matches}})
        totals = self.totals
        totals["bytes_searched"] += self._searched
        totals["searches"] += 1
        totals["searches_with_match"] += 1 if lines else 0
        totals["matched_lines"] += lines
        totals["matches"] += self._matches

    def finish(self, summary: Summary) -> None:
        if self._held:
            self.line(self._held)
            self._held = []
        seconds = summary.elapsed_ms / 1000
        message = {"data": {"elapsed_total": _elapsed(seconds), "stats": {"elapsed": _elapsed(seconds), **self.totals}},
                   "type": "summary"}
        sys.stdout.write(json.dumps(message, separators=(",", ":"), sort_keys=True) + "\n")  # rg's is sorted
