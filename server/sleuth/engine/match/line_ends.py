"""Whether a ``multiline`` search is rg's multi-line search: its patterns can match a line end.

rg's searcher searches line by line even with ``-U`` when its matcher cannot match ``\\n`` (its
``multi_line_with_matcher``: the regex's non-matching bytes hold ``\\n``), and only a multi-line
search joins the lines of adjacent matches into one block (one ``--json`` record, ``-c`` counting
matches), and reads a file whole (a NUL past its first 64 KiB then counts on a printed line only).
Which bytes can match follows rg's ``non_matching_bytes``: literals, classes, ``.`` with ``(?s)``,
and every line or text anchor (``^ $ \\A \\z``: rg counts them as matching ``\\n``); word
boundaries match no byte. PCRE2 tells rg nothing, so its searches with ``-U`` are multi-line.
"""

from __future__ import annotations

from sleuth.engine.match.case import pattern_sources
from sleuth.engine.match.nodes import Alt, Assert, Cls, Concat, Dot, Group, Lit, Look, Node, ParseError, Repeat
from sleuth.engine.match.syntax import parse
from sleuth.engine.types import MatchOptions

__all__ = ["spans_lines"]

NL = 0x0A
_ANCHORS = frozenset({"bol", "eol", "bol_crlf", "eol_crlf", "bot", "eot"})


def spans_lines(options: MatchOptions) -> bool:
    """True when ``options`` ask for rg's multi-line search (``multiline``, and a pattern can match
    ``\\n``); a pattern that does not parse says no (the compile reports it)."""
    if not options.multiline:
        return False
    if options.engine == "pcre2":
        return True
    for text in pattern_sources(options):
        try:
            if _can_match_newline(parse(text).node):
                return True
        except ParseError:
            return False
    return False


def _can_match_newline(node: Node) -> bool:
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, Lit):
            if n.cp == NL:
                return True
        elif isinstance(n, Cls):
            if n.cs.contains(NL) != n.negated:
                return True
        elif isinstance(n, Dot):
            if n.dotall:
                return True
        elif isinstance(n, Assert):
            if n.kind in _ANCHORS:
                return True
        elif isinstance(n, (Concat, Alt)):
            stack.extend(n.items)
        elif isinstance(n, (Repeat, Group, Look)):
            stack.append(n.node)
    return False
