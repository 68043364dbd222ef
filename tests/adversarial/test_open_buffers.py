"""Issue 23 item 5 (= issue 14 item 7) and issue 14 item 6: open buffers obey the path rule, and a
buffer never saved to disk is searched.

An editor's ``didOpen`` made a file refused by ``deny_globs`` (``*.key``, ``denied/**``) searchable
by ``sleuth.grep`` (and its text returned by ``sleuth.text``) once the index was ready: buffers
entered the index's candidates with only an inside-the-workspace check. Hidden and ignored files
opened in the editor were searched the same way. A buffer for a path not yet on disk (a new file in
Neovim) was never searched, with or without the index. Against the real server, with the index
ready and with it disabled; through the commands and the tool profiles.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest
from harness import make_tree, sessions, start  # noqa: F401 - fixtures

DENY = ["*.key", "denied/**"]
TREE = {"a.txt": "saved text\n", "server.key": "saved key\n", "denied/d.txt": "saved denied\n",
        ".hidden/h.txt": "saved hidden\n", "ignored/i.txt": "saved ignored\n", ".gitignore": "ignored/\n",
        ".git/HEAD": "ref: refs/heads/main\n"}
OPENED = ["a.txt", "server.key", "denied/d.txt", ".hidden/h.txt", "ignored/i.txt",  # on disk
          "new_file.txt", "denied/new.txt", "fresh.key"]  # never saved
ALLOWED = ["a.txt", "new_file.txt"]


@pytest.fixture
def profile() -> str:
    return "minimal"  # Neovim-like: no watcher, no progress


async def _session(start: Any, tmp_path: pathlib.Path, indexed: bool) -> Any:
    root = make_tree(tmp_path / "ws", TREE)
    session = await start([root], init_options={"deny_globs": DENY, "index": {"enabled": indexed},
                                                "cacheDir": str(tmp_path / "cache")})
    if indexed:
        assert (await session.execute("sleuth.index.build", {"wait": True}))["state"] == "ready"
    for name in OPENED:
        session.open(root / name, "BUFFER_NEEDLE unsaved typing\n")
    return session


@pytest.mark.parametrize("indexed", [True, False], ids=["index", "scan"])
async def test_grep_searches_only_the_buffers_the_rules_allow(start: Any, tmp_path: pathlib.Path,
                                                               indexed: bool) -> None:
    session = await _session(start, tmp_path, indexed)
    for pattern in ("BUFFER_NEEDLE", "BUFFER.NEEDLE|zzz"):  # index narrowing, and the no-literal path
        result = await session.execute("sleuth.grep", {"pattern": pattern})
        assert [m["path"] for m in result["matches"] if m.get("type", "match") == "match"] == ALLOWED
        assert not any("unsaved" in json.dumps(m) and m["path"] not in ALLOWED for m in result["matches"])
    named = await session.execute("sleuth.grep", {"pattern": "BUFFER_NEEDLE", "hidden": True, "no_ignore": True})
    assert [m["path"] for m in named["matches"]] == [".hidden/h.txt", "a.txt", "ignored/i.txt", "new_file.txt"]


async def test_text_and_tools_never_return_a_denied_buffer(start: Any, tmp_path: pathlib.Path) -> None:
    session = await _session(start, tmp_path, True)
    text = await session.execute("sleuth.text", {"query": "BUFFER_NEEDLE"})
    assert sorted(r["path"] for r in text["results"]) == ALLOWED
    tool = await session.execute("sleuth.tools.call", {"name": "acode.grep", "arguments": {"pattern": "BUFFER_NEEDLE"}})
    assert sorted(r["path"] for r in json.loads(tool["content"])["results"]) == ALLOWED
    ranked = await session.execute("sleuth.tools.call", {"name": "acode.search_text",
                                                         "arguments": {"query": "BUFFER_NEEDLE"}})
    assert "key" not in ranked["content"] and "denied" not in ranked["content"]
    assert "a.txt" in ranked["content"]
