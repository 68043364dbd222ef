"""Underscore grams: the folded five bytes around each ``_`` narrow ``pm_resume`` away from ``pm_runtime_resume``."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from sleuth.commands import get_command
from sleuth.engine.index.postings import gram_codes, trigram_codes
from sleuth.engine.index.trigram import GRAM_BASE, Lit, gram_code, literal_groups, trigram_groups
from tests.fixtures import context

grep = get_command("sleuth.grep")


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=64).map(lambda b: b.replace(b"\x01", b"_")) | st.text("aAbB_\u212a\n", max_size=40).map(str.encode))
def test_gram_codes_number_each_underscore_as_gram_code_does(data: bytes) -> None:
    expected = {gram_code(data[i - 2:i + 3]) for i in range(2, len(data) - 2) if data[i] == ord("_")}
    got = gram_codes(data).tolist()
    assert set(got) == expected
    assert all(code >= GRAM_BASE for code in got)  # never a trigram's number
    assert all(code < GRAM_BASE for code in trigram_codes(data).tolist())


def test_literal_groups_add_one_folded_gram_per_inner_underscore() -> None:
    groups = literal_groups(Lit(b"PM_RESUME", folded=True))
    assert groups[:-1] == trigram_groups(Lit(b"PM_RESUME", folded=True))
    assert groups[-1] == [gram_code(b"pm_re")] == [gram_code(b"PM_RE")] == [gram_code(b"Pm_rE")]
    assert literal_groups(Lit(b"PM_RESUME")) == trigram_groups(Lit(b"PM_RESUME")) + [[gram_code(b"PM_RE")]]
    assert literal_groups(Lit(b"_RESUME")) == trigram_groups(Lit(b"_RESUME"))  # no two bytes before the _
    assert literal_groups(Lit(b"AB_C")) == trigram_groups(Lit(b"AB_C"))  # nor two after
    assert literal_groups(Lit(b"ab_cd_ef"))[-2:] == [[gram_code(b"ab_cd")], [gram_code(b"cd_ef")]]
    assert literal_groups(Lit("\u00e9x_yz".encode(), folded=True)) == trigram_groups(Lit("\u00e9x_yz".encode(), folded=True))
    exact = literal_groups(Lit("\u00e9x_yz".encode()))  # bytes are bytes: a case-sensitive literal keeps it
    assert exact[-1] == [gram_code("\u00e9x_yz".encode()[1:6])]


def _lines(result: dict) -> list[tuple[str, int, int]]:
    return [(m["path"], m["line"], m["column"]) for m in result["matches"] if m["type"] == "match"]


def test_pm_runtime_resume_is_no_longer_a_candidate_of_pm_resume(tmp_path: Path, kit: SimpleNamespace) -> None:
    """Every trigram of ``pm_resume`` is in ``pm_runtime_resume``: trigrams alone kept the decoy."""
    root = tmp_path / "ws"
    kit.write_tree(root, {"decoy.c": "static int pm_runtime_resume(void);\n",
                          "real.c": "dpm_resume(dev);\n",
                          "upper.h": "#define PM_RESUME 1\n",
                          "kelvin.txt": "MAR\u212a_RESUME\n"})  # rg -i: KELVIN SIGN is k
    service = kit.start(root, tmp_path / "cache")
    try:
        for needle, casei, names in ((b"PM_RESUME", True, {"real.c", "upper.h"}), (b"pm_resume", False, {"real.c"}),
                                     (b"ark_resume", True, {"kelvin.txt"})):
            got = service.candidates(None, Lit(needle, casei), line_mode=True)
            assert got is not None and {Path(p).name for p in got.paths} == names, needle
        indexed = context(service.workspace, index=service)
        plain = context(root)
        for args in ({"pattern": "PM_RESUME", "case": "insensitive"}, {"pattern": "pm_resume"},
                     {"pattern": "ARK_RESUME", "case": "insensitive"}, {"pattern": "PM_RES\\w+", "case": "insensitive"}):
            assert _lines(grep(args, indexed)) == _lines(grep(args, plain)), args
    finally:
        service.stop()


def test_an_edit_that_adds_or_removes_the_gram_is_seen(tmp_path: Path, kit: SimpleNamespace) -> None:
    """The incremental update indexes grams as the build does: the decoy that gains ``Pm_Resume`` is found."""
    root = tmp_path / "ws"
    kit.write_tree(root, {"decoy.c": "pm_runtime_resume();\n", "real.c": "pm_resume();\n"})
    service = kit.start(root, tmp_path / "cache")
    try:
        (root / "decoy.c").write_text("pm_runtime_resume();\nPm_Resume();\n")
        (root / "real.c").write_text("pm_runtime_resume();\n")
        service.notify_changed([str(root / "decoy.c"), str(root / "real.c")])
        assert service.wait_idle()
        assert service.status()["state"] == "ready"
        got = service.candidates(None, Lit(b"PM_RESUME", True), line_mode=True)
        assert got is not None and not got.pending and {Path(p).name for p in got.paths} == {"decoy.c"}
        indexed = context(service.workspace, index=service)
        assert _lines(grep({"pattern": "PM_RESUME", "case": "insensitive"}, indexed)) == [("decoy.c", 2, 1)]
    finally:
        service.stop()
