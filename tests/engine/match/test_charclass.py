"""Code-point sets: algebra (property-tested against Python sets), rg's Unicode classes, folding."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sleuth.engine.match import charclass
from sleuth.engine.match.charclass import (
    CharSet, case_fold, perl_class, posix_class, unicode_property, unicode_word, _scan,
)

_POINTS = st.lists(st.integers(0, 300), max_size=40)


def _set(points: list[int]) -> CharSet:
    return CharSet.of((p, p) for p in points)


def _members(cs: CharSet, limit: int = 301) -> set[int]:
    return {cp for lo, hi in cs.ranges for cp in range(lo, min(hi, limit - 1) + 1)}


@given(_POINTS, _POINTS)
def test_set_algebra_matches_python_sets(a: list[int], b: list[int]) -> None:
    x, y = _set(a), _set(b)
    assert _members(x.union(y)) == set(a) | set(b)
    assert _members(x.intersect(y)) == set(a) & set(b)
    assert _members(x.difference(y)) == set(a) - set(b)
    assert _members(x.symmetric_difference(y)) == set(a) ^ set(b)
    assert _members(x.negate().negate()) == set(a)
    assert x.negate().size() == 0x110000 - len(set(a))


def test_ranges_are_normalised() -> None:
    assert CharSet.of([(5, 9), (1, 3), (4, 4), (20, 30), (25, 26)]).ranges == ((1, 9), (20, 30))


def test_rg_perl_classes_are_unicode() -> None:
    word = perl_class("w", True)
    for ch in "aZ_9éßΣ٣\u200d\u0301Ⅰ":
        assert word.contains(ord(ch)), ch
    for ch in " -.\u00a0—":
        assert not word.contains(ord(ch)), ch
    assert perl_class("d", True).contains(ord("٣")) and not perl_class("d", False).contains(ord("٣"))
    assert perl_class("s", True).contains(0x2028) and perl_class("s", True).contains(0xA0)
    assert not perl_class("W", True).contains(ord("é"))


def test_the_regex_module_word_class_is_rgs() -> None:
    """The regex emitter writes \\w, \\b natively: that is only right while these agree."""
    assert _scan(r"\w") == unicode_word()
    assert _scan(r"\d") == unicode_property("Nd")
    assert _scan(r"\s") == perl_class("s", True)


def test_properties_and_posix() -> None:
    greek = unicode_property("Greek")
    assert greek.contains(ord("σ")) and not greek.contains(ord("a"))
    assert unicode_property("Letter") == unicode_property("L") == unicode_property("gc=L")
    assert unicode_property("sc:Latin").contains(ord("é"))
    alpha = posix_class("alpha")
    assert alpha is not None and alpha.contains(ord("a")) and not alpha.contains(ord("é"))
    assert posix_class("nope") is None


def test_case_fold_closes_simple_folding_orbits() -> None:
    assert _members(case_fold(CharSet.char(ord("k"))), 0x2200) == {ord("k"), ord("K"), 0x212A}
    assert _members(case_fold(CharSet.char(ord("s"))), 0x2200) == {ord("s"), ord("S"), 0x17F}
    assert _members(case_fold(CharSet.char(ord("σ"))), 0x2200) == {ord("σ"), ord("Σ"), ord("ς")}
    assert _members(case_fold(CharSet.char(ord("i"))), 0x2200) == {ord("i"), ord("I")}  # no Turkic dotless i


@pytest.mark.parametrize("name", sorted(charclass.TABLE_CLASSES))
def test_precomputed_unicode_tables_equal_the_regex_modules_data(name: str) -> None:
    """``unicode_tables.py`` is generated; if the ``regex`` module's Unicode data moved on, this
    fails: regenerate with ``charclass.write_unicode_tables(<path of unicode_tables.py>)``."""
    assert charclass._table(name) == charclass._scan(charclass.TABLE_CLASSES[name])
