"""Seed 004 ``acode.search_text`` over the real ranked index: user verification scenarios 1, 2, 6
(test 1, 4) and 7, and AC-006..019, 045. Runs once ``sleuth.text`` (the index helper's command) is
installed; until then the module is skipped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("sleuth.commands.text")

from sleuth.engine.index.service import IndexService  # noqa: E402
from tests.fixtures import index_service

SCENARIO_1 = {
    "src/UserService.cs": "namespace MyApp.Services\n{\n    public class UserService : IUserService\n    {\n"
                          "        private readonly IUserRepository _repository;\n        \n"
                          "        public async Task<User> GetUserAsync(int id)\n        {\n"
                          "            return await _repository.GetByIdAsync(id);\n        }\n    }\n}\n",
    "src/OrderService.cs": "namespace MyApp.Services\n{\n    public class OrderService : IOrderService\n    {\n"
                           "        private readonly UserService _userService;\n        \n"
                           "        public async Task<Order> CreateOrderAsync(int userId)\n        {\n"
                           "            var user = await _userService.GetUserAsync(userId);\n"
                           "            return new Order { UserId = user.Id };\n        }\n    }\n}\n",
}
SCENARIO_2 = {
    "src/api/Handler.cs": "public class ApiHandler { }\n",
    "src/web/Handler.ts": "export class WebHandler { }\n",
    "src/api/Service.cs": "public class ApiService { }\n",
}


@pytest.fixture
def indexed(workspace, tmp_path: Path):
    services: list[IndexService] = []

    def make(files, name="ws"):
        caller = workspace(files, name=name)
        service = index_service(caller.root, tmp_path / f"cache-{name}", caller.settings.index_config())
        service.start()
        assert service.wait_ready(60)
        caller.services.index = service
        services.append(service)
        return caller

    yield make
    for service in services:
        service.stop()


def test_scenario_1_basic_query_snippets_lines(indexed):
    caller = indexed(SCENARIO_1)
    out = caller.json("acode.search_text", {"query": "UserService"})
    assert [r["path"] for r in out["results"]][0] == "src/UserService.cs"  # higher score first (AC-011)
    assert {r["path"] for r in out["results"]} == {"src/UserService.cs", "src/OrderService.cs"}
    scores = [r["score"] for r in out["results"]]
    assert scores == sorted(scores, reverse=True) and all(0 <= s <= 1 for s in scores)  # AC-045
    (hit,) = caller.json("acode.search_text", {"query": "GetUserAsync", "context_lines": 2,
                                                "include_path": "src/UserService.cs"})["results"]
    assert "GetUserAsync" in hit["snippet"] and len(hit["context"]["before"]) == 2  # test 2
    (line,) = caller.json("acode.search_text", {"query": "IUserRepository"})["results"]
    assert line["line"] == 5  # test 3


def test_scenario_2_filters(indexed):
    caller = indexed(SCENARIO_2)
    by_ext = caller.json("acode.search_text", {"query": "Handler", "file_type": ".cs"})
    assert [r["path"] for r in by_ext["results"]] == ["src/api/Handler.cs"]  # AC-014
    by_dir = caller.json("acode.search_text", {"query": "Handler", "include_path": "src/web"})
    assert [r["path"] for r in by_dir["results"]] == ["src/web/Handler.ts"]  # AC-016
    both = caller.json("acode.search_text", {"query": "class", "file_type": ".cs", "include_path": "src/api"})
    assert {r["path"] for r in both["results"]} == {"src/api/Handler.cs", "src/api/Service.cs"}
    one = caller.json("acode.search_text", {"query": "class", "max_results": 1})
    assert len(one["results"]) == 1 and one["total"] >= 3  # AC-018
    several = caller.json("acode.search_text", {"query": "class", "file_type": [".cs", ".ts"]})
    assert len(several["results"]) == 3  # AC-015
    excluded = caller.json("acode.search_text", {"query": "class", "exclude_path": "src/api"})
    assert [r["path"] for r in excluded["results"]] == ["src/web/Handler.ts"]  # AC-017


def test_scenario_7_result_format(indexed):
    caller = indexed({"MyClass.cs": "public class MyClass { }\n"})
    out = caller.json("acode.search_text", {"query": "MyClass"})
    assert out["total"] == 1
    (result,) = out["results"]
    assert sorted(result) == ["line", "path", "score", "snippet"]
    assert result["path"] == "MyClass.cs" and result["line"] == 1 and result["snippet"] == "public class MyClass { }"
    assert 0 < result["score"] <= 1


def test_query_language_and_no_results(indexed):
    caller = indexed(SCENARIO_1)
    none = caller.json("acode.search_text", {"query": "nonexistentstring12345"})
    assert none["total"] == 0 and none["results"] == [] and none["message"]
    either = caller.json("acode.search_text", {"query": "IOrderService OR IUserRepository"})  # AC-045 (OR)
    assert {r["path"] for r in either["results"]} == {"src/UserService.cs", "src/OrderService.cs"}
    minus = caller.json("acode.search_text", {"query": "UserService -OrderService"})  # FR-015b-47
    assert {r["path"] for r in minus["results"]} == {"src/UserService.cs"}


def test_empty_query_is_src_002(indexed):
    caller = indexed(SCENARIO_1)
    err = json.loads(caller.error("acode.search_text", {"query": ""}))
    assert err["code"] == "ACODE-SRC-002" and "query" in err["message"].lower()


def test_scenario_6_without_an_index(workspace):
    envelope = workspace({"file.txt": "content\n"}).call("acode.search_text", {"query": "test"})
    if envelope["is_error"]:
        assert json.loads(envelope["content"])["code"] == "ACODE-SRC-001"
    else:  # the command fell back to a scan (NFR-015b-04, degrade gracefully)
        assert json.loads(envelope["content"])["total"] == 0
