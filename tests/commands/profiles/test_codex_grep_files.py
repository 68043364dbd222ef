"""Seed 002 (codex ``grep_files``): every input/output example of the seed is a test here."""

from __future__ import annotations

from sleuth.commands.profiles import lookup
from sleuth.commands.tools_call import run as tools_call
from sleuth.engine.cancel import CancelToken
from tests.fixtures import context

TOOL = "codex.grep_files"


def repo(workspace, **settings):
    caller = workspace({
        "src/old.rs": "// TODO: old\nalpha\n",
        "src/new.rs": "// TODO: new\nalpha\n",
        "src/mid.py": "# TODO: mid\nalpha\n",
        "README.md": "nothing to do\n",
    }, **settings)
    caller.touch("src/old.rs", 1_000_000)
    caller.touch("src/mid.py", 2_000_000)
    caller.touch("src/new.rs", 3_000_000)
    return caller


def test_match_with_default_limit_newest_first(workspace):
    caller = repo(workspace)
    envelope = caller.call(TOOL, {"pattern": "TODO", "path": str(caller.root)})
    root = str(caller.root)
    assert envelope == {"content": f"{root}/src/new.rs\n{root}/src/mid.py\n{root}/src/old.rs", "is_error": False}


def test_no_matches(workspace):
    caller = repo(workspace)
    assert caller.call(TOOL, {"pattern": "ZZZ_NOT_FOUND", "path": str(caller.root)}) == {
        "content": "No matches found.", "is_error": True}  # success: Some(false)


def test_glob_filtered_and_limited(workspace):
    caller = repo(workspace)
    content = caller.call(TOOL, {"pattern": "alpha", "path": str(caller.root), "include": "*.rs", "limit": 5})["content"]
    assert content.splitlines() == [f"{caller.root}/src/new.rs", f"{caller.root}/src/old.rs"]
    one = caller.call(TOOL, {"pattern": "alpha", "include": "*.rs", "limit": 1})["content"]
    assert one == f"{caller.root}/src/new.rs"


def test_negated_include_and_blank_include(workspace):
    caller = repo(workspace)
    assert caller.call(TOOL, {"pattern": "alpha", "include": "!*.rs"})["content"] == f"{caller.root}/src/mid.py"
    assert len(caller.call(TOOL, {"pattern": "alpha", "include": "   "})["content"].splitlines()) == 3


def test_limit_capped_at_2000(workspace):
    caller = workspace({f"d{i // 500}/f{i:04}.txt": "foo\n" for i in range(2003)}, max_results=5000)
    envelope = caller.call(TOOL, {"pattern": "foo", "limit": 5000})
    assert envelope["is_error"] is False and len(envelope["content"].splitlines()) == 2000


def test_path_missing(workspace):
    caller = repo(workspace)
    missing = f"{caller.root}/missing"
    assert caller.call(TOOL, {"pattern": "foo", "path": missing}) == {
        "content": f"unable to access `{missing}`: No such file or directory (os error 2)", "is_error": True}
    assert caller.error(TOOL, {"pattern": "foo", "path": "missing"}).startswith("unable to access `missing`: ")


def test_path_outside_the_sandbox(workspace):
    content = repo(workspace).error(TOOL, {"pattern": "foo", "path": "/missing"})
    assert content.startswith("unable to access `/missing`: ") and "outside the workspace" in content


def test_empty_pattern(workspace):
    assert repo(workspace).call(TOOL, {"pattern": "   "}) == {"content": "pattern must not be empty", "is_error": True}


def test_zero_limit_and_parse_errors(workspace):
    caller = repo(workspace)
    assert caller.error(TOOL, {"pattern": "foo", "limit": 0}) == "limit must be greater than zero"
    assert caller.error(TOOL, {"pattern": "foo", "limit": -1}).startswith("failed to parse function arguments: ")
    assert caller.error(TOOL, {}).startswith("failed to parse function arguments: missing field `pattern`")
    assert caller.error(TOOL, {"pattern": 5}).startswith("failed to parse function arguments: ")


def test_relative_path_and_file_path(workspace):
    caller = repo(workspace)
    assert caller.call(TOOL, {"pattern": "TODO", "path": "src/mid.py"})["content"] == f"{caller.root}/src/mid.py"


def test_rg_timeout_message(workspace):
    caller = repo(workspace)
    ctx = context(caller.root, caller.settings, services=caller.services,
                         token=CancelToken(timeout_ms=0))
    envelope = tools_call({"name": TOOL, "arguments": {"pattern": "TODO"}}, ctx)
    assert envelope == {"content": "rg timed out after 30 seconds", "is_error": True}


def test_invalid_regex_is_rg_failed(workspace):
    assert repo(workspace).error(TOOL, {"pattern": "(unclosed"}).startswith("rg failed: ")


def test_case_sensitive_like_rg(workspace):
    caller = repo(workspace)
    assert caller.call(TOOL, {"pattern": "todo"})["content"] == "No matches found."


def test_definition():
    tool = lookup("grep_files")
    assert tool.qualified_name == TOOL and tool.input_schema["required"] == ["pattern"]
    assert set(tool.input_schema["properties"]) == {"pattern", "include", "path", "limit"}


def test_output_budget_cuts_paths_and_says_so(workspace):
    caller = workspace({f"f{i:03}.txt": "foo\n" for i in range(100)}, max_output_bytes=600)
    content = caller.call(TOOL, {"pattern": "foo"})["content"]
    assert len(content.encode()) <= 600 and content.endswith("lower limit)")
    assert 1 < len(content.splitlines()) < 100
