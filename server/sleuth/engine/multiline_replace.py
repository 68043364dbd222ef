"""``-U -r``: matches over lines replaced as rg replaces them, region by region (:mod:`sleuth.engine.search`
calls it once a multi-line search's events are made; the template's expansion is :mod:`sleuth.engine.replace`'s)."""

from __future__ import annotations

from sleuth.engine.events import LineEvent, Match
from sleuth.engine.line_table import line_spans, line_starts, line_text
from sleuth.engine.match.base import Matcher, Span
from sleuth.engine.replace import Replacer, replacer_for
from sleuth.engine.types import Replacement

__all__ = ["replaced_regions"]


def replaced_regions(data: bytes, events: list[LineEvent], matcher: Matcher,
                      replacement: Replacement, only_matching: bool = False) -> list[LineEvent]:
    """``-U -r`` as rg prints it: the matched lines that follow one another (a match across lines
    makes its lines such a run; rg joins adjacent ones too) are one region, replaced as a whole
    (a match over a line end is replaced once) and shown as the lines of the replaced text, numbered
    from the region's first line. Without this, each line of a match was replaced on its own.
    With ``-o`` each match's replacement is shown, its lines numbered from the region's first line
    plus the line ends before it in the replaced region, its column its offset there (rg's way)."""
    replacer = replacer_for(replacement)
    spans = list(line_spans(data, matcher))
    starts = line_starts(data)
    out: list[LineEvent] = []
    i, n = 0, len(events)
    while i < n:
        head = events[i]
        if not isinstance(head, Match):
            out.append(head)
            i += 1
            continue
        j = i + 1
        while j < n and isinstance(events[j], Match) and events[j].line - events[j - 1].line in (0, 1):
            j += 1
        run: list[Match] = events[i:j]  # type: ignore[assignment]  # (Match only: checked above)
        lo = starts[run[0].line - 1]
        end = data.find(b"\n", starts[run[-1].line - 1])
        hi = len(data) if end < 0 else end + 1
        inside = [s for s in spans if lo <= s.start < hi]
        if only_matching:
            out.extend(_replaced_matches(data, run[0], lo, inside, replacer))
            i = j
            continue
        replaced = replacer.line(data, lo, hi, inside, (0, len(data)))
        pieces = replaced[:-1].split(b"\n") if replaced.endswith(b"\n") else replaced.split(b"\n") if replaced else []
        for k, piece in enumerate(pieces):  # (a region replaced by nothing shows no line, as in rg)
            out.append(run[min(k, len(run) - 1)].replace(line=run[0].line + k, replacement=line_text(piece),
                                                         cr=piece.endswith(b"\r")))
        i = j
    return out


def _replaced_matches(data: bytes, first: Match, lo: int, spans: list[Span], replacer: Replacer) -> list[Match]:
    """``-U -o -r``: the events of each match's replacement in the region that starts at ``lo``."""
    out: list[Match] = []
    size, pos, lines = 0, lo, 0  # length of the replaced region so far, where the original is, its line ends
    for span in spans:
        between = data[pos:span.start]
        lines += between.count(b"\n")
        size += len(between)
        rep = replacer.expand(data, span, (0, len(data)))
        if rep:
            body = rep[:-1] if rep.endswith(b"\n") else rep
            for k, piece in enumerate(body.split(b"\n")):
                text = line_text(piece)
                out.append(first.replace(  # (each line shows the match's column)
                    line=first.line + lines + k, column=size + 1, end_column=size + len(piece) + 1,
                    text=text, match_text=text, replacement=text, cr=piece.endswith(b"\r")))
        lines += rep.count(b"\n")
        size += len(rep)
        pos = span.end
    return out
