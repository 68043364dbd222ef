"""What ``sleuth.text`` reads and scores (issue 29, ranked text at its old speed): a line is scored
only when every clause is on it, files are searched as bytes with the text shown as before, and the
files spelling the query as one identifier are the ones read first when the budget is small."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Iterator

import pytest

from sleuth.engine.index import IndexService
from sleuth.engine.text import search as text
from sleuth.engine.text.search import TextOptions, search_text

COMMON = {
    # 3,000 lines holding a z (or pin, or ena) and only a few holding every word of the query
    "zlib/common.c": "".join(f"int z{i} = zero(z);\n" for i in range(3000))
    + "typedef struct z_stream_s z_stream;\nstatic z_stream strm;\n",
    "pinctrl/pins.c": "".join(f"\tpin_{i} = enable(pin);\n" for i in range(2000))
    + "#define PIN_ENA_S 1\n\tregs->pin_ena_s = 0; /* pins enabled */\n",
    "net/blocks.c": "static int unblock(void);\nint lock;\nint blockers_lock;\n",
}


@pytest.fixture
def common(tmp_path: Path, kit: SimpleNamespace) -> Iterator[IndexService]:
    kit.write_tree(tmp_path / "ws", COMMON)
    (tmp_path / "ws" / "text").mkdir()
    (tmp_path / "ws" / "text" / "words.txt").write_bytes(  # CRLF, and two bytes that are not UTF-8
        "Größe und GRÖßE\r\nline ".encode() + b"\xff\xfe" + " with bad bytes größe\r\nlast größe line\n".encode())
    (tmp_path / "ws" / "text" / "odd.c").write_bytes(b"int foo_x; /* \xff */ int bar_y;\nint foo_z;\n")
    service = kit.start(tmp_path / "ws", tmp_path / "cache")
    yield service
    service.stop()


def _scored(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The lines the search scores, in order (a spy on the real scoring: nothing else changes)."""
    seen: list[str] = []
    real = text._Compiled.score_line

    def spy(self: text._Compiled, line: str, tail: bytes = b"") -> tuple[float, list[tuple[int, int]]] | None:
        seen.append(line)
        return real(self, line, tail)

    monkeypatch.setattr(text._Compiled, "score_line", spy)
    return seen


@pytest.mark.parametrize("query, lines", [
    ("z stream", {"typedef struct z_stream_s z_stream;", "static z_stream strm;"}),
    ("pin ena s", {"#define PIN_ENA_S 1", "\tregs->pin_ena_s = 0; /* pins enabled */"}),
    ("s ena pin", {"#define PIN_ENA_S 1", "\tregs->pin_ena_s = 0; /* pins enabled */"}),
])
def test_only_lines_holding_every_clause_are_scored(common: IndexService, monkeypatch: pytest.MonkeyPatch,
                                                    query: str, lines: set[str]) -> None:
    """The file scan was driven by the first clause and scored each of its lines: ``z stream`` scored
    3,000 lines holding a ``z`` to keep two; ``pin ena s`` 87,000 matches of ``pin`` on the Linux tree."""
    scored = _scored(monkeypatch)
    found = search_text(common, query, TextOptions(max_results=50, context_lines=0))
    assert {r["snippet"] for r in found["results"]} == lines
    assert set(scored) == lines and len(scored) == len(lines)
    assert found["total"] == len(lines) and found["complete"]


def test_clauses_that_overlap_still_find_their_lines(common: IndexService) -> None:
    """``lock`` inside ``block``: a line holding both clauses in one word is found (clauses that can
    overlap are not searched for one after another)."""
    found = search_text(common, "block lock", TextOptions(max_results=50, context_lines=0))
    assert {r["snippet"] for r in found["results"]} == {"static int unblock(void);", "int blockers_lock;"}


def test_bytes_are_shown_as_text(common: IndexService) -> None:
    """Searched as UTF-8 bytes, shown as before: case folded beyond ASCII, line numbers and highlights
    in characters after multi-byte ones, invalid bytes as U+FFFD, CR dropped, context decoded."""
    found = search_text(common, "größe", TextOptions(max_results=50, context_lines=1))
    by_line = {r["line"]: r for r in found["results"] if r["path"] == "text/words.txt"}
    assert sorted(by_line) == [1, 2, 3]
    first = by_line[1]
    assert first["snippet"] == "Größe und GRÖßE"
    assert [(h["start"], h["end"]) for h in first["highlights"]] == [(0, 5), (10, 15)]
    assert by_line[2]["snippet"] == "line \ufffd\ufffd with bad bytes größe"
    assert [(h["start"], h["end"]) for h in by_line[2]["highlights"]] == [(23, 28)]
    assert by_line[2]["context"] == {"before": ["Größe und GRÖßE"], "after": ["last größe line"]}


@pytest.fixture
def decoys(tmp_path: Path, kit: SimpleNamespace) -> Iterator[IndexService]:
    """Names defined once, behind many small files holding their words apart: the budget matters."""
    tree = {f"a/f{i:02}.c": "int status_e = 1; int xs_ecap = 2; int v7s = iopte;\n" for i in range(40)}
    tree["drivers/comedi/drivers/s526_registers.c"] = (
        "/* counters */\n#define S526_GPCT_CTRL_EV_STATUS_ECAP 0x1\n" + "/* padding */\n" * 20)
    tree["drivers/iommu/io-pgtable-arm-v7s.c"] = "typedef u32 arm_v7s_iopte;\n" + "/* padding */\n" * 20
    kit.write_tree(tmp_path / "ws", tree)
    service = kit.start(tmp_path / "ws", tmp_path / "cache")
    yield service
    service.stop()


@pytest.mark.parametrize("query, defining", [
    ("status ecap", "drivers/comedi/drivers/s526_registers.c"),  # the underscore gram us_ec
    ("v7s iopte", "drivers/iommu/io-pgtable-arm-v7s.c"),  # digits kept with their letters: v7s_iopte
])
def test_files_spelling_the_identifier_are_read_first(decoys: IndexService, monkeypatch: pytest.MonkeyPatch,
                                                      query: str, defining: str) -> None:
    """The name ends in the query's words (no definition key starts with them): the files read first
    are those spelling the words as one identifier. Their trigrams alone let every decoy through
    (``status_ecap``), and ``v7s iopte`` was looked up as ``v_7_s_iopte``, which no file holds."""
    monkeypatch.setattr(text, "SCAN_BUDGET_BYTES", 1)  # one file past the definitions, then stop
    found = search_text(decoys, query, TextOptions(max_results=10, context_lines=0))
    assert found["results"] and found["results"][0]["path"] == defining


def test_words_around_bytes_that_are_not_utf8_are_found(common: IndexService) -> None:
    """RE2's ``[^\\n]`` matches no invalid UTF-8 byte, so the clauses are not looked for together in
    such a file: the line holding both words across the byte is still found."""
    found = search_text(common, "foo bar", TextOptions(max_results=50, context_lines=0))
    assert [(r["path"], r["line"], r["snippet"]) for r in found["results"]] == [
        ("text/odd.c", 1, "int foo_x; /* \ufffd */ int bar_y;")]
