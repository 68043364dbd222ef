"""Seed 003 (Kimi ``search_files``): line format, single-level globs, ``**`` refusal, regex and
case rules, truncation note, no-match text, schema and description."""

from __future__ import annotations

from sleuth.commands.profiles import lookup
from sleuth.commands.profiles.kimi_search_files import NO_MATCHES, RECURSIVE_REFUSAL, TRUNCATION_NOTE

TOOL = "kimi.search_files"
TREE = {
    "src/lib.rs": "fn main() -> Result<(), Error> {   \n    Ok(())\n}\n",
    "src/util.rs": "pub fn parse() -> result::Result<u8> {}\n",
    "src/nested/deep.rs": "fn deep() -> Result<()> {}\n",
    "Cargo.toml": "[package]\nname = \"result\"\n",
    "notes.txt": "Result one\nresult two\nRESULT three\n",
}


def test_seed_cli_example(workspace):  # search_files {"query":"Result","pattern":"src/*.rs","case_insensitive":true}
    out = workspace(TREE).call(TOOL, {"query": "Result", "pattern": "src/*.rs", "case_insensitive": True})
    assert out == {"content": "src/lib.rs:1: fn main() -> Result<(), Error> {\nsrc/util.rs:1: pub fn parse() -> "
                              "result::Result<u8> {}", "is_error": False}


def test_default_pattern_is_top_level_only(workspace):
    out = workspace(TREE).call(TOOL, {"query": "result"})
    assert out["content"] == 'Cargo.toml:2: name = "result"\nnotes.txt:2: result two'


def test_plain_search_is_case_sensitive_by_default(workspace):
    assert workspace(TREE).call(TOOL, {"query": "RESULT", "pattern": "*.txt"})["content"] == "notes.txt:3: RESULT three"


def test_recursive_patterns_refused(workspace):
    out = workspace(TREE).call(TOOL, {"query": "Result", "pattern": "src/**/*.rs"})
    assert out == {"content": RECURSIVE_REFUSAL, "is_error": True}
    assert RECURSIVE_REFUSAL == 'Recursive patterns (**) are not allowed. Use a single\u2011level pattern like "src/*".'


def test_regex_mode_and_its_own_case_flag(workspace):
    caller = workspace(TREE)
    assert caller.call(TOOL, {"query": r"^R\w+ one$", "pattern": "*.txt", "regex": True})["content"] == \
        "notes.txt:1: Result one"
    # case_insensitive is ignored in regex mode; (?i) works
    assert caller.call(TOOL, {"query": "^result", "pattern": "*.txt", "regex": True, "case_insensitive": True})[
        "content"] == "notes.txt:2: result two"
    assert len(caller.call(TOOL, {"query": "(?i)^result", "pattern": "*.txt", "regex": True})["content"].splitlines()) == 3


def test_invalid_regex(workspace):
    content = workspace(TREE).error(TOOL, {"query": "(oops", "regex": True})
    assert content.startswith("Invalid regex pattern: (oops")


def test_truncation_note(workspace):
    caller = workspace(TREE)
    out = caller.call(TOOL, {"query": "e", "pattern": "*.txt", "max_results": 2, "case_insensitive": True})
    assert out["content"].splitlines() == ["notes.txt:1: Result one", "notes.txt:2: result two", TRUNCATION_NOTE]
    exact = caller.call(TOOL, {"query": "e", "pattern": "*.txt", "max_results": 3, "case_insensitive": True})
    assert TRUNCATION_NOTE not in exact["content"] and len(exact["content"].splitlines()) == 3


def test_no_matches(workspace):
    assert workspace(TREE).call(TOOL, {"query": "zzz"}) == {"content": NO_MATCHES, "is_error": False}


def test_missing_query_and_bad_types(workspace):
    caller = workspace(TREE)
    assert "query" in caller.error(TOOL, {"pattern": "*"})
    assert "max_results" in caller.error(TOOL, {"query": "x", "max_results": 0})


def test_pattern_outside_workspace_refused(workspace):
    assert "outside the workspace" in workspace(TREE).error(TOOL, {"query": "x", "pattern": "../*"})


def test_schema_and_description_are_the_seeds():
    tool = lookup(TOOL)
    assert tool.description == ("Search for a string or regular\u2011expression across files matching a glob "
                                "pattern. Returns lines with file:line:content format.")
    assert tool.input_schema["required"] == ["query"]
    assert tool.input_schema["properties"]["pattern"]["default"] == "*"
    assert tool.input_schema["properties"]["max_results"] == {
        "type": "integer", "minimum": 1, "description": "Maximum number of matches to return. Default 100.",
        "default": 100}


def test_output_budget_cuts_lines_and_says_so(workspace):
    caller = workspace({"big.txt": "".join(f"result line {i:03}\n" for i in range(100))}, max_output_bytes=400)
    content = caller.call(TOOL, {"query": "result"})["content"]
    assert len(content.encode()) <= 400 and content.endswith(TRUNCATION_NOTE)
    assert content.splitlines()[0] == "big.txt:1: result line 000"
