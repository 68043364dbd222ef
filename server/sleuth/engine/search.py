"""Search one buffer: bytes in, match and context events out (ripgrep's ``grep-searcher``).

The searcher owns everything between "these are a file's bytes" and "these are its events":
binary detection (a NUL byte), decoding (UTF-8 with U+FFFD, UTF-16 with a BOM transcoded),
mapping byte spans to 1-based lines and byte columns, inverting, context lines, the per-file
match cap and cutting over-long lines. It depends on the :class:`Matcher` protocol only.

The hot path is a file without a match: one ``may_match`` (a literal prefilter) and at most one
regex pass over the whole buffer, no per-line Python work. Reading files from disk into it (one
file, or the scan's hot loop over many) is :mod:`sleuth.engine.file_scan`'s job.
"""

from __future__ import annotations

from collections.abc import Iterator

from sleuth.engine.decode import BINARY_BLOCK, transcode
from sleuth.engine.errors import SearchTimeout
from sleuth.engine.events import Context, LineEvent, Match, Submatch, from_rows, to_rows
from sleuth.engine.line_table import line_spans, line_starts, line_text, newlines
from sleuth.engine.match.base import Matcher, Span
from sleuth.engine.types import EVERY_LINE, Replacement, SearchOptions
from sleuth.engine.values import Record, replace

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import Any

    from sleuth.engine.replace import Replacer  # (-r's modules are imported when a search replaces)

__all__ = ["FileResult", "first_lines", "add_byte_offsets", "search_buffer", "search_data", "BINARY", "TOO_LARGE",
           "ELLIPSIS"]

BINARY = "binary"
TOO_LARGE = "too_large"
ELLIPSIS = "…"


class FileResult(Record):
    """One file's outcome. ``events``: typed events (:mod:`sleuth.engine.events`) in final order
    (context before match on a line); the doors' wire forms are made from them in one place
    (:func:`~sleuth.engine.events.to_item`, the CLI's printers). ``skipped``: BINARY or TOO_LARGE when
    passed over; ``matches``: with -o, the matches, which rg -c -o counts instead of lines."""

    __slots__ = ("display", "events", "matched_lines", "skipped", "error", "matches", "searched", "capped")

    def __init__(self, display: str, events: list[LineEvent] | None = None, matched_lines: int = 0,
                 skipped: str | None = None, error: str | None = None, matches: int | None = None,
                 searched: int | None = None, capped: bool = False) -> None:
        self.display = display
        self.events: list[LineEvent] = [] if events is None else events
        self.matched_lines = matched_lines
        self.skipped = skipped
        self.error = error
        self.matches = matches  # with -o: the matches, which rg -c -o counts instead of lines
        self.searched = searched  # bytes searched as rg counts them (--stats): all, or up to where it stopped
        self.capped = capped  # the search stopped at -m (max_matches_per_file)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with its events as rows (:func:`~sleuth.engine.events.to_rows`): a pool worker's
        results cross to the collecting process at the cost their items had."""
        return _restored, (self.display, to_rows(self.events), self.matched_lines, self.skipped, self.error,
                           self.matches, self.searched, self.capped)


def _restored(display: str, rows: list[tuple[Any, ...]], matched_lines: int, skipped: str | None,
              error: str | None, matches: int | None, searched: int | None, capped: bool = False) -> FileResult:
    return FileResult(display, from_rows(rows), matched_lines, skipped, error, matches, searched, capped)


def _cut(line: bytes, start: int, end: int, max_columns: int | None) -> tuple[str, bool]:
    """The text shown for a line: whole, or a window of ``max_columns`` bytes around the match, marked."""
    if max_columns is None or len(line) <= max_columns or max_columns <= 0:
        return line_text(line), False
    budget = max(max_columns - (end - start), 0)
    lo = max(0, start - budget // 2)
    hi = min(len(line), max(end, lo + max_columns))
    lo = max(0, min(lo, hi - max_columns))
    # Never split a UTF-8 sequence: move inward past continuation bytes.
    while lo < len(line) and lo > 0 and 0x80 <= line[lo] < 0xC0:
        lo += 1
    while hi < len(line) and 0x80 <= line[hi] < 0xC0:
        hi -= 1
    text = line_text(line[lo:hi])
    return (ELLIPSIS if lo > 0 else "") + text + (ELLIPSIS if hi < len(line) else ""), True


class _Lines:
    """Maps byte offsets to 1-based line numbers, moving forward only (offsets arrive in order)."""

    __slots__ = ("data", "pos", "line")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0
        self.line = 1

    def number(self, offset: int) -> int:
        if offset > self.pos:
            self.line += newlines(self.data, self.pos, offset)  # (compiled: bytes.count takes a byte a cycle)
            self.pos = offset
        return self.line

    def bounds(self, offset: int) -> tuple[int, int]:
        """Start and end (exclusive of ``\\n``) of the line holding ``offset``."""
        start = self.data.rfind(b"\n", 0, offset) + 1
        end = self.data.find(b"\n", offset)
        return start, (len(self.data) if end < 0 else end)


class _Clips:
    """The lines where :func:`_matched_lines` clipped a match that spans lines: ``continued``, whose
    first span is the rest of a match begun on an earlier line; ``runs_over``, whose last span goes on
    past the line's end. They become the events' marks (:class:`~sleuth.engine.events.Match`), so a
    printer can show such a match once, as rg does."""

    __slots__ = ("continued", "runs_over")

    def __init__(self) -> None:
        self.continued: set[int] = set()
        self.runs_over: set[int] = set()

    def mark(self, events: list[LineEvent]) -> None:
        """Set the marks on the events of the clipped lines (with ``-o``, a line's first or last event)."""
        continued, runs_over = self.continued, self.runs_over
        last = len(events) - 1
        for i, event in enumerate(events):
            if type(event) is not Match:
                continue
            number = event.line
            if number in continued and (i == 0 or events[i - 1].line != number):
                event.continued = True
            if number in runs_over and (i == last or events[i + 1].line != number):
                event.runs_over = True


def _matched_lines(data: bytes, matcher: Matcher,
                   clips: _Clips | None = None) -> Iterator[tuple[int, int, int, list[Span]]]:
    """(line number, line start, line end, spans in that line) for every line with a match.

    A match spanning several lines (multiline mode) marks each line it touches, as ``rg -n`` prints them;
    its span is clipped to each line, and ``clips`` (when given) records where. A matcher that finds
    matches line by line anyway hands the lines over (:meth:`~sleuth.engine.match.base.Matcher.matched_lines`,
    ripgrep's candidate-line fast path).
    """
    lines = _Lines(data)
    found = matcher.matched_lines(data)
    if found is not None:
        for lo, hi, spans in found:
            yield lines.number(lo), lo, hi, spans
        return
    current: tuple[int, int, int, list[Span]] | None = None
    for span in line_spans(data, matcher):
        start, end = span.start, span.end
        lo, hi = lines.bounds(start)
        number = lines.number(lo)
        while True:
            clip = Span(start, min(end, hi) if end > start else start, span.score)
            if current is not None and current[0] == number:
                current[3].append(clip)
            else:
                if current is not None:
                    yield current
                current = (number, lo, hi, [clip])
            if end > hi and clips is not None and hi < len(data):
                clips.runs_over.add(number)  # (the match holds this line's terminator)
            if end <= hi + 1 or hi >= len(data):
                break
            # Continue the match onto the next line.
            lo = hi + 1
            hi = data.find(b"\n", lo)
            hi = len(data) if hi < 0 else hi
            number = lines.number(lo)
            start = lo
            if clips is not None:
                clips.continued.add(number)
    if current is not None:
        yield current


def _cap_bound(data: bytes, matcher: Matcher, cap: int) -> tuple[bool, int | None]:
    """Whether ``data`` holds ``cap`` matches, and where the first match past them starts (None: none)."""
    seen = 0
    for span in line_spans(data, matcher):
        if seen == cap:
            return True, span.start
        seen += 1
    return seen >= cap, None


def _all_lines(data: bytes) -> Iterator[tuple[int, int, int]]:
    """(number, start, end) of every line; a final newline does not open an extra empty line."""
    number, pos, size = 1, 0, len(data)
    while pos < size:
        end = data.find(b"\n", pos)
        if end < 0:
            end = size
        yield number, pos, end
        number += 1
        pos = end + 1


def search_buffer(data: bytes, matcher: Matcher, options: SearchOptions, display: str,
                  checked: bool = False) -> FileResult:
    """Events for one decoded buffer (see :func:`decode_buffer`), honouring invert, context and caps.

    ``checked``: the caller has just seen ``may_match(data)`` say yes, so it is not asked again (a
    second prefilter pass over every file that may match: ~9 ms of worker CPU over the 909 files of
    an indexed ``[A-Z]+_RESUME`` on the Linux tree)."""
    result = FileResult(display, searched=len(data))
    if not options.invert and not checked and not matcher.may_match(data):
        return _passed_through(data, result, options)
    cap = options.max_matches_per_file
    matches: list[tuple[int, int, int, list[Span]]] = []
    clips: _Clips | None = None
    context_until: int | None = None  # the last line context may show (-m's last after-context window)
    if options.invert:
        hit = {number for number, _lo, _hi, _spans in _matched_lines(data, matcher)} if matcher.may_match(data) else set()
        if cap is None and options.output != "content" and not options.only_matching and not options.stop_on_nonmatch:
            # a count (or whether there is any): every line but those with a match, no line visited
            # (``-v -c`` over drivers/net walked its 3.8 million lines one by one: 14x rg's time)
            result.matched_lines = data.count(b"\n") + (not data.endswith(b"\n")) - len(hit) if data else 0
            return result
        for number, lo, hi in _all_lines(data):
            if number not in hit:
                matches.append((number, lo, hi, []))
                if cap is not None and len(matches) >= cap:
                    break
    elif options.spans_lines and cap is not None:
        # rg's -m counts matches, not lines: with -U the last counted match is printed whole (its further
        # lines too), and the part of a line from the first match past the cap on is no match
        clips = _Clips()
        result.capped, bound = _cap_bound(data, matcher, cap)
        for item in _matched_lines(data, matcher, clips):
            if bound is not None and item[3][-1].start >= bound:
                kept = [clip for clip in item[3] if clip.start < bound]
                if not kept:
                    break
                item = (item[0], item[1], item[2], kept)
            matches.append(item)
    else:
        clips = _Clips()
        found = _matched_lines(data, matcher, clips)
        for item in found:
            matches.append(item)
            if cap is not None and len(matches) >= cap:
                break
        if matches and cap is not None and len(matches) >= cap and 0 < options.after < EVERY_LINE \
                and not options.stop_on_nonmatch:
            # rg reads the last counted match's after-context on: a line there that matches is a match
            # (printed ``N:``, counted by -c), though it neither counts for -m nor widens the context
            # (--passthru's lines after -m stay as they are)
            window = matches[-1][0] + options.after
            for item in found:
                if item[0] > window:
                    break
                matches.append(item)
            if len(matches) > cap:
                context_until = window
    if not matches:
        return _passed_through(data, result, options)
    stopped_at = None
    if options.stop_on_nonmatch:
        # rg reads no further than the line after the first run of matching lines (shown as context).
        # With -v its line-by-line fast path takes the first run of lines without a match whole, steps
        # over the match line that ends it, and only then reads line by line: the run after it counts too.
        run = _first_run(matches, 0)
        if options.invert and run < len(matches) and matches[run][0] == matches[run - 1][0] + 2:
            run = _first_run(matches, run)
        del matches[run:]
        options = replace(options, after=min(options.after, 1))
        end = data.find(b"\n", matches[-1][2] + 1)
        stopped_at = len(data) if end < 0 else end + 1
    result.matched_lines = len(matches)
    if not options.spans_lines or options.invert:
        result.capped = cap is not None and len(matches) >= cap
    if result.capped and not options.spans_lines:  # rg reads no further than the end of the last line it counts
        # (with -U it has read the whole file)
        result.searched = min(matches[-1][2] + 1, len(data))
    if stopped_at is not None:
        result.searched = min(result.searched or 0, stopped_at)
    if options.only_matching or (options.spans_lines and clips is not None):  # rg -U -c counts those matches
        continued = clips.continued if clips is not None else ()  # (a match's rest is no match of its own)
        result.matches = sum(len(spans) - (n in continued) for n, _lo, _hi, spans in matches)
    if options.output != "content":
        return result
    result.events = _events(data, matches, options, display, context_until)
    if options.replace is not None and options.replace.match.multiline and not options.invert:
        from sleuth.engine.multiline_replace import replaced_regions

        result.events = replaced_regions(data, result.events, matcher, options.replace, options.only_matching)
    elif clips is not None and (clips.continued or clips.runs_over):
        clips.mark(result.events)
    if options.spans_lines and not options.invert and options.replace is None:
        _join(result.events)
    if options.byte_offsets:
        add_byte_offsets(data, result.events, result.searched or 0)
    return result


def _passed_through(data: bytes, result: FileResult, options: SearchOptions) -> FileResult:
    """A file without a match: with ``--passthru`` (every line is context) its lines are all shown, as
    rg shows them (``cat log | rg --passthru ERROR`` prints the log whether or not it holds one)."""
    if options.passthru:
        starts = line_starts(data)
        result.events = [_context_event(data, starts, number, result.display, options.max_columns)
                         for number, _lo, _hi in _all_lines(data)]
        if options.byte_offsets and result.events:
            add_byte_offsets(data, result.events, result.searched or 0)
    return result


def _join(events: list[LineEvent]) -> None:
    """rg's multi-line search sinks the lines of matches that follow one another as one block: mark
    each match line that follows a match line (``joined``)."""
    before: LineEvent | None = None
    for event in events:
        if type(event) is Match and type(before) is Match and event.line == before.line + 1:
            event.joined = True
        before = event


def add_byte_offsets(data: bytes, events: list[LineEvent], searched: int) -> None:
    """rg ``--json``'s byte counts (``SearchOptions.byte_offsets``): each event's ``offset``, the byte
    offset of its line's start in the bytes searched (after decoding, as rg's), and on the file's last
    event ``bytes_searched``: how far the search read, ``searched`` (all of it; with a per-file match
    cap, up to the end of the last matching line, where rg stops). Tools that read rg's JSON (editors,
    ``delta``) place lines by the offset. The result keeps them only when asked: an assistant's
    result has no use for them."""
    starts = line_starts(data)
    last = len(starts) if data and not data.endswith(b"\n") else 0  # a last line without its terminator
    for event in events:
        event.offset = starts[event.line - 1] if event.line <= len(starts) else len(data)
        if event.line == last:
            event.unterminated = True
    if events:
        events[-1].bytes_searched = searched


def _match_event(data: bytes, display: str, number: int, lo: int, hi: int, spans: list[Span],
                 max_columns: int | None, replacer: Replacer | None = None,
                 window: tuple[int, int] | None = None) -> Match:
    line = data[lo:hi]
    if spans:
        first = spans[0]
        text, _cut_flag = _cut(line, first.start - lo, first.end - lo, max_columns)
        event = Match(display, number, text, first.start - lo + 1, first.end - lo + 1,
                      data[first.start:first.end].decode("utf-8", "replace"))
        if len(spans) > 1:
            event.submatches = [Submatch(s.start - lo + 1, s.end - lo + 1,
                                         data[s.start:s.end].decode("utf-8", "replace")) for s in spans]
        if first.score is not None:
            event.score = round(max(s.score or 0.0 for s in spans), 4)
        if replacer is not None:
            event.replacement = line_text(replacer.line(data, lo, hi, spans, window or (lo, hi)))
            # each match replaced, in order: rg 15's --json prints them beside the submatches
            event.match_replacements = [replacer.expand(data, s, window or (lo, hi)).decode("utf-8", "replace")
                                        for s in spans]
    else:
        text, _cut_flag = _cut(line, 0, 0, max_columns)
        event = Match(display, number, text)
        if replacer is not None:
            event.replacement = text
    if line.endswith(b"\r") or data[hi:hi + 2] == b"\r\n":
        event.cr = True
    return event


def _only_matching_events(data: bytes, display: str, number: int, lo: int, hi: int, spans: list[Span],
                          max_columns: int | None, replacer: Replacer | None,
                          window: tuple[int, int] | None) -> list[Match]:
    """rg ``-o``: one match event per match, its text the match (a line without matches, as ``-v``
    gives, stays whole). ``replacement`` is then the match replaced."""
    if not spans:
        return [_match_event(data, display, number, lo, hi, spans, max_columns, replacer, window)]
    events = []
    for span in spans:
        matched = data[span.start:span.end].decode("utf-8", "replace")
        event = Match(display, number, matched, span.start - lo + 1, span.end - lo + 1, matched)
        if span.score is not None:
            event.score = round(span.score, 4)
        if replacer is not None:
            event.replacement = replacer.expand(data, span, window or (lo, hi)).decode("utf-8", "replace")
        events.append(event)
    return events


def _events(data: bytes, matches: list[tuple[int, int, int, list[Span]]], options: SearchOptions,
            display: str, until: int | None = None) -> list[LineEvent]:
    """Match events with their context lines merged the way ripgrep prints them (no line twice);
    no context line after line ``until``."""
    max_columns = options.max_columns
    replacer = None
    if options.replace is not None:
        from sleuth.engine.replace import replacer_for

        replacer = replacer_for(options.replace)
    window = (0, len(data)) if replacer is not None and options.replace.match.multiline else None  # type: ignore[union-attr]
    only = options.only_matching

    def emit(number: int, lo: int, hi: int, spans: list[Span]) -> list[Match]:
        if only:
            return _only_matching_events(data, display, number, lo, hi, spans, max_columns, replacer, window)
        return [_match_event(data, display, number, lo, hi, spans, max_columns, replacer, window)]

    if not options.before and not options.after:
        if not only and replacer is None:
            return [_match_event(data, display, n, lo, hi, spans, max_columns) for n, lo, hi, spans in matches]
        return [event for n, lo, hi, spans in matches for event in emit(n, lo, hi, spans)]
    starts = line_starts(data)
    total = len(starts)
    is_match = {m[0] for m in matches}
    events: list[LineEvent] = []
    emitted = 0  # highest line number already emitted
    for number, lo, hi, spans in matches:
        for ctx in range(max(emitted + 1, number - options.before), number):
            events.append(_context_event(data, starts, ctx, display, max_columns))
        events.extend(emit(number, lo, hi, spans))
        emitted = number
        last = min(total, number + options.after, total if until is None else until)
        for ctx in range(number + 1, last + 1):
            if ctx in is_match:
                break
            events.append(_context_event(data, starts, ctx, display, max_columns))
            emitted = ctx
    return events


def first_lines(events: list[LineEvent], lines: int) -> list[LineEvent]:
    """The events of the first ``lines`` matching lines (with ``-o`` a line may have several events)."""
    seen: set[int] = set()
    for i, event in enumerate(events):
        if isinstance(event, Match) and event.line not in seen:
            if len(seen) == lines:
                return events[:i]
            seen.add(event.line)
    return events


def _context_event(data: bytes, starts: list[int], number: int, display: str,
                   max_columns: int | None) -> Context:
    lo = starts[number - 1]
    hi = data.find(b"\n", lo)
    hi = len(data) if hi < 0 else hi
    text, _cut_flag = _cut(data[lo:hi], 0, 0, max_columns)
    # cr: the line ended in CRLF (the text keeps no terminator, a printer may want it back)
    return Context(display, number, text, data[lo:hi].endswith(b"\r"))


def search_data(data: bytes, display: str, matcher: Matcher, options: SearchOptions,
                 checked: bool = False) -> FileResult:
    """``checked``: ``may_match(data)`` said yes (it still holds if decoding left the bytes as they are).

    Binary files as rg 14 treats them (``options.binary``), modelled on its 64 KiB read buffers: a file
    is binary when it holds a NUL byte (at offset N). ``quit`` (rg's recursive default): what follows the
    64 KiB block holding N is never searched, so a NUL in the first block passes the file over (counted
    in ``skipped.binary``); matches before the block are reported with ``binary_offset`` and
    ``binary_stopped`` (rg then warns that it stopped). ``convert`` (an explicit file, ``--binary``): the whole file is searched, each
    NUL read as a line end unless mapped (rg's line buffer replaces them: ``-v`` and ``--json`` see the lines they make), and the
    matches from that block on carry ``binary_offset`` (rg prints "binary file matches" instead of
    them); when none does, the file's last event carries ``binary_after`` (rg prints the line after it). ``text`` (``-a``): NUL is an ordinary byte."""
    decoded = transcode(data, options.encoding)
    nul = decoded.find(b"\x00") if options.binary != "text" else -1
    if nul < 0:
        return _searched(decoded, display, matcher, options, checked and decoded is data)
    if (options.memory_map or options.spans_lines) and nul >= BINARY_BLOCK and decoded is data:  # read whole
        return _searched_mapped(decoded, display, matcher, options, nul)
    block = nul - nul % BINARY_BLOCK
    if options.binary == "quit":
        if block == 0:
            return FileResult(display, skipped=BINARY, searched=0)
        head = decoded.rfind(b"\n", 0, block) + 1
        result = _searched(decoded[:head], display, matcher, options)
        if result.capped:
            return result  # (-m) the search ended at its cap, before the NUL: rg never sees it, says nothing
        if (not result.matched_lines and not result.error) or options.output == "count":
            return FileResult(display, skipped=BINARY, searched=head)  # (rg -c drops a file its search quit on)
        _searched_up_to(result, nul)
        for event in result.events:
            event.binary_offset = nul
            event.binary_stopped = True
        return result
    if not (options.spans_lines or options.memory_map):
        # rg's line buffer turns each NUL it reads into a line end (a memory map and -U's whole file are searched as they are)
        decoded = decoded.replace(b"\x00", b"\n")
    result = _searched(decoded, display, matcher, options)
    _searched_up_to(result, nul)
    first = decoded.count(b"\n", 0, decoded.rfind(b"\n", 0, block) + 1) + 1  # the block's first line
    marked = False
    for event in result.events:
        if event.line >= first:
            event.binary_offset = nul
            marked = True
    if not marked and result.matched_lines and result.events and options.output == "content":  # rg still says "binary file matches" once the file is done
        result.events[-1].binary_after = nul
    return result


def _first_run(matches: list[tuple[int, int, int, list[Span]]], start: int) -> int:
    """The end (exclusive) of the run of consecutive line numbers that begins at ``matches[start]``."""
    return next((k for k in range(start + 1, len(matches)) if matches[k][0] != matches[k - 1][0] + 1), len(matches))


def _searched_mapped(data: bytes, display: str, matcher: Matcher, options: SearchOptions, nul: int) -> FileResult:
    """rg's search of a memory-mapped file (``--mmap``) whose first NUL lies past its first 64 KiB.

    rg looks for a NUL in a map's first 64 KiB and then only in the lines it reports, so such a file
    is text unless a reported line holds one. From that line on, ``quit`` stops (the lines before
    carry ``binary_stopped``; with none, or for ``-c``, the file is passed over) and ``convert``
    marks the events with ``binary_offset`` (rg prints "binary file matches" instead of them)."""
    result = _searched(data, display, matcher, options)
    if not result.matched_lines:
        return result
    events = result.events if options.output == "content" else _searched(
        data, display, matcher, replace(options, output="content", before=0, after=0, max_columns=None,
                                                    replace=None, byte_offsets=False)).events
    hit = _first_on_a_nul_line(data, events, nul)
    if hit is None:
        return result
    k, at = hit
    if options.binary != "quit":
        for event in result.events[k:]:
            event.binary_offset = at
        _searched_up_to(result, at)  # (rg's count stops at the NUL it saw)
        return result
    before = events[:k]
    matched = len({e.line for e in before if isinstance(e, Match)})
    if not matched or options.output == "count":  # rg -c drops a file its search quit on
        return FileResult(display, skipped=BINARY)
    result.matched_lines = matched
    if options.only_matching:
        result.matches = sum(1 for e in before if isinstance(e, Match))
    if options.output == "content":
        result.events = before
        for event in before:
            event.binary_offset = at
            event.binary_stopped = True
        if options.byte_offsets:
            before[-1].bytes_searched = at
    return result


def _first_on_a_nul_line(data: bytes, events: list[LineEvent], nul: int) -> tuple[int, int] | None:
    """(index of the first event whose line holds a NUL, that NUL's offset); ``nul`` is the file's first."""
    at, counted = nul, nul
    line = data.count(b"\n", 0, at) + 1
    for i, event in enumerate(events):
        while line < event.line:
            at = data.find(b"\x00", at + 1)
            if at < 0:
                return None
            line += data.count(b"\n", counted, at)
            counted = at
        if line == event.line:
            return i, at
    return None


def _searched_up_to(result: FileResult, nul: int) -> None:
    """A binary file's ``bytes_searched`` as rg 14.1 counts it: no further than its first NUL."""
    if result.searched is not None:
        result.searched = min(result.searched, nul)
    last = result.events[-1] if result.events else None
    if last is not None and last.bytes_searched is not None:
        last.bytes_searched = min(last.bytes_searched, nul)


def _searched(data: bytes, display: str, matcher: Matcher, options: SearchOptions, checked: bool = False) -> FileResult:
    try:
        return search_buffer(data, matcher, options, display, checked)
    except SearchTimeout as exc:  # a pathological pattern on this one file: report it, search the rest
        return FileResult(display, error=f"{exc.message} {exc.hint}")
