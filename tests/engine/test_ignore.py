"""Ignore rules: the pattern language (as rg reads .gitignore), precedence, and the IgnoreOracle."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sleuth.engine.cancel import CancelToken
from sleuth.engine.errors import BadArgs
from sleuth.engine.filetypes import TYPES, TypeMatcher, type_globs
from sleuth.engine.ignore import IgnoreOracle, global_excludes_path, git_exclude_path
from sleuth.engine.ignore_rules import IgnoreFile, parse_lines, segment_regex
from sleuth.engine.types import SkipCounts, WalkOptions
from sleuth.engine.walk import walk
from sleuth.engine.workspace import Workspace
from tests.conftest import write_tree


@pytest.fixture(autouse=True)
def _no_user_git_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine's own ~/.config/git/ignore must not change what these trees yield."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL"):
        monkeypatch.delenv(var, raising=False)


def verdict(gitignore: str, path: str, is_dir: bool = False) -> bool | None:
    """True ignored / False whitelisted / None unmatched, for ``path`` relative to the file's folder."""
    view = IgnoreFile(parse_lines(gitignore.split("\n"))).view()
    parts = path.split("/")
    for part in parts[:-1]:
        if view is None:
            return None
        view = view.child(part)
    return None if view is None else view.match(parts[-1], is_dir)


IGNORED = [
    ("months", "months", False), ("*.lock", "Cargo.lock", False), ("*.rs", "src/main.rs", False),
    ("src/*.rs", "src/main.rs", False), ("/*.c", "cat-file.c", False), ("/src/*.rs", "src/main.rs", False),
    ("!src/main.rs\n*.rs", "src/main.rs", False), ("foo/", "foo", True), ("**/foo", "foo", False),
    ("**/foo", "src/foo", False), ("**/foo/**", "src/foo/bar", False), ("**/foo/**", "wat/src/foo/bar/baz", False),
    ("**/foo/bar", "foo/bar", False), ("**/foo/bar", "src/foo/bar", False), ("abc/**", "abc/x", False),
    ("abc/**", "abc/x/y", False), ("abc/**", "abc/x/y/z", False), ("a/**/b", "a/b", False),
    ("a/**/b", "a/x/b", False), ("a/**/b", "a/x/y/b", False), (r"\!xy", "!xy", False), (r"\#foo", "#foo", False),
    ("target", "grep/target", False), ("foo/", "xyz/foo", True), ("node_modules/ ", "node_modules", True),
    ("**/", "foo/bar", True), ("path1/*", "path1/foo", False), (".a/b", ".a/b", False), ("\\[", "[", False),
    ("\\?", "?", False), ("\\*", "*", False), ("\\a", "a", False), ("s*.rs", "sfoo.rs", False),
    ("**", "foo.rs", False), ("**/**/*", "a/foo.rs", False), ("*.{c,h}", "x/y.h", False),
    ("[!a]b", "xb", False), ("[a-c]x", "bx", False), ("a\\ ", "a ", False), ("foo\\/", "foo", True),
    ("\ufeff*.bak", "x.bak", False),
]

NOT_IGNORED = [
    ("amonths", "months", False), ("monthsa", "months", False), ("/src/*.rs", "src/grep/src/main.rs", False),
    ("/*.c", "mozilla-sha1/sha1.c", False), ("*.rs\n!src/main.rs", "src/main.rs", False), ("foo/", "foo", False),
    ("**/foo/**", "wat/src/afoo/bar/baz", False), ("**/foo/**", "wat/src/fooa/bar/baz", False),
    ("**/foo/bar", "foo/src/bar", False), ("#foo", "#foo", False), ("\n\n\n", "foo", False),
    ("foo/**", "foo", True), ("!/bar", "foo/bar", False), ("*\n!**/", "foo", True),
    ("src/*.rs", "src/grep/src/main.rs", False), ("path1/*", "path2/path1/foo", False),
    ("s*.rs", "src/foo.rs", False), ("[!a]b", "ab", False), ("*.txt  ", "a.txt  ", False), ("a?c", "a/c", False),
]


@pytest.mark.parametrize("rules,path,is_dir", IGNORED)
def test_rg_ignores(rules: str, path: str, is_dir: bool) -> None:
    assert verdict(rules, path, is_dir) is True


@pytest.mark.parametrize("rules,path,is_dir", NOT_IGNORED)
def test_rg_does_not_ignore(rules: str, path: str, is_dir: bool) -> None:
    assert verdict(rules, path, is_dir) is not True


def test_last_matching_line_wins_across_rule_kinds() -> None:
    rules = "*.log\n!keep.log\nkeep*\n/keep.log\n!/keep.log"
    assert verdict(rules, "keep.log") is False      # the anchored whitelist is the last line
    assert verdict(rules, "sub/keep.log") is True   # only "keep*" (line 3) beats "!keep.log" below it
    assert verdict("*.log\n!keep.log", "sub/keep.log") is False
    assert verdict("keep.log\n!*.log", "keep.log") is False


def test_whitelisted_folder_rule_only_applies_to_folders() -> None:
    assert verdict("*\n!*/", "sub", True) is False
    assert verdict("*\n!*/", "sub/file", False) is True


def test_segment_translation_classes_and_escapes() -> None:
    import re
    assert segment_regex("[]]") == "[\\]]"
    assert re.fullmatch(segment_regex("[!a-c]x"), "dx") and not re.fullmatch(segment_regex("[!a-c]x"), "bx")
    assert re.fullmatch(segment_regex("a[bc"), "a[bc")  # an unclosed class is literal
    assert re.fullmatch(segment_regex("\\*x"), "*x") and not re.fullmatch(segment_regex("\\*x"), "ax")


def test_segment_text_escapes_as_re_escape_does() -> None:
    """The glob's regex text is written without ``re`` (a cold grep imports it only for a glob that needs
    a regex: issue 30), with ``re.escape``'s table; and a glob's regex is compiled at its first name."""
    import re

    from sleuth.engine.ignore_rules import Glob, _escape
    for cp in [*range(0x3000), 0xFEFF, 0x1F600]:
        assert _escape(chr(cp)) == re.escape(chr(cp)), hex(cp)
    glob = Glob("a?[bc]*.o")
    assert "fullmatch" not in vars(glob)
    assert glob.fullmatch("axb1.o") and not glob.fullmatch("axd.o") and "fullmatch" in vars(glob)
    assert glob.pattern == segment_regex("a?[bc]*.o")


def test_type_table_and_extension_forms() -> None:
    assert {"py", "js", "ts", "c", "cpp", "rust", "go", "java", "md", "cs"} <= set(TYPES)
    assert len(TYPES) >= 60
    assert type_globs(".cs") == ("*.cs",) and type_globs("vue") == ("*.vue",) and type_globs("*.kt") == ("*.kt",)
    m = TypeMatcher(["c", ".txt"])
    assert m.matches("x.c") and m.matches("x.H") and m.matches("notes.txt") and not m.matches("x.cc")
    assert TypeMatcher(["make"]).matches("Makefile") and TypeMatcher(["make"]).matches("GNUmakefile")
    with pytest.raises(BadArgs):
        type_globs("a/b")


def test_global_excludes_path_follows_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    for var in ("XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL"):
        monkeypatch.delenv(var, raising=False)
    assert global_excludes_path() == str(tmp_path / ".config" / "git" / "ignore")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert global_excludes_path() == str(tmp_path / "xdg" / "git" / "ignore")
    (tmp_path / ".gitconfig").write_text('[core]\n  excludesfile = "~/my-ignores"\n')
    assert global_excludes_path() == str(tmp_path / "my-ignores")
    other = tmp_path / "cfg"
    other.write_text("[core]\nexcludesFile=/etc/x\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(other))
    assert global_excludes_path() == "/etc/x"


def test_git_exclude_of_a_worktree(tmp_path: Path) -> None:
    common = tmp_path / "main" / ".git"
    (common / "worktrees" / "wt").mkdir(parents=True)
    (common / "worktrees" / "wt" / "commondir").write_text("../..\n")
    wt = tmp_path / "wt"
    wt.mkdir()
    (wt / ".git").write_text(f"gitdir: {common / 'worktrees' / 'wt'}\n")
    assert os.path.normpath(git_exclude_path(str(wt))) == str(common / "info" / "exclude")
    assert git_exclude_path(str(tmp_path / "main")) == str(common / "info" / "exclude")


# ---------------------------------------------------------------------------------------------
# IgnoreOracle: path-at-a-time answers must equal the walk's


TREE = {
    ".gitignore": "*.log\n/build/\n!keep.log\nsub/private/\n",
    "a.py": "", "a.log": "", "keep.log": "", "build/x.py": "", "sub/build/y.py": "",
    "sub/.gitignore": "*.tmp\n", "sub/t.tmp": "", "sub/t.py": "", "sub/private/p.py": "",
    ".hidden/h.py": "", "sub/.h.py": "", "deep/er/est/f.py": "", "big.txt": "x" * 500, "notes.md": "",
}


def _all_files(root: Path) -> list[str]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        out.extend(os.path.join(dirpath, f) for f in filenames)
    return sorted(out)


@pytest.mark.parametrize("options", [
    WalkOptions(), WalkOptions(hidden=True), WalkOptions(no_ignore=True), WalkOptions(max_depth=2),
    WalkOptions(recursive=False), WalkOptions(include_globs=("*.py",)), WalkOptions(exclude_globs=("sub",)),
    WalkOptions(file_types=("py",)), WalkOptions(max_file_size_bytes=100), WalkOptions(deny_globs=("*.md", "deep/")),
], ids=repr)
def test_oracle_agrees_with_the_walk(tmp_path: Path, options: WalkOptions) -> None:
    root = write_tree(tmp_path / "ws", TREE)
    (root / ".git").mkdir()
    ws = Workspace([root])
    walked = {e.path for e in walk(ws, ws.resolve(None), options, CancelToken(), SkipCounts(), [])}
    oracle = IgnoreOracle(ws, options)
    answered = {p for p in _all_files(root) if oracle.is_searchable(p)}
    assert answered == walked


@pytest.mark.parametrize("path", ["sub", "build", "sub/private", "deep/er", "a.log", ".hidden"])
@pytest.mark.parametrize("options", [WalkOptions(), WalkOptions(max_depth=1), WalkOptions(include_globs=("*.py",))], ids=repr)
def test_oracle_agrees_with_the_walk_of_a_target(tmp_path: Path, path: str, options: WalkOptions) -> None:
    root = write_tree(tmp_path / "ws", TREE)
    (root / ".git").mkdir()
    ws = Workspace([root])
    targets = ws.resolve(path)
    walked = {e.path for e in walk(ws, targets, options, CancelToken(), SkipCounts(), [])}
    oracle = IgnoreOracle(ws, options, targets)
    assert {p for p in _all_files(root) if oracle.is_searchable(p)} == walked


def test_oracle_sees_a_changed_ignore_file_after_invalidate(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", {"a.py": "", "b.py": "", ".gitignore": ""})
    (root / ".git").mkdir()
    oracle = IgnoreOracle(Workspace([root]), WalkOptions())
    assert oracle.is_searchable(str(root / "a.py"))
    (root / ".gitignore").write_text("a.py\n")
    oracle.invalidate(str(root / ".gitignore"))
    assert not oracle.is_searchable(str(root / "a.py"))
    assert oracle.is_searchable(str(root / "b.py"))
    assert not oracle.is_searchable(str(tmp_path / "elsewhere.py"))
    assert not oracle.is_searchable(str(root / "missing.py"))
