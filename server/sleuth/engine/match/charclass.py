"""Code-point sets: the character classes of ripgrep's dialect, resolved to sorted ``(lo, hi)`` ranges.

Every class in a pattern (``[a-z&&[^aeiou]]``, ``\\w``, ``\\p{Greek}``, ``[[:alpha:]]``) becomes one
:class:`CharSet` here, so both emitters (RE2 and the ``regex`` module) receive the same explicit
ranges and the dialect never depends on which engine runs it. This is where rg's Unicode
definitions live: ``\\w`` = Alphabetic + Mark + Decimal_Number + Connector_Punctuation +
Join_Control, ``\\d`` = Decimal_Number, ``\\s`` = White_Space (UTS#18 Annex C, as Rust's
``regex-syntax``); RE2's own Perl classes are ASCII-only and are never emitted.

Unicode properties (``\\p{..}``) are read from the ``regex`` module's tables once per name by
scanning every code point (tens of milliseconds each, cached), so the Unicode version is the
``regex`` module's, within a version or two of ripgrep's. The three sets every ``\\w``/``\\d`` or
case-insensitive class needs are precomputed the same way into :mod:`.unicode_tables` (scanning
them cost a fresh ``sleuth grep '\\wAh'`` 110 ms before the first file); a test checks that the
file still equals the scan, and :func:`write_unicode_tables` regenerates it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from sleuth.engine.plain_typing import NamedTuple


__all__ = [
    "CharSet",
    "MAX_CP",
    "perl_class",
    "posix_class",
    "unicode_property",
    "UnknownProperty",
]

MAX_CP = 0x10FFFF
_SURROGATES = (0xD800, 0xDFFF)


class UnknownProperty(ValueError):
    """A ``\\p{..}`` name neither rg nor the Unicode tables know."""


class CharSet(NamedTuple):
    """A set of code points as sorted, non-overlapping, non-adjacent inclusive ranges."""

    ranges: tuple[tuple[int, int], ...]

    @staticmethod
    def of(pairs: Iterable[tuple[int, int]]) -> "CharSet":
        """Normalise arbitrary (possibly overlapping, unordered) ranges."""
        out: list[list[int]] = []
        for lo, hi in sorted(pairs):
            if out and lo <= out[-1][1] + 1:
                if hi > out[-1][1]:
                    out[-1][1] = hi
            else:
                out.append([lo, hi])
        return CharSet(tuple((lo, hi) for lo, hi in out))

    @staticmethod
    def char(cp: int) -> "CharSet":
        return CharSet(((cp, cp),))

    def union(self, other: "CharSet") -> "CharSet":
        return CharSet.of(self.ranges + other.ranges)

    def negate(self) -> "CharSet":
        out: list[tuple[int, int]] = []
        nxt = 0
        for lo, hi in self.ranges:
            if lo > nxt:
                out.append((nxt, lo - 1))
            nxt = hi + 1
        if nxt <= MAX_CP:
            out.append((nxt, MAX_CP))
        return CharSet(tuple(out))

    def intersect(self, other: "CharSet") -> "CharSet":
        out: list[tuple[int, int]] = []
        a, b = self.ranges, other.ranges
        i = j = 0
        while i < len(a) and j < len(b):
            lo = max(a[i][0], b[j][0])
            hi = min(a[i][1], b[j][1])
            if lo <= hi:
                out.append((lo, hi))
            if a[i][1] < b[j][1]:
                i += 1
            else:
                j += 1
        return CharSet(tuple(out))

    def difference(self, other: "CharSet") -> "CharSet":
        return self.intersect(other.negate())

    def symmetric_difference(self, other: "CharSet") -> "CharSet":
        return self.union(other).difference(self.intersect(other))

    def without(self, cp: int) -> "CharSet":
        return self.difference(CharSet.char(cp))

    def contains(self, cp: int) -> bool:
        return any(lo <= cp <= hi for lo, hi in self.ranges)

    def is_empty(self) -> bool:
        return not self.ranges

    def size(self) -> int:
        return sum(hi - lo + 1 for lo, hi in self.ranges)

    def ascii_only(self) -> "CharSet":
        return self.intersect(CharSet(((0, 0x7F),)))

    def chars(self, limit: int) -> list[int] | None:
        """The members when there are at most ``limit`` of them (literal extraction), else None."""
        if self.size() > limit:
            return None
        return [cp for lo, hi in self.ranges for cp in range(lo, hi + 1)]


@functools.lru_cache(maxsize=1)
def _all_code_points() -> str:
    """Every Unicode scalar value in order (surrogates excluded), for scanning property tables."""
    import array

    cps = array.array("I", range(0, _SURROGATES[0]))
    cps.extend(range(_SURROGATES[1] + 1, MAX_CP + 1))
    return cps.tobytes().decode("utf-32-le" if array.array("I").itemsize == 4 else "utf-32")


def _index_to_cp(i: int) -> int:
    return i if i < _SURROGATES[0] else i + (_SURROGATES[1] - _SURROGATES[0] + 1)


@functools.lru_cache(maxsize=256)
def _scan(regex_class: str) -> CharSet:
    """The code points a ``regex``-module class expression matches."""
    import regex  # imported on first use: a pattern without Unicode classes never needs it

    pairs = [
        (_index_to_cp(m.start()), _index_to_cp(m.end() - 1))
        for m in regex.finditer(regex_class + "+", _all_code_points())
    ]
    return CharSet.of(pairs)


def _loose(name: str) -> str:
    """UAX44-LM3 loose matching, as Rust's regex-syntax does: ignore case, spaces, '_' and '-'."""
    return "".join(ch for ch in name.lower() if ch not in " _-")


_ASCII_ALIASES = {"any": CharSet(((0, MAX_CP),)), "ascii": CharSet(((0, 0x7F),))}


@functools.lru_cache(maxsize=256)
def unicode_property(name: str) -> CharSet:
    """``\\p{name}``: a general category, script (bare names mean Script_Extensions, as in rg),
    binary property, or ``key=value`` / ``key:value`` form. Raises :class:`UnknownProperty`."""
    raw = name.strip()
    if not raw or any(not (ch.isascii() and (ch.isalnum() or ch in " _-=:.&")) for ch in raw):
        raise UnknownProperty(raw)  # also keeps the name from being read as regex syntax below
    key, sep, value = raw.replace(":", "=").partition("=")
    if not sep:
        loose = _loose(raw)
        if loose in _ASCII_ALIASES:
            return _ASCII_ALIASES[loose]
        candidates = [f"\\p{{scx={raw}}}", f"\\p{{{raw}}}"]
    else:
        key_l = _loose(key)
        key_name = {"sc": "sc", "script": "sc", "scx": "scx", "scriptextensions": "scx",
                    "gc": "gc", "generalcategory": "gc"}.get(key_l, key.strip())
        candidates = [f"\\p{{{key_name}={value.strip()}}}"]
    import regex

    for expr in candidates:
        try:
            regex.compile(expr)
        except regex.error:
            continue
        return _scan(expr)
    raise UnknownProperty(raw)


_WHITE_SPACE = CharSet.of([
    (0x09, 0x0D), (0x20, 0x20), (0x85, 0x85), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
    (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000),
])
_ASCII_WORD = CharSet.of([(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)])
_ASCII_DIGIT = CharSet(((0x30, 0x39),))
_ASCII_SPACE = CharSet.of([(0x09, 0x0D), (0x20, 0x20)])


# What each precomputed table of :mod:`.unicode_tables` holds, as a ``regex``-module class.
TABLE_CLASSES = {
    "WORD": r"[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]",  # rg's \w (UTS#18 Annex C)
    "DIGIT": r"\p{Nd}",  # rg's \d
    "CASED": r"[\p{Changes_When_Casemapped}\p{Changes_When_Casefolded}]",  # where case folding can act
}


def _table(name: str) -> CharSet:
    from sleuth.engine.match import unicode_tables

    flat = getattr(unicode_tables, name)
    return CharSet(tuple(zip(flat[::2], flat[1::2])))


def write_unicode_tables(path: str) -> None:
    """Regenerate :mod:`.unicode_tables` from the installed ``regex`` module's Unicode data."""
    import textwrap

    import regex

    lines = [
        '"""Generated by ``charclass.write_unicode_tables`` from the Unicode data of the ``regex``',
        f'module {regex.__version__}: code-point ranges as flat ``lo, hi`` pairs. Do not edit; regenerate."""',
        "",
    ]
    for name, expr in TABLE_CLASSES.items():
        flat = ", ".join(str(bound) for pair in _scan(expr).ranges for bound in pair)
        lines.append(f"{name} = (")
        lines.extend(textwrap.wrap(flat + ",", 100, initial_indent="    ", subsequent_indent="    "))
        lines.append(")")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")


@functools.lru_cache(maxsize=1)
def unicode_word() -> CharSet:
    """rg's ``\\w`` (UTS#18 Annex C ``\\w``)."""
    return _table("WORD")


def perl_class(letter: str, unicode: bool) -> CharSet:
    """``\\d \\s \\w`` and their negations ``\\D \\S \\W``; ASCII definitions under ``(?-u)``."""
    base = letter.lower()
    if base == "d":
        cs = _table("DIGIT") if unicode else _ASCII_DIGIT
    elif base == "s":
        cs = _WHITE_SPACE if unicode else _ASCII_SPACE
    else:
        cs = unicode_word() if unicode else _ASCII_WORD
    return cs.negate() if letter.isupper() else cs


_POSIX: dict[str, list[tuple[int, int]]] = {
    "alnum": [(0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)],
    "alpha": [(0x41, 0x5A), (0x61, 0x7A)],
    "ascii": [(0x00, 0x7F)],
    "blank": [(0x09, 0x09), (0x20, 0x20)],
    "cntrl": [(0x00, 0x1F), (0x7F, 0x7F)],
    "digit": [(0x30, 0x39)],
    "graph": [(0x21, 0x7E)],
    "lower": [(0x61, 0x7A)],
    "print": [(0x20, 0x7E)],
    "punct": [(0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)],
    "space": [(0x09, 0x0D), (0x20, 0x20)],
    "upper": [(0x41, 0x5A)],
    "word": [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)],
    "xdigit": [(0x30, 0x39), (0x41, 0x46), (0x61, 0x66)],
}


def posix_class(name: str) -> CharSet | None:
    """``[[:name:]]`` (always ASCII, as in rg), or None for an unknown name."""
    pairs = _POSIX.get(name)
    return None if pairs is None else CharSet.of(pairs)


def _fold_key(ch: str) -> str:
    folded = ch.casefold()
    if len(folded) == 1:
        return folded
    lowered = ch.lower()
    return lowered if len(lowered) == 1 else ch


@functools.lru_cache(maxsize=1)
def _fold_orbits() -> tuple[tuple[int, ...], dict[int, tuple[int, ...]]]:
    """Simple case-folding orbits (``k K \\u212a``, ``s S \\u017f``, ``σ ς Σ``), keyed by code point."""
    cased = _table("CASED")
    groups: dict[str, set[int]] = {}
    for lo, hi in cased.ranges:
        for cp in range(lo, hi + 1):
            key = _fold_key(chr(cp))
            groups.setdefault(key, set()).add(cp)
            if len(key) == 1:
                groups[key].add(ord(key))
    orbit: dict[int, tuple[int, ...]] = {}
    for members in groups.values():
        if len(members) > 1:
            ordered = tuple(sorted(members))
            for cp in ordered:
                orbit[cp] = ordered
    return tuple(sorted(orbit)), orbit


def case_fold(cs: CharSet) -> CharSet:
    """``cs`` closed under simple case folding (what ``(?i)`` does to a class before negation)."""
    import bisect

    keys, orbit = _fold_orbits()
    extra: list[tuple[int, int]] = []
    for lo, hi in cs.ranges:
        i = bisect.bisect_left(keys, lo)
        while i < len(keys) and keys[i] <= hi:
            extra.extend((cp, cp) for cp in orbit[keys[i]])
            i += 1
    return cs if not extra else CharSet.of(cs.ranges + tuple(extra))
