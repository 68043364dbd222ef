"""rg's standard printer over a ``sleuth.grep`` result: the lines a person (or a script that parses
rg) expects, byte for byte what rg 14.1 prints for the same flags in a pipe or on a terminal.

The result object is the same whether the search ran here or in a running server, so the output
is too: everything here is a function of the result and the command line.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["PrintOptions", "Colours", "print_events", "print_paths", "print_counts", "line_bytes"]

_COLOUR_CODES = {"black": 0, "red": 1, "green": 2, "yellow": 3, "blue": 4, "magenta": 5, "cyan": 6, "white": 7}


@dataclass
class _Style:
    fg: str = ""
    bg: str = ""
    bold: bool = False
    underline: bool = False
    italic: bool = False

    def codes(self) -> str:
        out = ""
        if self.bold:
            out += "\x1b[1m"
        if self.italic:
            out += "\x1b[3m"
        if self.underline:
            out += "\x1b[4m"
        return out + self.fg + self.bg

    def paint(self, text: str, always: bool) -> str:
        """rg paints a path, line or column number even with an empty style (a reset either side), a
        match only with a style."""
        codes = self.codes()
        return f"\x1b[0m{codes}{text}\x1b[0m" if codes or always else text


def _colour(value: str, base: int) -> str:
    value = value.strip().lower()
    if value in _COLOUR_CODES:
        return f"\x1b[{base + _COLOUR_CODES[value]}m"
    parts = value.split(",")
    if len(parts) == 3:
        return f"\x1b[{base + 8};2;{';'.join(str(int(p, 0)) for p in parts)}m"
    return f"\x1b[{base + 8};5;{int(value, 0)}m"


class Colours:
    """rg's default colours changed by ``--colors TYPE:ATTR[:VALUE]`` specs (path, line, column, match,
    and rg 15's highlight: the rest of a matching line, unstyled by default)."""

    def __init__(self, specs: list[str]) -> None:
        self.styles = {"path": _Style(fg="\x1b[35m"), "line": _Style(fg="\x1b[32m"), "column": _Style(),
                       "match": _Style(fg="\x1b[31m", bold=True), "highlight": _Style()}
        for spec in specs:
            self._apply(spec)

    def _apply(self, spec: str) -> None:
        parts = spec.split(":")
        kind = parts[0]
        if kind not in self.styles or len(parts) < 2:
            raise ValueError(f"unrecognized color spec {spec!r}: use TYPE:fg|bg|style:VALUE or TYPE:none")
        style = self.styles[kind]
        attr = parts[1]
        if attr == "none":
            self.styles[kind] = _Style()
        elif attr in ("fg", "bg") and len(parts) == 3:
            setattr(style, attr, _colour(parts[2], 30 if attr == "fg" else 40))
        elif attr == "style" and len(parts) == 3:
            value = parts[2]
            name = value[2:] if value.startswith("no") else value
            if name in ("bold", "underline", "italic"):
                setattr(style, name, not value.startswith("no"))
            elif name != "intense":
                raise ValueError(f"unrecognized style attribute {value!r}. Choose from: nobold, bold, nointense, "
                                 "intense, nounderline, underline, noitalic, italic.")
        else:
            raise ValueError(f"unrecognized color spec {spec!r}")

    def paint(self, kind: str, text: str) -> str:
        return self.styles[kind].paint(text, kind != "match")


@dataclass
class PrintOptions:
    """What rg's flags ask of the printer."""

    with_path: bool
    line_number: bool
    heading: bool
    colours: Colours | None = None
    column: bool = False
    vimgrep: bool = False
    null: bool = False
    trim: bool = False
    max_columns: int | None = None
    preview: bool = False
    context: bool = False
    context_separator: str | None = "--"
    match_separator: str = ":"
    context_field_separator: str = "-"
    only_matching: bool = False
    crlf: bool = False  # --crlf: rg ends the lines it makes (-o, -r, colour, counts) with CRLF
    byte_offset: bool = False  # -b: each line's (with -o or --vimgrep each match's) byte offset in its file
    display: Callable[[str], str] = field(default=lambda p: p)


def line_bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _paint(o: PrintOptions, kind: str, text: str) -> str:
    return o.colours.paint(kind, text) if o.colours is not None else text


def _spans(event: dict[str, Any]) -> list[tuple[int, int]]:
    """0-based byte spans of the event's matches in its line."""
    subs = event.get("submatches") or ([event] if event.get("column") else [])
    return [(s["column"] - 1, s["end_column"] - 1) for s in subs]


def _trimmed(text: str) -> tuple[str, int]:
    stripped = text.lstrip(" \t\x0b\x0c\r")
    return stripped, len(line_bytes(text)) - len(line_bytes(stripped))


def _body(o: PrintOptions, event: dict[str, Any], spans: list[tuple[int, int]]) -> str:
    """The line as rg shows it: trimmed, highlighted, or replaced by the long-line notice."""
    text = event["text"]
    cut = 0
    if o.trim:
        text, cut = _trimmed(text)
    raw = line_bytes(text)
    spans = [(max(a - cut, 0), max(b - cut, 0)) for a, b in spans]
    if o.max_columns and len(raw) + 1 > o.max_columns:
        is_match = event["type"] == "match"
        if o.preview:
            head = raw[:o.max_columns].decode("utf-8", "surrogateescape")
            if (o.colours is not None or o.vimgrep or o.only_matching) and is_match:
                left = sum(1 for a, _ in spans if a >= o.max_columns)
                painted = _highlight(o, head, [(a, min(b, o.max_columns)) for a, b in spans if a < o.max_columns])
                return f"{painted} [... {left} more match{'' if left == 1 else 'es'}]"
            return f"{head} [... omitted end of long line]"
        if is_match and "replacement" in event:  # rg counts the matches the replaced line held
            return f"[Omitted long line with {len(spans)} matches]"
        return "[Omitted long matching line]" if is_match else "[Omitted long context line]"
    if o.colours is not None and event["type"] == "match" and "replacement" not in event:
        if o.only_matching:  # -o: the text is the match itself
            return _highlight(o, text, [(0, len(line_bytes(text)))])
        return _highlight(o, text, spans)
    return text


def _highlight(o: PrintOptions, text: str, spans: list[tuple[int, int]]) -> str:
    """A matching line with its matches painted; with rg 15's ``highlight`` colour, the text around
    them painted too (rg opens it at the line's start and again after each match, and resets at the end)."""
    raw = line_bytes(text)
    around = o.colours.styles["highlight"].codes() if o.colours is not None else ""
    out, pos = ["\x1b[0m" + around] if around else [], 0
    for a, b in spans:
        if a < pos or b > len(raw) or a == b:
            continue
        out.append(raw[pos:a].decode("utf-8", "surrogateescape"))
        out.append(_paint(o, "match", raw[a:b].decode("utf-8", "surrogateescape")) + around)
        pos = b
    out.append(raw[pos:].decode("utf-8", "surrogateescape") + ("\x1b[0m" if around else ""))
    return "".join(out)


def print_events(events: list[dict[str, Any]], o: PrintOptions) -> None:
    """Match and context events as rg prints them: ``path:line:col:text``, headings, ``--`` between groups."""
    write = sys.stdout.write
    current: str | None = None
    last_line = 0
    printed_any = False
    for event in events:
        path = event["path"]
        shown = _paint(o, "path", o.display(path))
        if event["type"] == "notice":  # rg's binary-file lines name the file themselves
            if printed_any and path != current and o.heading and o.with_path:
                write("\n")
            write((shown + ": " if o.with_path else "") + event["text"] + "\n")
            current, last_line, printed_any = path, 0, True
            continue
        if path != current:
            if printed_any and o.heading and o.with_path:
                write("\n")
            if printed_any and o.context and o.context_separator is not None and not (o.heading and o.with_path):
                write(o.context_separator + "\n")
            if o.heading and o.with_path and not o.vimgrep:
                write(shown + ("\0" if o.null else "\n"))
            current, last_line = path, 0
        elif last_line and event["line"] > last_line + 1 and o.context and o.context_separator is not None:
            write(o.context_separator + "\n")
        printed_any = True
        last_line = event["line"] + event["text"].count("\n")
        is_match = event["type"] == "match"
        sep = o.match_separator if is_match else o.context_field_separator
        spans = _spans(event) if is_match else []
        if o.only_matching and is_match and spans:  # -o: the text is the match, its column the match's
            spans = [(0, len(line_bytes(event["text"])))]
        rows = [spans[:1] + spans[1:]] if not o.vimgrep or not spans else [[s] for s in spans]
        for row in rows:
            prefix = ""
            if o.with_path and (not o.heading or o.vimgrep):
                prefix += shown + ("\0" if o.null else sep)
            if o.line_number:
                prefix += _paint(o, "line", str(event["line"])) + sep
            if o.column and is_match and row:
                column = event["column"] if o.only_matching else row[0][0] + 1
                prefix += _paint(o, "column", str(column)) + sep
            if o.byte_offset:  # the event's "offset" is its line's; -o and --vimgrep give the match's
                at = event.get("offset", 0) + ((event["column"] - 1 if o.only_matching else row[0][0] if o.vimgrep
                                                else 0) if is_match and row else 0)
                prefix += str(at) + sep
            body = _body(o, event, row if o.vimgrep else spans)
            # a line's own CRLF; with --crlf rg ends the lines it rebuilds (-o, colour) with CRLF too
            # (a line with -r keeps its own terminator: rg 15, its bug 3100)
            crlf = event.get("cr") or (o.crlf and is_match and (o.only_matching or o.colours is not None))
            write(prefix + body + ("\r\n" if crlf else "\n"))


def print_paths(paths: list[str], o: PrintOptions) -> None:
    """``-l``/``--files-without-match``/``--files``: one path a line (a NUL after each with ``--null``)."""
    end = "\0" if o.null else "\n"
    for path in paths:
        sys.stdout.write(_paint(o, "path", o.display(path)) + end)


def print_counts(counts: list[tuple[str, int]], o: PrintOptions) -> None:
    """``-c``/``--count-matches``: ``path:N``, or ``N`` alone for a single file."""
    end = "\r\n" if o.crlf else "\n"  # rg ends the lines it makes with --crlf's terminator
    for path, count in counts:
        if o.with_path:
            sys.stdout.write(_paint(o, "path", o.display(path)) + ("\0" if o.null else ":") + f"{count}{end}")
        else:
            sys.stdout.write(f"{count}{end}")
