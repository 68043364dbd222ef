"""Indexed grep == plain scan: the lead's ``sleuth.grep`` with and without the index, on random trees and edits."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sleuth.commands import get_command
from sleuth.engine.index import IndexService
from tests.fixtures import context, index_service, indexed_and_plain

WORDS = ["PM_RESUME", "pm_resume", "Pm_Resume", "ERR_SYS", "err_sys", "foo", "foobar", "Ah", "xAh", "ſuspend",
         "\u212aelvin", "kelvin", "é", "日本語", "tab\tx", "a b", "LINK_REQ_RST",
         "pm_runtime_resume", "dpm_resume", "ERR_\u017fYS", "LINK_REQ_\u212aST"]  # underscore grams: decoys, folds
line = st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join)
content = st.lists(line, max_size=5).map("\n".join)
names = st.sampled_from(["a.c", "b.txt", "d/e.h", "d/f/g.c", "h.md"])
PATTERNS = [("PM_RESUME", {}), ("PM_RESUME", {"case": "insensitive"}), ("PM_RESUME", {"word": True}),
            ("[A-Z]+_RESUME", {}), ("ERR_SYS|LINK_REQ_RST", {}), ("ERR_SYS|LINK_REQ_RST", {"case": "insensitive"}),
            (r"\wAh", {}), ("kelvin", {"case": "insensitive"}), ("SUSPEND", {"case": "insensitive"}),
            ("foo.*bar", {}), ("日本", {}), ("a b", {"fixed_strings": True}),
            (r"\w{3}\s+\w", {}), (r"\d|é", {})]  # no usable literal: the catalogue replaces the walk


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, IndexService]:
    root = tmp_path_factory.mktemp("grep")
    (root / "a.c").write_text("PM_RESUME here\n")
    service = index_service(root, tmp_path_factory.mktemp("cache"))
    service.start()
    assert service.wait_ready(120)
    yield root, service
    service.stop()


def _apply(root: Path, service: IndexService, edits: list, wait: bool) -> None:
    """Write (or delete, for None) each file, tell the index, and with ``wait`` let it catch up."""
    changed = []
    for name, text in edits:
        path = root / name
        if text is None:
            path.unlink(missing_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        changed.append(str(path))
    service.notify_changed(changed)
    if wait:
        assert service.wait_idle()


def _lines(result: dict) -> list[tuple[str, int, int]]:
    return [(m["path"], m["line"], m["column"]) for m in result["matches"] if m["type"] == "match"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(names, st.one_of(content, st.none())), max_size=4), wait=st.booleans())
def test_indexed_grep_equals_plain_scan(tree: tuple[Path, IndexService], edits: list, wait: bool) -> None:
    root, service = tree
    _apply(root, service, edits, wait)
    grep = get_command("sleuth.grep")
    indexed, plain = indexed_and_plain(service)
    for pattern, extra in PATTERNS:
        args = {"pattern": pattern, "max_results": 1000, **extra}
        assert _lines(grep(args, indexed)) == _lines(grep(args, plain)), (pattern, extra)


def test_the_index_really_narrows_grep(tmp_path: Path) -> None:
    root = tmp_path / "ws"  # the store may not live inside the workspace: ws/ beside cache/
    root.mkdir()
    for i in range(40):
        (root / f"f{i}.c").write_text(f"int filler_{i};\n")
    (root / "hit.c").write_text("x = PM_RESUME;\n")
    service = index_service(root, tmp_path / "cache")
    service.start()
    try:
        assert service.wait_ready(120)
        grep = get_command("sleuth.grep")
        ctx = context(service.workspace, index=service)
        result = grep({"pattern": "PM_RESUME"}, ctx)
        assert _lines(result) == [("hit.c", 1, 5)] and result["files_scanned"] == 1
        # one file read, and the workspace's count beside it (a person reads "1 of 41", not "1 of 1")
        assert result["files_in_workspace"] == 41
        assert grep({"pattern": "PM_RESUME"}, context(service.workspace))["files_in_workspace"] is None
        scanned = grep({"pattern": r"\w+_RESUME"}, ctx)["files_scanned"]
        assert scanned == 1
        assert grep({"pattern": r"\d"}, ctx)["files_scanned"] == 41  # no literal: every catalogued file
    finally:
        service.stop()


SEMANTICS = [("PM_RESUME", {"only_matching": True}), ("(ERR|PM)_(\\w+)", {"replace": "$2-$1", "only_matching": True}),
             ("(?P<w>foo)(bar)?", {"replace": "<${w}|$2|$$>"}), ("foo", {"only_matching": True, "output": "count"}),
             ("PM_RESUME", {"binary": "search"}), ("PM_RESUME", {"binary": "text"}),
             ("foo|é", {"only_matching": True, "max_matches_per_file": 1}), (r"\w+", {"replace": "x"}),
             ("foo$", {"crlf": True}), ("é", {"encoding": "latin1"}), ("PM_RESUME", {"encoding": "none"}),
             ("(?>PM|ERR)_\\w++", {"engine": "pcre2"}), ("foo(?=bar)", {"engine": "pcre2", "search_zip": True}),
             ("PM_RESUME", {"byte_offsets": True}), ("foo|é", {"byte_offsets": True, "max_matches_per_file": 2}),
             ("PM_RESUME", {"byte_offsets": True, "only_matching": True})]
binary_content = st.tuples(content, content).map(lambda pair: pair[0] + "\x00" + pair[1])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(names, st.one_of(content, binary_content, st.none())), max_size=4),
       wait=st.booleans())
def test_indexed_grep_equals_plain_scan_with_rg_semantics(tree: tuple[Path, IndexService], edits: list,
                                                          wait: bool) -> None:
    """-o, -r, --binary and -a through the index's candidates (and pieces) give the scan's events exactly."""
    root, service = tree
    _apply(root, service, edits, wait)
    grep = get_command("sleuth.grep")
    indexed, plain = indexed_and_plain(service)
    for pattern, extra in SEMANTICS:
        args = {"pattern": pattern, "max_results": 1000, **extra}
        assert grep(args, indexed)["matches"] == grep(args, plain)["matches"], (pattern, extra)


def test_another_encoding_is_searched_past_the_index(tmp_path: Path) -> None:
    """The index holds a file's bytes as auto reads them: UTF-16 without a BOM has no UTF-8 "noir" to
    index, so a utf-16le search that asked the index would never read the file."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "u16.txt").write_bytes("un café noir\n".encode("utf-16-le"))
    (root / "utf.txt").write_text("un café noir\n")
    service = index_service(root, tmp_path / "cache")
    service.start()
    try:
        assert service.wait_ready(120)
        grep = get_command("sleuth.grep")
        indexed = context(service.workspace, index=service)
        assert [m["path"] for m in grep({"pattern": "noir"}, indexed)["matches"]] == ["utf.txt"]
        found = grep({"pattern": "noir", "encoding": "utf-16le"}, indexed)["matches"]
        assert [(m["path"], m["text"]) for m in found] == [("u16.txt", "un café noir")]  # UTF-8 read as UTF-16: no
    finally:
        service.stop()


@pytest.fixture(scope="module")
def whitelisted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, IndexService]:
    root = tmp_path_factory.mktemp("globs")
    files = {".gitignore": "*.log\nbuild/\n", "a.txt": "NEEDLE_GLOB a\n", ".notes.txt": "NEEDLE_GLOB hidden\n",
             "run.log": "NEEDLE_GLOB ignored\n", "sub/deep.log": "NEEDLE_GLOB deeper\n", "m.c": "NEEDLE_GLOB c\n",
             "build/out.log": "NEEDLE_GLOB in an ignored folder\n", ".hid/x.txt": "NEEDLE_GLOB in a hidden folder\n"}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    service = index_service(root, tmp_path_factory.mktemp("cache"))
    service.start()
    assert service.wait_ready(120) and service.wait_idle(60)
    yield root, service
    service.stop()


@pytest.mark.parametrize("pattern", ["NEEDLE_GLOB", r"N\w+_GLOB", r"\w{6}_\w{4}"])  # narrowed, and the catalogue
@pytest.mark.parametrize("globs", [["*.log"], ["*.txt"], ["**/*.log", "*.txt"], ["*.c"], ["!*.c"]])
def test_an_include_glob_searches_what_it_lets_through_past_the_index(whitelisted: tuple[Path, IndexService],
                                                                      pattern: str, globs: list[str]) -> None:
    """rg's ``-g`` globs override the ignore rules and hidden-ness: ``rg -g '*.log' X`` searches a
    ``.gitignore``d log, ``-g '*.txt'`` a hidden ``.notes.txt`` (not what ignored or hidden folders hold).
    The index holds what the default rules let through, so a warm grep with such a glob answered
    without them; the cold one, and rg, find them."""
    _root, service = whitelisted
    grep = get_command("sleuth.grep")
    indexed, plain = indexed_and_plain(service)
    include = [g for g in globs if not g.startswith("!")]
    args = {"pattern": pattern, "include_globs": include, "exclude_globs": [g[1:] for g in globs if g not in include],
            "output": "files_with_matches"}
    cold = sorted(m["path"] for m in grep(args, plain)["matches"])
    assert cold, "the tree holds a match for every glob"
    assert sorted(m["path"] for m in grep(args, indexed)["matches"]) == cold


def test_the_remembered_folder_pass_sees_what_changed_since(tmp_path: Path) -> None:
    """The pass over the folders is remembered between searches (``engine/index/whitelisted``); a log
    written later (in a folder seen before, or in a new ignored one: rg's glob lets it through too), a
    log deleted, a folder hidden by a rename: each is seen at the next search, as the cold walk sees
    it (none of them reaches the index: its watcher drops ignored paths)."""
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / ".gitignore").write_text("*.log\nout/\n")
    (root / "a.txt").write_text("NEEDLE_GLOB a\n")
    (root / "first.log").write_text("NEEDLE_GLOB first\n")
    service = index_service(root, tmp_path / "cache")
    service.start()
    try:
        assert service.wait_ready(120) and service.wait_idle(60)
        grep = get_command("sleuth.grep")
        indexed, plain = indexed_and_plain(service)

        def both() -> tuple[list[str], list[str]]:
            args = {"pattern": "NEEDLE_GLOB", "include_globs": ["*.log", "*.txt"], "output": "files_with_matches"}
            return (sorted(m["path"] for m in grep(args, indexed)["matches"]),
                    sorted(m["path"] for m in grep(args, plain)["matches"]))

        assert both() == (["a.txt", "first.log"],) * 2
        (root / "sub" / "later.log").write_text("NEEDLE_GLOB later\n")
        (root / "out").mkdir()
        (root / "out" / "o.log").write_text("NEEDLE_GLOB out\n")
        assert both() == (["a.txt", "first.log", "out/o.log", "sub/later.log"],) * 2
        (root / "first.log").unlink()
        (root / "sub").rename(root / ".sub")
        assert both() == (["a.txt", "out/o.log"],) * 2
    finally:
        service.stop()
