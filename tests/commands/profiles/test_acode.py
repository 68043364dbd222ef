"""Seed 004 (Acode Task 015.b) conformance for ``acode.search_files`` and ``acode.grep`` plus the
shared acceptance criteria: registration (AC-001..005, 020, 029, 082), result format (AC-039..047),
error codes (AC-057..064), configuration (AC-083..088) and user verification scenarios 3, 4, 6, 8.
``acode.search_text`` (scenarios 1, 2, 7) lives in test_acode_text.py; rate limits, logging and
metrics (AC-048..056, 071..076, scenario 5) in test_tools_safety.py."""

from __future__ import annotations

import json

import pytest

from sleuth.commands.config import Settings, load_agent_config
from sleuth.commands.settings_schema import merge_settings
from sleuth.commands.profiles import all_tools, lookup
from sleuth.commands.profiles.acode import DEFAULT_TIMEOUT_MS, _timeout_ms
from sleuth.commands.tools_list import run as tools_list
from tests.fixtures import context

GREP_TREE = {  # scenario 4
    "code.cs": "// TODO: Implement validation\npublic class Handler\n{\n    // FIXME: This is broken\n"
               "    public void Process()\n    {\n        // HACK: Temporary workaround\n    }\n}\n",
}
FILES_TREE = {  # scenario 3
    "src/controllers/UserController.cs": "", "src/controllers/OrderController.cs": "",
    "src/services/UserService.cs": "", "src/services/OrderService.cs": "", "README.md": "",
}


def paths(out):
    return sorted(r["path"] for r in out["results"])


# -- registration and discovery ------------------------------------------------------------------

def test_ac_001_002_020_029_tools_registered_with_descriptions(workspace):
    listed = tools_list({"profile": "acode"}, workspace({}).ctx())
    names = [t["name"] for t in listed["tools"]]
    assert names == ["acode.search_text", "acode.search_files", "acode.grep"]  # scenario 8 test 1
    for tool in listed["tools"]:
        assert len(tool["description"]) > 80 and "Use this tool when" in tool["description"]  # AC-005
        assert tool["read_only"] is True and tool["requires_approval"] is False


def test_ac_003_004_schemas_required_optional_types_ranges():  # scenario 8 test 2, FR-015b-40..43
    text = lookup("acode.search_text").input_schema
    assert text["required"] == ["query"]
    assert {"max_results", "file_type", "context_lines", "include_path", "exclude_path"} <= set(text["properties"])
    assert text["properties"]["max_results"]["maximum"] == 100 and text["properties"]["max_results"]["minimum"] == 1
    grep = lookup("acode.grep").input_schema
    assert grep["required"] == ["pattern"] and grep["properties"]["case_sensitive"]["default"] is True
    assert lookup("acode.search_files").input_schema["required"] == ["pattern"]


def test_ac_082_registration_idempotent_and_capability_query():  # FR-015b-44
    assert [t.qualified_name for t in all_tools("acode")] == [t.qualified_name for t in all_tools("acode")]
    ranked = [t.qualified_name for t in all_tools(capability="ranked")]
    assert ranked == ["acode.search_text"]
    assert "acode.grep" in [t.qualified_name for t in all_tools(capability="regex")]


def test_bare_names_resolve_within_the_configured_profile():
    assert lookup("grep", Settings(tools_profile="acode")).qualified_name == "acode.grep"
    assert lookup("search_files", Settings(tools_profile="acode")).qualified_name == "acode.search_files"


# -- scenario 3: file search -------------------------------------------------------------------

@pytest.mark.parametrize("args, expected", [
    ({"pattern": "README.md"}, ["README.md"]),                                                   # AC-021
    ({"pattern": "*Controller*"}, ["src/controllers/OrderController.cs", "src/controllers/UserController.cs"]),  # AC-022
    ({"pattern": "*.cs"}, ["src/controllers/OrderController.cs", "src/controllers/UserController.cs",
                           "src/services/OrderService.cs", "src/services/UserService.cs"]),   # AC-024
    ({"pattern": "**/User*.cs"}, ["src/controllers/UserController.cs", "src/services/UserService.cs"]),  # AC-023
    ({"pattern": "*.cs", "directory": "src/services"}, ["src/services/OrderService.cs",
                                                        "src/services/UserService.cs"]),       # AC-025
    ({"pattern": ["README.md", "*Order*"]}, ["README.md", "src/controllers/OrderController.cs",
                                             "src/services/OrderService.cs"]),                # FR-015b-50
    ({"pattern": "*.cs", "exclude_path": "src/controllers"}, ["src/services/OrderService.cs",
                                                               "src/services/UserService.cs"]),  # FR-015b-19
])
def test_scenario_3_file_search(workspace, args, expected):
    assert paths(workspace(FILES_TREE).json("acode.search_files", args)) == expected


def test_ac_026_027_028_file_results_have_size_modified_and_limit(workspace):
    caller = workspace(FILES_TREE)
    out = caller.json("acode.search_files", {"pattern": "*.cs", "max_results": 2})
    assert out["total"] == 4 and len(out["results"]) == 2
    item = out["results"][0]
    assert set(item) == {"path", "size", "modified"} and item["size"] == 0
    assert len(item["modified"]) == 19 and item["modified"][4] == "-" and item["modified"][10] == " "


# -- scenario 4: grep -----------------------------------------------------------------------------

def test_scenario_4_test_1_literal(workspace):  # AC-030, 033..035
    out = workspace(GREP_TREE).json("acode.grep", {"pattern": "TODO"})
    assert out == {"total": 1, "results": [{"path": "code.cs", "line": 1, "match": "// TODO: Implement validation"}]}


def test_scenario_4_test_2_regex(workspace):  # AC-031
    out = workspace(GREP_TREE).json("acode.grep", {"pattern": "TODO:|FIXME:|HACK:", "regex": True})
    assert [r["line"] for r in out["results"]] == [1, 4, 7] and out["total"] == 3
    literal = workspace(GREP_TREE, name="w2").json("acode.grep", {"pattern": "TODO:|FIXME:|HACK:"})
    assert literal["total"] == 0  # literal by default: "|" is text


def test_scenario_4_test_3_case_insensitive(workspace):  # AC-032
    caller = workspace(GREP_TREE)
    assert caller.json("acode.grep", {"pattern": "handler"})["total"] == 0
    out = caller.json("acode.grep", {"pattern": "handler", "case_sensitive": False})
    assert [r["match"] for r in out["results"]] == ["public class Handler"]
    assert caller.json("acode.grep", {"pattern": "handler", "case_sensitive": "false"})["total"] == 1  # "false" converts


def test_scenario_4_test_4_context(workspace):  # AC-036
    (result,) = workspace(GREP_TREE).json("acode.grep", {"pattern": "FIXME", "context_lines": 1})["results"]
    assert result["line"] == 4 and result["context"] == {"before": ["{"], "after": ["public void Process()"]}


def test_ac_038_file_pattern_and_file_type_filters(workspace):
    caller = workspace({"a.cs": "class A\n", "b.ts": "class B\n", "src/c.cs": "class C\n"})
    assert paths(caller.json("acode.grep", {"pattern": "class", "file_pattern": "*.cs"})) == ["a.cs", "src/c.cs"]
    assert paths(caller.json("acode.grep", {"pattern": "class", "file_type": ".ts"})) == ["b.ts"]
    assert paths(caller.json("acode.grep", {"pattern": "class", "file_type": ["ts", ".cs"]})) == ["a.cs", "b.ts",
                                                                                                 "src/c.cs"]
    assert paths(caller.json("acode.grep", {"pattern": "class", "include_path": "src"})) == ["src/c.cs"]
    assert paths(caller.json("acode.grep", {"pattern": "class", "include_path": "src/**"})) == ["src/c.cs"]
    assert paths(caller.json("acode.grep", {"pattern": "class", "exclude_path": "src"})) == ["a.cs", "b.ts"]


def test_whole_word_and_invert(workspace):  # FR-015b-48, 49
    caller = workspace({"a.txt": "cat\ncatalog\ndog\n"})
    assert [r["line"] for r in caller.json("acode.grep", {"pattern": "cat", "whole_word": True})["results"]] == [1]
    assert [r["line"] for r in caller.json("acode.grep", {"pattern": "cat", "invert": True})["results"]] == [3]


def test_grep_total_counts_beyond_max_results(workspace):  # FR-015b-27, AC-040
    out = workspace({"a.txt": "hit\n" * 80}).json("acode.grep", {"pattern": "hit", "max_results": 5})
    assert out["total"] == 80 and len(out["results"]) == 5 and out["message"].startswith("Showing 5 of 80")
    assert len(workspace({"b.txt": "hit\n" * 80}, name="w2").json("acode.grep", {"pattern": "hit"})["results"]) == 50


# -- result formatting ----------------------------------------------------------------------------

def test_ac_039_047_single_line_json_with_seed_spacing(workspace):
    content = workspace(GREP_TREE).call("acode.grep", {"pattern": "private|public", "regex": True})["content"]
    assert "\n" not in content and '"line": 2' in content and json.loads(content)["total"] == 2


def test_ac_046_long_lines_truncated(workspace):
    (result,) = workspace({"min.js": "x" * 1000 + "needle\n"}).json("acode.grep", {"pattern": "needle"})["results"]
    assert len(result["match"]) == 503 and result["match"].endswith("...")


def test_ac_063_no_results_is_success_with_empty_array(workspace):  # scenario 6 test 4 (grep)
    envelope = workspace(GREP_TREE).call("acode.grep", {"pattern": "nonexistentstring12345"})
    out = json.loads(envelope["content"])
    assert envelope["is_error"] is False and out["total"] == 0 and out["results"] == []
    assert "case_sensitive" in out["message"]  # FR-015b-34: a meaningful message, not just an empty array


def test_redaction_and_ac_088_switch(workspace):  # FR-015b-53
    tree = {"settings.py": 'password = "correct-horse-battery"\nGITHUB = "ghp_' + "a" * 36 + '"\n'}
    out = workspace(tree).json("acode.grep", {"pattern": "=", "max_results": 5})
    text = json.dumps(out)
    assert "correct-horse" not in text and "ghp_aaaa" not in text and text.count("[REDACTED]") == 2
    raw = workspace(tree, name="w2", redaction=False).json("acode.grep", {"pattern": "="})
    assert "correct-horse-battery" in json.dumps(raw)


# -- errors -------------------------------------------------------------------------------------------

def error(content: str) -> dict:
    return json.loads(content)


def test_ac_058_061_empty_pattern_is_invalid_query(workspace):  # scenario 6 test 2
    for tool, args in (("acode.grep", {"pattern": ""}), ("acode.search_files", {"pattern": "  "}),
                       ("acode.grep", {}), ("acode.grep", {"pattern": "x", "max_results": -5})):
        err = error(workspace(GREP_TREE, name=tool.replace(".", "_") + str(len(args))).error(tool, args))
        assert err["error"] == "invalid_query" and err["code"] == "ACODE-SRC-002"
        assert err["message"].startswith("Invalid search query")


def test_ac_037_062_invalid_regex_has_position(workspace):  # scenario 6 test 3
    err = error(workspace(GREP_TREE).error("acode.grep", {"pattern": "[invalid", "regex": True}))
    assert err["code"] == "ACODE-SRC-002" and isinstance(err["position"], int)
    assert "Invalid regex pattern" in err["message"] and "invalid" in err["message"].lower()


def test_ac_060_timeout_is_src_004(workspace):
    from sleuth.commands.tools_call import run as tools_call
    from sleuth.engine.cancel import CancelToken

    caller = workspace(GREP_TREE)
    ctx = context(caller.root, caller.settings, services=caller.services,
                         token=CancelToken(timeout_ms=0))
    envelope = tools_call({"name": "acode.grep", "arguments": {"pattern": "TODO"}}, ctx)
    err = error(envelope["content"])
    assert envelope["is_error"] and err["code"] == "ACODE-SRC-004" and err["error"] == "search_timeout"
    assert "more specific" in err["message"]  # AC-064


def test_ac_064_unknown_acode_tool_is_src_005():
    from sleuth.engine.errors import UnknownTool

    with pytest.raises(UnknownTool) as info:
        lookup("acode.semantic_search")
    assert info.value.to_dict()["error_code"] == "ACODE-SRC-005"


def test_sandbox_paths_are_invalid_queries(workspace):  # threat 2
    err = error(workspace(GREP_TREE).error("acode.grep", {"pattern": "x", "include_path": "../../etc"}))
    assert err["code"] == "ACODE-SRC-002" and "outside" in err["message"]


# -- configuration -----------------------------------------------------------------------------------

def test_ac_069_086_timeout_default_10s_configurable(tmp_path):
    assert _timeout_ms(Settings()) == DEFAULT_TIMEOUT_MS == 10_000
    (tmp_path / ".agent").mkdir()
    (tmp_path / ".agent" / "config.yml").write_text("tools:\n  search:\n    timeout_seconds: 30\n"
                                                    "    default_context_lines: 4\n")
    settings, problems = merge_settings(Settings(), load_agent_config(str(tmp_path)), "config.yml")
    assert problems == [] and _timeout_ms(settings) == 30_000 and settings.context_lines == 4  # AC-084


def test_ac_078_context_budget(workspace):
    caller = workspace({"a.txt": "needle line\n" * 200}, max_output_bytes=1500)
    content = caller.call("acode.grep", {"pattern": "needle", "max_results": 200})["content"]
    out = json.loads(content)
    assert len(content.encode()) <= 1500 and out["truncated_reason"] == "max_output_bytes" and out["total"] == 200


def test_ac_081_cancellation_propagates(workspace):
    from sleuth.commands.tools_call import run as tools_call
    from sleuth.engine.cancel import CancelToken
    from sleuth.engine.errors import Cancelled

    caller = workspace(GREP_TREE)
    token = CancelToken()
    token.cancel()
    ctx = context(caller.root, caller.settings, services=caller.services, token=token)
    with pytest.raises(Cancelled):
        tools_call({"name": "acode.grep", "arguments": {"pattern": "TODO"}}, ctx)


def test_fr_015b_55_overlong_queries_refused(workspace):
    caller = workspace(GREP_TREE, max_pattern_length=20)
    for tool, key in (("acode.grep", "pattern"), ("acode.search_files", "pattern"), ("acode.search_text", "query")):
        err = error(caller.error(tool, {key: "x" * 21}))
        assert err["code"] == "ACODE-SRC-002" and "limit is 20" in err["message"]


def test_threat_1_catastrophic_regex_is_harmless(workspace):
    """(a+)+$ backtracks exponentially on a backtracking engine; the linear engine answers at once.
    (No time is asserted: a backtracking engine would simply never finish this test.)"""
    caller = workspace({"evil.txt": "a" * 5000 + "b\n", "ok.txt": "aaa\n"})
    out = caller.json("acode.grep", {"pattern": "(a+)+$", "regex": True})
    assert [r["path"] for r in out["results"]] == ["ok.txt"]
