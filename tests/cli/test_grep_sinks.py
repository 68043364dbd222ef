"""Each ``sleuth grep`` printer as a sink (:mod:`sleuth.cli.grep_sinks`, :mod:`sleuth.cli.rg_json`):
the result object's items pushed through a :class:`~sleuth.engine.events.Decoder`, what reaches stdout
after each push (streamed: nothing waits for the end unless the mode needs every file)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sleuth.cli.grep_print import Colours, PrintOptions
from sleuth.cli.grep_sinks import Counts, Paths, Quiet, Reversed, Standard, Tally, Tee, Without
from sleuth.cli.rg_json import Json
from sleuth.engine.events import Decoder, Sink, Summary


def _match(path: str, line: int, text: str, col: int = 1, end: int = 2, **extra: Any) -> dict[str, Any]:
    return {"type": "match", "path": path, "line": line, "column": col, "end_column": end, "text": text,
            "match_text": text.encode()[col - 1:end - 1].decode(), **extra}


def _context(path: str, line: int, text: str) -> dict[str, Any]:
    return {"type": "context", "path": path, "line": line, "text": text}


A = [_match("a.py", 1, "xa"), _context("a.py", 2, "ctx"), _match("a.py", 5, "x again")]
B = [_match("b.py", 3, "bx", 2, 3)]


def _opts(**kw: Any) -> PrintOptions:
    base: dict[str, Any] = {"with_path": True, "line_number": True, "heading": False}
    return PrintOptions(**{**base, **kw})


def _push(sink: Sink, capsys: pytest.CaptureFixture[str], *batches: list[dict[str, Any]]) -> list[str]:
    """Each batch through the sink; the output after each, then after the end."""
    decoder = Decoder(sink)
    out = []
    for batch in batches:
        decoder.items(batch)
        out.append(capsys.readouterr().out)
    decoder.end_file()
    sink.finish(Summary(elapsed_ms=1500.0))
    out.append(capsys.readouterr().out)
    return out


def test_standard_prints_each_batch_as_it_comes(capsys: pytest.CaptureFixture[str]) -> None:
    out = _push(Standard(_opts(context=True)), capsys, A, B)
    assert out == ["a.py:1:xa\na.py-2-ctx\n--\na.py:5:x again\n", "--\nb.py:3:bx\n", ""]


def test_standard_headings_columns_and_colours(capsys: pytest.CaptureFixture[str]) -> None:
    out = _push(Standard(_opts(heading=True, column=True)), capsys, A[:1], B)
    assert "".join(out) == "a.py\n1:1:xa\n\nb.py\n3:2:bx\n"
    coloured = _push(Standard(_opts(colours=Colours([]), line_number=False)), capsys, B)
    assert "".join(coloured) == "\x1b[0m\x1b[35mb.py\x1b[0m:b\x1b[0m\x1b[1m\x1b[31mx\x1b[0m\n"


def test_standard_vimgrep_only_matching_and_replacement(capsys: pytest.CaptureFixture[str]) -> None:
    two = _match("a.py", 4, "x_x", 1, 2, submatches=[{"column": 1, "end_column": 2, "match_text": "x"},
                                                      {"column": 3, "end_column": 4, "match_text": "x"}])
    assert "".join(_push(Standard(_opts(vimgrep=True, column=True)), capsys, [two])) == "a.py:4:1:x_x\na.py:4:3:x_x\n"
    only = _match("a.py", 4, "x", 3, 4)
    assert "".join(_push(Standard(_opts(only_matching=True, column=True)), capsys, [only])) == "a.py:4:3:x\n"
    replaced = _match("a.py", 1, "xa", replacement="Ya")
    assert "".join(_push(Standard(_opts()), capsys, [replaced])) == "a.py:1:Ya\n"


def test_standard_binary_lines(capsys: pytest.CaptureFixture[str]) -> None:
    skipped = [_match("bin", 1, "x", binary_offset=7), _match("bin", 2, "x", binary_offset=7)]
    stopped = [_match("stop", 1, "x", binary_offset=9, binary_stopped=True)]
    out = "".join(_push(Standard(_opts()), capsys, skipped, stopped))
    assert out == ('bin: binary file matches (found "\\0" byte around offset 7)\n'
                   'stop:1:x\nstop: WARNING: stopped searching binary file after match (found "\\0" byte around '
                   'offset 9)\n')


def test_paths_without_and_counts(capsys: pytest.CaptureFixture[str]) -> None:
    files = [{"type": "file", "path": "a.py"}, {"type": "file", "path": "b.py"}]
    assert _push(Paths(_opts()), capsys, files[:1], files[1:]) == ["a.py\n", "b.py\n", ""]
    unmatched = [{"type": "file", "path": "c.py", "matched": False}, {"type": "file", "path": "d.py", "matched": False}]
    without = Without(_opts())
    assert _push(without, capsys, unmatched[:1], unmatched[1:]) == ["c.py\n", "d.py\n", ""]  # each as it comes
    assert without.printed == 2
    at_end = Without(_opts(), at_end=True)  # (--stats: the events are the counting search's, the list another's)
    at_end.listed = ["c.py"]
    assert _push(at_end, capsys, files, unmatched) == ["", "", "c.py\n"] and at_end.printed == 1
    quiet = Without(_opts(), quiet=True)
    assert Decoder(quiet).items(unmatched) is False and quiet.printed == 1  # -q: the first one decides
    counts = [{"type": "count", "path": "a.py", "count": 2}]
    assert _push(Counts(_opts(), matches=False), capsys, counts) == ["a.py:2\n", ""]
    assert _push(Counts(_opts(), matches=True), capsys, A, B) == ["", "a.py:2\n", "b.py:1\n"]  # a file once it ends
    zero = Counts(_opts(with_path=False), matches=False, listed=[])
    zero.listed = ["a.py", "z.py"]
    assert "".join(_push(zero, capsys, counts)) == "2\n0\n"


def test_quiet_wants_nothing_after_the_first_match() -> None:
    decoder = Decoder(Quiet())
    assert decoder.items([{"type": "file", "path": "a"}, {"type": "file", "path": "b"}]) is False
    assert Decoder(Quiet(stop=False)).items(A) is True  # --stats: every match counted


def test_json_lines_per_file_as_it_ends(capsys: pytest.CaptureFixture[str]) -> None:
    out = _push(Json(), capsys, [dict(A[0], offset=0, bytes_searched=3)], B)
    first = [json.loads(line) for line in out[0].splitlines()]
    assert [m["type"] for m in first] == ["begin", "match"]
    assert first[1]["data"]["submatches"] == [{"match": {"text": "x"}, "start": 0, "end": 1}]
    second = [json.loads(line)["type"] for line in out[1].splitlines()]
    assert second == ["end", "begin", "match"]  # a.py's end once the next file begins
    last = [json.loads(line) for line in out[2].splitlines()]
    assert [m["type"] for m in last] == ["end", "summary"]
    stats = last[1]["data"]["stats"]
    assert (stats["searches"], stats["matched_lines"], stats["bytes_searched"]) == (2, 2, 3)
    assert last[1]["data"]["elapsed_total"]["human"] == "1.500000s"
    assert [json.loads(line)["type"] for line in "".join(_push(Json(quiet=True), capsys, A)).splitlines()] == ["summary"]


def test_tally_tee_and_reversed(capsys: pytest.CaptureFixture[str]) -> None:
    tally = Tally()
    out = _push(Tee(tally, Reversed(Standard(_opts()))), capsys, A, B)
    assert out == ["", "", "b.py:3:bx\na.py:1:xa\na.py-2-ctx\na.py:5:x again\n"]  # last file first, at the end
    assert (tally.lines, tally.matches, tally.files_matched) == (3, 3, 2)


# Lines whose spans every branch of the printer reads: a leading blank for --trim, a match past a
# column limit, two submatches for -o/--vimgrep, a replacement, a context line between.
SPANNED = [_match("s.py", 1, "  \txx yy x", 4, 5, submatches=[{"column": 4, "end_column": 5, "match_text": "x"},
                                                              {"column": 10, "end_column": 11, "match_text": "x"}]),
           _context("s.py", 2, " ctx"), _match("s.py", 3, "\tlong x line here", 7, 8, offset=40),
           _match("s.py", 4, "x", 1, 2, replacement="REPLACED")]
FLAGS = ("only_matching", "vimgrep", "column", "byte_offset", "trim", "heading", "context")


@pytest.mark.parametrize("bits", range(1 << len(FLAGS)))
@pytest.mark.parametrize("extra", [{}, {"colours": Colours([])}, {"max_columns": 6}, {"max_columns": 6, "preview": True}])
def test_a_plain_line_skips_its_spans_and_prints_the_same(capsys: pytest.CaptureFixture[str], bits: int,
                                                          extra: dict[str, Any]) -> None:
    """The printer makes a match's spans only when a flag reads them (``Standard.spans_read``): for
    every combination of the flags that read them, its output is that of a printer that always makes them."""
    options = _opts(**{flag: bool(bits >> i & 1) for i, flag in enumerate(FLAGS)}, **extra)
    lean = _push(Standard(options), capsys, SPANNED)
    always = Standard(options)
    always.spans_read = True
    assert lean == _push(always, capsys, SPANNED)


# Lines the quick path of a plain match line must print as the general path does: in one file and the
# next, with a gap (a context separator), a CRLF line, a line with a NUL in its text, a replacement.
PLAIN = [_match("p.py", 1, "x one"), _match("p.py", 2, "x two"), _context("p.py", 3, "ctx"),
         _match("p.py", 7, "x after a gap"), _match("p.py", 8, "x crlf", cr=True), _match("q/r.py", 1, "x\0nul"),
         _match("q/r.py", 2, "x", 1, 2, replacement="Y"), _match("q/r.py", 9, "x last")]
PLAIN_FLAGS = ("with_path", "line_number", "null", "context", "heading", "column", "crlf")


@pytest.mark.parametrize("bits", range(1 << len(PLAIN_FLAGS)))
@pytest.mark.parametrize("separators", [{}, {"context_separator": None}, {"match_separator": "|", "context_separator": "##"}])
def test_a_plain_match_line_is_written_at_once_and_prints_the_same(capsys: pytest.CaptureFixture[str], bits: int,
                                                                   separators: dict[str, Any]) -> None:
    """A match line none of whose flags reshape it is written in one step (``Standard.plain``): for every
    combination of the flags around it, the output is the general path's."""
    options = _opts(**{flag: bool(bits >> i & 1) for i, flag in enumerate(PLAIN_FLAGS)}, **separators)
    quick = Standard(options)
    assert quick.plain == (not options.heading and not options.column and not options.crlf)
    printed = _push(quick, capsys, PLAIN[:3], PLAIN[3:])
    general = Standard(options)
    general.plain = False
    assert printed == _push(general, capsys, PLAIN[:3], PLAIN[3:])
