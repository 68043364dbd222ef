"""The literal prefilter: both scanners (Hyperscan and the RE2 fallback) must never say "no" to a
buffer the matcher would find a match in, including the Unicode case variants Hyperscan's
ASCII-only caseless mode does not know, and must agree with the reference evaluation on plain
text."""

from __future__ import annotations

import sys

import pytest
import re2
import regex
from hypothesis import example, given
from hypothesis import strategies as st

from sleuth.engine.match import compile_matcher, prefilter
from sleuth.engine.match.literals import LiteralQuery
from sleuth.engine.match.prefilter import _FOLDS_INTO_ASCII, HYPERSCAN_AFTER, compile_prefilter, hyperscan_available
from sleuth.engine.types import MatchOptions
from tests.conftest import under_fallback

SCANNERS = [pytest.param(False, id="re2"),
            pytest.param(True, id="hyperscan",
                         marks=under_fallback("no-hyperscan", not hyperscan_available(),
                                                  "hyperscan is not installed, not usable on this CPU, or not allowed"))]


def lit(text: str, casefold: bool = False) -> LiteralQuery:
    return LiteralQuery.literal(text, casefold)


def test_hyperscan_is_used_where_it_is_declared() -> None:
    """pyproject.toml installs hyperscan on Linux x86-64; there, the fast scanner must be in use
    (unless ``SLEUTH_FORCE_FALLBACKS`` asks for RE2, as on the platforms without its wheel)."""
    import platform

    from sleuth.engine.platform import forced
    if sys.platform == "linux" and platform.machine() == "x86_64" and not forced("no-hyperscan"):
        assert hyperscan_available()


def test_a_few_literals_are_scanned_by_re2_until_the_search_is_big(monkeypatch: pytest.MonkeyPatch) -> None:
    """A small search never builds Hyperscan's scanner (a cold grep in a small folder never imports it,
    tests/cli/test_cold_start.py); the HYPERSCAN_AFTER-th buffer switches to it, and the verdicts are
    the same on both sides of the switch."""
    built: list[object] = []
    original = prefilter._hyperscan_any
    monkeypatch.setattr(prefilter, "_hyperscan_any", lambda leaves: built.append(leaves) or original(leaves))
    check = compile_prefilter(LiteralQuery.any_of([lit("needle", True), lit("PIN")]))
    assert check is not None and not built
    for i in range(2 * HYPERSCAN_AFTER):
        assert check(b"a NeedLe here" if i % 3 == 0 else b"a PIN" if i % 3 == 1 else b"a pin, a haystack") is (i % 3 < 2)
        assert len(built) == (1 if hyperscan_available() and i + 1 >= HYPERSCAN_AFTER else 0)


@pytest.mark.parametrize("use_hyperscan", SCANNERS)
@pytest.mark.parametrize("query, data, expected", [
    (lit("PM_RESUME"), b"x = PM_RESUME;\n", True),
    (lit("PM_RESUME"), b"x = pm_resume;\n", False),
    (lit("PM_RESUME", True), b"x = pm_Resume;\n", True),
    (LiteralQuery.any_of([lit("ERR_SYS"), lit("PME_TURN_OFF")]), b"a\nPME_TURN_OFF\n", True),
    (LiteralQuery.any_of([lit("ERR_SYS"), lit("PME_TURN_OFF")]), b"a\nPME_TURN_ON\n", False),
    (LiteralQuery.all_of([lit("foo"), lit("Bar")]), b"foo and Bar", True),
    (LiteralQuery.all_of([lit("foo"), lit("Bar")]), b"foo and bar", False),
    (lit("caf\u00e9", True), "CAF\u00c9".encode(), True),  # non-ASCII caseless: the RE2 path
    (lit("a\x00b"), b"ab", False),  # a NUL in a literal: not read as a C string
    (lit("a\x00b"), b"xa\x00b", True),
])
def test_examples(use_hyperscan: bool, query: LiteralQuery, data: bytes, expected: bool) -> None:
    check = compile_prefilter(query, use_hyperscan=use_hyperscan)
    assert check is not None
    assert check(data) is expected


@pytest.mark.parametrize("use_hyperscan", SCANNERS)
@pytest.mark.parametrize("letter", sorted(_FOLDS_INTO_ASCII))
def test_unicode_case_variants_of_ascii_letters_pass(use_hyperscan: bool, letter: str) -> None:
    """``LINK`` searched case-insensitively matches ``LIN\\u212a`` (KELVIN SIGN) in RE2 and rg; the
    Hyperscan scanner's caseless mode is ASCII-only, so the variant must reach the matcher."""
    word = f"x{letter}y"
    variant = word.replace(letter, _FOLDS_INTO_ASCII[letter])
    check = compile_prefilter(lit(word.upper(), True), use_hyperscan=use_hyperscan)
    assert check is not None
    assert check(f"... {variant} ...".encode())


def test_the_table_of_non_ascii_folds_is_complete() -> None:
    """Every non-ASCII character that RE2 or the regex module matches case-insensitively against
    an ASCII letter is in the table (a missing one would make the Hyperscan scanner unsound)."""
    every = "".join(chr(code) for code in range(0x80, 0x110000) if not 0xD800 <= code < 0xE000)
    found: dict[str, set[str]] = {}
    for letter in "abcdefghijklmnopqrstuvwxyz":
        options = re2.Options()
        options.case_sensitive = False
        hits = set(re2.compile(letter, options).findall(every)) | set(regex.findall(letter, every, regex.IGNORECASE))
        if hits:
            found[letter] = hits
    assert found == {letter: {char} for letter, char in _FOLDS_INTO_ASCII.items()}


_ALPHABET = st.sampled_from(list("abkKsSiI_ \n") + ["\u212a", "\u017f", "\u0130", "\u00e9", "\u00c9"])
_WORDS = st.text(_ALPHABET, min_size=1, max_size=4)


@st.composite
def queries(draw: st.DrawFn) -> LiteralQuery:
    leaves = [lit(word, draw(st.booleans())) for word in draw(st.lists(_WORDS, min_size=1, max_size=4))]
    if len(leaves) == 1:
        return leaves[0]
    return draw(st.sampled_from([LiteralQuery.any_of, LiteralQuery.all_of]))(leaves)


@given(queries(), st.text(_ALPHABET, max_size=40))
@example(LiteralQuery.any_of([lit("II", False), lit("IKS", True), lit("I", False), lit("K", False)]), "S")  # 7 leaves
# with the fold triggers: one RE2 alternation, which once went caseless as a whole, so LONG S matched "S"
@example(LiteralQuery.any_of([lit("I", False), lit("ÉI", True)]), "Éİ")  # a non-ASCII caseless literal once
# got no fold triggers, and RE2's caseless scan does not fold İ: a false "no" for regex-module patterns
def test_scanners_agree_with_the_reference_evaluation(query: LiteralQuery, text: str) -> None:
    """No false "no" ever; on text without the fold-only characters both scanners are exact."""
    data = text.encode()
    reference = query.satisfied_by(data)
    for use_hyperscan in ([False, True] if hyperscan_available() else [False]):
        check = compile_prefilter(query, use_hyperscan=use_hyperscan)
        verdict = True if check is None else check(data)
        if reference:
            assert verdict, (use_hyperscan, str(query), data)
        elif not any(ch in text for ch in _FOLDS_INTO_ASCII.values()):
            assert not verdict, (use_hyperscan, str(query), data)


@pytest.mark.parametrize("pattern, case, text", [
    ("LINK_REQ_RST|ERR_SYS", "insensitive", "x = lin\u212a_req_rst;\n"),
    ("(?=x)?pin", "insensitive", "P\u0130N\n"),  # the regex module (look-around) folds İ to i
    ("(?=x)?\u00e9in", "insensitive", "\u00c9\u0130N\n"),  # ... in a non-ASCII literal too
    ("PM_RESUME", "insensitive", "pm_re\u017fume\n"),
])
def test_matcher_finds_unicode_case_variants(pattern: str, case: str, text: str) -> None:
    """End to end through ``compile_matcher``: the prefilter lets the buffer through and the
    matcher reports the line."""
    matcher = compile_matcher(MatchOptions(patterns=(pattern,), case=case))
    data = text.encode()
    assert matcher.may_match(data)
    assert list(matcher.find_iter(data, 0, len(data)))
