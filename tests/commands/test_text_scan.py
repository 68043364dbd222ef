"""``sleuth.text`` before the index is ready (issue 14.2): the same ranking from disk, marked ``source: scan``.

The old command refused with ``index_not_ready`` until the index was ready (75 s on the first open of
the Linux tree, seconds after every restart). Now it answers from a scan; on the same files the
answer must be exactly the indexed one, result for result, score for score.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sleuth.commands import get_command
from sleuth.commands.config import Settings
from sleuth.commands.context import Services
from sleuth.engine.index import IndexService
from tests.conftest import write_tree
from tests.engine.text.test_text import TREE
from tests.fixtures import context, index_service

QUERIES = [
    "get user by id", "getUserById", "user", "pm runtime resume", "pm_runtime_resume", "iwl tlv api t",
    "kmap probe t", "odm type gpa e", "ixDPCSSYS CR0 LANE1 ANA RX PWR CTRL2", "user OR kmap", "user -api",
    '"get user"', "pm*", "PM_MAGIC", "UserController", "nothing_like_this_anywhere",
]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("text-scan")
    write_tree(root, {**TREE, ".hidden/user.py": "def get_user_by_id(): pass\n",
                      ".ignore": "ignored/\n", "ignored/user.py": "def get_user_by_id(): pass\n",
                      "blob.bin": "get_user_by_id\0\0binary\n"})
    return root


@pytest.fixture(scope="module")
def ready_index(tree: Path, tmp_path_factory: pytest.TempPathFactory) -> IndexService:
    service = index_service(tree, tmp_path_factory.mktemp("cache"), Settings().index_config())
    service.start()
    assert service.wait_ready(120), service.status()
    yield service
    service.stop()


class _NotReady:
    """An index that is still loading or building (what the server holds for the first seconds)."""

    ready = False

    def __init__(self, real: IndexService) -> None:
        self.config = real.config

    def status(self) -> dict[str, Any]:
        return {"state": "building"}


def _text(tree: Path, index: Any, args: dict[str, Any]) -> dict[str, Any]:
    ctx = context(tree, index=index)
    return get_command("sleuth.text")({"timeout_ms": 60_000, **args}, ctx)


@pytest.mark.parametrize("query", QUERIES)
def test_the_scan_answers_before_the_index_exactly_as_the_index_does(tree: Path, ready_index: IndexService,
                                                                      query: str) -> None:
    args = {"query": query, "max_results": 50, "context_lines": 1}
    indexed = _text(tree, ready_index, args)
    scanned = _text(tree, _NotReady(ready_index), args)
    assert indexed["source"] == "index" and scanned["source"] == "scan"
    assert scanned["results"] == indexed["results"]
    assert scanned["total"] == indexed["total"]


def test_the_scan_keeps_the_index_path_rule_and_filters(tree: Path, ready_index: IndexService) -> None:
    scanned = _text(tree, _NotReady(ready_index), {"query": "get user by id", "max_results": 50})
    paths = {r["path"] for r in scanned["results"]}
    assert paths and not paths & {".hidden/user.py", "ignored/user.py", "blob.bin"}
    filtered = _text(tree, _NotReady(ready_index), {"query": "get user by id", "file_types": ["ts"]})
    assert {r["path"] for r in filtered["results"]} == {"src/api.ts", "src/web/UserController.ts"}


def test_without_an_index_at_all_the_scan_answers(tree: Path) -> None:
    """Disabled (or failed) index: formerly ``index_not_ready``; a scan can answer, so it does."""
    result = _text(tree, None, {"query": "get user by id"})
    assert result["source"] == "scan" and result["results"][0]["path"] in {"src/repo.py", "src/api.ts"}


def test_open_buffers_are_ranked_as_their_unsaved_text(tree: Path, ready_index: IndexService) -> None:
    path = str(tree / "src" / "repo.py")
    ctx = context(tree, services=Services(index=_NotReady(ready_index),
                                           open_buffers={path: "def fetch_quokka_by_id(uid):\n    pass\n"}))
    result = get_command("sleuth.text")({"query": "fetch quokka by id"}, ctx)
    assert [(r["path"], r["line"]) for r in result["results"]] == [("src/repo.py", 1)]
