"""``sleuth grep``'s printers, each a :class:`~sleuth.engine.events.Sink` (ripgrep's printers are
sinks too): they print as the events come, so a line reaches the terminal or pipe as its file is
searched, not when the whole search ends.

* :class:`Standard` — rg's standard output (headings, ``-n``, ``--column``, ``-o``, ``--vimgrep``,
  context separators, colours, binary-file lines), byte for byte rg's;
* :class:`Paths` — ``-l``; :class:`Without` — ``--files-without-match`` (the files the search lists);
* :class:`Counts` — ``-c`` and ``--count-matches`` (``--include-zero``: with the listed files);
* :class:`Quiet` — ``-q``: wants nothing after the first match, which stops the search;
* :class:`~sleuth.cli.rg_json.Json` — ``--json``, rg's JSON Lines;
* :class:`Tally` — what ``--stats`` and the exit status need; :class:`Tee` feeds two sinks;
  :class:`Reversed` replays files in reverse order at the end (``--sortr path``, ``--sort modified``:
  the engine's order is the other way round, so nothing can be printed before the search ends).

Everything printed is a function of the events and the flags, so a search run here and a running
server's answer (replayed through the same sinks) print the same bytes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from sleuth.cli.grep_print import PrintOptions, body, line_bytes, paint, replaced_spans, too_long
from sleuth.engine.events import Begin, Context, End, Event, Match, Sink, Summary

__all__ = ["Standard", "Paths", "Without", "Counts", "Quiet", "Tally", "Tee", "Reversed", "binary_notice"]


def binary_notice(offset: int, stopped: bool) -> str:
    """rg's line for a binary file's matches (or for a search that stopped at its NUL)."""
    if stopped:
        return f'WARNING: stopped searching binary file after match (found "\\0" byte around offset {offset})'
    return f'binary file matches (found "\\0" byte around offset {offset})'


class Standard:
    """rg's standard printer: ``path:line:col:text``, headings, ``--`` between groups of context.

    A match shows its ``replacement`` when there is one; a binary file's matches from its NUL's
    block on become one "binary file matches" line; a binary file whose search stopped at its NUL
    ends with rg's warning; a file that matched before its NUL only gets the line after them.
    """

    def __init__(self, options: PrintOptions) -> None:
        self.o = options
        self.write: Callable[[str], object] = sys.stdout.write
        self.current: str | None = None  # the path of the last thing printed
        self.last_line = 0
        self.printed_any = False
        self.skipping = False  # the rest of this file is stood for by its binary line
        self.warn: str | None = None  # a stopped binary file's warning, printed at its end
        # Whether a match line's spans are read: by -o, --vimgrep, --column, -b, colours or a column
        # limit (grep_print.body). A plain line reads none, and making them was ~4% of its printing.
        o = options
        self.spans_read = bool(o.only_matching or o.vimgrep or o.column or o.byte_offset or o.colours is not None
                               or o.max_columns)
        self.match_column = 1  # the column shown for the line a match over several lines began on
        # A match line with none of the flags that reshape it (headings, columns, offsets, colours, -o,
        # --vimgrep, --trim, a column limit, --crlf) is its prefix, its text and a newline: :meth:`line`
        # writes it at once (the general path was ~5 us of ~6 a line, 2,161 lines of a warm answer).
        self.plain = not (o.heading or o.vimgrep or o.only_matching or o.column or o.byte_offset or o.trim
                          or o.colours is not None or o.max_columns or o.crlf)
        self.held_by: tuple[str, int] | None = None  # the line that match's block goes on to

    def event(self, event: Event) -> bool:
        kind = type(event)
        if kind is Match or kind is Context:
            if self.skipping:
                return True
            line_event: Match | Context = event  # type: ignore[assignment]
            if line_event.binary_offset is not None:
                if line_event.binary_stopped:
                    self.warn = binary_notice(line_event.binary_offset, True)
                else:
                    self.skipping = True
                    self.notice(line_event.path, binary_notice(line_event.binary_offset, False))
                    return True
            self.line(line_event)
            if kind is Match and event.binary_after is not None:  # type: ignore[union-attr]
                self.notice(line_event.path, binary_notice(event.binary_after, False))  # type: ignore[union-attr]
        elif kind is End:
            if self.warn is not None:
                self.notice(event.path, self.warn)  # type: ignore[union-attr]
                self.warn = None
            self.skipping = False
        return True

    def finish(self, summary: Summary) -> None:
        pass

    def notice(self, path: str, text: str) -> None:
        """rg's binary-file lines name the file themselves."""
        o = self.o
        if self.printed_any and path != self.current and o.heading and o.with_path:
            self.write("\n")
        self.write((paint(o, "path", path) + ": " if o.with_path else "") + text + "\n")
        self.current, self.last_line, self.printed_any = path, 0, True

    def line(self, event: Match | Context) -> None:
        o, write = self.o, self.write
        if self.plain and type(event) is Match and event.replacement is None and not event.cr:
            path = event.path
            if path != self.current and self.printed_any and o.context and o.context_separator is not None:
                write(o.context_separator + "\n")
            elif path == self.current and self.last_line and event.line > self.last_line + 1 and o.context \
                    and o.context_separator is not None:
                write(o.context_separator + "\n")
            self.current, self.printed_any = path, True
            self.last_line = event.line + event.text.count("\n")
            sep = o.match_separator
            write(("" if not o.with_path else path + ("\0" if o.null else sep))
                  + (str(event.line) + sep if o.line_number else "") + event.text + "\n")
            return
        if o.vimgrep and type(event) is Match and not event.match_count():  # type: ignore[union-attr]
            return  # rg's --vimgrep shows a match once, on its first line: this line holds no other
        if o.only_matching and type(event) is Match and not event.text \
                and (event.continued or event.runs_over):  # type: ignore[union-attr]
            return  # -o -U: an empty piece of a match over lines (a blank line, a line end) is not printed, as rg
        path = event.path
        shown = paint(o, "path", path)
        if path != self.current:
            if self.printed_any and o.heading and o.with_path:
                write("\n")
            if self.printed_any and o.context and o.context_separator is not None and not (o.heading and o.with_path):
                write(o.context_separator + ("\r\n" if o.crlf else "\n"))
            if o.heading and o.with_path and not o.vimgrep:
                write(shown + ("\0" if o.null else "\n"))
            self.current, self.last_line = path, 0
        elif self.last_line and event.line > self.last_line + 1 and o.context and o.context_separator is not None:
            write(o.context_separator + ("\r\n" if o.crlf else "\n"))
        self.printed_any = True
        is_match = type(event) is Match
        replaced = is_match and event.replacement is not None  # type: ignore[union-attr]
        text = event.replacement if replaced else event.text  # type: ignore[union-attr]
        self.last_line = event.line + text.count("\n")
        sep = o.match_separator if is_match else o.context_field_separator
        spans = event.spans() if is_match and self.spans_read else []  # type: ignore[union-attr]
        if o.only_matching and is_match and spans:  # -o: the text is the match, its column the match's
            spans = [(0, len(line_bytes(text)))]
        shown_spans = spans
        if replaced and o.preview and not o.only_matching and event.match_replacements:  # type: ignore[union-attr]
            shown_spans = replaced_spans(spans, event.match_replacements)  # type: ignore[union-attr]
        rows = [spans] if not o.vimgrep or not spans \
            else [[s] for s in spans[event.continued:]]  # type: ignore[union-attr]  # (a match's rest: shown)
        for row in rows:
            prefix = ""
            if o.with_path and (not o.heading or o.vimgrep):
                prefix += shown + ("\0" if o.null else sep)
            if o.line_number:
                prefix += paint(o, "line", str(event.line)) + sep
            if o.column and is_match and row:
                column = event.column if o.only_matching else row[0][0] + 1  # type: ignore[union-attr]
                if not o.vimgrep and not o.only_matching:  # rg: the lines of a match show its first line's
                    if event.joined or self.held_by == (path, event.line):  # type: ignore[union-attr]  # (one block)
                        column = self.match_column
                    self.match_column = column
                    self.held_by = (path, event.line + 1) if event.runs_over else None  # type: ignore[union-attr]
                prefix += paint(o, "column", str(column)) + sep
            if o.byte_offset:  # -b: the event's offset is its line's; -o and --vimgrep give the match's
                at = (event.offset or 0) + ((event.column - 1 if o.only_matching  # type: ignore[union-attr]
                                             else row[0][0] if o.vimgrep else 0) if is_match and row else 0)
                prefix += str(at) + sep
            unterminated = event.unterminated
            shown_body = body(o, text, is_match, replaced, row if o.vimgrep else shown_spans,
                              spans if o.vimgrep else None, unterminated, event.cr)
            # a line's own CRLF (not after -M's notice, which replaced the line); with --crlf rg ends the lines
            # it rebuilds (-o, colour, -M's notice) with CRLF too (a line with -r keeps its own terminator: rg 15,
            # its bug 3100)
            long = too_long(o, text, is_match, unterminated, event.cr)
            crlf = (event.cr and not long) or (o.crlf and (
                long or unterminated  # (rg ends a last line that has no end so)
                or is_match and (o.only_matching or o.colours is not None)))
            write(prefix + shown_body + ("\r\n" if crlf else "\n"))


def _path_line(o: PrintOptions, path: str) -> str:
    """A path printed alone (``-l``, ``--files-without-match``), ended as rg ends it (``--crlf``: CRLF)."""
    return paint(o, "path", path) + ("\0" if o.null else "\r\n" if o.crlf else "\n")


class _Files:
    """Which files matched (a match line, or a whole-file item of ``-l``/``-c``), file by file."""

    def __init__(self) -> None:
        self.matched = False

    def seen(self, event: Event) -> bool | None:
        """None while a file is open; at its :class:`End`, whether it matched."""
        kind = type(event)
        if kind is Begin:
            self.matched = False
        elif kind is Match:
            self.matched = True
        elif kind is End:
            matched = self.matched or event.matched  # type: ignore[union-attr]
            self.matched = False
            return matched
        return None


class _Summarised(_Files):
    """Which files matched as rg's summary printers (``-l``, ``-q``, ``-c``) count them: a binary file
    whose search went on past its matches to the NUL and quit there (``--stats`` reads every match)
    matched none (rg squashes its matches: no path, no count, and not for the exit status, while
    ``--stats`` still counts them); ``found`` counts the files that matched."""

    def __init__(self) -> None:
        super().__init__()
        self.quit = False  # the open file is binary and its search stopped at the NUL
        self.found = 0

    def seen(self, event: Event) -> bool | None:
        if type(event) is Match:
            self.quit = self.quit or event.binary_stopped  # type: ignore[union-attr]
        matched = super().seen(event)
        if matched is None:
            return None
        matched = matched and not self.quit
        self.quit = False
        self.found += matched
        return matched


class Paths(_Summarised):
    """``-l``: each matching file's path (as :class:`_Summarised` counts them), once the file is done
    (a NUL after each with ``--null``)."""

    def __init__(self, options: PrintOptions) -> None:
        super().__init__()
        self.o = options

    def event(self, event: Event) -> bool:
        if self.seen(event):
            sys.stdout.write(_path_line(self.o, event.path))  # type: ignore[union-attr]
        return True

    def finish(self, summary: Summary) -> None:
        pass


class Without:
    """``--files-without-match``: the files the search lists (``sleuth.grep``'s ``files_without_match``:
    searched with no match; a binary file a folder's search quits on is neither, as in rg), each as it
    comes; ``printed`` counts them (with ``quiet``, ``-q``, they are counted and not printed, and the
    first one ends the search: rg 15). ``at_end``: the events are another search's (``--stats`` reads
    every match) and the files come as ``listed``, set before :meth:`finish`."""

    def __init__(self, options: PrintOptions, quiet: bool = False, at_end: bool = False) -> None:
        self.o = options
        self.quiet = quiet
        self.at_end = at_end
        self.listed: list[str] = []
        self.printed = 0

    def event(self, event: Event) -> bool:
        if self.at_end or type(event) is not End or event.matched:  # type: ignore[union-attr]
            return True
        self.list(event.path)  # type: ignore[union-attr]
        return not self.quiet

    def list(self, path: str) -> None:
        if not self.quiet:
            sys.stdout.write(_path_line(self.o, path))
        self.printed += 1

    def finish(self, summary: Summary) -> None:
        for path in self.listed:
            self.list(path)


class Counts:
    """``-c`` (each file's count as the search counted it) and ``--count-matches`` (``matches``: its
    matches, counted here): ``path:N``, or ``N`` alone for a single file. With ``--include-zero``
    (``listed`` and ``zero`` set before :meth:`finish`) the listed files, at the end, that were counted
    or had no match (``zero``: rg prints no count for a binary file its search quit on, matched or not)."""

    def __init__(self, options: PrintOptions, matches: bool, listed: list[str] | None = None) -> None:
        self.o = options
        self.matches = matches
        self.listed = listed  # None: print as files end
        self.zero: set[str] | None = None  # the listed files without a match (None: every listed file)
        self.counts: dict[str, int] = {}
        self.n = self.lines = 0
        self.quit = False  # the open file is binary and its search stopped at the NUL
        self.found = 0  # the files with a count (rg's exit status: none for a binary file its search quit on)

    def event(self, event: Event) -> bool:
        kind = type(event)
        if kind is Match:
            self.n += event.match_count()  # type: ignore[union-attr]
            self.lines += 1
            self.quit = self.quit or event.binary_stopped  # type: ignore[union-attr]
        elif kind is End:
            count = event.count  # type: ignore[union-attr]
            if self.matches or count is None:  # counted here (--count-matches; -c's lines when --stats wants them all)
                count = self.n if self.matches or self.o.only_matching else self.lines
            if self.quit:
                count = 0  # rg prints no count for a binary file its search quit on (-c drops it in the engine)
            self.n = self.lines = 0
            self.quit = False
            if count:
                self.found += 1
                if self.listed is None:
                    self.print(event.path, count)  # type: ignore[union-attr]
                else:
                    self.counts[event.path] = count  # type: ignore[union-attr]
        return True

    def print(self, path: str, count: int) -> None:
        o = self.o
        end = "\r\n" if o.crlf else "\n"  # rg ends the lines it makes with --crlf's terminator
        if o.with_path:
            sys.stdout.write(paint(o, "path", path) + ("\0" if o.null else ":") + f"{count}{end}")
        else:
            sys.stdout.write(f"{count}{end}")

    def finish(self, summary: Summary) -> None:
        for path in self.listed or ():
            count = self.counts.get(path, 0)
            if count or self.zero is None or path in self.zero:
                self.print(path, count)


class Quiet:
    """``-q``: nothing printed; the first match is enough (the search stops there, as rg's does);
    ``found``: the files that matched, as :class:`_Summarised` counts them (``--stats`` reads them all)."""

    def __init__(self, stop: bool = True) -> None:
        self.stop = stop
        self.files = _Summarised()

    @property
    def found(self) -> int:
        return self.files.found

    def event(self, event: Event) -> bool:
        if self.stop and type(event) is Match and not event.binary_stopped:  # type: ignore[union-attr]
            self.files.found += 1  # (its file's end never comes: the search stops here)
            return False
        return not (self.files.seen(event) and self.stop)

    def finish(self, summary: Summary) -> None:
        pass


class Tally:
    """Counts for ``--stats`` and the exit status: matched lines, matches, files that matched.
    ``no_inverted_matches``: an inverted line holds no match (rg's standard printer counts the
    pattern's matches in the lines it prints, none with ``-v``; its ``-c``/``-l`` count a line each)."""

    def __init__(self, no_inverted_matches: bool = False) -> None:
        self.per_match = 0 if no_inverted_matches else 1
        self.lines = self.matches = self.files_matched = 0
        self.files = _Files()
        self.last: tuple[str, int] | None = None  # the line of the last match (``-o`` makes one event a match)

    def event(self, event: Event) -> bool:
        if type(event) is Match:
            at = (event.path, event.line)  # type: ignore[union-attr]
            if at != self.last:
                self.lines += 1
                self.last = at
            self.matches += event.match_count() * self.per_match  # type: ignore[union-attr]
        if self.files.seen(event):
            self.files_matched += 1
        return True

    def finish(self, summary: Summary) -> None:
        pass


class Tee:
    """Every event to ``first`` then ``second``; either may stop the search."""

    def __init__(self, first: Sink, second: Sink) -> None:
        self.first, self.second = first, second

    def event(self, event: Event) -> bool:
        return self.first.event(event) & self.second.event(event)

    def finish(self, summary: Summary) -> None:
        self.first.finish(summary)
        self.second.finish(summary)


class Reversed:
    """Holds every file's events and replays the files last first at the end."""

    def __init__(self, inner: Sink) -> None:
        self.inner = inner
        self.files: list[list[Event]] = []

    def event(self, event: Event) -> bool:
        if type(event) is Begin or not self.files:
            self.files.append([])
        self.files[-1].append(event)
        return True

    def finish(self, summary: Summary) -> None:
        for events in reversed(self.files):
            for event in events:
                if not self.inner.event(event):
                    break
        self.inner.finish(summary)
