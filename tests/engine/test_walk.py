"""The walk: final order, limits, symlinks, deny globs, errors and cancellation on real trees."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest

from sleuth.engine.cancel import CancelToken
from sleuth.engine.ignore import Filter
from sleuth.engine.types import FileEntry, FileError, SkipCounts, WalkOptions
from sleuth.engine.walk import walk
from sleuth.engine.workspace import Workspace
from tests.conftest import write_tree


@pytest.fixture(autouse=True)
def _no_user_git_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine's own ~/.config/git/ignore must not change what these trees yield."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL"):
        monkeypatch.delenv(var, raising=False)


def run(ws: Workspace, path: str | None = None, token: CancelToken | None = None,
        **options: object) -> tuple[list[FileEntry], SkipCounts, list[FileError]]:
    skipped = SkipCounts()
    errors: list[FileError] = []
    entries = list(walk(ws, ws.resolve(path), WalkOptions(**options), token or CancelToken(), skipped, errors))  # type: ignore[arg-type]
    return entries, skipped, errors


def displays(ws: Workspace, path: str | None = None, **options: object) -> list[str]:
    return [e.display for e in run(ws, path, **options)[0]]


def test_order_is_bytewise_over_full_paths(tmp_path: Path) -> None:
    names = ["a/x", "a.txt", "a-b", "a_b", "A", "ab/c", "a/b/c", "b", "a0", "a/!"]
    root = write_tree(tmp_path / "ws", {n: n for n in names})
    got = displays(Workspace([root]))
    assert got == sorted(names, key=lambda n: n.encode())
    assert got.index("a.txt") < got.index("a/!") < got.index("a0")  # '.' < '/' < '0'


def test_entries_carry_path_size_and_mtime(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", {"d/f.txt": "hello"})
    (entry,), _, _ = run(Workspace([root]))
    st = os.stat(root / "d" / "f.txt")
    assert entry == FileEntry(str(root / "d" / "f.txt"), "d/f.txt", 5, st.st_mtime)


def test_names_display_as_nfc_and_lossy_utf8(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", {"e\u0301.txt": "nfd", "\u00e9z.txt": "nfc", "f.txt": "ascii"})
    raw = os.fsencode(str(root)) + b"/bad\xff.txt"
    with open(raw, "wb") as fh:
        fh.write(b"x")
    entries, _, _ = run(Workspace([root]))
    got = [e.display for e in entries]
    assert got == sorted(got, key=lambda d: d.encode("utf-8"))
    assert "bad\ufffd.txt" in got and unicodedata.normalize("NFC", "e\u0301.txt") in got
    for e in entries:
        e.display.encode("utf-8")  # always valid UTF-8
        assert os.path.exists(e.path)  # the raw path still opens


def test_several_roots_are_ordered_by_name_and_prefixed(tmp_path: Path) -> None:
    web = write_tree(tmp_path / "web", {"z.txt": "", "a.txt": ""})
    api = write_tree(tmp_path / "api", {"m.txt": ""})
    ws = Workspace([web, api])
    assert displays(ws) == ["api/m.txt", "web/a.txt", "web/z.txt"]
    assert displays(ws, "web") == ["web/a.txt", "web/z.txt"]


def test_nested_workspace_folders_are_not_listed_twice(tmp_path: Path) -> None:
    outer = write_tree(tmp_path / "outer", {"a.txt": "", "inner/b.txt": ""})
    ws = Workspace([outer, outer / "inner"])
    got = displays(ws)
    assert got == ["inner/b.txt", "outer/a.txt"]


def test_named_file_target(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", {".gitignore": "*.log\n", "x.log": "l", "big.txt": "x" * 100})
    (root / ".git").mkdir()
    ws = Workspace([root])
    assert displays(ws, "x.log") == ["x.log"]
    assert displays(ws, "x.log", deny_globs=("*.log",)) == []
    entries, skipped, _ = run(ws, "big.txt", max_file_size_bytes=10)
    assert entries == [] and skipped.too_large == 1


def test_deny_globs_win_over_every_option(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", {"secrets/k.pem": "k", "a.pem": "p", "ok.txt": "o", "sub/.env": "e"})
    os.symlink(root, root / "secrets" / "loop")
    ws = Workspace([root])
    deny = ("secrets/", "*.pem", ".env")
    for options in ({}, {"hidden": True, "no_ignore": True}, {"include_globs": ("*.pem", "secrets/**", ".env")}):
        entries, _, errors = run(ws, deny_globs=deny, follow=True, **options)  # type: ignore[arg-type]
        assert [e.display for e in entries] in (["ok.txt"], [])
        assert errors == []  # the denied folder (with its symlink loop) was never entered
    assert displays(ws, "secrets", deny_globs=deny) == []
    assert displays(ws, "secrets/k.pem", deny_globs=deny) == []


def test_depth_limits(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", {"a": "", "d/b": "", "d/e/c": "", "d/e/f/g": ""})
    ws = Workspace([root])
    assert displays(ws, max_depth=0) == []
    assert displays(ws, max_depth=1) == ["a"]
    assert displays(ws, max_depth=2) == ["a", "d/b"]
    assert displays(ws, recursive=False) == ["a"]
    assert displays(ws, recursive=False, max_depth=3) == ["a"]
    assert displays(ws, "d", max_depth=1) == ["d/b"]


def test_max_files_and_sizes(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", {f"f{i:02}": "x" * i for i in range(20)})
    ws = Workspace([root])
    assert displays(ws, max_files=3) == ["f00", "f01", "f02"]
    entries, skipped, _ = run(ws, max_file_size_bytes=9)
    assert [e.display for e in entries] == [f"f{i:02}" for i in range(10)]
    assert skipped.too_large == 10


def test_skip_counts(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", {
        ".gitignore": "*.log\nbuild/\n", "a.log": "", "b.log": "", "build/x": "", "build/y": "",
        ".hidden": "", ".hdir/a": "", "ok": "",
    })
    (root / ".git").mkdir()
    entries, skipped, _ = run(Workspace([root]))
    assert [e.display for e in entries] == ["ok"]
    assert skipped.ignored == 3  # a.log, b.log and the build folder (pruned once)
    assert skipped.hidden == 4   # .gitignore, .hidden, .hdir and .git
    _, skipped, _ = run(Workspace([root]), file_types=("py",))
    # types are decided before the hidden rule (as in rg): .gitignore, .hidden and ok are not py
    assert (skipped.ignored, skipped.hidden) == (6, 2)


def test_symlinks(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", {"real/a.txt": "a", "f.txt": "f"})
    outside = write_tree(tmp_path / "out", {"o.txt": "o"})
    os.symlink(root / "real", root / "dl")
    os.symlink(root / "f.txt", root / "fl.txt")
    os.symlink(outside, root / "outdir")
    os.symlink(outside / "o.txt", root / "outfile.txt")
    os.symlink(root / "real", root / "real" / "self")
    ws = Workspace([root])
    entries, _, errors = run(ws)
    assert [e.display for e in entries] == ["f.txt", "real/a.txt"] and errors == []
    entries, _, errors = run(ws, follow=True)
    assert [e.display for e in entries] == ["dl/a.txt", "f.txt", "fl.txt", "real/a.txt"]
    assert all(ws.root_of(os.path.realpath(e.path)) for e in entries)
    by_path = {e.path: e.error for e in errors}
    assert set(by_path) == {"outdir", "outfile.txt", "dl/self", "real/self"}
    assert "outside" in by_path["outdir"] and "loop" in by_path["real/self"]


def test_per_entry_errors_do_not_stop_the_walk(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", {"a.txt": "", "b.txt": "", "c.txt": ""})
    ws = Workspace([root])
    errors: list[FileError] = []
    it = walk(ws, ws.resolve(None), WalkOptions(), CancelToken(), SkipCounts(), errors)
    first = next(it)
    os.unlink(root / "b.txt")  # vanishes after the listing, before its stat
    rest = list(it)
    assert [first.display] + [e.display for e in rest] == ["a.txt", "c.txt"]
    assert [e.path for e in errors] == ["b.txt"] and "vanished" in errors[0].error


@pytest.mark.parametrize("stat", [True, False])
def test_a_folder_that_vanishes_is_an_error_entry(tmp_path: Path, stat: bool) -> None:
    import shutil
    root = write_tree(tmp_path / "ws", {"a.txt": "", "b/x.txt": "", "c.txt": ""})
    ws = Workspace([root])
    errors: list[FileError] = []
    it = walk(ws, ws.resolve(None), WalkOptions(), CancelToken(), SkipCounts(), errors, stat=stat)
    assert next(it).display == "a.txt"
    shutil.rmtree(root / "b")  # listed with its parent, gone before the walk enters it
    assert [e.display for e in it] == ["c.txt"]
    assert [e.path for e in errors] == ["b"] and "vanished" in errors[0].error


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every folder")
def test_unreadable_folder_is_an_error_entry(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", {"locked/x.txt": "", "ok.txt": ""})
    os.chmod(root / "locked", 0)
    try:
        entries, _, errors = run(Workspace([root]))
    finally:
        os.chmod(root / "locked", 0o755)
    assert [e.display for e in entries] == ["ok.txt"]
    assert [e.path for e in errors] == ["locked"] and "permission" in errors[0].error


def test_cancel_stops_the_walk_quietly(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", {f"d{i}/f{j}": "" for i in range(10) for j in range(300)})
    ws = Workspace([root])
    token = CancelToken()
    it = walk(ws, ws.resolve(None), WalkOptions(), token, SkipCounts(), [])
    fds = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    next(it)
    token.cancel()
    assert len(list(it)) < 1000
    if fds is not None:  # folder descriptors are released however the walk ends
        abandoned = walk(ws, ws.resolve(None), WalkOptions(), CancelToken(), SkipCounts(), [])
        next(abandoned)
        abandoned.close()
        assert len(os.listdir("/proc/self/fd")) <= fds
    expired = CancelToken(timeout_ms=0)
    assert list(walk(ws, ws.resolve(None), WalkOptions(), expired, SkipCounts(), [])) == []
    assert expired.timed_out


# ---------------------------------------------------------------------------------------------
# Property: whatever the symlinks, a following walk yields only files really inside the sandbox,
# each once, and terminates.

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_DIRS = ["", "a/", "a/b/", "c/"]
_LINK_TARGETS = ["ROOT", "ROOT/a", "ROOT/a/b", "ROOT/c/f.txt", "OUT", "OUT/o.txt", "BASE", "ROOT/nothing", "ROOT/a/.."]


@settings(max_examples=60)
@given(links=st.lists(st.tuples(st.sampled_from(_DIRS), st.sampled_from(_LINK_TARGETS)), max_size=6))
def test_following_walk_stays_in_the_sandbox(tmp_path_factory: pytest.TempPathFactory,
                                            links: list[tuple[str, str]]) -> None:
    base = tmp_path_factory.mktemp("links")
    root = write_tree(base / "ws", {"a/b/f.txt": "", "c/f.txt": "", "top.txt": ""})
    write_tree(base / "out", {"o.txt": ""})
    for i, (where, target) in enumerate(links):
        dest = target.replace("ROOT", str(root)).replace("OUT", str(base / "out")).replace("BASE", str(base))
        os.symlink(dest, root / f"{where}l{i}")
    ws = Workspace([root])
    entries, _, errors = run(ws, follow=True)
    shown = [e.display for e in entries]
    assert len(shown) == len(set(shown))
    for e in entries:
        assert os.path.commonpath([os.path.realpath(e.path), str(root)]) == str(root), e
    assert {"a/b/f.txt", "c/f.txt", "top.txt"} <= set(shown)
    for i, (where, target) in enumerate(links):
        if target.startswith(("OUT", "BASE")):
            assert any(err.path.endswith(f"l{i}") for err in errors), (links, errors)


# ---------------------------------------------------------------------------------------------
# Options the scan orchestration uses: split_depth (pool workers walk subtrees) and stat=False.

SPLIT_TREE = {
    ".gitignore": "*.log\n/top_only.txt\nsub/skip/\n!keep.log\n",
    "a.txt": "", "a.log": "", "keep.log": "", "top_only.txt": "", "z.txt": "",
    "sub/.gitignore": "*.tmp\n", "sub/a.tmp": "", "sub/b.txt": "", "sub/top_only.txt": "", "sub/skip/x.txt": "",
    "sub/deeper/c.log": "", "sub/deeper/d.txt": "", "sub/deeper/keep.log": "",
    "sub-b/e.txt": "", ".hidden/f.txt": "", "w/x/y/z.txt": "",
}


@pytest.mark.parametrize("split_depth", [1, 2, 3])
@pytest.mark.parametrize("options", [{}, {"hidden": True}, {"include_globs": ("*.txt",)}, {"file_types": ("txt",)},
                                     {"max_depth": 3}, {"max_depth": 2}, {"recursive": False}])
def test_expanding_subtrees_in_place_reproduces_the_walk(tmp_path: Path, split_depth: int,
                                                         options: dict[str, object]) -> None:
    from sleuth.engine.walk import Subtree
    root = write_tree(tmp_path / "ws", SPLIT_TREE)
    (root / ".git").mkdir()
    ws = Workspace([root])
    whole = [e.display for e in run(ws, **options)[0]]
    opts = WalkOptions(**options)  # type: ignore[arg-type]
    shared = Filter(ws, opts)  # as a pool worker walks every subtree of one search
    pieces: list[str] = []
    pieces_shared: list[str] = []
    subtrees = 0
    for item in walk(ws, ws.resolve(None), opts, CancelToken(), SkipCounts(), [], split_depth):
        if isinstance(item, Subtree):
            subtrees += 1
            assert item.depth == split_depth
            sub_opts = opts if opts.max_depth is None else opts.replace(max_depth=opts.max_depth - item.depth)
            pieces.extend(e.display for e in walk(ws, [item.target], sub_opts, CancelToken(), SkipCounts(), []))  # type: ignore[union-attr]
            pieces_shared.extend(e.display for e in walk(ws, [item.target], sub_opts, CancelToken(), SkipCounts(), [],  # type: ignore[union-attr]
                                                         ignore=shared))
        else:
            pieces.append(item.display)
            pieces_shared.append(item.display)
    assert pieces == whole
    assert pieces_shared == whole
    assert subtrees > 0 or opts.max_depth is not None or not opts.recursive


@pytest.mark.parametrize("options", [{"max_files": 4}, {"follow": True}])
def test_split_is_ignored_when_the_walk_must_stay_whole(tmp_path: Path, options: dict[str, object]) -> None:
    root = write_tree(tmp_path / "ws", SPLIT_TREE)
    ws = Workspace([root])
    opts = WalkOptions(**options)  # type: ignore[arg-type]
    items = list(walk(ws, ws.resolve(None), opts, CancelToken(), SkipCounts(), [], 1))
    assert all(isinstance(i, FileEntry) for i in items)
    assert [i.display for i in items] == [e.display for e in run(ws, **options)[0]]  # type: ignore[union-attr]


def test_without_stat_the_same_files_come_unsized(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", {"a/b.txt": "bb", "c.txt": "c" * 50, "d.txt": ""})
    ws = Workspace([root])
    full = list(walk(ws, ws.resolve(None), WalkOptions(max_file_size_bytes=10), CancelToken(), SkipCounts(), []))
    skipped = SkipCounts()
    bare = list(walk(ws, ws.resolve(None), WalkOptions(max_file_size_bytes=10), CancelToken(), skipped, [],
                     stat=False))
    assert [e.display for e in full] == ["a/b.txt", "d.txt"]
    assert [e.display for e in bare] == ["a/b.txt", "c.txt", "d.txt"]  # the size cap is the caller's then
    assert {(e.size, e.mtime) for e in bare} == {(-1, -1.0)} and skipped.too_large == 0
    (named,) = walk(ws, ws.resolve("c.txt"), WalkOptions(), CancelToken(), SkipCounts(), [], stat=False)
    assert named.size == 50


def test_very_deep_trees_hold_few_descriptors(tmp_path: Path) -> None:
    deep = "/".join(f"d{i}" for i in range(120))
    root = write_tree(tmp_path / "ws", {f"{deep}/leaf.txt": "x", "top.txt": "t", "d0/mid.txt": "m"})
    entries, _, errors = run(Workspace([root]))
    assert [e.display for e in entries] == [f"{deep}/leaf.txt", "d0/mid.txt", "top.txt"]
    assert errors == [] and entries[0].size == 1
