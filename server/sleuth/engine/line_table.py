"""A buffer's lines as the searcher and its printers see them: where each starts, a line's text, the
newlines before an offset and the lines holding a literal (compiled where ``_lines.c`` was built)."""

from __future__ import annotations

from sleuth.engine.platform import compiled_module

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing here
if TYPE_CHECKING:
    from typing import Callable, Iterator

    from sleuth.engine.match.base import Matcher, Span

__all__ = ["line_starts", "line_text", "line_spans", "newlines", "literal_lines"]


def _newlines(data: bytes, start: int, end: int) -> int:
    return data.count(b"\n", start, end)


_compiled = compiled_module("sleuth.engine._lines", "no-compiled-lines")
#: ``newlines(data, start, end)``: ``data.count(b"\n", start, end)`` for bounds >= 0 (a match's line number).
newlines: Callable[[bytes, int, int], int] = _compiled.newlines if _compiled is not None else _newlines
#: ``literal_lines(data, literal)``: the start and end (its newline, or ``len(data)``) of each line holding
#: ``literal`` (non-empty, no newline), flat, in order, each line once: ripgrep's candidate lines, found by the
#: literal every match holds (:meth:`sleuth.engine.match.engines.Re2Matcher.matched_lines`). None where
#: ``_lines.c`` was not built: the matcher then finds them with ``bytes.find`` as it goes (a list made
#: first by ``bytes`` methods cost that path ~5% more than finding them as it goes).
literal_lines: Callable[[bytes, bytes], list[int]] | None = _compiled.literal_lines if _compiled is not None else None


def line_text(line: bytes) -> str:
    """A line's text (its CR dropped, bad UTF-8 as U+FFFD)."""
    if line.endswith(b"\r"):
        line = line[:-1]
    return line.decode("utf-8", "replace")


def line_starts(data: bytes) -> list[int]:
    """The offset where each line starts (a final newline opens no empty last line)."""
    starts = [0]
    find = data.find
    pos = find(b"\n")
    while pos >= 0:
        starts.append(pos + 1)
        pos = find(b"\n", pos + 1)
    if starts[-1] == len(data) and len(starts) > 1:
        starts.pop()  # a final newline does not open an empty last line
    return starts


def line_spans(data: bytes, matcher: Matcher) -> Iterator[Span]:
    """The matcher's matches in ``data`` that fall on a line: an empty match after the final newline
    opens no line (rg prints none), so it is left out."""
    end = len(data) if data.endswith(b"\n") else -1
    for span in matcher.find_iter(data):
        if span.start == span.end == end:
            continue
        yield span
