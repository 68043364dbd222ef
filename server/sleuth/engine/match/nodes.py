"""The AST of a parsed pattern (rg dialect), shared by the emitters and the literal analysis.

Classes are already resolved to code-point sets (:class:`~.charclass.CharSet`) and flags already
applied (``ci`` on literals and classes, ``dotall`` on ``.``, greediness on repetitions), so a
consumer never needs to know the flag scoping rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from sleuth.engine.match.charclass import CharSet

__all__ = [
    "Lit", "Cls", "Dot", "Assert", "Repeat", "Group", "Concat", "Alt", "Look", "Backref", "Empty",
    "Node", "Flags", "ParseError", "Parsed",
]


@dataclass(frozen=True, slots=True)
class Lit:
    cp: int
    ci: bool
    pos: int


@dataclass(frozen=True, slots=True)
class Cls:
    """Matches ``cs`` (case-folded when ``ci``), or its complement when ``negated`` (fold first)."""

    cs: CharSet
    negated: bool
    ci: bool
    pos: int


@dataclass(frozen=True, slots=True)
class Dot:
    dotall: bool
    crlf: bool = False  # (?R): "." excludes "\r" too


@dataclass(frozen=True, slots=True)
class Assert:
    """``kind``: bol eol bol_crlf eol_crlf bot eot wb nwb wstart wend wstart_half wend_half;
    ``ascii`` for ``(?-u)``."""

    kind: str
    ascii: bool = False


@dataclass(frozen=True, slots=True)
class Repeat:
    node: "Node"
    min: int
    max: int | None
    greedy: bool


@dataclass(frozen=True, slots=True)
class Group:
    node: "Node"
    index: int | None


@dataclass(frozen=True, slots=True)
class Concat:
    items: tuple["Node", ...]


@dataclass(frozen=True, slots=True)
class Alt:
    items: tuple["Node", ...]


@dataclass(frozen=True, slots=True)
class Look:
    node: "Node"
    behind: bool
    negate: bool


@dataclass(frozen=True, slots=True)
class Backref:
    index: int


@dataclass(frozen=True, slots=True)
class Empty:
    pass


Node = Union[Lit, Cls, Dot, Assert, Repeat, Group, Concat, Alt, Look, Backref, Empty]


@dataclass(slots=True)
class Flags:
    i: bool = False
    m: bool = True  # rg always enables multi-line mode: ^ and $ match at line boundaries
    s: bool = False
    x: bool = False
    U: bool = False
    u: bool = True
    R: bool = False  # CRLF mode: ^/$ treat "\r", "\n" and "\r\n" as line ends


class ParseError(ValueError):
    """An invalid pattern: ``message`` in rg's wording, ``position`` a 0-based char offset."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.message = message
        self.position = position


@dataclass(slots=True)
class Parsed:
    node: Node
    any_literal: bool = False
    any_uppercase: bool = False
    groups: int = 0
    needs_backtracking: bool = False  # look-around or back-references
    word_boundaries: bool = False  # Unicode \b-like assertions (RE2 has only ASCII ones)
    names: dict[str, int] = field(default_factory=dict)
