"""Seed 000 (Forge ``search_files``) conformance: definition, schema validation, semantics, output
format and the test matrix T-SF-01..10, through ``sleuth.tools.call`` on real trees."""

from __future__ import annotations

import json
import os

import pytest

from sleuth.commands.profiles import lookup

TOOL = "forge.search_files"

TREE = {
    "src/b.py": "alpha\nneedle one\nneedle two needle\n",
    "src/a.py": "needle first\nzeta\n",
    "docs/readme.md": "no match here\nNeedle capital\n",
}


def kind(content: str) -> str:
    return json.loads(content)["error"]["kind"]


def test_definition_is_read_only_low_risk_without_approval():  # FR-SF-DEF-01..04
    tool = lookup(TOOL).to_dict()
    assert tool["tool"] == "search_files" and tool["description"] == "Search file contents"
    assert tool["read_only"] is True and tool["is_side_effecting"] is False
    assert tool["requires_approval"] is False and tool["risk"] == "low"
    schema = tool["input_schema"]
    assert schema["required"] == ["path", "query"]
    assert schema["properties"]["mode"] == {"type": "string", "enum": ["exact", "regex", "fuzzy"], "default": "exact"}
    assert schema["properties"]["context_lines"]["default"] == 0


def test_t_sf_01_exact_default_args_ordered(workspace):
    out = workspace(TREE).json(TOOL, {"path": ".", "query": "needle"})
    assert [(m["path"], m["line"], m["column"]) for m in out["matches"]] == [
        ("docs/readme.md", 2, 1), ("src/a.py", 1, 1), ("src/b.py", 2, 1), ("src/b.py", 3, 1), ("src/b.py", 3, 12)]
    first = out["matches"][1]
    assert first == {"path": "src/a.py", "line": 1, "column": 1, "match_text": "needle", "line_text": "needle first",
                     "before": [], "after": [], "score": None}
    assert out["mode"] == "exact" and out["case"] == "smart" and out["returned"] == 5
    assert out["truncated"] is False and out["truncated_reason"] is None
    assert out["stats"]["files_matched"] == 3 and out["stats"]["matches_total"] == 5
    assert set(out["stats"]) == {"files_scanned", "files_matched", "matches_total", "elapsed_ms"}
    assert list(out) == ["path", "query", "mode", "case", "matches", "returned", "max_results", "truncated",
                         "truncated_reason", "stats", "errors"]


def test_exact_mode_is_literal_and_case_modes(workspace):
    caller = workspace({"a.txt": "a.c\nabc\nA.C\n"})
    assert [m["line"] for m in caller.json(TOOL, {"path": ".", "query": "a.c"})["matches"]] == [1, 3]
    assert [m["line"] for m in caller.json(TOOL, {"path": ".", "query": "a.c", "case": "sensitive"})["matches"]] == [1]
    assert [m["line"] for m in caller.json(TOOL, {"path": ".", "query": "A.C"})["matches"]] == [3]  # smart
    regex = caller.json(TOOL, {"path": ".", "query": "a.c", "mode": "regex", "case": "sensitive"})
    assert [m["match_text"] for m in regex["matches"]] == ["a.c", "abc"]


def test_paths_are_relative_to_the_requested_directory(workspace):
    out = workspace(TREE).json(TOOL, {"path": "src", "query": "needle"})
    assert out["path"] == "src"
    assert {m["path"] for m in out["matches"]} == {"a.py", "b.py"}


def test_context_lines_fill_before_and_after(workspace):
    out = workspace(TREE).json(TOOL, {"path": "src", "query": "one", "context_lines": 1})
    (match,) = out["matches"]
    assert match["before"] == ["alpha"] and match["after"] == ["needle two needle"]


def test_t_sf_02_invalid_regex_is_bad_args(workspace):
    content = workspace(TREE).error(TOOL, {"path": ".", "query": "(unclosed", "mode": "regex"})
    assert kind(content) == "BadArgs"


def test_t_sf_03_path_outside_sandbox(workspace, tmp_path):
    (tmp_path / "outside").mkdir()
    content = workspace(TREE).error(TOOL, {"path": "../outside", "query": "x"})
    assert kind(content) == "SandboxViolation"
    assert kind(workspace(TREE, name="w2").error(TOOL, {"path": "/etc", "query": "x"})) == "SandboxViolation"


def test_t_sf_04_missing_directory_and_file_path_fail_execution(workspace):
    caller = workspace(TREE)
    assert kind(caller.error(TOOL, {"path": "nope", "query": "x"})) == "ExecutionFailed"
    content = caller.error(TOOL, {"path": "src/a.py", "query": "x"})
    assert kind(content) == "ExecutionFailed" and "not a directory" in content


def test_t_sf_05_binary_file_skipped(workspace):
    out = workspace({"bin.dat": b"needle\x00\x01\x02", "text.txt": "needle\n"}).json(TOOL, {"path": ".", "query": "needle"})
    assert [m["path"] for m in out["matches"]] == ["text.txt"]


def test_t_sf_06_max_results_truncates(workspace):
    out = workspace(TREE).json(TOOL, {"path": ".", "query": "needle", "max_results": 2})
    assert out["returned"] == 2 and len(out["matches"]) == 2 and out["max_results"] == 2
    assert out["truncated"] is True and out["truncated_reason"] == "max_results"


def test_exactly_max_results_is_not_truncated(workspace):
    out = workspace(TREE).json(TOOL, {"path": ".", "query": "needle", "max_results": 5})
    assert out["returned"] == 5 and out["truncated"] is False


@pytest.mark.parametrize("budget", [300, 600, 900])
def test_t_sf_07_output_budget_keeps_valid_json(workspace, budget):
    caller = workspace({f"f{i:02}.txt": "needle " + "x" * 40 + "\n" for i in range(30)})
    envelope = caller.call(TOOL, {"path": ".", "query": "needle", "max_output_bytes": budget})
    assert len(envelope["content"].encode("utf-8")) <= budget
    out = json.loads(envelope["content"])
    assert out["truncated"] is True and out["truncated_reason"] == "max_output_bytes"
    assert out["returned"] == len(out["matches"]) < 30


def test_output_budget_from_settings(workspace):
    caller = workspace({f"f{i:02}.txt": "needle\n" for i in range(50)}, max_output_bytes=1000)
    content = caller.call(TOOL, {"path": ".", "query": "needle"})["content"]
    assert len(content.encode()) <= 1000 and json.loads(content)["truncated_reason"] == "max_output_bytes"


def test_t_sf_08_non_utf8_filename_gives_valid_utf8(workspace):
    caller = workspace({"ok.txt": "needle\n"})
    with open(os.path.join(os.fsencode(caller.root), b"bad\xff.txt"), "wb") as handle:
        handle.write(b"needle\n")
    content = caller.call(TOOL, {"path": ".", "query": "needle"})["content"]
    content.encode("utf-8")  # valid UTF-8: no lone surrogates
    paths = [m["path"] for m in json.loads(content)["matches"]]
    assert "bad\ufffd.txt" in paths and "ok.txt" in paths


def test_t_sf_09_gitignored_paths_not_scanned(workspace):
    caller = workspace({".git/HEAD": "ref: refs/heads/main\n", ".gitignore": "build/\n",
                        "build/out.txt": "needle\n", "src/in.txt": "needle\n"})
    out = caller.json(TOOL, {"path": ".", "query": "needle"})
    assert [m["path"] for m in out["matches"]] == ["src/in.txt"]
    everything = caller.json(TOOL, {"path": ".", "query": "needle", "respect_gitignore": False})
    assert [m["path"] for m in everything["matches"]] == ["build/out.txt", "src/in.txt"]


def test_t_sf_10_fuzzy_unsupported_by_backend_is_bad_args(workspace):
    content = workspace(TREE).error(TOOL, {"path": ".", "query": "needle", "mode": "fuzzy"}, backend="rg")
    assert kind(content) == "BadArgs" and "fuzzy" in content.lower()


def test_fuzzy_scores_meet_threshold(workspace):
    caller = workspace({"a.txt": "handler\nhandlr\nhxnxlxr\n"}, fuzzy_threshold=0.8)
    out = caller.json(TOOL, {"path": ".", "query": "handler", "mode": "fuzzy"})
    assert [m["line"] for m in out["matches"]] == [1, 2]
    assert out["matches"][0]["score"] == 1.0 and 0.8 <= out["matches"][1]["score"] < 1.0


@pytest.mark.parametrize("args, word", [
    ({"path": "  ", "query": "x"}, "path"),
    ({"path": ".", "query": " \t"}, "query"),
    ({"query": "x"}, "path"),
    ({"path": ".", "query": "x", "recursive": False, "max_depth": 2}, "max_depth"),
    ({"path": ".", "query": "x", "max_results": 0}, "max_results"),
    ({"path": ".", "query": "x", "mode": "glob"}, "mode"),
    ({"path": ".", "query": "x", "max_results": 10**9}, "max_results"),
    ({"path": ".", "query": "x", "max_files": 10**12}, "max_files"),
])
def test_validation_errors_are_bad_args(workspace, args, word):  # FR-SF-VAL-01..04
    content = workspace(TREE).error(TOOL, args)
    assert kind(content) == "BadArgs" and word in content


def test_non_recursive_scans_direct_children_only(workspace):
    out = workspace({"top.txt": "needle\n", "sub/deep.txt": "needle\n"}).json(
        TOOL, {"path": ".", "query": "needle", "recursive": False})
    assert [m["path"] for m in out["matches"]] == ["top.txt"]


def test_symlinked_directories_never_traversed(workspace):  # FR-SF-VAL-08
    caller = workspace({"real/x.txt": "needle\n"})
    os.symlink(caller.root / "real", caller.root / "link")
    out = caller.json(TOOL, {"path": ".", "query": "needle", "follow_symlinks": True})
    assert [m["path"] for m in out["matches"]] == ["real/x.txt"]


def test_include_and_exclude_globs(workspace):
    caller = workspace(TREE)
    out = caller.json(TOOL, {"path": ".", "query": "needle", "include_globs": ["*.py"], "exclude_globs": ["b.py"]})
    assert [m["path"] for m in out["matches"]] == ["src/a.py"]


def test_deterministic_output(workspace):
    caller = workspace(TREE)
    first = caller.json(TOOL, {"path": ".", "query": "needle"})
    second = caller.json(TOOL, {"path": ".", "query": "needle"})
    first["stats"].pop("elapsed_ms"), second["stats"].pop("elapsed_ms")
    assert first == second


@pytest.mark.skipif(__import__("shutil").which("ugrep") is None, reason="ugrep not installed")
def test_fuzzy_through_ugrep_matches_native(workspace):
    tree = {"a.txt": "handler\nhandlr\nhxnxlxr\n", "b.txt": "the handle method\n"}
    native = workspace(tree).json(TOOL, {"path": ".", "query": "handler", "mode": "fuzzy"})
    ugrep = workspace(tree, name="w2", backend="ugrep").json(TOOL, {"path": ".", "query": "handler", "mode": "fuzzy"})
    assert [(m["path"], m["line"]) for m in ugrep["matches"]] == [(m["path"], m["line"]) for m in native["matches"]]


def test_max_files_truncation_reason(workspace):
    out = workspace({f"{c}.txt": "needle\n" for c in "abcdef"}).json(TOOL, {"path": ".", "query": "needle",
                                                                            "max_files": 2})
    assert out["truncated"] is True and out["truncated_reason"] == "max_files"
    assert out["stats"]["files_scanned"] == 2 and out["returned"] == 2
