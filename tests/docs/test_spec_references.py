"""The contract's references stay valid: every ``docs/SPEC.md §N`` the code, tests, benchmarks and
client cite names a section of ``docs/SPEC.md``, and every seed requirement id they cite
(``FR-LS-06a``, ``AC-085``...) is one ``docs/SPEC.md`` §13 says something about."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "docs" / "SPEC.md"
CITING = [REPO / "server" / "sleuth", REPO / "vscode-client" / "src", REPO / "tests", REPO / "bench",
          REPO / "README.md", REPO / "docs" / "ARCHITECTURE.md"]

_FAMILY = r"(FR-015b|FR-[A-Z]+(?:-[A-Z]+)?|AC|CFG-[A-Z]+|C)"
_CITED = re.compile(r"\b" + _FAMILY + r"(?:-(\d+)[a-z]?(?:\.\.(\d+))?)?\b")
# In the contract: FAMILY-NN, FAMILY-NN..MM, FAMILY-NN/NNa/MM (each listed number), FAMILY-NN/NNa..c.
_LISTED = re.compile(r"\b" + _FAMILY + r"-(\d+)[a-z]?((?:\.\.\d+|/\d+[a-z]?(?:\.\.[a-z])?)*)")


def _sources() -> list[Path]:
    files: list[Path] = []
    for place in CITING:
        files.extend([place] if place.is_file() else
                     (p for p in place.rglob("*") if p.suffix in {".py", ".ts", ".md"} and "node_modules" not in p.parts))
    return files


def _listed_ranges(text: str) -> dict[str, list[tuple[int, int]]]:
    ranges: dict[str, list[tuple[int, int]]] = {}
    for family, first, rest in _LISTED.findall(text):
        spans = [(int(first), int(first))]
        for part in re.findall(r"\.\.\d+|/\d+", rest):
            number = int(part.lstrip("./"))
            spans.append((spans[-1][0], number) if part.startswith("..") else (number, number))
        ranges.setdefault(family, []).extend(spans)
    return ranges


def test_every_cited_section_exists() -> None:
    sections = {int(n) for n in re.findall(r"^## (\d+)\. ", SPEC.read_text(encoding="utf-8"), re.M)}
    assert sections == set(range(1, 14))
    missing = []
    for path in _sources():
        for match in re.finditer(r"docs/SPEC\.md (§[\d, §]+)", path.read_text(encoding="utf-8", errors="replace")):
            for number in re.findall(r"§(\d+)", match.group(1)):
                if int(number) not in sections:
                    missing.append(f"{path.relative_to(REPO)}: §{number}")
    assert not missing


def test_every_cited_seed_requirement_is_in_the_contract() -> None:
    ranges = _listed_ranges(SPEC.read_text(encoding="utf-8"))
    unknown = []
    for path in _sources():
        if path == SPEC:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for family, first, last in _CITED.findall(text):
            if family == "C" and not first:
                continue  # a lone letter C is not a citation
            if family not in ranges:
                unknown.append(f"{path.relative_to(REPO)}: {family}")
                continue
            lo, hi = int(first or 0), int(last or first or 0)
            if first and not any(a <= lo and hi <= b for a, b in ranges[family]):
                unknown.append(f"{path.relative_to(REPO)}: {family}-{first}{'..' + last if last else ''}")
    assert not unknown, sorted(set(unknown))


def test_the_code_cites_the_contract_in_the_repository() -> None:
    """No reference is left to the contract's old home outside the repository."""
    stale = [str(p.relative_to(REPO)) for p in _sources()
             if re.search(r"(?<!docs/)SPEC(?:\.md)? §|shared `SPEC\.md`", p.read_text(encoding="utf-8", errors="replace"))]
    assert not stale
