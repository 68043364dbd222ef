"""Trigram prefilter pieces: file text -> indexed chunks, and required literals -> FTS5 queries.

The store keeps one SQLite FTS5 ``trigram`` row per *chunk* (``detail=none``, contentless),
not per file: a few generated headers of the Linux tree are 14-24 MB and contain nearly every
trigram, so at file level they would be candidates for almost every query. A chunk is about
:data:`CHUNK_BYTES` (16 KiB; :data:`SMALL_CHUNK_BYTES`, 4 KiB, in files from 256 KiB on) cut at a
line end, so a line — and every line-mode match — lies in one chunk, and the searcher reads only
the candidate chunks of a file (:mod:`sleuth.engine.index.pieces`). Measured on the Linux tree
against 64 KiB chunks: the same build CPU (tokenizing dominates, not rows), store 20.5% -> 25.2% of
the corpus, and far fewer bytes to match — the four alternates of the benchsuite 115 MB -> 8 MB in
918 -> 499 files, ``PM_RESUME -i`` 88 MB -> 36 MB (every 1 KiB would still leave 1,331 files: its
trigrams are everywhere in ``pm_runtime_*`` code, which only positions could tell apart).

The FTS5 tokenizer runs with ``case_sensitive 1``: a case-sensitive literal is the AND of its exact
trigrams, a case-insensitive one the AND of the OR of each trigram's ASCII case spellings.
Case-insensitive matching (Unicode simple case folding, as rg does) also maps KELVIN SIGN (U+212A)
to ``k`` and LONG S (U+017F) to ``s``: a chunk containing either is indexed a second time with them
spelled ``k``/``s`` (rare, so free); non-ASCII trigrams are not used for case-insensitive literals.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from typing import Iterator, Union

__all__ = [
    "CHUNK_BYTES",
    "chunk_bytes",
    "Lit",
    "And",
    "Or",
    "Query",
    "ALL",
    "normalize",
    "to_text",
    "chunks",
    "literal_match",
    "trigram_groups",
    "groups_match",
    "pair_spellings",
    "terms_match",
    "simplify",
    "adapt",
]

CHUNK_BYTES = 1 << 14
BIG_FILE_BYTES = 1 << 18  # files from this size on are cut into SMALL_CHUNK_BYTES chunks
SMALL_CHUNK_BYTES = 1 << 12

# The only non-ASCII characters whose simple case folding is ASCII (Unicode CaseFolding.txt, status C/S).
_ASCII_FOLDING = {"\u212a": "k", "\u017f": "s"}


@dataclass(frozen=True, slots=True)
class Lit:
    """A byte string every match contains; ``folded`` when it is compared case-insensitively."""

    data: bytes
    folded: bool = False


@dataclass(frozen=True, slots=True)
class And:
    items: tuple["Query", ...]


@dataclass(frozen=True, slots=True)
class Or:
    items: tuple["Query", ...]


class _All:
    """The query that cannot narrow: every file may match."""

    _instance: "_All | None" = None

    def __repr__(self) -> str:
        return "ALL"


ALL = _All()
Query = Union[Lit, And, Or, _All]


def normalize(data: bytes) -> bytes:
    """A file's bytes as the searcher sees them: UTF-16 with a BOM transcoded to UTF-8 (as rg does)."""
    if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        return data.decode("utf-16", "replace").encode("utf-8", "surrogatepass")
    return data


def to_text(data: bytes) -> str:
    """What the index stores for a chunk of :func:`normalize`'d bytes: UTF-8 decoded with U+FFFD.

    Binary files are indexed too (a NUL is just a character here): the index only narrows, and
    whether a binary file is searched is the searcher's decision.
    """
    text = (data[3:] if data[:3] == codecs.BOM_UTF8 else data).decode("utf-8", "replace")
    if not text.isascii() and any(c in text for c in _ASCII_FOLDING):
        folded = text
        for char, ascii_char in _ASCII_FOLDING.items():
            folded = folded.replace(char, ascii_char)
        text = text + "\n" + folded
    return text


def chunk_bytes(size: int) -> int:
    """The chunk size for a file of ``size`` bytes (see the module docstring for the measurements)."""
    return SMALL_CHUNK_BYTES if size >= BIG_FILE_BYTES else CHUNK_BYTES


def chunks(data: bytes, size: int | None = None) -> Iterator[tuple[int, int]]:
    """Byte ranges ``[start, end)`` covering ``data``, each ending after a newline when one is near;
    about :func:`chunk_bytes` long unless ``size`` is given."""
    n = len(data)
    if size is None:
        size = chunk_bytes(n)
    if n <= size:
        yield 0, n
        return
    start = 0
    while start < n:
        end = min(n, start + size)
        if end < n:
            cut = data.rfind(b"\n", start, end)
            if cut >= start:
                end = cut + 1
            else:  # a line longer than a chunk: extend to its end
                cut = data.find(b"\n", end)
                end = n if cut < 0 else cut + 1
        yield start, end
        start = end


def _fts_string(tri: str) -> str:
    return '"' + tri.replace('"', '""') + '"'


def _valid_runs(data: bytes) -> list[str]:
    """The maximal runs of ``data`` that decode as UTF-8 (each one is a required substring too)."""
    text = data.decode("utf-8", "replace")
    return [run for run in text.split("\ufffd") if run]


def _variants(tri: str) -> list[str]:
    """Every ASCII case spelling of ``tri`` (at most 8): a case-sensitive index answers ``-i`` with an OR."""
    out = [""]
    for ch in tri:
        low, up = ch.lower(), ch.upper()
        out = [v + c for v in out for c in ((low, up) if low != up else (ch,))]
    return out


def trigram_groups(lit: Lit) -> list[list[str]]:
    """The trigrams a chunk containing ``lit`` holds, each as the list of its indexed spellings: one for
    a case-sensitive literal, every ASCII case spelling for a case-insensitive one (ASCII trigrams only).
    A chunk holding ``lit`` holds one spelling of every group; empty when the literal cannot narrow."""
    grams: list[str] = []
    for run in _valid_runs(lit.data):
        for i in range(len(run) - 2):
            tri = run[i:i + 3]
            if "\n" in tri or "\r" in tri:
                continue
            if lit.folded and not tri.isascii():
                continue
            grams.append(tri.lower() if lit.folded else tri)
    return [_variants(t) if lit.folded else [t] for t in dict.fromkeys(grams)]


def groups_match(groups: list[list[str]]) -> str:
    """The FTS5 MATCH expression of the AND of ``groups``, each the OR of its spellings."""
    return " AND ".join(_fts_string(g[0]) if len(g) == 1 else "(" + " OR ".join(map(_fts_string, g)) + ")"
                        for g in groups)


def literal_match(lit: Lit, max_trigrams: int = 12) -> str | None:
    """The FTS5 MATCH expression a chunk containing ``lit`` satisfies, or None when it cannot narrow.

    The index is case-sensitive (case-folded trigrams made ``PM_RESUME`` match every ``pm_resume``:
    2,800 candidate files instead of a few hundred), so a literal is the AND of its trigrams, and a
    case-insensitive one the AND of the OR of each trigram's case spellings (ASCII trigrams only).
    Long literals use a spread of at most ``max_trigrams`` trigrams; the service prefers the rarest
    ones when it knows how common they are (see :func:`sleuth.engine.index.evaluate.choose_groups`).
    """
    groups = trigram_groups(lit)
    if not groups:
        return None
    if len(groups) > max_trigrams:
        step = (len(groups) - 1) / (max_trigrams - 1)
        groups = [groups[round(i * step)] for i in range(max_trigrams)]
    return groups_match(groups)


def pair_spellings(lit: Lit) -> list[str] | None:
    """For a two-character literal ``ab``: the spellings whose indexed trigrams ``ab?`` a chunk holding it has.

    Every ``ab`` in a chunk's text is followed by some character — the chunk ends after a newline —
    unless it ends the text of a file without a final newline (the catalogue marks those *wide*;
    the caller adds them). Which trigrams ``ab?`` exist is read from the index's vocabulary, so any
    neighbour, ASCII or not, is covered: ``\\wAh`` narrows to the files holding ``Ah``. Case-insensitive
    pairs are ASCII only (their case spellings); None when the literal is not such a pair.
    """
    try:
        text = lit.data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(text) != 2 or any(c in text for c in "\0\n\r"):
        return None
    if not lit.folded:
        return [text]
    return _variants(text) if text.isascii() else None


def terms_match(terms: list[str]) -> str | None:
    """The FTS5 MATCH expression of any of ``terms`` (trigrams read from the vocabulary); None for none."""
    return " OR ".join(_fts_string(t) for t in terms) if terms else None


def simplify(query: Query) -> Query:
    """Fold ALL through the tree: ``And(ALL, x) = x``, ``Or(ALL, x) = ALL``; literals that cannot narrow become ALL."""
    if isinstance(query, Lit):
        return query if literal_match(query) is not None or pair_spellings(query) is not None else ALL
    if isinstance(query, And):
        items = [s for s in (simplify(q) for q in query.items) if s is not ALL]
        if not items:
            return ALL
        return items[0] if len(items) == 1 else And(tuple(items))
    if isinstance(query, Or):
        items = []
        for q in query.items:
            s = simplify(q)
            if s is ALL:
                return ALL
            items.append(s)
        if not items:
            return ALL  # an empty OR matches nothing in logic, but never narrow on a degenerate tree
        return items[0] if len(items) == 1 else Or(tuple(items))
    return ALL


def adapt(node: object, folded: bool = False) -> Query:
    """Our query tree from :class:`sleuth.engine.literals.LiteralQuery` (read by shape, not imported:
    the engine's index does not depend on the regex parser). ``None``/``any`` cannot narrow;
    ``bytes``/``str`` are literals; our own :data:`Query` nodes pass through.
    """
    if node is None or node is ALL:
        return ALL
    if isinstance(node, (Lit, And, Or)):
        return node
    if isinstance(node, bytes):
        return Lit(node, folded)
    if isinstance(node, str):
        return Lit(node.encode("utf-8", "surrogateescape"), folded)
    op = getattr(node, "op", None)
    if isinstance(op, str):  # sleuth.engine.literals.LiteralQuery: op any|lit|and|or, lit, casefold, children
        if op == "lit":
            return Lit(bytes(getattr(node, "lit")), folded or bool(getattr(node, "casefold", False)))
        children = tuple(getattr(node, "children", ()))
        if op == "and":
            return And(tuple(adapt(c, folded) for c in children))
        if op == "or":
            return Or(tuple(adapt(c, folded) for c in children))
    return ALL
