"""The searcher's line loops (:mod:`sleuth.engine.line_table`): the compiled ones (``_lines.c``) give the
very numbers of the Python ones they replace, which run where it was not built or with
``SLEUTH_FORCE_FALLBACKS=no-compiled-lines`` (``bytes.count``; the matcher's own ``bytes.find`` loop)."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sleuth.engine import line_table
from tests.conftest import under_fallback

compiled = under_fallback("no-compiled-lines", line_table.literal_lines is None,
                          "the compiled candidate-line and newline loops")

_TEXT = st.lists(st.sampled_from(["_RES", "UME", "_RESUME", "\n", "\r\n", "x", "PM", " ", "é", "\xff", "\n\n"]),
                 max_size=60).map(lambda parts: "".join(parts).encode("utf-8", "surrogateescape"))
_LITERALS = st.sampled_from([b"_RESUME", b"_RES", b"x", b"PM_", b"\xc3\xa9", b"UME_RES"])


def _reference_lines(data: bytes, literal: bytes) -> list[int]:
    """Each line holding ``literal``, from the lines themselves: start, end (its newline or the end)."""
    out, start = [], 0
    for line in data.split(b"\n"):
        if literal in line:
            out += [start, start + len(line)]
        start += len(line) + 1
    return out


@compiled
@settings(max_examples=400, deadline=None)
@given(_TEXT, _LITERALS)
@example(b"_RESUME", b"_RESUME")
@example(b"a\n_RESUME_RESUME\n\nb_RESUME", b"_RESUME")
@example(b"\n\n", b"x")
def test_the_lines_holding_a_literal_are_each_line_once_in_order(data: bytes, literal: bytes) -> None:
    assert line_table.literal_lines(data, literal) == _reference_lines(data, literal)  # type: ignore[misc]


@compiled
@settings(max_examples=300, deadline=None)
@given(_TEXT, st.sampled_from(["[A-Z]+_RESUME", "_RES[A-Z]*", r"\w*UME_RES\w*", "PM_", "x"]))
@example(b"A_RESUME B_RESUME\n_RESUME", "[A-Z]+_RESUME")
def test_the_compiled_candidate_lines_match_as_the_find_loop_does(data: bytes, pattern: str) -> None:
    """The matcher's two ways to its candidate lines (:func:`~sleuth.engine.match.engines._literal_lines`)
    give the same lines and spans."""
    from sleuth.engine.match import engines

    literal = {"[A-Z]+_RESUME": b"_RESUME", "_RES[A-Z]*": b"_RES", r"\w*UME_RES\w*": b"UME_RES", "PM_": b"PM_",
               "x": b"x"}[pattern]
    match = engines.re2_compile(pattern).Match
    assert list(engines._listed_lines(data, literal, match)) == list(engines._found_lines(data, literal, match))


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=5000) | _TEXT, st.integers(0, 6000), st.integers(0, 6000))
@example(b"\n" * 4096, 0, 4096)
@example(b"a\n" * 3000, 7, 5003)
def test_newlines_count_as_bytes_count_does(data: bytes, start: int, end: int) -> None:
    assert line_table.newlines(data, start, end) == data.count(b"\n", start, end)


@compiled
def test_the_compiled_loops_are_built_by_the_install() -> None:
    """``pip install -e .`` compiles ``_lines.c`` where a compiler exists (setup.py): the searcher's fast path."""
    assert line_table.newlines is not line_table._newlines
    assert line_table.literal_lines is not None


@compiled
def test_the_compiled_loops_refuse_what_the_searcher_never_asks() -> None:
    with pytest.raises(ValueError):
        line_table.literal_lines(b"a\nb", b"")  # type: ignore[misc]
    with pytest.raises(ValueError):
        line_table.literal_lines(b"a\nb", b"a\nb")  # type: ignore[misc]
    with pytest.raises(ValueError):
        line_table.newlines(b"abc", -1, 2)


@compiled
def test_the_compiled_loops_read_any_buffer() -> None:
    data = bytearray(b"x_RESUME\ny\n_RESUME z\n")
    assert line_table.literal_lines(memoryview(data), b"_RESUME") == [0, 8, 11, 20]  # type: ignore[misc]
    assert line_table.newlines(memoryview(data)[2:], 0, 100) == 3
