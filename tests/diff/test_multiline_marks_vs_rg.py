"""A match over several lines, printed as rg 15.2 prints it (issue 30: ``regression::r1866``,
``multiline::vimgrep``).

The engine gives such a match one event per line (a line-based client sees every line it covers)
and marks where it was clipped (``continued``, ``runs_over``: :class:`sleuth.engine.events.Match`).
From the marks, ``--vimgrep`` shows the match once, at its first line; ``--json`` gives it one
record whose ``lines`` hold all its lines and whose submatches run across them; ``--count-matches``
and ``--stats`` count it once. Before the marks each of those printed or counted it on every line.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tests.conftest import SLEUTH
from tests.diff.rg import RG, needs_rg
from tests.diff.test_rg_suite import _json_lines

pytestmark = [pytest.mark.rg, needs_rg]

FILES: dict[str, bytes] = {
    "three": b"foobar\nfoobar\nfoo quux",  # r1866's file: no newline at the end
    "crlf": b"a foo\r\nbar b\r\n\r\nx foo\r\nbar\r\n",
    "ends_on_newline": b"ab foo\nzz\n\nfoo\nq\n",
    "empty_after_cr": b"test\r\n\n",
    "many": b"one start\nmiddle\n\nend two\n\n\nstart end\n\nlast start\n\nend",
    "adjacent": b"one start\nmiddle\nend two\n\nstart end\n\nlast start\nend",  # matches that only touch
}

CASES: list[tuple[str, str]] = [
    ("three", "foobar\\nfoobar\\nfoo|quux"),
    ("crlf", "foo\\r?\\nbar"),
    ("crlf", "o\\s+b"),
    ("ends_on_newline", "foo\\n"),
    ("empty_after_cr", "\\n"),
    ("many", "start\\s+\\w+|two"),
    ("many", "t[^x]*?e"),
    ("adjacent", "start\\s+\\w+|two"),  # rg joins the lines of adjacent matches into one block...
    ("adjacent", "t[^x]*?e"),
    ("adjacent", "\\w+d\\n?"),
    ("adjacent", "end"),  # ...only when the pattern can match a line end
]

FLAGS: list[list[str]] = [["--json"], ["--vimgrep"], ["--count-matches"], ["-c"], ["-c", "-o"], ["-n", "--column"],
                          ["--json", "-C1"]]


def _run(cwd: Path, command: list[str]) -> tuple[int, bytes]:
    proc = subprocess.run(command, cwd=cwd, capture_output=True, stdin=subprocess.DEVNULL, timeout=120)
    return proc.returncode, proc.stdout


def _records(out: bytes) -> bytes:
    """``--json``'s records without the summary (rg counts every file searched there, Sleuth the files
    with output) and without times."""
    return _json_lines(b"\n".join(line for line in out.splitlines() if b'"type":"summary"' not in line))


def _both(cwd: Path, argv: list[str]) -> tuple[tuple[int, bytes], tuple[int, bytes]]:
    rg = _run(cwd, [RG, "--no-config", *argv])
    have = _run(cwd, [SLEUTH, "grep", "--no-server", *argv])
    if "--json" in argv:  # (the summary's totals count the files with output: README, --json)
        return (rg[0], _records(rg[1])), (have[0], _records(have[1]))
    return rg, have


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("multiline")
    for name, data in FILES.items():
        (root / name).write_bytes(data)
    return root


@pytest.mark.parametrize("flags", FLAGS, ids=" ".join)
@pytest.mark.parametrize("name,pattern", CASES)
def test_a_match_over_lines_prints_as_rg_prints_it(corpus: Path, name: str, pattern: str, flags: list[str]) -> None:
    want, have = _both(corpus, ["-U", *flags, pattern, name])
    assert want[0] == 0 and have == want


def test_stats_count_a_match_over_lines_once(corpus: Path) -> None:
    def matches(out: bytes) -> list[bytes]:
        return [line for line in out.splitlines() if re.fullmatch(rb"\d+ (matches|matched lines)", line)]
    want, have = _both(corpus, ["-U", "--stats", "foobar\\nfoobar\\nfoo|quux", "three"])
    assert matches(want[1]) == [b"2 matches", b"3 matched lines"] and matches(have[1]) == matches(want[1])


TEXT = st.lists(st.sampled_from(["a", "b", " ", "x", "\n", "\r\n"]), min_size=1, max_size=40).map("".join)
PATTERNS = ["a\\s+b", "a\\nb", "b\\n+a", "a[^x]*?b", "a\\r?\\n|x", "ab?", "b\\s?"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT, pattern=st.sampled_from(PATTERNS),
       flags=st.sampled_from([["--vimgrep"], ["--count-matches"], ["-c"], ["--json"], ["-n", "--column"]]))
def test_property_a_multiline_search_prints_as_rgs(text: str, pattern: str, flags: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        cwd = Path(folder)
        (cwd / "f").write_bytes(text.encode())
        want, have = _both(cwd, ["-U", *flags, pattern, "f"])
        assert have == want, (text, pattern)



CAPPED: dict[str, bytes] = {
    "pairs": b"foo\nbar\nfoo\nbar\nfoo\nbar\nx\n",
    "spread": b"a foo\n\nbar b\nfoo\nbar\n\nfoo\n\n\nbar\n",
}


@pytest.mark.parametrize("flags", [["-m1"], ["-m2"], ["-n", "-m1"], ["-c", "-m2"], ["--count-matches", "-m1"],
                                   ["--vimgrep", "-m2"], ["--json", "-m1"], ["-b", "-m1"], ["-l", "-m1"]],
                         ids=" ".join)
@pytest.mark.parametrize("name,pattern", [("pairs", "foo\\nbar"), ("spread", "foo\\s+bar"), ("spread", "o\\s+b")])
def test_max_count_counts_matches_and_prints_the_last_whole(tmp_path: Path, name: str, pattern: str,
                                                            flags: list[str]) -> None:
    """``-U -m N``: rg counts matches, and the N-th is printed to its last line; Sleuth counted lines
    (``-m1`` printed a two-line match's first line only, ``-c -m2`` said 1)."""
    (tmp_path / name).write_bytes(CAPPED[name])
    want, have = _both(tmp_path, ["-U", *flags, pattern, name])
    assert want[0] == 0 and have == want


@pytest.mark.parametrize("flags", [["-o"], ["-o", "-n"], ["-o", "-r", "X"], ["-o", "--json"]], ids=" ".join)
@pytest.mark.parametrize("pattern", ["foo\\s+bar", "o\\s+b", "\\n", "\\n\\n", "o\\n*"])
def test_only_matching_prints_no_empty_piece_of_a_match(tmp_path: Path, pattern: str, flags: list[str]) -> None:
    """``-U -o``: a blank line inside a match, or a match's line end alone, is not printed (Sleuth printed
    an empty line for each)."""
    (tmp_path / "spread").write_bytes(CAPPED["spread"])
    want, have = _both(tmp_path, ["-U", *flags, pattern, "spread"])
    assert want[0] == 0 and have == want
