"""Sandbox properties of Workspace.resolve / canonicalize (docs/SPEC.md §3), checked with hypothesis.

The fixture has symlinks that stay inside the folder, symlinks that leave it (to a sibling whose
name shares the folder's prefix, to the parent, dangling outward), and a second workspace folder;
random paths made of those names, ``.``, ``..`` and missing names must either resolve to something
whose real location is inside a folder, or raise — and every real escape must raise
:class:`SandboxViolation`, never touch the outside, never be "not found".
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sleuth.engine.errors import BadArgs, NotFound, SandboxViolation
from sleuth.engine.workspace import Workspace, canonicalize

SEGMENTS = ["..", ".", "a", "b", "f.txt", "in_link", "out_link", "sib_link", "up_link", "dangling_out",
            "dangling_in", "missing", "ws", "ws2", "ws-evil", "other", "x"]


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Workspace]:
    base = tmp_path_factory.mktemp("sandbox")
    ws = base / "ws"
    (ws / "a" / "b").mkdir(parents=True)
    (ws / "a" / "b" / "f.txt").write_text("f")
    (ws / "f.txt").write_text("f")
    for sibling in ("ws2", "ws-evil"):
        (base / sibling).mkdir()
        (base / sibling / "f.txt").write_text("secret")
    other = base / "other"
    other.mkdir()
    (other / "f.txt").write_text("o")
    os.symlink(ws / "a", ws / "in_link")
    os.symlink(base / "ws2", ws / "out_link")
    os.symlink(base / "ws-evil", ws / "a" / "sib_link")
    os.symlink(base, ws / "a" / "b" / "up_link")
    os.symlink(base / "ws2" / "nothing", ws / "dangling_out")
    os.symlink(ws / "nothing", ws / "dangling_in")
    return base, ws, Workspace([ws, other])


def _inside(path: str, roots: list[str]) -> bool:
    return any(os.path.commonpath([path, r]) == r for r in roots)


paths = st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=7).map("/".join)


@settings(max_examples=400)
@given(rel=paths, absolute=st.booleans(), root=st.sampled_from([None, "ws", "other"]))
def test_resolve_never_returns_anything_outside(sandbox: tuple[Path, Path, Workspace], rel: str,
                                                absolute: bool, root: str | None) -> None:
    base, ws_dir, ws = sandbox
    roots = [r.path for r in ws.roots]
    anchor = ws.root_named(root).path if root else roots[0]
    arg = os.path.join(str(base), rel) if absolute else rel
    rest = arg
    first, _, tail = rel.partition("/")
    if not absolute and root is None and first in ("ws", "other"):
        anchor, rest = ws.root_named(first).path, tail  # a leading folder name selects that folder
    # Independent oracle: where the OS would land, with ".." taken lexically as Sleuth documents.
    landed = Path(os.path.normpath(os.path.join(anchor, rest))).resolve()
    try:
        targets = ws.resolve(arg, root)
    except SandboxViolation:
        assert not _inside(str(landed), roots), f"{arg!r} lands inside at {landed} yet was refused"
        return
    except NotFound:
        assert _inside(str(landed), roots) and not landed.exists()
        return
    except BadArgs:
        return
    for target in targets:
        real = os.path.realpath(target.path)
        assert _inside(real, roots), f"{arg!r} resolved to {target.path} (really {real})"
        assert real == target.path, "targets are canonical"
        assert os.path.exists(target.path)
        assert ".." not in Path(target.path).parts
        assert target.is_dir == os.path.isdir(target.path)


@settings(max_examples=300)
@given(rel=paths)
def test_canonicalize_is_idempotent_and_symlink_free(sandbox: tuple[Path, Path, Workspace], rel: str) -> None:
    _, ws_dir, _ = sandbox
    once = canonicalize(os.path.join(str(ws_dir), rel))
    assert canonicalize(once) == once
    assert os.path.isabs(once) and ".." not in Path(once).parts
    head = once
    while not os.path.lexists(head):
        head = os.path.dirname(head)
    assert os.path.realpath(head) == head


@pytest.mark.parametrize("arg", ["../ws2/f.txt", "../ws-evil/f.txt", "out_link/f.txt", "a/sib_link/f.txt",
                                 "a/b/up_link/ws2/f.txt", "dangling_out", "dangling_out/deeper", "/etc/passwd",
                                 "a/../../ws2", "in_link/../../ws-evil"])
def test_known_escapes_raise(sandbox: tuple[Path, Path, Workspace], arg: str) -> None:
    _, _, ws = sandbox
    with pytest.raises(SandboxViolation):
        ws.resolve(arg)


@pytest.mark.parametrize("arg,expected", [("in_link/b/f.txt", "a/b/f.txt"), ("a/b/../../f.txt", "f.txt"),
                                          ("./a/./b", "a/b"), ("a/b/up_link/ws/f.txt", "f.txt")])
def test_inside_paths_resolve_to_their_real_place(sandbox: tuple[Path, Path, Workspace], arg: str,
                                                  expected: str) -> None:
    _, ws_dir, ws = sandbox
    (target,) = ws.resolve(arg)
    assert target.path == str(ws_dir / expected)
    assert ws.display(target.path, target.root) == "ws/" + expected  # two folders: name-prefixed
