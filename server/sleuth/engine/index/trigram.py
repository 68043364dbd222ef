"""Trigram prefilter pieces: file bytes -> indexed chunks, and required literals -> trigram queries.

The store keeps the trigrams of every *chunk* (see :mod:`sleuth.engine.index.postings`), not of
every file: a few generated headers of the Linux tree are 14-24 MB and contain nearly every
trigram, so at file level they would be candidates for almost every query. A file of up to
:data:`WHOLE_FILE_BYTES` (16 KiB) is one chunk; a bigger one is cut at line ends into chunks of about
:data:`CHUNK_BYTES` (8 KiB; :data:`SMALL_CHUNK_BYTES`, 4 KiB, from 256 KiB on), so a line — and every
line-mode match — lies in one chunk, and the searcher reads only the candidate chunks of a file
(:mod:`sleuth.engine.pieces`). Measured on the Linux tree against 64 KiB chunks: store 20.5% ->
25.2% of the corpus, and far fewer bytes to match — the four alternates of the benchsuite 115 MB ->
8 MB in 918 -> 499 files, ``PM_RESUME -i`` 88 MB -> 36 MB. Then 8 KiB instead of 16 KiB chunks in
files of 16-256 KiB: store 27.5% -> 29.0% (with the shards vacuumed after the build, -12 MB), the
``-i`` alternation 43 -> 19 MB read in 2,529 -> 1,888 files, ``PM_RESUME -i`` 36 -> 23 MB; 4 KiB there
would have read 11 and 16 MB but put the store at ~31.6%. (Every 1 KiB would still leave
``PM_RESUME -i`` 1,331 files: its trigrams are everywhere in ``pm_runtime_*`` code, which only
positions could tell apart.)

A trigram is three consecutive *bytes* of the file as the searcher sees it (:func:`sleuth.engine.decode.transcoded`),
case-sensitive: a case-sensitive literal is the AND of its byte trigrams, a case-insensitive one
the AND of the OR of each all-ASCII trigram's case spellings. Case-insensitive matching (Unicode
simple case folding, as rg does) also maps KELVIN SIGN (U+212A) to ``k`` and LONG S (U+017F) to
``s``: a chunk containing either is indexed with them spelled ``k``/``s`` as well (rare, so free).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Union

__all__ = [
    "CHUNK_BYTES",
    "chunk_bytes",
    "Lit",
    "Grams",
    "And",
    "Or",
    "Query",
    "ALL",
    "indexed_variants",
    "chunks",
    "trigram_code",
    "trigram_groups",
    "GRAM_BASE",
    "GRAM_BITS",
    "GRAM_MULTIPLIER",
    "gram_code",
    "literal_groups",
    "spellings",
    "pair_spellings",
    "simplify",
    "adapt",
]

WHOLE_FILE_BYTES = 1 << 14  # files up to this size are one chunk
CHUNK_BYTES = 1 << 13
BIG_FILE_BYTES = 1 << 18  # files from this size on are cut into SMALL_CHUNK_BYTES chunks
SMALL_CHUNK_BYTES = 1 << 12

# The only non-ASCII characters whose simple case folding is ASCII (Unicode CaseFolding.txt, status C/S).
_ASCII_FOLDING = {"\u212a".encode(): b"k", "\u017f".encode(): b"s"}


@dataclass(frozen=True, slots=True)
class Lit:
    """A byte string every match contains; ``folded`` when it is compared case-insensitively."""

    data: bytes
    folded: bool = False


@dataclass(frozen=True, slots=True)
class Grams:
    """Chunks holding, for every group, one of its trigrams (numbers, see :func:`trigram_code`): a
    trigram query chosen by the caller (ranked text search), evaluated as given."""

    groups: tuple[tuple[int, ...], ...]


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
Query = Union[Lit, Grams, And, Or, _All]


def indexed_variants(chunk: bytes) -> list[bytes]:
    """The byte strings whose trigrams a chunk is indexed under: itself, and when it holds KELVIN SIGN
    or LONG S, also itself with them spelled ``k``/``s`` (so a case-insensitive ``k`` finds them).

    Binary chunks are indexed too (a NUL is just a byte here): the index only narrows, and whether
    a binary file is searched is the searcher's decision.
    """
    if chunk.isascii() or not any(char in chunk for char in _ASCII_FOLDING):
        return [chunk]
    folded = chunk
    for char, ascii_char in _ASCII_FOLDING.items():
        folded = folded.replace(char, ascii_char)
    return [chunk, folded]


def chunk_bytes(size: int) -> int:
    """The chunk size for a file of ``size`` bytes (see the module docstring for the measurements)."""
    if size <= WHOLE_FILE_BYTES:
        return WHOLE_FILE_BYTES
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


def trigram_code(tri: bytes) -> int:
    """The number of a three-byte trigram, as :func:`sleuth.engine.index.postings.trigram_codes` computes it."""
    return (tri[0] << 16) | (tri[1] << 8) | tri[2]


# Underscore grams: the case-folded five bytes around every ``_`` of a chunk (``pm_re`` of
# ``PM_RESUME``), hashed to one of 2**GRAM_BITS numbers above every trigram number, in the same
# posting lists. Why: trigram sets per chunk cannot tell ``pm_resume`` from ``pm_runtime_resume``
# (which holds every trigram of it, ``m_r`` from ``pm_runtime``), so ``-i PM_RESUME`` read 2,236
# files of the Linux tree for 196 that match; with the gram ``pm_re``, 377. Identifiers joined by
# ``_`` are what code searches look for, and a ``_`` with two neighbours each side is rarer than any
# of its trigrams. Only around ``_``, so cheap: 8.6% more (code, chunk) pairs than trigrams alone
# (every 10th file of the tree), where every folded 5-gram would be 161%. Hashed, because exact
# grams (188,000 distinct in a tenth of the tree, most in few chunks) cost 20 bytes of directory per
# list and segment and 5 bytes per row gap over 255: store 35.5% -> 41.0% of the corpus; in 2**14
# buckets their lists are dense (gaps of one byte), store 38.3%, and a chunk's few hundred grams
# rarely fall in a query's bucket by chance: 377 candidates instead of 355 (bench/README.md).
# Case-folded (ASCII) at build time, so one gram serves ``-i`` and exact-case literals alike.
GRAM_BASE = 1 << 24
GRAM_BITS = 14
GRAM_MULTIPLIER = 0x9E3779B1  # Fibonacci hashing: the top bits of value * 2**32/phi (mod 2**32)
_FOLD = bytes(range(256)).lower()  # ASCII case folding of one byte, as postings.gram_codes does it


def gram_code(gram: bytes) -> int:
    """The number of an underscore gram: five bytes ``ab_de``, case-folded here; as
    :func:`sleuth.engine.index.postings.gram_codes` numbers them (above every trigram number)."""
    folded = gram.translate(_FOLD)
    value = (folded[0] << 24) | (folded[1] << 16) | (folded[3] << 8) | folded[4]
    return GRAM_BASE + (((value * GRAM_MULTIPLIER) & 0xFFFF_FFFF) >> (32 - GRAM_BITS))


def _valid_runs(data: bytes) -> list[str]:
    """The maximal runs of ``data`` that decode as UTF-8 (each one is a required substring too)."""
    text = data.decode("utf-8", "replace")
    return [run for run in text.split("\ufffd") if run]


def spellings(data: bytes) -> list[bytes]:
    """Every ASCII case spelling of ``data`` (a trigram: at most 8); a case-sensitive index answers
    ``-i`` with their OR."""
    out = [b""]
    for byte in data:
        char = bytes((byte,))
        low, up = char.lower(), char.upper()
        out = [v + c for v in out for c in ((low, up) if low != up else (char,))]
    return out


def trigram_groups(lit: Lit) -> list[list[int]]:
    """The trigrams a chunk containing ``lit`` holds, each as the list of its indexed spellings: one for
    a case-sensitive literal, every ASCII case spelling for a case-insensitive one (all-ASCII trigrams
    only). A chunk holding ``lit`` holds one spelling of every group; empty when the literal cannot
    narrow. Trigrams across a line end are left out: chunks are cut after newlines."""
    grams: list[bytes] = []
    for run in _valid_runs(lit.data):
        data = run.encode("utf-8")
        for i in range(len(data) - 2):
            tri = data[i:i + 3]
            if b"\n" in tri or b"\r" in tri:
                continue
            if lit.folded and not tri.isascii():
                continue
            grams.append(tri.lower() if lit.folded else tri)
    return [[trigram_code(t) for t in (spellings(t) if lit.folded else [t])] for t in dict.fromkeys(grams)]


def literal_groups(lit: Lit) -> list[list[int]]:
    """:func:`trigram_groups` plus a group of one underscore gram (see :data:`GRAM_BASE`) for every
    ``_`` of ``lit`` with two bytes before and after it. Every chunk holding ``lit`` holds those
    grams: the same bytes, folded the same way. For a case-insensitive literal only grams of ASCII
    bytes (folding is ASCII's; rg's ``-i`` also matches non-ASCII case variants, whose bytes differ)."""
    groups = trigram_groups(lit)
    codes: list[int] = []
    for run in _valid_runs(lit.data):
        data = run.encode("utf-8")
        for i in range(2, len(data) - 2):
            if data[i] != 0x5F:  # "_"
                continue
            gram = data[i - 2:i + 3]
            if b"\n" in gram or b"\r" in gram or (lit.folded and not gram.isascii()):
                continue
            codes.append(gram_code(gram))
    return groups + [[code] for code in dict.fromkeys(codes)]


def pair_spellings(lit: Lit) -> list[int] | None:
    """For a two-byte literal ``ab``: its spellings as numbers ``(a << 8) | b``; a chunk holding it
    holds a trigram ``ab?`` of one of them.

    Every ``ab`` in a chunk is followed by some byte — the chunk ends after a newline — unless it
    ends the text of a file without a final newline (the catalogue marks those *wide*; the caller
    adds them). Which trigrams ``ab?`` exist is read from the index, so any neighbour, ASCII or not,
    is covered: ``\\wAh`` narrows to the files holding ``Ah``. None when the literal is not such a pair.
    """
    data = lit.data
    if len(data) != 2 or not data.isascii() or any(c in data for c in b"\0\n\r"):
        return None
    return [(s[0] << 8) | s[1] for s in (spellings(data) if lit.folded else [data])]


def exceeds_literals(node: object, limit: int) -> bool:
    """Whether a literal query (ours or a :class:`LiteralQuery`, read by shape as :func:`adapt` does)
    has more than ``limit`` literals; the walk stops there, so a 10,000-pattern query costs no more."""
    stack, seen = [node], 0
    while stack:
        item = stack.pop()
        if isinstance(item, (Lit, Grams, bytes, str)) or getattr(item, "op", None) == "lit":
            seen += 1
            if seen > limit:
                return True
        elif isinstance(item, (And, Or)):
            stack.extend(item.items)
        else:
            stack.extend(getattr(item, "children", ()))
    return False


def simplify(query: Query) -> Query:
    """Fold ALL through the tree: ``And(ALL, x) = x``, ``Or(ALL, x) = ALL``; literals that cannot narrow become ALL."""
    if isinstance(query, Lit):
        return query if trigram_groups(query) or pair_spellings(query) is not None else ALL
    if isinstance(query, Grams):
        return query if query.groups and all(query.groups) else ALL
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
    """Our query tree from :class:`sleuth.engine.match.literals.LiteralQuery` (read by shape, not imported:
    the engine's index does not depend on the regex parser). ``None``/``any`` cannot narrow;
    ``bytes``/``str`` are literals; our own :data:`Query` nodes pass through.
    """
    if node is None or node is ALL:
        return ALL
    if isinstance(node, (Lit, Grams, And, Or)):
        return node
    if isinstance(node, bytes):
        return Lit(node, folded)
    if isinstance(node, str):
        return Lit(node.encode("utf-8", "surrogateescape"), folded)
    op = getattr(node, "op", None)
    if isinstance(op, str):  # sleuth.engine.match.literals.LiteralQuery: op any|lit|and|or, lit, casefold, children
        if op == "lit":
            return Lit(bytes(getattr(node, "lit")), folded or bool(getattr(node, "casefold", False)))
        children = tuple(getattr(node, "children", ()))
        if op == "and":
            return And(tuple(adapt(c, folded) for c in children))
        if op == "or":
            return Or(tuple(adapt(c, folded) for c in children))
    return ALL
