"""AST -> pattern text for the two engines, with rg's line-mode rules applied.

``to_re2`` writes RE2 syntax: every class as explicit ``\\x{..}`` ranges (RE2's ``\\w \\d \\s``
are ASCII-only, rg's are Unicode), captures dropped, ``.`` and classes kept off ``\\n`` in line
mode (rg strips the line terminator from every class instead of failing). Word-boundary
assertions are emitted as RE2's ASCII ``\\b``/``\\B``, which is exact only on ASCII text: the
caller uses that program for ASCII buffers only (:mod:`.engines`). Look-around and
back-references raise :class:`Unsupported`.

``to_regex`` writes the ``regex`` module's syntax for ``str`` text, with the same explicit
classes, except that rg's ``\\w``/``\\W`` and word assertions use the module's own ``\\w \\b \\m \\M``
(its Unicode ``\\w`` equals rg's, a test guards that; the explicit 700-range class is far slower).
With ``ascii_text`` the RE2 text keeps only the ASCII members of each class: a smaller, faster
program that is exact on ASCII buffers.
"""

from __future__ import annotations

from sleuth.engine.match.charclass import MAX_CP, CharSet, case_fold, perl_class
from sleuth.engine.match.syntax import (
    Alt, Assert, Backref, Cls, Concat, Dot, Empty, Group, Lit, Look, Node, ParseError, Repeat,
)

__all__ = ["Unsupported", "to_re2", "to_regex", "check_line_mode", "char_class_text", "word_wrap", "word_lookaround"]

NL = 0x0A
_HALF = (MAX_CP + 1) // 2


class Unsupported(Exception):
    """The AST uses something the target engine cannot express."""


def check_line_mode(node: Node) -> None:
    """rg's rule: a pattern that must match ``\\n`` is an error unless multiline (crates/regex ban.rs)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, Lit) and n.cp == NL:
            raise ParseError(_BANNED, n.pos)
        if isinstance(n, Cls):
            effective = n.cs.negate() if n.negated else n.cs
            if effective.size() == 1 and effective.contains(NL):
                raise ParseError(_BANNED, n.pos)
        if isinstance(n, (Concat, Alt)):
            stack.extend(n.items)
        elif isinstance(n, (Repeat, Group, Look)):
            stack.append(n.node)


_BANNED = 'the literal "\\n" is not allowed in a regex; set multiline to match across lines'


def _hex_re2(cp: int) -> str:
    if cp < 0x80 and (chr(cp).isalnum()):
        return chr(cp)
    return "\\x{%X}" % cp


def _hex_regex(cp: int) -> str:
    if cp < 0x80 and chr(cp).isalnum():
        return chr(cp)
    return "\\U%08X" % cp if cp > 0xFFFF else "\\u%04X" % cp


def char_class_text(cs: CharSet, negated: bool, hexer) -> str:  # type: ignore[no-untyped-def]
    """``[..]`` for ``cs`` (or its complement); the empty set becomes a class matching nothing."""
    if cs.is_empty():
        full = f"{hexer(0)}-{hexer(MAX_CP)}"
        return f"[{full}]" if negated else f"[^{full}]"
    parts = []
    for lo, hi in cs.ranges:
        parts.append(hexer(lo) if lo == hi else f"{hexer(lo)}-{hexer(hi)}")
    return ("[^" if negated else "[") + "".join(parts) + "]"


class _Emitter:
    def __init__(self, line_mode: bool, re2: bool, ascii_text: bool = False) -> None:
        self.line_mode = line_mode
        self.re2 = re2
        self.ascii_text = ascii_text
        self.hexer = _hex_re2 if re2 else _hex_regex

    def cls(self, cs: CharSet, negated: bool, ci: bool) -> str:
        if self.line_mode:
            cs = cs.union(CharSet.char(NL)) if negated else cs.without(NL)
        if self.ascii_text:  # exact on ASCII haystacks only: drop what cannot occur there
            cs = (case_fold(cs) if ci else cs).ascii_only()
        if not negated and not ci and cs.size() > _HALF:
            cs, negated = cs.negate(), True  # \W, \S, \D: write the small complement
        if not self.re2:
            native = _native_regex_class(cs, negated)
            if native is not None:
                return native
        text = char_class_text(cs, negated, self.hexer)
        return f"(?i:{text})" if ci else text

    def word_class(self, ascii_only: bool) -> str:
        return self.cls(perl_class("w", not ascii_only), False, False)

    def emit(self, node: Node) -> str:
        if isinstance(node, Lit):
            text = self.hexer(node.cp)
            return f"(?i:{text})" if node.ci else text
        if isinstance(node, Cls):
            return self.cls(node.cs, node.negated, node.ci)
        if isinstance(node, Dot):
            if node.dotall and not self.line_mode:
                return "(?s:.)"
            return "[^\\n\\r]" if node.crlf and not node.dotall else "[^\\n]"
        if isinstance(node, Assert):
            return self.assertion(node)
        if isinstance(node, Repeat):
            if node.max is None:
                quant = {0: "*", 1: "+"}.get(node.min, "{%d,}" % node.min)
            elif node.min == node.max:
                quant = "{%d}" % node.min
            elif (node.min, node.max) == (0, 1):
                quant = "?"
            else:
                quant = "{%d,%d}" % (node.min, node.max)
            return f"(?:{self.emit(node.node)}){quant}" + ("" if node.greedy else "?")
        if isinstance(node, Group):
            inner = self.emit(node.node)
            if node.index is not None and not self.re2:
                return f"(?P<g{node.index}>{inner})"
            return f"(?:{inner})"
        if isinstance(node, Concat):
            return "".join(self.concat_items(node.items))
        if isinstance(node, Alt):
            return "(?:" + "|".join(self.emit(item) for item in node.items) + ")"
        if isinstance(node, Empty):
            return "(?:)"
        if isinstance(node, Look):
            if self.re2:
                raise Unsupported("look-around")
            op = ("(?<" if node.behind else "(?") + ("!" if node.negate else "=")
            return f"{op}{self.emit(node.node)})"
        if isinstance(node, Backref):
            if self.re2:
                raise Unsupported("back-reference")
            return f"(?P=g{node.index})"
        raise AssertionError(f"unknown node {node!r}")  # pragma: no cover

    def concat_items(self, items: tuple[Node, ...]) -> list[str]:
        """Runs of case-insensitive literals share one ``(?i:..)`` so RE2 still sees a literal string."""
        out: list[str] = []
        run: list[str] = []
        for item in items:
            if isinstance(item, Lit) and item.ci:
                run.append(self.hexer(item.cp))
                continue
            if run:
                out.append("(?i:" + "".join(run) + ")")
                run = []
            out.append(self.emit(item))
        if run:
            out.append("(?i:" + "".join(run) + ")")
        return out

    def assertion(self, node: Assert) -> str:
        kind = node.kind
        if kind == "bol":
            return "(?m:^)"
        if kind == "eol":
            return "(?m:$)"
        if kind in ("bol_crlf", "eol_crlf"):
            if self.re2:
                raise Unsupported("CRLF line anchors")
            # Rust's CRLF mode: a line ends at "\r", "\n" or "\r\n", never between "\r" and "\n". (rg
            # selects lines so too, but then lists a line's submatches on the line without its "\n",
            # where an empty match may also sit between "\r" and "\n": Sleuth does not list those.)
            return "(?:\\A|(?<=\\n)|(?<=\\r)(?!\\n))" if kind == "bol_crlf" else "(?:\\Z|(?=\\r)|(?<!\\r)(?=\\n))"
        if kind == "bot":
            return "\\A"
        if kind == "eot":
            return "\\z" if self.re2 else "\\Z"
        if self.re2:
            if kind in ("wb", "nwb"):
                return "\\b" if kind == "wb" else "\\B"
            raise Unsupported("word start/end assertion")
        if not node.ascii:  # the regex module's \w is rg's Unicode \w exactly (tested): native is fast
            native = {"wb": "\\b", "nwb": "\\B", "wstart": "\\m", "wend": "\\M",
                      "wstart_half": "(?<!\\w)", "wend_half": "(?!\\w)"}
            return native[kind]
        w = self.word_class(node.ascii)
        before, after, not_before, not_after = f"(?<={w})", f"(?={w})", f"(?<!{w})", f"(?!{w})"
        return {
            "wb": f"(?:{before}{not_after}|{not_before}{after})",
            "nwb": f"(?:{before}{after}|{not_before}{not_after})",
            "wstart": f"{not_before}{after}",
            "wend": f"{before}{not_after}",
            "wstart_half": not_before,
            "wend_half": not_after,
        }[kind]


def _native_regex_class(cs: CharSet, negated: bool) -> str | None:
    """``\\w``-based spellings of rg's word classes for the ``regex`` module (whose Unicode ``\\w``
    equals rg's, and is closed under case folding): a 700-range class is far slower there."""
    word = perl_class("w", True)
    if cs == word:
        return "\\W" if negated else "\\w"
    if negated and cs == word.union(CharSet.char(NL)):
        return "[^\\w\\n]"
    return None


def to_re2(node: Node, *, line_mode: bool, ascii_text: bool = False) -> str:
    """RE2 pattern text (bytes-mode, UTF-8); raises :class:`Unsupported`. With ``ascii_text`` the
    classes keep only their ASCII members: smaller programs, exact on ASCII haystacks only."""
    return _Emitter(line_mode, re2=True, ascii_text=ascii_text).emit(node)


def to_regex(node: Node, *, line_mode: bool) -> str:
    """``regex``-module pattern text for decoded ``str`` haystacks."""
    return _Emitter(line_mode, re2=False).emit(node)


def word_wrap(inner: str, *, line_mode: bool, re2: bool, line_start: bool = True, ascii_text: bool = False) -> str:
    """rg ``-w`` for RE2: ``(?:(?m:^)|\\W)(PAT)(?:\\W|(?m:$))``, group 1 reported; without
    ``line_start`` the leading ``^`` alternative is dropped (see engines.Re2Matcher)."""
    em = _Emitter(line_mode, re2, ascii_text)
    not_word = em.cls(perl_class("W", True), False, False)
    lead = f"(?:(?m:^)|{not_word})" if line_start else not_word
    group = "(" if re2 else "(?P<sleuthw>"
    return f"{lead}{group}{inner})(?:{not_word}|(?m:$))"


def word_lookaround(inner: str) -> str:
    """rg 14's ``-w`` exactly, for the ``regex`` module: ``\\b{start-half}PAT\\b{end-half}``, i.e. no
    word character right before the match and none right after it."""
    return f"(?<!\\w)(?:{inner})(?!\\w)"
