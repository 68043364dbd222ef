"""rg's ``-r/--replace``: what a match or a matching line reads as with each match replaced.

Output only: nothing is written. The template follows rg (the Rust regex crate's ``Captures::expand``):
``$$`` is a ``$``; ``${name}`` and ``$name`` name a group, where ``name`` is the longest run of
``[0-9A-Za-z_]`` and is a group number when it is all digits (``$1a`` names a group "1a"); a group
that does not exist or did not take part expands to nothing; a ``$`` that starts no reference is
kept. The matchers give spans only, so the groups come from a second, backtracking program of the
same patterns (:func:`sleuth.engine.match.compiler.capture_regex`), run anchored at each match's
start: a backtracking engine takes the same leftmost-first path that produced the span, so its
groups are the ones rg reports. It runs only on matched lines, and only when the template names a
group other than ``$0``.

The VS Code client's search view has no copy: its Replace takes each match's
``match_replacements`` from a ``sleuth.grep`` call with ``replace``.
"""

from __future__ import annotations

from sleuth.engine.match import Span
from sleuth.engine.types import Replacement

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    import regex

__all__ = ["Replacer", "replacer_for", "parse_template"]

Piece = str | int  # literal text, or a group: its number, or (str subclass below) its name


class _Name(str):
    """A group named in the template (a plain ``str`` piece is literal text)."""


def parse_template(template: str) -> list[Piece]:
    """The template as literal text and group references, in order."""
    pieces: list[Piece] = []
    text: list[str] = []
    i, n = 0, len(template)
    while i < n:
        ch = template[i]
        if ch != "$" or i + 1 >= n:
            text.append(ch)
            i += 1
            continue
        nxt = template[i + 1]
        if nxt == "$":
            text.append("$")
            i += 2
            continue
        if nxt == "{":
            close = template.find("}", i + 2)
            if close < 0:
                text.append(ch)
                i += 1
                continue
            name, i = template[i + 2:close], close + 1
        else:
            j = i + 1
            while j < n and (template[j].isascii() and (template[j].isalnum() or template[j] == "_")):
                j += 1
            if j == i + 1:
                text.append(ch)
                i += 1
                continue
            name, i = template[i + 1:j], j
        if text:
            pieces.append("".join(text))
            text = []
        pieces.append(int(name) if name.isdigit() else _Name(name))
    if text:
        pieces.append("".join(text))
    return pieces


class Replacer:
    """Expands one template against matches of one set of patterns."""

    def __init__(self, replacement: Replacement) -> None:
        self.pieces = parse_template(replacement.template)
        self._program: "regex.Pattern[str] | None" = None
        self._names: dict[str, int] | None = {}  # None: the program's own group names and numbers (pcre2)
        if any(not isinstance(p, str) or isinstance(p, _Name) for p in self.pieces if p != 0) \
                and replacement.match.fuzzy is None:
            from sleuth.engine.match.compiler import capture_regex

            self._program, self._names = capture_regex(replacement.match)

    def _groups(self, data: bytes, span: Span, window: tuple[int, int]) -> list[bytes | None] | None:
        """The match's groups (``None``: did not take part), matched in ``data[window]``; None when the
        capture program does not find this very match (then only ``$0`` expands)."""
        program = self._program
        if program is None:
            return None
        lo, hi = window
        text = data[lo:hi].decode("utf-8", "surrogateescape")
        at = len(data[lo:span.start].decode("utf-8", "surrogateescape"))
        try:
            found = program.match(text, at, timeout=1.0)
        except TimeoutError:
            return None
        if found is None or len(text[:found.end()].encode("utf-8", "surrogateescape")) != span.end - lo:
            return None
        groups: list[bytes | None] = [data[span.start:span.end]]
        named = self._names is not None  # the rg dialect's program names group i "g{i}"
        for index in range(1, program.groups + 1):
            name = f"g{index}"
            value = (found.group(name) if name in program.groupindex else None) if named else found.group(index)
            groups.append(None if value is None else value.encode("utf-8", "surrogateescape"))
        return groups

    def expand(self, data: bytes, span: Span, window: tuple[int, int]) -> bytes:
        """The replacement of the match at ``span`` (``window``: the text the groups are matched in)."""
        groups: list[bytes | None] | None = None
        fetched = False
        out: list[bytes] = []
        for piece in self.pieces:
            if type(piece) is str:
                out.append(piece.encode("utf-8", "surrogatepass"))
                continue
            if piece == 0:
                out.append(data[span.start:span.end])
                continue
            if not fetched:
                groups, fetched = self._groups(data, span, window), True
            if groups is None:
                continue
            names = self._names if self._names is not None else self._program.groupindex  # type: ignore[union-attr]
            index = piece if isinstance(piece, int) else names.get(piece)
            if index is not None and 0 <= index < len(groups) and groups[index] is not None:
                out.append(groups[index])  # type: ignore[arg-type]
        return b"".join(out)

    def line(self, data: bytes, lo: int, hi: int, spans: list[Span], window: tuple[int, int]) -> bytes:
        """Line ``data[lo:hi]`` with every span in it replaced."""
        out: list[bytes] = []
        pos = lo
        for span in spans:
            out.append(data[pos:span.start])
            out.append(self.expand(data, span, window))
            pos = max(pos, span.end)
        out.append(data[pos:hi])
        return b"".join(out)


_REPLACERS: dict[Replacement, Replacer] = {}


def replacer_for(replacement: Replacement) -> Replacer:
    """One :class:`Replacer` per template and patterns in each process (a pool worker sees the same one file after file)."""
    found = _REPLACERS.get(replacement)
    if found is None:
        if len(_REPLACERS) > 16:
            _REPLACERS.clear()
        found = _REPLACERS[replacement] = Replacer(replacement)
    return found
