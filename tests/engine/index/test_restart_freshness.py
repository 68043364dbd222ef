"""A restart finds every change made while no server ran, from the folder stamps (issue 34).

The stamps (:mod:`sleuth.engine.index.freshness`) replace the restart's full walk by a ``stat`` of
each catalogued file and stamped folder, re-listing only folders whose times moved. A miss there
would be a stale index for good (nothing else looks again), so the property is the strong one:
after any random changes made while the index was closed, and a restart, the index's answers and
its catalogue equal a cold scan's, and the stamps (not the walk) found them unless an ignore file
changed. The racy window is set to zero here: these trees are seconds old, and inside it every
folder is listed again (correct, but the stat path would go untested).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sleuth.engine.cancel import CancelToken
from sleuth.engine.index import freshness
from sleuth.engine.types import SkipCounts, WalkOptions
from sleuth.engine.walk import walk
from sleuth.engine.workspace import Target, Workspace
from tests.fixtures import started_index
from tests.engine.index.test_random_operations import _agree, apply, operation

ignore_edit = st.tuples(st.just("ignore"), st.sampled_from(["", "d", "h/j"]), st.sampled_from(["*.c", "e.txt", "g*", ""]))


@pytest.fixture(autouse=True)
def no_racy_window(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(freshness, "RACY_NS", 0)


def _walked(root: Path) -> set[str]:
    ws = Workspace([root])
    return {e.path for e in walk(ws, [Target(ws.roots[0], ws.roots[0].path, True)], WalkOptions(), CancelToken(),
                                 SkipCounts(), [])}


def _tree(root: Path) -> None:
    for rel, text in {"a.txt": "NEEDLE_A\n", "b.c": "haystack\n", "d/e.txt": "needle_a x\n",
                      "d/f/g.txt": "NEEDLE_B\n", "h/i.txt": "x\n", "h/j/k.c": "NEEDLE_A haystack\n"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def rules_edited(root: Path, ops: list) -> bool:
    """Whether an ignore file the operations wrote is still in the tree (``_tree`` has none): an edit
    into a folder that did not exist then was not made, one whose folder was deleted since went with
    it (the stamps tell), and one whose folder was moved is there under the new name (it was looked
    for at the folder it was written into, and a walk was wrongly called a mistake)."""
    return any(op[0] == "ignore" for op in ops) and any(root.rglob(".ignore"))


def apply_while_down(root: Path, away: Path, ops: list) -> None:
    """Carry out file operations and ignore-file edits (``ignore_edit``) while no index runs."""
    for op in ops:
        if op[0] == "ignore":
            folder = root / op[1]
            if folder.is_dir():
                (folder / ".ignore").write_text(op[2] + "\n", encoding="utf-8")
        else:
            apply(root, away, op)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(st.one_of(operation, ignore_edit), min_size=0, max_size=6))
@example(ops=[("rmtree", "h"), ("ignore", "d", "*.c"), ("move_dir", "d", "h")])  # the rules file moved with its folder
def test_changes_made_while_down_are_all_found(tmp_path_factory: pytest.TempPathFactory, ops: list) -> None:
    root = tmp_path_factory.mktemp("down") / "ws"
    root.mkdir()
    _tree(root)
    cache, away = tmp_path_factory.mktemp("cache"), tmp_path_factory.mktemp("away")
    started_index(root, cache).stop()
    apply_while_down(root, away, ops)
    service = started_index(root, cache)
    try:
        assert service.upkeep.caught_up_by == ("walk" if rules_edited(root, ops) else "stamps")
        assert _agree(service) == []
        with service.state.lock:
            catalogued = set(service.state.cat.by_path)
        assert catalogued == _walked(root)
    finally:
        service.stop()


def test_an_unchanged_tree_restarts_without_listing_a_folder(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    _tree(root)
    started_index(root, tmp_path / "cache").stop()
    service = started_index(root, tmp_path / "cache")
    try:
        with service.state.lock:
            cat, catalog = service.state.cat, service.state.catalog_db
            sizes = {p: (r.size, r.mtime_ns, r.indexed) for p, r in cat.by_path.items()}
            quick = freshness.quick_catch_up(catalog, service.workspace, service.options, sizes, CancelToken())
        assert quick is not None and (quick.changed, quick.gone, quick.relisted) == ([], [], 0)
        # A file rewritten in place (same size, its folder untouched): found by its time alone.
        target = root / "d" / "f" / "g.txt"
        target.write_text("NEEDLE_C\n", encoding="utf-8")
        os.utime(target, ns=(target.stat().st_atime_ns, target.stat().st_mtime_ns + 10_000_000))
        with service.state.lock:
            quick = freshness.quick_catch_up(catalog, service.workspace, service.options, sizes, CancelToken())
        assert quick is not None and quick.changed == [str(target)] and quick.relisted == 0
    finally:
        service.stop()


def test_a_folder_within_the_racy_window_is_listed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A name added in the same clock tick as the listing leaves the folder's time as stamped: a
    folder that recent is stamped unknown, and a restart lists it again."""
    monkeypatch.setattr(freshness, "RACY_NS", 10**18)
    root = tmp_path / "ws"
    root.mkdir()
    _tree(root)
    started_index(root, tmp_path / "cache").stop()
    folder_times = {p: (os.stat(p).st_mtime_ns, os.stat(p).st_ctime_ns) for p in (root, root / "d")}
    service = started_index(root, tmp_path / "cache")
    try:
        assert service.upkeep.caught_up_by == "stamps"
        with service.state.lock:
            cat, catalog = service.state.cat, service.state.catalog_db
            sizes = {p: (r.size, r.mtime_ns, r.indexed) for p, r in cat.by_path.items()}
            quick = freshness.quick_catch_up(catalog, service.workspace, service.options, sizes, CancelToken())
        assert quick is not None and quick.relisted == 5  # every folder (ws, d, d/f, h, h/j): all stamped unknown
        assert folder_times == {p: (os.stat(p).st_mtime_ns, os.stat(p).st_ctime_ns) for p in folder_times}
    finally:
        service.stop()


def test_the_stated_comparison_answers_as_the_per_file_loop(tmp_path: Path) -> None:
    """The usual restart (no folder moved, every ``stat`` made on the other core) takes
    :func:`freshness.changed_by_stated` instead of the per-file loop: the same changed and gone files."""
    from sleuth.engine.index.stat_pass import stated_of_sizes

    root = tmp_path / "ws"
    root.mkdir()
    _tree(root)
    started_index(root, tmp_path / "cache").stop()
    service = started_index(root, tmp_path / "cache")
    try:
        target = root / "d" / "f" / "g.txt"  # rewritten in place, same size, its folder's times untouched
        target.write_text("NEEDLE_C\n", encoding="utf-8")
        os.utime(target, ns=(target.stat().st_atime_ns, target.stat().st_mtime_ns + 10_000_000))
        with service.state.lock:
            cat, catalog = service.state.cat, service.state.catalog_db
            sizes = {p: (r.size, r.mtime_ns, r.indexed) for p, r in cat.by_path.items()}
            stray = str(root / "new" / "x.txt")  # catalogued in a folder the stamps never saw
            sizes[stray] = (1, 0, True)
            stated = stated_of_sizes(sizes)
            if stated is None:  # (no compiled loop: the same answer made here)
                stated = ({stray}, {str(target)})
            by_loop = freshness.quick_catch_up(catalog, service.workspace, service.options, sizes, CancelToken())
            by_stated = freshness.quick_catch_up(catalog, service.workspace, service.options, sizes, CancelToken(),
                                                 stated)
            waited: list[bool] = []  # ``stated`` as a call that waits for a pass still running (stat_pass.stated_later)
            by_call = freshness.quick_catch_up(catalog, service.workspace, service.options, sizes, CancelToken(),
                                               lambda: waited.append(True) or stated)
            by_none = freshness.quick_catch_up(catalog, service.workspace, service.options, sizes, CancelToken(),
                                               lambda: None)  # (the pass failed: each file stated here)
        assert by_loop is not None and by_stated is not None and by_call is not None and by_none is not None
        assert sorted(by_stated.changed) == sorted(by_loop.changed) == sorted([str(target), stray])
        assert by_stated.gone == by_loop.gone == [] and by_stated.relisted == 0
        assert waited and (by_call.changed, by_call.gone) == (by_stated.changed, by_stated.gone)  # (asked again: no harm)
        assert sorted(by_none.changed) == sorted(by_loop.changed) and by_none.gone == []
    finally:
        service.stop()


def test_changed_by_stated_sorts_stated_and_stray_files() -> None:
    sizes = {"/r/a": (1, 0, True), "/r/b": (1, 0, True), "/r/c": (1, 0, True), "/r/n/d": (1, 0, True)}
    stamps = {"/r": (0, 0, "")}
    changed, gone = freshness.changed_by_stated(sizes, stamps, ({"/r/a", "/r/n/d", "/elsewhere"}, {"/r/b"}))
    assert sorted(changed) == ["/r/b", "/r/n/d"] and gone == ["/r/a"]
