"""The first queries after start (issue 14.2) and one store per workspace (issue 14.5), over stdio.

While the index loads or builds, a grep takes the cold path and ``sleuth.text`` ranks from a scan:
both are answered while ``sleuth.index.status`` still says ``building``/``loading``, with the lines
a cold scan finds. The index is held back without timing: during a build by holding the store's
``build.lock`` the way another process building it does; during a load by the test hook
``SLEUTH_TEST_INDEX_GATE`` (the index waits while that file exists). No sleeps, no timed assertions.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import pathlib
from typing import Any, Iterator

import pytest
from harness import make_tree, start_session

from sleuth.commands import get_command
from sleuth.engine.index import store
from tests.conftest import HANG_S, needs_locks, run_sleuth
from tests.fixtures import context

FILES = {
    "src/repo.py": "# the one place users are loaded\ndef get_user_by_id(uid):\n    return DB[uid]\n",
    "src/api.ts": "export function getUserById(id: string) {\n  return fetch(id);\n}\n",
    "docs/notes.md": "get user by id is called everywhere\n",
    **{f"pkg{i}/mod{j}.c": f"int value_{i}_{j} = {j};\n/* get_user_by_id caller {i} {j} */\n"
       for i in range(8) for j in range(40)},  # past the size where a grep starts its process pool
}


GREP = {"pattern": "get_user_by_id", "max_results": 10_000}
TEXT = {"query": "users loaded"}  # a few files: within the ranking's time budget, so the answers must be equal


@pytest.fixture
def profile() -> str:
    """A client without file watching or progress (a script, an MCP host): one run per test, not per profile."""
    return "minimal"


def _cold_lines(root: pathlib.Path, pattern: str) -> list[tuple[str, int, str]]:
    ctx = context(root, index=None)
    result = get_command("sleuth.grep")({"pattern": pattern, "max_results": 10_000}, ctx)
    return _lines(result)


def _lines(result: dict[str, Any]) -> list[tuple[str, int, str]]:
    return [(m["path"], m["line"], m["text"]) for m in result["matches"] if m["type"] == "match"]


@contextlib.contextmanager
def _holding_build_lock(root: pathlib.Path, cache: pathlib.Path) -> Iterator[None]:
    """What another process building this store holds: the server waits for it, state ``building``."""
    base = store.store_dir([os.path.realpath(root)], str(cache))
    os.makedirs(base, exist_ok=True)
    with open(os.path.join(base, "build.lock"), "ab") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        yield


async def _state(session: Any) -> str:
    return (await session.execute("sleuth.index.status", {}))["state"]


async def _until_ready(session: Any) -> None:
    async def poll() -> None:
        while await _state(session) not in ("ready", "stale"):
            await asyncio.sleep(0.05)

    await asyncio.wait_for(poll(), 120)


@needs_locks  # it holds the build back with build.lock, which a platform without locks does not wait for
async def test_grep_and_text_during_a_build_answer_from_the_scan(start: Any, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", FILES)
    cache = tmp_path / "cache"
    expected = _cold_lines(root, "get_user_by_id")
    with _holding_build_lock(root, cache):
        session = await start([root], profile="minimal", init_options={"cacheDir": str(cache)})
        assert await _state(session) in ("loading", "building")
        grep = await asyncio.wait_for(session.execute("sleuth.grep", GREP), HANG_S)
        text = await asyncio.wait_for(session.execute("sleuth.text", TEXT), HANG_S)
        assert await _state(session) == "building"  # both answered while the index could not be used
    assert _lines(grep) == expected and len(expected) == 321
    assert text["source"] == "scan" and [(r["path"], r["line"]) for r in text["results"]] == [("src/repo.py", 1)]
    await _until_ready(session)
    indexed = await session.execute("sleuth.text", TEXT)
    assert indexed["source"] == "index"
    assert indexed["results"] == text["results"] and indexed["total"] == text["total"]
    assert _lines(await session.execute("sleuth.grep", GREP)) == expected


async def test_grep_and_text_during_a_load_answer_from_the_scan(start: Any, tmp_path: pathlib.Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_tree(tmp_path / "ws", FILES)
    cache = tmp_path / "cache"
    first = await start([root], profile="minimal", init_options={"cacheDir": str(cache)})
    await _until_ready(first)
    built = await first.execute("sleuth.index.status", {})
    await first.client.shutdown_session()
    gate = tmp_path / "gate"
    gate.write_text("held\n")
    monkeypatch.setenv("SLEUTH_TEST_INDEX_GATE", str(gate))
    session = await start([root], profile="minimal", init_options={"cacheDir": str(cache)})
    grep = await asyncio.wait_for(session.execute("sleuth.grep", GREP), HANG_S)
    text = await asyncio.wait_for(session.execute("sleuth.text", TEXT), HANG_S)
    assert await _state(session) == "loading"
    gate.unlink()
    assert _lines(grep) == _cold_lines(root, "get_user_by_id")
    assert text["source"] == "scan"
    await _until_ready(session)
    status = await session.execute("sleuth.index.status", {})
    assert status["store_path"] == built["store_path"]  # the published store was opened, not rebuilt
    indexed = await session.execute("sleuth.text", TEXT)
    assert indexed["source"] == "index" and indexed["results"] == text["results"]


async def test_the_editor_and_the_cli_share_one_store(sessions: list[Any], tmp_path: pathlib.Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Formerly the VS Code client's storagePath picked a store of its own: two builds of one folder."""
    root = make_tree(tmp_path / "ws", {"a.py": "def alpha():\n    pass\n", "b.txt": "alpha beta\n"})
    caches = tmp_path / "xdg-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(caches))
    editor_storage = tmp_path / "vscode-workspace-storage"
    session = await start_session("vscode", [root], init_options={
        "storagePath": str(editor_storage), "globalStoragePath": str(tmp_path / "vscode-global")})
    sessions.append(session)
    await _until_ready(session)
    status = await session.execute("sleuth.index.status", {})
    assert status["store_path"].startswith(str(caches / "sleuth") + os.sep)
    assert not editor_storage.exists()
    cli = run_sleuth(root, "index", "status", "--json", cache=caches)
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout)["store_path"] == status["store_path"]  # the CLI opened the same generation
    assert os.listdir(caches / "sleuth") == [os.path.basename(os.path.dirname(status["store_path"]))]


async def test_an_index_path_inside_the_workspace_is_refused_with_a_message(start: Any,
                                                                             tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {"a.txt": "alpha\n"})
    session = await start([root], profile="minimal", init_options={"index": {"path": str(root / ".idx")}})
    await session.eventually(lambda: any("inside the workspace folder" in m.message
                                         for m in session.client.messages))
    assert (await session.execute("sleuth.index.status", {}))["state"] == "disabled"
    assert not (root / ".idx").exists()
    grep = await session.execute("sleuth.grep", {"pattern": "alpha"})  # searches scan
    assert [m["path"] for m in grep["matches"]] == ["a.txt"]
    # Only the person may name the store's place (a repository's .agent/config.yml may not): their own
    # config.yml, here in a private XDG_CONFIG_HOME for the CLI process.
    config_home = tmp_path / "config-home"
    (config_home / "sleuth").mkdir(parents=True)
    (config_home / "sleuth" / "config.yml").write_text(f"sleuth:\n  index:\n    path: {root / 'cache-here'}\n")
    cli = run_sleuth(root, "index", "status", env={"XDG_CONFIG_HOME": str(config_home)})
    assert cli.returncode == 2 and "inside the workspace folder" in cli.stderr
    assert not (root / "cache-here").exists()
