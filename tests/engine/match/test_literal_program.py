"""One case-sensitive ASCII literal is matched without RE2 (issue 30: RE2's import is ~2 ms of a cold
``sleuth grep``): :class:`~sleuth.engine.match.engines.LiteralProgram` answers as RE2's program
would, and the literal prefilter looks for it by ``in`` on a search's first buffers, then by RE2."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sleuth.engine.match import compile_matcher, prefilter
from sleuth.engine.match.engines import LiteralProgram, re2_compile, re2_module
from sleuth.engine.match.literals import LiteralQuery
from sleuth.engine.types import MatchOptions

_BYTES = st.binary(max_size=60).map(lambda b: bytes(x % 6 for x in b).translate(bytes.maketrans(
    bytes(range(6)), b"ab\n\xff\xc3 ")))
_LITERALS = st.text(alphabet="ab ", min_size=1, max_size=4)


@given(data=_BYTES, literal=_LITERALS, pos=st.integers(0, 70), end=st.integers(0, 70))
def test_the_literal_program_answers_as_re2s(data: bytes, literal: str, pos: int, end: int) -> None:
    re2 = re2_module()
    program = re2_compile(re2.escape(literal))
    expected = program.Match(re2._re2.RE2.Anchor.UNANCHORED, data, pos, end)[0]
    assert LiteralProgram(literal.encode()).Match(None, data, pos, end)[0] == expected


def _engine(patterns: list[str], **flags: object) -> type:
    matcher = compile_matcher(MatchOptions(patterns=tuple(patterns), **flags))  # type: ignore[arg-type]
    return type(matcher._any[0]) if matcher._any else type(None)  # type: ignore[attr-defined]


def test_only_a_plain_case_sensitive_ascii_literal_skips_re2() -> None:
    assert _engine(["PM_RESUME"], case="sensitive") is LiteralProgram
    assert _engine(["a.c"], case="sensitive", fixed_strings=True) is LiteralProgram
    assert _engine(["def run"], case="smart") is not LiteralProgram  # smart case: lowercase is caseless
    for patterns, flags in [(["(?i:abc)"], {}), (["a.c"], {}), (["abc"], {"word": True}), (["caf\u00e9"], {}),
                            (["abc", "def"], {}), (["abc"], {"multiline": True}), (["abc"], {"crlf": True})]:
        assert _engine(patterns, case="sensitive", **flags) is not LiteralProgram, (patterns, flags)


@pytest.mark.parametrize("pattern", ["PM_RESUME", "ab", "a.c"])
def test_the_literal_matcher_finds_what_re2_finds(monkeypatch: pytest.MonkeyPatch, pattern: str) -> None:
    options = MatchOptions(patterns=(pattern,), case="sensitive", fixed_strings=True)
    data = b"x PM_RESUME ab a.c PM_RESUMEab\nabc a.ca.c\n\xff\xfeab PM_RESUME\nnone\n"
    fast = compile_matcher(options)
    monkeypatch.setattr("sleuth.engine.match.compiler._literal_pair", lambda *args: None)
    slow = compile_matcher(options)
    assert list(fast.find_iter(data)) == list(slow.find_iter(data)) != []
    assert list(fast.matched_lines(data) or ()) == list(slow.matched_lines(data) or ())  # type: ignore[arg-type]


def test_the_literal_prefilter_hands_over_to_re2(monkeypatch: pytest.MonkeyPatch) -> None:
    """``in`` for the first FIND_FIRST buffers (a read buffer's view copied, a big one handed to RE2
    at once), RE2's literal scan after: the same verdicts on both sides of the switch."""
    compiled: list[str] = []
    original = prefilter.re2_compile
    monkeypatch.setattr(prefilter, "re2_compile", lambda text, **kw: compiled.append(text) or original(text, **kw))
    monkeypatch.setattr(prefilter, "FIND_FIRST", 4)
    check = prefilter.compile_prefilter(LiteralQuery.literal("needle", False), use_hyperscan=False)
    assert check is not None
    buffers = [b"a needle", bytearray(b"no"), memoryview(bytearray(b"xx needle yy"))[:9], memoryview(b"haystack")]
    assert [check(b) for b in buffers] == [True, False, True, False] and compiled == []
    assert check(b"needle") and check(memoryview(b"a needle")) and not check(b"nothing") and len(compiled) == 1
    big = prefilter.compile_prefilter(LiteralQuery.literal("needle", False), use_hyperscan=False)
    assert big is not None and big(memoryview(b"x" * (prefilter._FIND_MAX_VIEW + 1) + b"needle"))
    assert len(compiled) == 2
