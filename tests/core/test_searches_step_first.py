"""Every search a person sends is a foreground search from its first step to its answer (issue 34):
the index's build and upkeep step aside for it (:mod:`sleuth.engine.foreground`). A grep marked itself
only while its files were read; a Quick-Open file list walks in the server's own process and was
never marked, so a build's walk and workers ran against it. Through the policy every door uses."""

from __future__ import annotations

import asyncio
import pathlib

import pytest

from sleuth.core.session import Invocation, Session
from sleuth.engine import foreground
from tests.conftest import write_tree

SEARCHES = [("sleuth.files", {}), ("sleuth.files", {"query": "a"}), ("sleuth.grep", {"pattern": "needle"}),
            ("sleuth.text", {"query": "needle"}), ("sleuth.symbols", {"query": "needle"})]


@pytest.fixture
def session(tmp_path: pathlib.Path):  # type: ignore[no-untyped-def]
    ws = write_tree(tmp_path / "ws", {"a.txt": "needle\n", "b.py": "def needle():\n    pass\n"})
    session = Session([str(ws)], extra_commands={}, layers=[("test", {"index_enabled": False})])
    try:
        yield session
    finally:
        session.close()


@pytest.mark.parametrize("command,args", SEARCHES, ids=[f"{c}-{sorted(a)}" for c, a in SEARCHES])
def test_a_search_is_marked_from_its_first_step_to_its_answer(session: Session, command: str,
                                                              args: dict[str, str]) -> None:
    heard: list[bool] = []
    unwatch = foreground.watch(heard.append)
    try:
        asyncio.run(session.invoke(Invocation(command, args)))
    finally:
        unwatch()
    assert heard == [True, False], heard  # one stretch: the whole command, not pieces of it
    assert foreground.active() == 0


def test_a_status_request_is_no_search(session: Session) -> None:
    heard: list[bool] = []
    unwatch = foreground.watch(heard.append)
    try:
        asyncio.run(session.invoke(Invocation("sleuth.index.status", {})))
        session.run(Invocation("sleuth.index.status", {}))
    finally:
        unwatch()
    assert heard == []


def test_a_one_shot_door_marks_its_search_too(session: Session) -> None:
    heard: list[bool] = []
    unwatch = foreground.watch(heard.append)
    try:
        session.run(Invocation("sleuth.files", {}))
    finally:
        unwatch()
    assert heard == [True, False]
