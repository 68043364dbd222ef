"""What rg's printing flags ask (:class:`PrintOptions`, ``--colors``) and how one line's body looks
(trimmed, highlighted, cut at ``-M``), byte for byte as rg 15.2 prints it in a pipe or on a terminal.

The printers that use it are sinks of the search's events (:mod:`sleuth.cli.grep_sinks`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from sleuth.engine.values import Record

__all__ = ["PrintOptions", "Colours", "print_paths", "body", "paint", "line_bytes", "replaced_spans"]

_COLOUR_CODES = {"black": 0, "red": 1, "green": 2, "yellow": 3, "blue": 4, "magenta": 5, "cyan": 6, "white": 7}


class _Style(Record):
    """One kind's colours and attributes (``fg``/``bg``: their escape sequences)."""

    __slots__ = ("fg", "bg", "bold", "underline", "italic")

    def __init__(self, fg: str = "", bg: str = "", bold: bool = False, underline: bool = False,
                 italic: bool = False) -> None:
        self.fg, self.bg, self.bold, self.underline, self.italic = fg, bg, bold, underline, italic

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


def _as_is(path: str) -> str:
    return path


class PrintOptions(Record):
    """What rg's flags ask of the printer. ``crlf``: --crlf, rg ends the lines it makes (-o, -r, colour,
    counts) with CRLF; ``byte_offset``: -b, each line's (with -o or --vimgrep each match's) byte offset
    in its file."""

    __slots__ = ("with_path", "line_number", "heading", "colours", "column", "vimgrep", "null", "trim", "max_columns",
                 "preview", "context", "context_separator", "match_separator", "context_field_separator",
                 "only_matching", "crlf", "byte_offset", "display")

    def __init__(self, with_path: bool, line_number: bool, heading: bool, colours: Colours | None = None,
                 column: bool = False, vimgrep: bool = False, null: bool = False, trim: bool = False,
                 max_columns: int | None = None, preview: bool = False, context: bool = False,
                 context_separator: str | None = "--", match_separator: str = ":", context_field_separator: str = "-",
                 only_matching: bool = False, crlf: bool = False, byte_offset: bool = False,
                 display: Callable[[str], str] = _as_is) -> None:
        self.with_path, self.line_number, self.heading, self.colours = with_path, line_number, heading, colours
        self.column, self.vimgrep, self.null, self.trim = column, vimgrep, null, trim
        self.max_columns, self.preview, self.context = max_columns, preview, context
        self.context_separator, self.match_separator = context_separator, match_separator
        self.context_field_separator, self.only_matching = context_field_separator, only_matching
        self.crlf, self.byte_offset, self.display = crlf, byte_offset, display


def line_bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def paint(o: PrintOptions, kind: str, text: str) -> str:
    return o.colours.paint(kind, text) if o.colours is not None else text


def _trimmed(text: str) -> tuple[str, int]:
    stripped = text.lstrip(" \t\x0b\x0c\r")
    return stripped, len(line_bytes(text)) - len(line_bytes(stripped))


def too_long(o: PrintOptions, text: str, is_match: bool, unterminated: bool = False, cr: bool = False) -> bool:
    """Whether ``-M`` replaces the line: its bytes with its end (``\n``, ``\r\n`` with ``cr``; none for a
    last line without one, or for ``-o``'s match) are more than ``-M``."""
    if not o.max_columns:
        return False
    if o.trim:
        text, _ = _trimmed(text)
    end = 0 if unterminated or (o.only_matching and is_match) else 2 if cr else 1
    return len(line_bytes(text)) + end > o.max_columns


def body(o: PrintOptions, text: str, is_match: bool, replaced: bool, spans: list[tuple[int, int]],
         line_spans: list[tuple[int, int]] | None = None, unterminated: bool = False, cr: bool = False) -> str:
    """The line as rg shows it: trimmed, highlighted, or replaced by the long-line notice. ``text``:
    the line (its replacement when ``replaced``); ``spans``: its matches' 0-based byte spans (in the
    replaced line when ``replaced``: :func:`replaced_spans`); ``line_spans``: all the line's when
    ``spans`` are a ``--vimgrep`` row's (the notices count the line's matches)."""
    cut = 0
    long = too_long(o, text, is_match, unterminated, cr)
    every = spans if line_spans is None else line_spans
    if o.trim:
        text, cut = _trimmed(text)
    raw = line_bytes(text) if o.max_columns else b""
    if long:
        spans = _shifted(spans, cut)
        if o.preview:
            head = raw[:o.max_columns].decode("utf-8", "surrogateescape")
            if replaced and is_match and o.colours is None and not o.vimgrep:  # the replacements past the cut
                left = sum(1 for a, _ in spans if a >= o.max_columns)
                return f"{head} [... {left} more match{'' if left == 1 else 'es'}]"
            if (o.colours is not None or o.vimgrep or o.column or o.only_matching) and is_match:
                left = sum(1 for a, _ in _shifted(every, cut) if a >= o.max_columns)
                painted = _highlight(o, head, [(a, min(b, o.max_columns)) for a, b in spans if a < o.max_columns])
                return f"{painted} [... {left} more match{'' if left == 1 else 'es'}]"
            return f"{head} [... omitted end of long line]"
        if is_match and (replaced or o.vimgrep or o.column):  # rg counts the matches the line held
            return f"[Omitted long line with {len(every)} matches]"
        return "[Omitted long matching line]" if is_match else "[Omitted long context line]"
    if o.colours is not None and is_match and not replaced:
        if o.only_matching:  # -o: the text is the match itself
            return _highlight(o, text, [(0, len(line_bytes(text)))])
        return _highlight(o, text, _shifted(spans, cut))
    return text


def _shifted(spans: list[tuple[int, int]], cut: int) -> list[tuple[int, int]]:
    """``spans`` in a line ``cut`` bytes shorter at its start (``--trim``). Made only where a branch of
    :func:`body` reads them: a plain line (no colour, no column limit) needs none, and making them for
    every line was ~11% of printing a warm answer's 2,161 lines."""
    return [(max(a - cut, 0), max(b - cut, 0)) for a, b in spans]


def replaced_spans(spans: list[tuple[int, int]], replacements: list[str]) -> list[tuple[int, int]]:
    """Where each match's replacement lies in the replaced line (``-r``: each match replaced in turn)."""
    out, shift = [], 0
    for (a, b), replacement in zip(spans, replacements):
        size = len(line_bytes(replacement))
        out.append((a + shift, a + shift + size))
        shift += size - (b - a)
    return out


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
        out.append(paint(o, "match", raw[a:b].decode("utf-8", "surrogateescape")) + around)
        pos = b
    out.append(raw[pos:].decode("utf-8", "surrogateescape") + ("\x1b[0m" if around else ""))
    return "".join(out)


def print_paths(paths: list[str], o: PrintOptions) -> None:
    """``-l``/``--files-without-match``/``--files``: one path a line (a NUL after each with ``--null``)."""
    end = "\0" if o.null else "\n"
    for path in paths:
        sys.stdout.write(paint(o, "path", o.display(path)) + end)
