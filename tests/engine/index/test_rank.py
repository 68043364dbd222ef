"""Quick-Open ranking: general signals (word starts, contiguity, file name over folders, short paths)."""

from __future__ import annotations

from sleuth.engine.rank import rank_paths, score_path

PATHS = [
    "src/ctl/usr.c",
    "src/Users/UserService.cs",
    "src/Users/UserController.cs",
    "tests/Users/UserControllerTests.cs",
    "lib/user/control/helpers.cs",
    "docs/unused/stray/creatures/tools.md",
    "fs/ext4/inode.c",
    "fs/ext4/inode-test.c",
    "Documentation/filesystems/ext4/inodes.rst",
    "drivers/gpu/drm/i915/gem/i915_gem_object.c",
    "kernel/sched/fair.c",
    "tools/perf/scripts/python/bin/sched-migration-record",
]


def _first(query: str, paths: list[str] = PATHS) -> str:
    ranked = rank_paths(query, paths)
    return paths[ranked[0][0]]


def test_abbreviation_finds_the_camel_case_file() -> None:
    assert _first("usrctl") == "src/Users/UserController.cs"


def test_file_name_beats_folders_and_shorter_wins_ties() -> None:
    assert _first("inode") == "fs/ext4/inode.c"
    assert _first("ext4 inode") == "fs/ext4/inode.c"
    assert _first("sched fair") == "kernel/sched/fair.c"


def test_word_starts_and_segments() -> None:
    assert _first("i915gemobj") == "drivers/gpu/drm/i915/gem/i915_gem_object.c"
    assert _first("usersvc") == "src/Users/UserService.cs"


def test_only_subsequence_matches_are_returned() -> None:
    assert rank_paths("zzz", PATHS) == []
    assert _first("ctltests") == "tests/Users/UserControllerTests.cs"
    def subsequence(q: str, p: str) -> bool:
        it = iter(p.lower())
        return all(c in it for c in q)

    assert {PATHS[i] for i, _ in rank_paths("ctl", PATHS)} == {p for p in PATHS if subsequence("ctl", p)}
    assert score_path("abc", "x/cba") is None


def test_scores_are_in_0_1_and_sorted_and_boost_breaks_ties() -> None:
    ranked = rank_paths("user", PATHS)
    scores = [s for _, s in ranked]
    assert all(0 <= s <= 1 for s in scores) and scores == sorted(scores, reverse=True)
    twins = ["a/b/widget.c", "c/d/widget.c"]
    assert twins[rank_paths("widget", twins)[0][0]] == "a/b/widget.c"
    assert twins[rank_paths("widget", twins, boost={1})[0][0]] == "c/d/widget.c"
