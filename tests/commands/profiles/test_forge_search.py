"""Seed 001 (Forge ``Search``) conformance: FR-LS-02a schema, aliases, event shape, ordering,
+1 truncation, limits, encoding, exit-code classification and the T-LS-*/IT-LS-* tables."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from sleuth.commands.profiles import lookup
from sleuth.commands.profiles._external import classify
from sleuth.commands.tools_call import run as tools_call
from sleuth.engine.cancel import CancelToken
from tests.fixtures import context

TOOL = "forge.Search"
TREE = {
    "b.txt": "one\nfoo bar\ntwo\nthree\nfoo again\n",
    "a/x.py": "def foo():\n    return FOO\n",
    "a-c.txt": "foo\n",
}


def kind(content: str) -> str:
    return json.loads(content)["error"]["kind"]


def events(out):
    return [(e["type"], e["data"]["path"]["text"], e["data"]["line_number"]) for e in out["matches"]]


def test_schema_is_fr_ls_02a_and_aliases_resolve():
    tool = lookup(TOOL)
    assert tool.input_schema["additionalProperties"] is False and tool.input_schema["required"] == ["pattern"]
    assert tool.input_schema["properties"]["fuzzy"] == {"type": "integer", "minimum": 1, "maximum": 4}
    assert tool.input_schema["properties"]["max_results"]["default"] == 200
    for alias in ("search", "rg", "ripgrep", "ugrep", "ug", "Search"):
        assert lookup(f"forge.{alias}") is tool
        assert lookup(alias) is tool


def test_it_ls_e2e_01_and_t_ls_parse_01_event_shape(workspace):
    out = workspace(TREE).json(TOOL, {"pattern": "foo", "context": 1, "case": "sensitive"})
    assert set(out) >= {"pattern", "path", "count", "matches", "truncated", "timed_out", "files_scanned",
                        "errors", "content"}
    match = out["matches"][0]
    assert match == {"type": "match", "data": {"path": {"text": "a-c.txt"}, "line_number": 1, "column": 1,
                                               "lines": {"text": "foo"}, "match_text": "foo"}}
    context = next(e for e in out["matches"] if e["type"] == "context")
    assert set(context["data"]) == {"path", "lines", "line_number"}  # FR-LS-04c: no column/match_text
    assert out["count"] == len(out["matches"])  # FR-LS-05a
    assert out["pattern"] == "foo" and out["path"].endswith("/ws") and out["errors"] == []


def test_t_ls_ord_01_and_it_ls_path_01_bytewise_path_order(workspace):
    out = workspace(TREE).json(TOOL, {"pattern": "foo", "case": "insensitive"})
    # '-' (0x2d) sorts before '/' (0x2f): a-c.txt precedes a/x.py bytewise
    assert events(out) == [("match", "a-c.txt", 1), ("match", "a/x.py", 1), ("match", "a/x.py", 2),
                           ("match", "b.txt", 2), ("match", "b.txt", 5)]
    again = workspace(TREE, name="ws2").json(TOOL, {"pattern": "foo", "case": "insensitive"})
    assert events(again) == events(out)


def test_nfc_normalised_paths(workspace):
    caller = workspace({"cafe\u0301.txt": "foo\n", "cafz.txt": "foo\n"})
    out = caller.json(TOOL, {"pattern": "foo"})
    assert [e["data"]["path"]["text"] for e in out["matches"]] == ["cafz.txt", "caf\u00e9.txt"]


def test_t_ls_trunc_01_and_02_plus_one_detection(workspace):
    caller = workspace({"f.txt": "foo\n" * 5})
    over = caller.json(TOOL, {"pattern": "foo", "max_results": 4})
    assert over["count"] == 4 and over["truncated"] is True and "truncated" in over["content"]
    exact = caller.json(TOOL, {"pattern": "foo", "max_results": 5})
    assert exact["count"] == 5 and exact["truncated"] is False


def test_it_ls_ctx_01_context_counts_toward_max_results(workspace):
    out = workspace(TREE).json(TOOL, {"pattern": "bar", "context": 1, "max_results": 2})
    assert [e["type"] for e in out["matches"]] == ["context", "match"]
    assert out["count"] == 2 and out["truncated"] is True


def test_t_ls_case_01_ascii_smart_case(workspace):
    caller = workspace(TREE)
    assert len(caller.json(TOOL, {"pattern": "foo"})["matches"]) == 5
    assert events(caller.json(TOOL, {"pattern": "FOO"})) == [("match", "a/x.py", 2)]
    assert len(caller.json(TOOL, {"pattern": "foo", "case": "sensitive"})["matches"]) == 4


def test_t_ls_enc_01_invalid_utf8_replaced_deterministically(workspace):
    caller = workspace({"bad.txt": b"foo \xff\xfe bar\n"})
    first = caller.call(TOOL, {"pattern": "foo"})["content"]
    assert first == caller.call(TOOL, {"pattern": "foo"})["content"]
    assert json.loads(first)["matches"][0]["data"]["lines"]["text"] == "foo \ufffd\ufffd bar"


def test_t_ls_mpf_01_max_matches_per_file(workspace):
    out = workspace({"a.txt": "foo\n" * 5, "b.txt": "foo\n" * 5}).json(TOOL, {"pattern": "foo", "max_matches_per_file": 2})
    assert events(out) == [("match", "a.txt", 1), ("match", "a.txt", 2), ("match", "b.txt", 1), ("match", "b.txt", 2)]


def test_t_ls_mf_01_max_files(workspace):
    out = workspace({f"{c}.txt": "foo\n" for c in "abcde"}).json(TOOL, {"pattern": "foo", "max_files": 2})
    assert out["files_scanned"] <= 2 and len({e["data"]["path"]["text"] for e in out["matches"]}) <= 2


def test_t_ls_size_01_large_files_skipped_without_error(workspace):
    out = workspace({"big.txt": "foo\n" + "x" * 5000, "small.txt": "foo\n"}).json(
        TOOL, {"pattern": "foo", "max_file_size_bytes": 1000})
    assert [e["data"]["path"]["text"] for e in out["matches"]] == ["small.txt"]


def test_t_ls_excl_01_and_incl_01_globs(workspace):
    caller = workspace({"src/a.py": "foo\n", "src/b.rs": "foo\n", "test/c.py": "foo\n"})
    excl = caller.json(TOOL, {"pattern": "foo", "exclude_glob": ["*.rs"]})
    assert {e["data"]["path"]["text"] for e in excl["matches"]} == {"src/a.py", "test/c.py"}
    both = caller.json(TOOL, {"pattern": "foo", "include_glob": ["*.py"], "exclude_glob": ["test/**"]})
    assert {e["data"]["path"]["text"] for e in both["matches"]} == {"src/a.py"}


def test_glob_is_deprecated_alias_and_include_glob_wins(workspace):  # FR-LS-VAL-11
    caller = workspace({"a.py": "foo\n", "b.rs": "foo\n"})
    assert events(caller.json(TOOL, {"pattern": "foo", "glob": ["*.rs"]})) == [("match", "b.rs", 1)]
    assert events(caller.json(TOOL, {"pattern": "foo", "glob": ["*.rs"], "include_glob": ["*.py"]})) == [
        ("match", "a.py", 1)]


def test_t_ls_rec_01_non_recursive(workspace):
    out = workspace({"top.txt": "foo\n", "sub/deep.txt": "foo\n"}).json(TOOL, {"pattern": "foo", "recursive": False})
    assert events(out) == [("match", "top.txt", 1)]


def test_file_path_searches_only_that_file(workspace):  # FR-LS-VAL-04
    out = workspace(TREE).json(TOOL, {"pattern": "foo", "path": "b.txt"})
    assert {e["data"]["path"]["text"] for e in out["matches"]} == {"b.txt"}


def test_t_ls_col_01_and_mtxt_01_byte_columns_and_group_zero(workspace):
    out = workspace({"u.txt": "héllo wörld foo123\n"}).json(TOOL, {"pattern": r"foo\d+"})
    data = out["matches"][0]["data"]
    assert data["column"] == len("héllo wörld ".encode()) + 1 and data["match_text"] == "foo123"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads unreadable files")
def test_t_ls_err_01_permission_denied_recorded(workspace):
    caller = workspace({"ok.txt": "foo\n", "locked.txt": "foo\n"})
    os.chmod(caller.root / "locked.txt", 0)
    out = caller.json(TOOL, {"pattern": "foo"})
    assert events(out) == [("match", "ok.txt", 1)] and out["errors"][0]["path"] == "locked.txt"


@pytest.mark.parametrize("args, word", [
    ({"pattern": "foo", "bogus": 1}, "bogus"),          # FR-LS-02b
    ({"pattern": "   "}, "pattern"),                     # FR-LS-VAL-01
    ({"pattern": ""}, "pattern"),
    ({"pattern": "foo", "context": -1}, "context"),      # FR-LS-VAL-02
    ({"pattern": "foo", "max_results": 0}, "max_results"),
    ({"pattern": "foo", "timeout_ms": 0}, "timeout_ms"),
    ({"pattern": "foo", "fuzzy": 5}, "fuzzy"),
    ({"pattern": "foo", "include_glob": [""]}, "include_glob"),  # FR-LS-VAL-06
    ({"pattern": "foo", "max_files": 10**12}, "max_files"),      # FR-LS-VAL-08
    ({"pattern": "(", }, "pattern"),                     # FR-LS-SRC-02
])
def test_bad_args(workspace, args, word):
    content = workspace(TREE).error(TOOL, args)
    assert kind(content) == "BadArgs" and word in content


def test_missing_path_is_execution_failed_and_outside_is_sandbox(workspace):  # FR-LS-VAL-05
    caller = workspace(TREE)
    assert kind(caller.error(TOOL, {"pattern": "foo", "path": "missing"})) == "ExecutionFailed"
    assert kind(caller.error(TOOL, {"pattern": "foo", "path": "/"})) == "SandboxViolation"


def test_fixed_strings_and_word_regexp(workspace):
    caller = workspace({"a.txt": "a.b\naxb\nfoobar\nfoo bar\n"})
    assert events(caller.json(TOOL, {"pattern": "a.b", "fixed_strings": True})) == [("match", "a.txt", 1)]
    assert events(caller.json(TOOL, {"pattern": "foo", "word_regexp": True})) == [("match", "a.txt", 4)]


def test_it_ls_fz_01_fuzzy_native_levels_are_supersets(workspace):
    caller = workspace({"a.txt": "handler\nhandlr\nhxndlr\nzzzzzzz\n"})
    found = [{e["data"]["line_number"] for e in caller.json(TOOL, {"pattern": "handler", "fuzzy": level})["matches"]}
             for level in (1, 2, 3, 4)]
    assert found[0] >= {1, 2}
    assert all(found[i] <= found[i + 1] for i in range(3))  # FR-LS-SRC-11
    assert 4 not in found[3]


@pytest.mark.skipif(shutil.which("ugrep") is None, reason="ugrep not installed")
def test_it_ls_fz_01_fuzzy_with_ugrep(workspace):
    caller = workspace({"a.txt": "handler\nhandlr\nzzzzzzz\n"}, backend="ugrep")
    out = caller.json(TOOL, {"pattern": "handler", "fuzzy": 1})
    assert [e["data"]["line_number"] for e in out["matches"]] == [1, 2] and out["exit_code"] == 0


def test_timeout_sets_timed_out_with_note(workspace):
    caller = workspace(TREE)
    ctx = context(caller.root, caller.settings, services=caller.services,
                         token=CancelToken(timeout_ms=0))
    envelope = tools_call({"name": TOOL, "arguments": {"pattern": "foo"}}, ctx)
    out = json.loads(envelope["content"])
    assert envelope["is_error"] is False and out["timed_out"] is True and "timed out" in out["content"]


def test_it_ls_exit_01_and_02_classification():
    assert classify(0) == "ok_with_matches"
    assert classify(1) == "ok_no_matches"
    assert classify(2) == "backend_error" and classify(3) == "backend_error"


@pytest.mark.rg
def test_it_ls_exit_01_rg_no_matches_is_not_an_error(workspace):
    out = workspace(TREE, backend="rg").json(TOOL, {"pattern": "zzz_not_here"})
    assert out["exit_code"] == 1 and out["matches"] == [] and out["content"] == "No matches found."


@pytest.mark.rg
def test_it_ls_exit_02_rg_error_is_reported(workspace):
    content = workspace(TREE, backend="rg").error(TOOL, {"pattern": "(", "fixed_strings": False})
    assert kind(content) == "BadArgs"


def test_unavailable_backend_is_execution_failed(workspace, monkeypatch):
    from sleuth.commands.profiles import backends

    monkeypatch.setattr(backends, "_probe", lambda name: "'ugrep' was not found on PATH")
    monkeypatch.setattr(backends, "_verified", {})
    content = workspace(TREE, backend="ugrep").error(TOOL, {"pattern": "foo"})
    assert kind(content) == "ExecutionFailed" and "native" in content


def test_output_budget_shrinks_matches_and_stays_valid(workspace):
    caller = workspace({"f.txt": "foo " * 20 + "\n" * 1 + ("foo\n" * 100)}, max_output_bytes=2000)
    content = caller.call(TOOL, {"pattern": "foo"})["content"]
    out = json.loads(content)
    assert len(content.encode()) <= 2000 and out["truncated"] is True and out["count"] == len(out["matches"]) < 101


def test_redaction_of_secret_lines(workspace):
    caller = workspace({"cfg.py": 'API_KEY = "abcdefghijklmnopqrstuvwxyz012345"\n'})
    data = caller.json(TOOL, {"pattern": "API_KEY"})["matches"][0]["data"]
    assert "abcdefghijklmnop" not in data["lines"]["text"] and "[REDACTED]" in data["lines"]["text"]
    raw = caller.json(TOOL, {"pattern": "API_KEY"}, redaction=False)["matches"][0]["data"]
    assert "abcdefghijklmnop" in raw["lines"]["text"]
