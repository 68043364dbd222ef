"""Freshness is the server's job (issue 14.1): a client that reports no file changes still gets answers
that agree with the disk.

The real server over stdio, a client that declares no watcher capability (the ``minimal`` profile) and a
periodic rescan too far away to help: files change on disk (append, create, delete, rename, a 1,000-file
rewrite, a folder moved in and out, a file made unreadable) and the next greps must give ``rg``'s lines,
polled with a bound while the server's own watcher catches up, never slept on. The old server answered
from its stale index until the rescan (60 s by default).
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import subprocess
import time
from typing import Any

import pytest
from harness import Session, make_tree

from tests.conftest import HANG_S
from tests.diff.rg import needs_rg, rg_events

pytestmark = needs_rg

CATCH_UP_S = HANG_S  # the bound on the watcher catching up (it takes milliseconds): only a hang reaches it
NO_RESCAN = {"rescanIntervalSeconds": 3600}  # the periodic rescan must not be what finds the changes


@pytest.fixture
def profile() -> str:
    return "minimal"  # no didChangeWatchedFiles, no dynamic registration, no progress


async def grep_lines(session: Session, pattern: str) -> list[tuple[str, int]]:
    found = await session.execute("sleuth.grep", {"pattern": pattern, "max_results": 5000})
    return [(m["path"], m["line"]) for m in found["matches"] if m["type"] == "match"]


def rg_lines(root: pathlib.Path, pattern: str) -> list[tuple[str, int]]:
    return [(path, line) for kind, path, line in rg_events(root, "--sort", "path", pattern) if kind == "match"]


async def agrees(session: Session, root: pathlib.Path, pattern: str) -> list[tuple[str, int]]:
    """Poll grep until its lines are rg's (bounded by :data:`CATCH_UP_S`); returns them."""
    expected = rg_lines(root, pattern)
    deadline = time.monotonic() + CATCH_UP_S
    got = await grep_lines(session, pattern)
    while got != expected and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
        got = await grep_lines(session, pattern)
    assert got == expected, f"still stale after {CATCH_UP_S} s: {sorted(set(got) ^ set(expected))[:10]}"
    return got


async def ready(session: Session) -> dict[str, Any]:
    # Twice: a build request that arrives during the first build queues a rescan that may outlive
    # the first answer (and would find the changes made next); the second waits for it.
    for _ in range(2):
        status = await session.execute("sleuth.index.build", {"wait": True})
    assert status["state"] == "ready", status
    deadline = time.monotonic() + CATCH_UP_S
    while (status.get("watcher") or {"state": "watching"})["state"] != "watching" and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
        status = await session.execute("sleuth.index.status", {})
    return status


async def test_every_kind_of_change_is_seen_without_client_notifications(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {
        ".gitignore": "build/\n",
        "src/a.c": "int alpha;\n", "src/b.c": "FRESH_NEEDLE in b\n", "src/c.c": "FRESH_NEEDLE in c\n",
        "doc/readme.txt": "nothing\n", "build/out.c": "FRESH_NEEDLE ignored\n",
        **{f"many/f{i:04}.c": f"old content {i}\n" for i in range(1000)},
    })
    subprocess.run(["git", "init", "-q", str(root)], check=True)  # rg applies .gitignore in a repository
    outside = make_tree(tmp_path / "outside", {"pkg/one.c": "FRESH_NEEDLE moved in\n",
                                               "pkg/deep/two.c": "x\nFRESH_NEEDLE deep\n"})
    session = await start([root], init_options=NO_RESCAN)
    await ready(session)
    assert await agrees(session, root, "FRESH_NEEDLE") == [("src/b.c", 1), ("src/c.c", 1)]

    with open(root / "src/a.c", "a") as handle:  # a line appended
        handle.write("FRESH_NEEDLE appended\n")
    assert ("src/a.c", 2) in await agrees(session, root, "FRESH_NEEDLE")

    (root / "src/new.c").write_text("\n\nFRESH_NEEDLE created\n")  # a new file
    assert ("src/new.c", 3) in await agrees(session, root, "FRESH_NEEDLE")

    os.remove(root / "src/b.c")  # a deleted file
    assert ("src/b.c", 1) not in await agrees(session, root, "FRESH_NEEDLE")

    os.rename(root / "src/c.c", root / "doc/renamed.c")  # a renamed file
    assert ("doc/renamed.c", 1) in await agrees(session, root, "FRESH_NEEDLE")

    (root / "build/late.c").write_text("FRESH_NEEDLE still ignored\n")  # an ignored folder stays ignored
    os.rename(outside / "pkg", root / "pkg")  # a folder moved in
    lines = await agrees(session, root, "FRESH_NEEDLE")
    assert ("pkg/deep/two.c", 2) in lines and not any(p.startswith("build/") for p, _ in lines)
    os.rename(root / "pkg", outside / "pkg-back")  # and out again
    assert not any(p.startswith("pkg/") for p, _ in await agrees(session, root, "FRESH_NEEDLE"))

    os.chmod(root / "src/new.c", 0)  # a file made unreadable (root reads it anyway, as rg does)
    try:
        await agrees(session, root, "FRESH_NEEDLE")
    finally:
        os.chmod(root / "src/new.c", 0o644)

    for i in range(1000):  # a branch switch: 1,000 files rewritten
        (root / f"many/f{i:04}.c").write_text(f"BRANCH_NEEDLE {i}\n" if i % 3 else f"other {i}\n")
    assert len(await agrees(session, root, "BRANCH_NEEDLE")) == 666
    assert await agrees(session, root, "old content") == []


async def test_text_search_sees_a_new_definition(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {"a.py": "def existing():\n    pass\n"})
    session = await start([root], init_options=NO_RESCAN)
    await ready(session)
    (root / "handlers.py").write_text("import os\n\n\ndef quokka_handler(event):\n    return event\n")
    deadline = time.monotonic() + CATCH_UP_S
    found = await session.execute("sleuth.text", {"query": "quokka_handler"})
    while not found["results"] and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
        found = await session.execute("sleuth.text", {"query": "quokka_handler"})
    assert [(r["path"], r["line"]) for r in found["results"]][:1] == [("handlers.py", 4)]
