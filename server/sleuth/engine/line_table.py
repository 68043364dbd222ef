"""A buffer's lines as the searcher and its printers see them: where each starts, and a line's text."""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing here
if TYPE_CHECKING:
    from typing import Iterator

    from sleuth.engine.match.base import Matcher, Span

__all__ = ["line_starts", "line_text", "line_spans"]


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
