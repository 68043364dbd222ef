"""The AST of a parsed pattern (rg dialect), shared by the emitters and the literal analysis.

Classes are already resolved to code-point sets (:class:`~.charclass.CharSet`) and flags already
applied (``ci`` on literals and classes, ``dotall`` on ``.``, greediness on repetitions), so a
consumer never needs to know the flag scoping rules.

The nodes are immutable values, compared and hashed by their fields (:class:`~sleuth.engine.values.Value`),
not dataclasses: every ``sleuth grep`` imports this module, and building its thirteen frozen slotted
dataclasses cost ~6 ms of a cold call (issue 30, ``bench/cold_start.py``).
"""

from __future__ import annotations

from sleuth.engine.match.charclass import CharSet
from sleuth.engine.values import Value, fill

__all__ = [
    "Lit", "Cls", "Dot", "Assert", "Repeat", "Group", "Concat", "Alt", "Look", "Backref", "Empty",
    "Node", "Flags", "ParseError", "Parsed",
]


class Lit(Value):
    __slots__ = ("cp", "ci", "pos")
    cp: int
    ci: bool
    pos: int

    def __init__(self, cp: int, ci: bool, pos: int) -> None:
        fill(self, "cp", cp)
        fill(self, "ci", ci)
        fill(self, "pos", pos)


class Cls(Value):
    """Matches ``cs`` (case-folded when ``ci``), or its complement when ``negated`` (fold first)."""

    __slots__ = ("cs", "negated", "ci", "pos")
    cs: CharSet
    negated: bool
    ci: bool
    pos: int

    def __init__(self, cs: CharSet, negated: bool, ci: bool, pos: int) -> None:
        fill(self, "cs", cs)
        fill(self, "negated", negated)
        fill(self, "ci", ci)
        fill(self, "pos", pos)


class Dot(Value):
    """``.``; ``crlf`` for ``(?R)``: it excludes ``\\r`` too."""

    __slots__ = ("dotall", "crlf")
    dotall: bool
    crlf: bool

    def __init__(self, dotall: bool, crlf: bool = False) -> None:
        fill(self, "dotall", dotall)
        fill(self, "crlf", crlf)


class Assert(Value):
    """``kind``: bol eol bol_crlf eol_crlf bot eot wb nwb wstart wend wstart_half wend_half;
    ``ascii`` for ``(?-u)``."""

    __slots__ = ("kind", "ascii")
    kind: str
    ascii: bool

    def __init__(self, kind: str, ascii: bool = False) -> None:
        fill(self, "kind", kind)
        fill(self, "ascii", ascii)


class Repeat(Value):
    __slots__ = ("node", "min", "max", "greedy")
    node: Node
    min: int
    max: int | None
    greedy: bool

    def __init__(self, node: Node, min: int, max: int | None, greedy: bool) -> None:  # noqa: A002 (rg's words)
        fill(self, "node", node)
        fill(self, "min", min)
        fill(self, "max", max)
        fill(self, "greedy", greedy)


class Group(Value):
    __slots__ = ("node", "index")
    node: Node
    index: int | None

    def __init__(self, node: Node, index: int | None) -> None:
        fill(self, "node", node)
        fill(self, "index", index)


class Concat(Value):
    __slots__ = ("items",)
    items: tuple[Node, ...]

    def __init__(self, items: tuple[Node, ...]) -> None:
        fill(self, "items", items)


class Alt(Value):
    __slots__ = ("items",)
    items: tuple[Node, ...]

    def __init__(self, items: tuple[Node, ...]) -> None:
        fill(self, "items", items)


class Look(Value):
    __slots__ = ("node", "behind", "negate")
    node: Node
    behind: bool
    negate: bool

    def __init__(self, node: Node, behind: bool, negate: bool) -> None:
        fill(self, "node", node)
        fill(self, "behind", behind)
        fill(self, "negate", negate)


class Backref(Value):
    __slots__ = ("index",)
    index: int

    def __init__(self, index: int) -> None:
        fill(self, "index", index)


class Empty(Value):
    __slots__ = ()


Node = Lit | Cls | Dot | Assert | Repeat | Group | Concat | Alt | Look | Backref | Empty


class Flags:
    """The flags in force at a point of the pattern (a group's ``(?i)`` changes its own copy)."""

    __slots__ = ("i", "m", "s", "x", "U", "u", "R")

    def __init__(self, i: bool = False, m: bool = True, s: bool = False, x: bool = False, U: bool = False,
                 u: bool = True, R: bool = False) -> None:
        self.i = i
        self.m = m  # rg always enables multi-line mode: ^ and $ match at line boundaries
        self.s = s
        self.x = x
        self.U = U
        self.u = u
        self.R = R  # CRLF mode: ^/$ treat "\r", "\n" and "\r\n" as line ends

    def copy(self) -> Flags:
        return Flags(self.i, self.m, self.s, self.x, self.U, self.u, self.R)

    def __repr__(self) -> str:
        return "Flags(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__) + ")"


class ParseError(ValueError):
    """An invalid pattern: ``message`` in rg's wording, ``position`` a 0-based char offset."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.message = message
        self.position = position


class Parsed:
    """A parsed pattern: its tree and what the parse learnt of it."""

    __slots__ = ("node", "any_literal", "any_uppercase", "groups", "needs_backtracking", "word_boundaries", "names")

    def __init__(self, node: Node) -> None:
        self.node = node
        self.any_literal = False
        self.any_uppercase = False
        self.groups = 0
        self.needs_backtracking = False  # look-around or back-references
        self.word_boundaries = False  # Unicode \b-like assertions (RE2 has only ASCII ones)
        self.names: dict[str, int] = {}
