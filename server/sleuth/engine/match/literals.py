"""Required literals: what text any match of a pattern must contain, as a small AND/OR tree.

After Google codesearch's regexp -> trigram query and ripgrep's ``crates/index`` ``literal.rs``:
the pattern is parsed (rg dialect, :mod:`sleuth.engine.match.syntax`) and every node is
summarised as either an *exact* set (the node matches one of a few known strings) or a
*query* that any match satisfies. Concatenations multiply exact sets while they stay small and
otherwise AND their parts; alternations OR; repetitions with ``min >= 1`` keep their child's
query; classes of up to 4 characters become exact one-character sets; everything else is
:data:`ANY` (no constraint). Examples::

    PM_RESUME                       -> "PM_RESUME"
    [A-Z]+_RESUME                   -> "_RESUME"
    ERR_SYS|PME_TURN_OFF            -> OR("ERR_SYS", "PME_TURN_OFF")
    foo.*bar                        -> AND("foo", "bar")
    \\w{5}\\s+\\w{5}                   -> ANY

The contract, which the index helper relies on (trigram prefilter) and :meth:`~sleuth.engine.match.base.Matcher.may_match`
enforces: **if the pattern matches anywhere in a buffer, the buffer satisfies the query**
(:meth:`LiteralQuery.satisfied_by`). A query never promises more than that, so a literal may be
shorter than 3 bytes (an index treats such a leaf as ANY). ``casefold`` leaves hold the literal
as written in the pattern; compare them case-insensitively: ``lit.decode().casefold()`` against
the casefolded text is always safe (it accepts at least every case variant RE2's ``(?i)`` accepts).
With ``fuzzy`` set, a literal pattern of length L with at most N edits must contain one of N+1
disjoint pieces exactly (pigeonhole): the query is the OR of those pieces.
"""

from __future__ import annotations

import _thread  # threading.Lock and threading.local are _thread's: no threading for a cold grep (issue 30)
from collections.abc import Callable, Iterable, Sequence

from sleuth.engine.match.case import resolve_case
from sleuth.engine.match.syntax import (
    Alt, Assert, Backref, Cls, Concat, Dot, Empty, Group, Lit, Look, Node, ParseError, Repeat, escape, parse,
)
from sleuth.engine.types import MatchOptions
from sleuth.engine.values import Value, fill

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import Literal, TypeAlias

__all__ = ["LiteralQuery", "ANY", "required_literals", "query_for_patterns", "query_for_node", "fuzzy_pieces", "literal_text"]

Op: TypeAlias = "Literal['any', 'lit', 'and', 'or']"
_MAX_EXACT = 16  # the largest exact set kept before it is turned into a query
_MAX_CLASS = 4  # classes with at most this many members become exact sets


class LiteralQuery(Value):
    """``any`` (no constraint), ``lit`` (``lit`` bytes occur; case-insensitively if ``casefold``),
    ``and``/``or`` of ``children``."""

    __slots__ = ("op", "lit", "casefold", "children")
    op: Op
    lit: bytes
    casefold: bool
    children: tuple[LiteralQuery, ...]

    def __init__(self, op: Op, lit: bytes = b"", casefold: bool = False, children: tuple[LiteralQuery, ...] = ()) -> None:
        fill(self, "op", op)
        fill(self, "lit", lit)
        fill(self, "casefold", casefold)
        fill(self, "children", children)

    @staticmethod
    def literal(text: str, casefold: bool = False) -> "LiteralQuery":
        return ANY if not text else LiteralQuery("lit", text.encode("utf-8"), casefold)

    @staticmethod
    def all_of(parts: Iterable["LiteralQuery"]) -> "LiteralQuery":
        flat: dict[LiteralQuery, None] = {}  # an ordered set: 10,000 -e patterns de-duplicate in linear time
        for part in parts:
            if part.op == "any":
                continue
            flat.update(dict.fromkeys(part.children if part.op == "and" else (part,)))
        return _combine("and", flat)

    @staticmethod
    def any_of(parts: Iterable["LiteralQuery"]) -> "LiteralQuery":
        flat: dict[LiteralQuery, None] = {}
        for part in parts:
            if part.op == "any":
                return ANY
            flat.update(dict.fromkeys(part.children if part.op == "or" else (part,)))
        return _combine("or", flat)

    def satisfied_by(self, data: bytes) -> bool:
        """The reference evaluation (slow and simple): does ``data`` meet the query?"""
        folded = _Folded(data)
        return self._eval(data, folded)

    def _eval(self, data: bytes, folded: "_Folded") -> bool:
        if self.op == "any":
            return True
        if self.op == "lit":
            if self.casefold:
                return self.lit.decode("utf-8", "surrogateescape").casefold() in folded.text
            return self.lit in data
        results = (child._eval(data, folded) for child in self.children)
        return all(results) if self.op == "and" else any(results)

    def literals(self) -> list[bytes]:
        """Every leaf literal, in order."""
        if self.op == "lit":
            return [self.lit]
        return [lit for child in self.children for lit in child.literals()]

    def __str__(self) -> str:
        if self.op == "any":
            return "ANY"
        if self.op == "lit":
            return ("i" if self.casefold else "") + repr(self.lit.decode("utf-8", "replace"))
        return self.op.upper() + "(" + ", ".join(map(str, self.children)) + ")"


ANY = LiteralQuery("any")


def _combine(op: Op, children: dict[LiteralQuery, None]) -> LiteralQuery:
    if not children:
        return ANY
    if len(children) == 1:
        return next(iter(children))
    return LiteralQuery(op, children=tuple(children))


class _Folded:
    __slots__ = ("data", "_text")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self._text: str | None = None

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = self.data.decode("utf-8", "surrogateescape").casefold()
        return self._text


class _Info(Value):
    """``exact``: the node matches exactly one of these strings; else ``query``: what any match of the
    node satisfies; ``ci``: some literal in the exact set is case-insensitive."""

    __slots__ = ("exact", "query", "ci")
    exact: frozenset[str] | None
    query: LiteralQuery
    ci: bool

    def __init__(self, exact: frozenset[str] | None, query: LiteralQuery, ci: bool = False) -> None:
        fill(self, "exact", exact)
        fill(self, "query", query)
        fill(self, "ci", ci)


def _exact_query(exact: frozenset[str], ci: bool) -> LiteralQuery:
    if "" in exact:
        return ANY
    return LiteralQuery.any_of(LiteralQuery.literal(s, ci) for s in sorted(exact))


def _as_query(info: _Info) -> LiteralQuery:
    return _exact_query(info.exact, info.ci) if info.exact is not None else info.query


def _analyse(node: Node) -> _Info:
    if isinstance(node, Lit):
        return _Info(frozenset({chr(node.cp)}), ANY, node.ci)
    if isinstance(node, Cls):
        if node.negated:
            return _Info(None, ANY)
        members = node.cs.chars(_MAX_CLASS)
        if members is None or not members:
            return _Info(None, ANY)
        return _Info(frozenset(chr(cp) for cp in members), ANY, node.ci)
    if isinstance(node, (Assert, Empty, Look)):
        return _Info(frozenset({""}), ANY)
    if isinstance(node, (Dot, Backref)):
        return _Info(None, ANY)
    if isinstance(node, Group):
        return _analyse(node.node)
    if isinstance(node, Repeat):
        return _repeat(node)
    if isinstance(node, Concat):
        return _concat([_analyse(item) for item in node.items])
    if isinstance(node, Alt):
        infos = [_analyse(item) for item in node.items]
        if all(i.exact is not None for i in infos):
            union = frozenset().union(*(i.exact for i in infos))  # type: ignore[arg-type]
            if len(union) <= _MAX_EXACT:
                return _Info(union, ANY, any(i.ci for i in infos))
        return _Info(None, LiteralQuery.any_of(_as_query(i) for i in infos))
    raise AssertionError(f"unknown node {node!r}")  # pragma: no cover


def _repeat(node: Repeat) -> _Info:
    child = _analyse(node.node)
    if node.min == 0:
        if node.max == 1 and child.exact is not None and len(child.exact) < _MAX_EXACT:
            return _Info(child.exact | {""}, ANY, child.ci)
        return _Info(None, ANY)
    if child.exact is not None and node.min == node.max and node.min <= 8:
        product: frozenset[str] | None = frozenset({""})
        for _ in range(node.min):
            product = _cross(product, child.exact)
            if product is None:
                break
        if product is not None:
            return _Info(product, ANY, child.ci)
    return _Info(None, _as_query(child))


def _cross(left: frozenset[str] | None, right: frozenset[str]) -> frozenset[str] | None:
    if left is None or len(left) * len(right) > _MAX_EXACT:
        return None
    return frozenset(a + b for a in left for b in right)


def _concat(infos: list[_Info]) -> _Info:
    parts: list[LiteralQuery] = []
    current: frozenset[str] | None = frozenset({""})
    ci = False
    whole_exact = True
    for info in infos:
        if info.exact is not None and current is not None:
            crossed = _cross(current, info.exact)
            if crossed is not None:
                current = crossed
                ci = ci or info.ci
                continue
        whole_exact = False
        if current is not None:
            parts.append(_exact_query(current, ci))
        if info.exact is not None:
            current, ci = info.exact, info.ci
        else:
            parts.append(info.query)
            current, ci = None, False
    if whole_exact and current is not None:
        return _Info(current, ANY, ci)
    if current is not None:
        parts.append(_exact_query(current, ci))
    return _Info(None, LiteralQuery.all_of(parts))


def query_for_node(node: Node) -> LiteralQuery:
    """The query every match of ``node`` satisfies."""
    return _as_query(_analyse(node))


def fuzzy_pieces(text: str, edits: int) -> list[str]:
    """``text`` cut into ``edits + 1`` disjoint pieces; one must survive ``edits`` edits intact.
    Empty when the text is too short for every piece to be non-empty."""
    count = edits + 1
    if len(text) < count:
        return []
    size, extra = divmod(len(text), count)
    pieces, pos = [], 0
    for k in range(count):
        step = size + (1 if k < extra else 0)
        pieces.append(text[pos : pos + step])
        pos += step
    return pieces


def literal_text(node: Node) -> str | None:
    """The literal a pattern denotes when it is nothing but literals (for fuzzy pieces)."""
    if isinstance(node, Lit):
        return chr(node.cp)
    if isinstance(node, Group):
        return literal_text(node.node)
    if isinstance(node, Concat):
        parts = [literal_text(item) for item in node.items]
        return None if any(p is None for p in parts) else "".join(parts)  # type: ignore[arg-type]
    return None


_QUERIES: dict[MatchOptions, LiteralQuery] = {}  # the last few searches' queries (the index asks again)
_QUERIES_KEPT = 64
_QUERIES_LOCK = _thread.allocate_lock()


def required_literals(options: MatchOptions) -> LiteralQuery:
    """The :class:`LiteralQuery` any match of ``options`` satisfies (see the module docstring).
    Invalid patterns give :data:`ANY` (compile_matcher reports the error)."""
    found = _QUERIES.get(options)
    if found is not None:
        return found
    try:
        ci = resolve_case(options)
        nodes = [parse(escape(p) if options.fixed_strings else p, case_insensitive=ci).node for p in options.patterns]
    except ParseError:
        return ANY
    return query_for_patterns(options, nodes, ci)


def query_for_patterns(options: MatchOptions, nodes: Sequence[Node], ci: bool,
                       poll: Callable[[int], None] | None = None) -> LiteralQuery:
    """:func:`required_literals` from patterns the caller parsed already (the compiler: each of
    10,000 ``-e`` patterns is parsed once, not once per step); remembered for ``required_literals``.
    ``poll(i)`` is called before pattern ``i``: the compiler's deadline check, which may raise."""
    queries = []
    for i, node in enumerate(nodes):
        if poll is not None:
            poll(i)
        if options.fuzzy:
            literal = literal_text(node)
            pieces = fuzzy_pieces(literal, options.fuzzy) if literal else []
            if not pieces:
                queries = [ANY]
                break
            queries.append(LiteralQuery.any_of(LiteralQuery.literal(p, ci) for p in pieces))
        else:
            queries.append(query_for_node(node))
    query = LiteralQuery.any_of(queries)
    with _QUERIES_LOCK:  # searches compile on several threads
        if len(_QUERIES) >= _QUERIES_KEPT:
            _QUERIES.pop(next(iter(_QUERIES)))
        _QUERIES[options] = query
    return query
