"""Adversarial: one path rule for every walk, backend and door (issue 23 items 1, 2, 6; issue 22 item 8).

A file is searchable only if its real path lies inside a workspace folder, and neither the path as
reached nor its real path relative to its folder matches a deny glob. What broke it on main:

* a folder link ``alias -> denied`` with ``deny_globs: ['denied/**']``: ``follow`` returned
  ``alias/d.txt`` (the walk checked only the link's target folder, which ``denied/**`` does not match);
* rg and ugrep were handed ``-L``/``-R``: a link ``procroot -> /proc/self/root`` walked the whole
  file system, and outside files were named in ``errors``; a denied folder behind a link was searched;
* forge ``Search`` on a file link to a denied file echoed the denied file's absolute path in ``path``;
* ``follow`` and a folder chain deeper than PATH_MAX ended the request with ``-32603``.

The property test draws trees of files, folder and file links (inside, outside, into denied
folders, loops, dangling) and deny globs, and checks every backend with ``follow`` on and off.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import sys
import tempfile
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from sleuth.commands import get_command
from sleuth.commands.config import Settings
from sleuth.commands.context import CommandContext
from sleuth.commands.profiles.backends import run_grep
from sleuth.engine.cancel import CancelToken
from sleuth.engine.ignore import IgnoreOracle
from sleuth.engine.types import FileError, SkipCounts, WalkOptions
from sleuth.engine.walk import walk
from sleuth.engine.workspace import Workspace
from tests.conftest import run_sleuth, write_tree
from tests.regression.conftest import backend_params
from tests.fixtures import context

BACKENDS = backend_params("native", "rg", "ugrep")
DENY = ("denied/**",)


def _ctx(root: pathlib.Path, backend: str = "native", deny: tuple[str, ...] = DENY, **extra: Any) -> CommandContext:
    settings = Settings(backend=backend, rate_limit_enabled=False, deny_globs=deny, timeout_ms=10_000, **extra)
    return context(root, settings)


@pytest.fixture
def linked(tmp_path: pathlib.Path) -> pathlib.Path:
    """``alias -> denied`` and ``flink -> denied/d.txt`` inside the workspace; ``outl`` leaves it."""
    root = write_tree(tmp_path / "ws", {"denied/d.txt": "SECRET denied\n", "a.txt": "SECRET ok\n"})
    write_tree(tmp_path / "ELSEWHERE", {"o.txt": "SECRET outside\n"})
    (root / "alias").symlink_to("denied")
    (root / "flink").symlink_to("denied/d.txt")
    (root / "outl").symlink_to(tmp_path / "ELSEWHERE")
    return root


# -- 23.1: deny globs through a folder link ------------------------------------------------------

def test_walk_with_follow_does_not_enter_a_denied_folder_through_a_link(linked: pathlib.Path) -> None:
    workspace = Workspace([linked])
    options = WalkOptions(follow=True, deny_globs=DENY)
    errors: list[FileError] = []
    found = [e.display for e in walk(workspace, workspace.resolve(), options, CancelToken(), SkipCounts(), errors)]
    assert found == ["a.txt"]  # main: ['a.txt', 'alias/d.txt']


@pytest.mark.parametrize("backend", BACKENDS)
def test_grep_with_follow_does_not_return_a_denied_file_through_a_folder_link(linked: pathlib.Path,
                                                                               backend: str) -> None:
    result = run_grep({"pattern": "SECRET", "follow": True}, _ctx(linked, backend))
    assert [m["path"] for m in result["matches"]] == ["a.txt"]  # main: alias/d.txt too
    assert [e["path"] for e in result["errors"]] == ["outl"]  # the link itself, nothing behind it


def test_files_with_follow_does_not_list_a_denied_file_through_a_folder_link(linked: pathlib.Path) -> None:
    result = get_command("sleuth.files")({"patterns": ["**"], "follow": True}, _ctx(linked))
    assert [i["path"] for i in result["items"]] == ["a.txt"]


def test_named_targets_obey_the_rule_as_named_and_as_real(linked: pathlib.Path) -> None:
    (linked / "pub.txt").write_text("SECRET public\n")
    (linked / "secret-link.txt").symlink_to("pub.txt")
    ctx = _ctx(linked, deny=DENY + ("secret-*",))
    for path in ("alias/d.txt", "alias", "flink", "secret-link.txt"):
        result = get_command("sleuth.grep")({"pattern": "SECRET", "path": path, "follow": True}, ctx)
        assert result["matches"] == [], path  # main: 'secret-link.txt' answered pub.txt's line
    result = get_command("sleuth.grep")({"pattern": "SECRET", "path": "pub.txt"}, ctx)
    assert [m["path"] for m in result["matches"]] == ["pub.txt"]


def test_index_oracle_applies_the_rule_to_pending_paths(linked: pathlib.Path) -> None:
    workspace = Workspace([linked])
    oracle = IgnoreOracle(workspace, WalkOptions(follow=True, deny_globs=DENY))
    assert oracle.is_searchable(str(linked / "a.txt"))
    assert not oracle.is_searchable(str(linked / "alias" / "d.txt"))  # main: True
    assert not oracle.is_searchable(str(linked / "flink"))
    assert not oracle.is_searchable(str(linked / "outl" / "o.txt"))


def test_cli_grep_and_files_with_follow_do_not_leak_through_a_folder_link(linked: pathlib.Path) -> None:
    write_tree(linked, {".agent/config.yml": "sleuth:\n  deny_globs:\n    - 'denied/**'\n"})
    grep = run_sleuth(linked, "grep", "-L", "SECRET")
    assert grep.stdout == "a.txt:SECRET ok\n", grep.stdout  # main: alias/d.txt:SECRET denied
    files = run_sleuth(linked, "files", "-L")
    assert "alias/d.txt" not in files.stdout and "a.txt" in files.stdout


async def test_lsp_grep_files_and_tools_with_follow_do_not_leak_through_a_folder_link(linked: pathlib.Path,
                                                                                      tmp_path: pathlib.Path) -> None:
    session = await _lsp(linked, tmp_path)
    try:
        grep = await session.execute("sleuth.grep", {"pattern": "SECRET", "follow": True})
        assert [m["path"] for m in grep["matches"]] == ["a.txt"]
        files = await session.execute("sleuth.files", {"patterns": ["**"], "follow": True})
        assert [i["path"] for i in files["items"]] == ["a.txt"]
        call = await session.execute("sleuth.tools.call",
                                     {"name": "forge.Search", "arguments": {"pattern": "SECRET", "follow": True}})
        answer = json.loads(call["content"])
        assert [e["data"]["path"]["text"] for e in answer["matches"]] == ["a.txt"]
    finally:
        await _stop(session)


# -- 23.2: rg and ugrep never walk past the roots -----------------------------------------------------

@pytest.mark.parametrize("backend", [b for b in BACKENDS if getattr(b, "values", (b,))[0] != "native"])
def test_external_backend_does_not_walk_out_through_proc_self_root(tmp_path: pathlib.Path, backend: str) -> None:
    root = write_tree(tmp_path / "ws", {"a.txt": "SECRET ok\n", "denied/d.txt": "SECRET denied\n"})
    (root / "procroot").symlink_to("/proc/self/root")
    (root / "alias").symlink_to("denied")
    result = run_grep({"pattern": "SECRET", "follow": True, "timeout_ms": 5000}, _ctx(root, backend))
    assert [m["path"] for m in result["matches"]] == ["a.txt"]  # main: procroot/<tmp>/ws/a.txt, alias/d.txt...
    assert not result["timed_out"]  # main: walked the file system until the deadline
    assert [e["path"] for e in result["errors"]] == ["procroot"]  # the link itself, nothing behind it
    assert "procroot/" not in result.get("stderr", "")
    assert result["files_scanned"] <= 2


def test_backends_batch_long_file_lists(tmp_path: pathlib.Path) -> None:
    from sleuth.commands.profiles._external import _ARG_BYTES, _batches

    paths = [f"{'d' * 200}/{i:06d}.txt" for i in range(20_000)]  # ~4.2 MB of names: one command line cannot
    batches = _batches(paths)
    assert len(batches) > 1 and [p for b in batches for p in b] == paths
    assert all(sum(len(p) + 9 for p in b) <= _ARG_BYTES for b in batches)


# -- 23.6: answers never name the real path behind a link ---------------------------------------

def test_forge_search_path_field_does_not_name_the_denied_file_behind_a_link(linked: pathlib.Path) -> None:
    call = get_command("sleuth.tools.call")({"name": "forge.Search", "arguments": {"pattern": "SECRET", "path": "flink"}},
                                           _ctx(linked))
    answer = json.loads(call["content"])
    assert "denied" not in call["content"], answer  # main: "path": "<ws>/denied/d.txt"
    assert answer["path"] == str(linked / "flink").replace("\\", "/") and answer["matches"] == []


@pytest.mark.parametrize(("tool", "arguments"), [
    ("forge.Search", {"pattern": "SECRET", "follow": True}),
    ("forge.search_files", {"query": "SECRET", "path": "."}),
    ("codex.grep_files", {"pattern": "SECRET"}),
    ("acode.grep", {"pattern": "SECRET"}),
])
def test_tool_answers_name_no_denied_or_outside_path(linked: pathlib.Path, tool: str, arguments: dict) -> None:
    call = get_command("sleuth.tools.call")({"name": tool, "arguments": arguments}, _ctx(linked))
    content = call["content"]
    assert "SECRET denied" not in content and "denied/" not in content and "d.txt" not in content
    assert "SECRET outside" not in content and "ELSEWHERE" not in content and "o.txt" not in content


# -- 22.8: follow and a chain deeper than PATH_MAX ------------------------------------------------

def _deep_tree(root: pathlib.Path) -> pathlib.Path:
    """A chain of 30 folders of 200-character names (6,000+ bytes: past PATH_MAX) ending in a file."""
    root.mkdir(parents=True)
    (root / "top.txt").write_text("NEEDLE top\n")
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(30):
            os.mkdir("d" * 200, dir_fd=fd)
            inner = os.open("d" * 200, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        with os.fdopen(os.open("f.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as fh:
            fh.write("NEEDLE deep\n")
    finally:
        os.close(fd)
    return root


def _remove_deep(root: pathlib.Path) -> None:
    """shutil.rmtree works by descriptor, so it can remove what a path cannot name."""
    shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("follow", [False, True])
def test_chain_deeper_than_path_max_is_a_per_file_error(tmp_path: pathlib.Path, follow: bool) -> None:
    root = _deep_tree(tmp_path / "deep")
    try:
        ctx = _ctx(root, deny=())
        grep = get_command("sleuth.grep")({"pattern": "NEEDLE", "follow": follow}, ctx)  # main: OSError with follow
        # The walk opens each folder relative to its parent's descriptor, so it may reach the bottom
        # (a real match) or report the chain as an error; never a crash, never top.txt missed.
        paths = [m["path"] for m in grep["matches"]]
        assert "top.txt" in paths and (grep["errors"] or len(paths) == 2), (paths, grep["errors"])
        files = get_command("sleuth.files")({"patterns": ["**"], "follow": follow}, ctx)
        listed = [i["path"] for i in files["items"]]
        assert "top.txt" in listed and (files["errors"] or len(listed) == 2), (listed, files["errors"])
    finally:
        _remove_deep(root)


async def test_lsp_chain_deeper_than_path_max_with_follow_answers(tmp_path: pathlib.Path) -> None:
    root = _deep_tree(tmp_path / "deep")
    session = await _lsp(root, tmp_path, index=False)
    try:
        grep = await session.execute("sleuth.grep", {"pattern": "NEEDLE", "follow": True})  # main: -32603 internal
        paths = [m["path"] for m in grep["matches"]]
        assert "top.txt" in paths and (grep["errors"] or len(paths) == 2), (paths, grep["errors"])
        files = await session.execute("sleuth.files", {"patterns": ["**"], "follow": True})
        listed = [i["path"] for i in files["items"]]
        assert "top.txt" in listed and (files["errors"] or len(listed) == 2), (listed, files["errors"])
    finally:
        await _stop(session)
        _remove_deep(root)


async def _lsp(root: pathlib.Path, tmp_path: pathlib.Path, index: bool = True) -> Any:
    sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "lsp"))
    from harness import start_session

    options = {"cacheDir": str(tmp_path / "cache"), "denyGlobs": list(DENY), "rateLimitEnabled": False}
    if not index:
        options["indexEnabled"] = False
    return await start_session("minimal", [root], init_options=options)


async def _stop(session: Any) -> None:
    try:
        await session.client.shutdown_session()
    finally:
        await session.client.stop()


# -- 23.6: a target named through a link is answered as named ---------------------------------------

@pytest.mark.parametrize("index", [True, False], ids=["index", "scan"])
async def test_a_folder_named_through_a_link_is_answered_by_the_name_given(tmp_path: pathlib.Path,
                                                                           index: bool) -> None:
    """``pub -> src``: a search of ``pub`` answers ``pub/x.py``, as rg does, never the real path behind
    the link (``src/x.py``), with the index ready or not; a file named through a link likewise."""
    root = write_tree(tmp_path / "ws", {"src/x.py": "NEEDLE in x\n", "src/sub/y.py": "NEEDLE in y\n"})
    (root / "pub").symlink_to("src")
    (root / "xl.py").symlink_to("src/x.py")
    session = await _lsp(root, tmp_path, index=index)
    try:
        if index:
            assert (await session.execute("sleuth.index.build", {"wait": True}))["files"] == 2
        for path, expected in (("pub", ["pub/sub/y.py", "pub/x.py"]), ("xl.py", ["xl.py"])):
            grep = await session.execute("sleuth.grep", {"pattern": "NEEDLE", "path": path})
            assert sorted(m["path"] for m in grep["matches"]) == expected
        files = await session.execute("sleuth.files", {"patterns": ["**/*.py"], "path": "pub"})
        assert sorted(item["path"] for item in files["items"]) == ["pub/sub/y.py", "pub/x.py"]
    finally:
        await _stop(session)


# -- the property -----------------------------------------------------------------------------------

FOLDERS = ("", "a", "a/b", "denied", "denied/x", "c")
FILES = ("f.txt", "k.key", "g.txt")
GLOBS = ("denied/**", "denied", "*.key", "a/b/**", "**/x/**", "c/*.txt")
# Where a link may point: a folder or file inside, a denied place, an ancestor (a loop), outside, nowhere.
LINK_TARGETS = ("a", "a/b", "denied", "denied/x", "c", "", "a/f.txt", "denied/f.txt", "denied/k.key",
                "OUT", "OUT/o.txt", "OUT/in", "missing")


def _denied(rel: str, globs: tuple[str, ...]) -> bool:
    """An independent reading of the globs above (gitignore semantics, spelled out per glob)."""
    parts = rel.split("/")
    for glob in globs:
        if glob == "denied/**" and rel.startswith("denied/"):
            return True
        if glob == "denied" and "denied" in parts:
            return True
        if glob == "*.key" and any(p.endswith(".key") for p in parts):
            return True
        if glob == "a/b/**" and rel.startswith("a/b/"):
            return True
        if glob == "**/x/**" and "x" in parts[:-1]:
            return True
        if glob == "c/*.txt" and len(parts) >= 2 and parts[0] == "c" and parts[1].endswith(".txt"):
            return True
    return False


trees = st.fixed_dictionaries({
    "files": st.sets(st.tuples(st.sampled_from(FOLDERS), st.sampled_from(FILES)), min_size=1, max_size=8),
    "links": st.lists(st.tuples(st.sampled_from(FOLDERS), st.sampled_from(LINK_TARGETS), st.booleans()),
                      max_size=5),
    "globs": st.sets(st.sampled_from(GLOBS), max_size=3),
    "follow": st.booleans(),
})


def _build(base: pathlib.Path, tree: dict[str, Any]) -> pathlib.Path:
    root = base / "ws"
    outside = base / "OUTSIDE_TREE"
    write_tree(outside, {"o.txt": "NEEDLE outside\n", "in/p.txt": "NEEDLE outside\n"})
    for folder in FOLDERS:
        (root / folder).mkdir(parents=True, exist_ok=True)
    for folder, name in tree["files"]:
        (root / folder / name).write_text(f"NEEDLE {folder}/{name}\n")
    for i, (folder, target, absolute) in enumerate(tree["links"]):
        if target.startswith("OUT"):
            dest = outside / target[4:] if target != "OUT" else outside
        else:
            dest = root / target
        link = root / folder / f"l{i}"
        link.symlink_to(dest if absolute else os.path.relpath(dest, link.parent))
    return root


def _check_named(root: pathlib.Path, rel: str, globs: tuple[str, ...], result_path: bool) -> None:
    assert rel and not rel.startswith(("/", "../")) and "/../" not in rel, rel
    reached = os.path.join(str(root), *rel.split("/"))
    real_root = os.path.realpath(root)
    parent = os.path.realpath(os.path.dirname(reached))
    assert parent == real_root or parent.startswith(real_root + os.sep), (rel, parent)
    assert not _denied(rel, globs), rel
    if result_path:
        real = os.path.realpath(reached)
        assert real.startswith(real_root + os.sep), (rel, real)
        assert not _denied(os.path.relpath(real, real_root).replace(os.sep, "/"), globs), (rel, real)


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=25)
@given(tree=trees)
def test_every_answer_passes_the_path_rule(backend: str, tree: dict[str, Any]) -> None:
    base = pathlib.Path(tempfile.mkdtemp(prefix="sleuth-rule-"))
    try:
        root = _build(base, tree)
        globs = tuple(sorted(tree["globs"]))
        ctx = _ctx(root, backend, deny=globs)
        result = run_grep({"pattern": "NEEDLE", "follow": tree["follow"]}, ctx)
        for m in result["matches"]:
            _check_named(root, m["path"], globs, True)
            assert "outside" not in m["text"], m
        for e in result["errors"]:
            _check_named(root, e["path"], globs, False)
        assert "OUTSIDE_TREE" not in result.get("stderr", "") and "OUTSIDE_TREE" not in json.dumps(result["errors"])
        if backend == "native":
            files = get_command("sleuth.files")({"patterns": ["**"], "follow": tree["follow"]}, ctx)
            for item in files["items"]:
                _check_named(root, item["path"], globs, True)
            for e in files["errors"]:
                _check_named(root, e["path"], globs, False)
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("follow", [False, True])
@pytest.mark.parametrize("stat", [False, True], ids=["scan", "stat"])
def test_a_folder_swapped_for_a_link_out_after_its_listing_is_not_entered(tmp_path: pathlib.Path, follow: bool,
                                                                           stat: bool) -> None:
    """The sandbox race, made deterministic: the walk lists the root, then (while it yields ``a.txt``)
    ``swap/`` becomes a link to a folder outside. Opening ``swap`` by path followed the link and listed
    the outside folder's files (seen once under load by the doors' race test); now the folder is
    opened relative to its parent without following, or checked to be where it was listed."""
    root = write_tree(tmp_path / "ws", {"a.txt": "x\n", "swap/s.txt": "x\n"})
    outside = write_tree(tmp_path / "ELSEWHERE", {"o.txt": "SECRET\n", "swap/s.txt": "SECRET\n"})
    errors: list[FileError] = []
    seen: list[str] = []
    options = WalkOptions(follow=follow)
    for entry in walk(Workspace([root]), Workspace([root]).resolve(None), options, CancelToken(), SkipCounts(),
                      errors, stat=stat):
        seen.append(entry.display)
        if entry.display == "a.txt":
            os.rename(root / "swap", tmp_path / "swap.away")
            (root / "swap").symlink_to(outside)
    assert seen == ["a.txt"], seen
    assert all(os.path.realpath(p) != str(outside) for p in seen)
    assert any(e.path == "swap" for e in errors) or follow, errors


@pytest.mark.parametrize("named", ["secret/rules", "rules"])
def test_a_denied_ignore_file_is_not_read(tmp_path: pathlib.Path, named: str) -> None:
    """``--ignore-file`` (``ignore_files``) reads a file: it passes the one path rule like every file
    Sleuth reads. A denied one, named as it is or through a link to it, is left out, so its lines
    (here ``*.py``) neither hide files nor tell what the denied file says."""
    from tests.conftest import run_sleuth, write_tree

    ws = write_tree(tmp_path / "ws", {".agent/config.yml": "sleuth:\n  deny_globs: ['secret/**']\n",
                                      "secret/rules": "*.py\n", "a.py": "needle\n"})
    os.symlink("secret/rules", ws / "rules")
    done = run_sleuth(ws, "grep", "--no-server", "-l", "--ignore-file", named, "needle",
                      env={"XDG_CONFIG_HOME": str(tmp_path / "config")})
    assert done.stdout.splitlines() == ["a.py"], done.stderr


def test_an_ignore_file_in_a_subfolder_applies_from_the_workspace_folder(tmp_path: pathlib.Path) -> None:
    """rg roots ``--ignore-file`` globs at the current folder, not at the folder the file sits in:
    ``secret/rules`` holding ``*.py`` hides ``a.py`` at the top (the denied-file test above relies on it)."""
    from tests.conftest import run_sleuth, write_tree

    ws = write_tree(tmp_path / "ws", {"secret/rules": "*.py\n", "a.py": "needle\n", "b.txt": "needle\n"})
    done = run_sleuth(ws, "grep", "--no-server", "-l", "--ignore-file", "secret/rules", "needle",
                      env={"XDG_CONFIG_HOME": str(tmp_path / "config")})
    assert done.stdout.splitlines() == ["b.txt"], done.stderr
