"""Quick-Open ranking: general signals (word starts, contiguity, file name over folders, short paths)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sleuth.engine.files.rank import rank_paths
from sleuth.engine.files.score import score_path

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


def test_a_term_inside_the_file_name_beats_one_spread_over_folders() -> None:
    paths = ["arch/x86/kvm/irq.c", "include/linux/kvm_irqfd.h"]
    assert _first("kvmirq", paths) == "include/linux/kvm_irqfd.h"
    paths = ["tools/testing/selftests/rcutorture/formal/srcu-cbmc/tests/store_buffering/test.c",
             "Documentation/driver-api/early-userspace/buffer-format.rst"]
    assert _first("buf forma", paths) == "Documentation/driver-api/early-userspace/buffer-format.rst"


def test_a_run_keeps_the_bonus_of_the_word_start_it_began_at() -> None:
    from sleuth.engine.files.score import _align, bonuses

    def align(term: str, path: str) -> float:
        score = _align(term, path.lower(), bonuses(path))
        assert score is not None
        return score

    # the run "obj" after a word start scores like a word start; "gemobj" inside a word does not
    assert align("gemobj", "gem_object.c") > align("gemobj", "agemobjective.c")
    assert align("obj", "x_object") - align("o", "x_object") > align("obj", "xobject") - align("o", "xobject")


def test_word_prefix_abbreviations_and_initials_of_the_name() -> None:
    paths = ["drivers/most/configfs.c", "include/linux/configfs.h",
             "drivers/gpu/drm/i915/gt/intel_ggtt_fencing.c"]
    assert _first("igf", paths) == "drivers/gpu/drm/i915/gt/intel_ggtt_fencing.c"
    assert _first("intggtfen", paths) == "drivers/gpu/drm/i915/gt/intel_ggtt_fencing.c"
    paths = ["drivers/input/misc/ab8500-ponkey.c", "arch/arm/boot/dts/aspeed-bmc-portwell-neptune.dts"]
    assert _first("abpn", paths) == "arch/arm/boot/dts/aspeed-bmc-portwell-neptune.dts"
    paths = ["drivers/net/ethernet/chelsio/cxgb3/l2t.c", "arch/arm/mm/cache-xsc3l2.c"]
    assert _first("cx3l2", paths) == "arch/arm/mm/cache-xsc3l2.c"


def test_the_exact_name_beats_a_longer_name_it_starts_and_covering_more_of_a_name_wins() -> None:
    paths = ["arch/sparc/include/asm/tlbflush.h", "arch/sparc/mm/tlb.c"]
    assert _first("tlb", paths) == "arch/sparc/mm/tlb.c"
    assert _first("tlb.c", paths) == "arch/sparc/mm/tlb.c"
    paths = ["drivers/phy/phy-usb-initialize.c", "drivers/usb/init.c"]
    assert _first("usbinit", paths) == "drivers/usb/init.c"


def test_folder_slash_name_and_terms_in_any_order() -> None:
    paths = ["tools/objtool/gem.c", "drivers/gpu/drm/i915/gem/i915_gem_object.c", "lib/obj/gemini.c"]
    assert _first("gem/i915_gem_obj", paths) == "drivers/gpu/drm/i915/gem/i915_gem_object.c"
    assert _first("obj gem i915", paths) == "drivers/gpu/drm/i915/gem/i915_gem_object.c"
    assert _first("drm gem obj", paths) == "drivers/gpu/drm/i915/gem/i915_gem_object.c"


def test_more_file_name_matches_than_the_reranked_head_keep_folder_word_matches(monkeypatch) -> None:
    from sleuth.engine.files import rank

    monkeypatch.setattr(rank, "RERANK", 3)
    rank._cache.clear()
    paths = [f"net/x/br_netlink_t{i}.c" for i in range(6)] + ["Documentation/netlink/intro.rst"]
    found = {paths[i] for i, _ in rank_paths("netlint", paths)}
    assert "Documentation/netlink/intro.rst" in found
    rank._cache.clear()


def test_counted_reports_every_match_while_the_list_is_cut() -> None:
    from sleuth.engine.files.rank import rank_paths_counted

    ranked, total = rank_paths_counted("c", PATHS, limit=2)
    assert len(ranked) == 2 and total == sum(1 for p in PATHS if "c" in p.lower())


@given(st.lists(st.text(alphabet="aZ9_.-/é Σς\nIİ@[`{:0Azb\ud800", max_size=10), max_size=20))
def test_word_starts_are_marked_as_text_by_text(texts: list[str]) -> None:
    """Marking all texts in one pass (joined by newlines) gives what marking each one alone gives."""
    from sleuth.engine.files import path_lines
    from sleuth.engine.files.path_lines import WORD_START, mark_word_starts

    expected = [WORD_START.sub("\x01", t).lower() for t in texts]
    assert mark_word_starts(texts) == expected  # small: one regex substitution
    threshold, path_lines.NUMPY_MARKING = path_lines.NUMPY_MARKING, 0
    try:
        assert mark_word_starts(texts) == expected  # large: character classes compared with numpy
    finally:
        path_lines.NUMPY_MARKING = threshold


@given(st.lists(st.text(alphabet="ab.Σ-_/\\", max_size=6), min_size=1, max_size=12), st.text(alphabet="ab.Σ-_", max_size=4))
def test_named_lookup_is_the_file_name_or_its_stem(paths: list[str], name: str) -> None:
    """The exact-name tier: the file name itself, or the name without its last extension (never a
    dot file's whole name: ``.ab`` has no stem)."""
    from sleuth.engine.files.rank import PathIndex

    index = PathIndex(paths)
    name = name.lower()
    expected = set()
    for i, path in enumerate(paths):
        base = path.lower()[path.lower().rfind("/") + 1:]
        stem = base.rsplit(".", 1)[0] if "." in base[1:] else None
        if name in (base, stem):
            expected.add(i)
    assert index._named(name) == expected


@given(st.lists(st.text(alphabet="abc_/.\x01", max_size=8), min_size=1, max_size=15), st.text(alphabet="abc_", min_size=1, max_size=3))
def test_matching_lines_equal_every_match_found(lines: list[str], term: str) -> None:
    """``matching_lines`` (one low-level RE2 search per matching line) and ``lines_holding`` (one per run
    of matching lines) find the lines a full ``finditer`` does."""
    import bisect
    import re

    from sleuth.engine.files.path_lines import compile_bytes, join_lines, lines_holding, matching_lines
    from sleuth.engine.files.rank import _word_aligned

    text, starts = join_lines(lines)
    subsequence = "[^\n]*?".join(re.escape(c) for c in term)
    for pattern in (subsequence + "[^\n]*", _word_aligned(term), term):
        every = {bisect.bisect_right(starts, m.start()) - 1 for m in compile_bytes(pattern).finditer(text)}
        assert matching_lines(pattern, text, starts) == every
        if pattern != _word_aligned(term):
            assert lines_holding(pattern, text, starts) == every


path_lists = st.lists(st.text(alphabet="ab/._Zé", min_size=1, max_size=8), min_size=1, max_size=15, unique=True)


@given(path_lists, st.text(alphabet="ab/._Zé", min_size=1, max_size=8), st.integers(0, 20), st.booleans(),
       st.booleans())
def test_a_spliced_index_equals_one_prepared_from_scratch(paths: list[str], extra: str, where: int, add: bool,
                                                          warm: bool) -> None:
    """One path created or deleted: the cached index is spliced, not prepared again; every prepared
    list, word-start marking and exact-name table equals a fresh index's."""
    from sleuth.engine.files.rank import PathIndex

    paths = sorted(paths)
    old = PathIndex(paths)
    if warm:  # the lazily made parts exist only after queries used them
        old._marked("names"), old._marked("paths"), old._named("a")
    if add:
        if extra in paths:
            return
        new = sorted(paths + [extra])
    else:
        new = [p for i, p in enumerate(paths) if i != where % len(paths)]
    spliced = old.spliced(new)
    assert spliced is not None
    fresh = PathIndex(new)
    assert spliced.prepared == fresh.prepared
    for which in ("names", "paths"):
        assert spliced._marked(which) == fresh._marked(which)
    spliced._named("a"), fresh._named("a")  # shifted from the old table when it was made, else made now
    assert spliced._names == fresh._names


def test_other_changes_are_prepared_again() -> None:
    from sleuth.engine.files.rank import PathIndex

    index = PathIndex(["a/b.c", "a/c.c", "b/d.c"])
    assert index.spliced(["a/b.c", "x.c", "y.c", "a/c.c", "b/d.c"]) is None  # two added
    assert index.spliced(["a/b.c", "a/x.c", "b/d.c"]) is None  # one renamed: same length
    assert index.spliced(["a/b.c", "b/d.c", "z.c", "w.c"]) is None


def test_a_lone_term_that_is_the_names_acronym_wins() -> None:
    """Every character the initial of one of the stem's words (three or more; the extension is not a
    word of the acronym): ``csm`` is cc_sram_mgr, not ci_smc where ``sm`` starts one word."""
    paths = ["drivers/gpu/drm/radeon/ci_smc.c", "drivers/crypto/ccree/cc_sram_mgr.h"]
    assert _first("csm", paths) == "drivers/crypto/ccree/cc_sram_mgr.h"
    paths = ["drivers/bluetooth/hci_bcm.c", "drivers/net/wireless/realtek/rtlwifi/rtl8723ae/hal_bt_coexist.h"]
    assert _first("hbc", paths) == paths[1]  # hci_bcm.c: h b and the extension c, not an acronym


def test_numbers_may_be_left_out_of_an_abbreviation() -> None:
    from sleuth.engine.files.score import _abbreviates, _words

    assert _abbreviates("isw", _words("ieee80211_softmac_wx")) == 3
    paths = ["drivers/net/ethernet/intel/ice/ice_switch.c",
             "drivers/staging/rtl8192u/ieee80211/ieee80211_softmac_wx.c"]
    assert _first("isw", paths) == paths[1]


def test_a_term_running_from_folders_into_the_name_is_a_candidate(monkeypatch) -> None:
    """``serkc``: ``ser`` in the folder, ``kc`` in ``Kconfig``; with more name matches than the
    re-ranked head holds, such a path is tiered with the word-start name matches, not after them."""
    from sleuth.engine.files import rank

    monkeypatch.setattr(rank, "RERANK", 3)
    rank._cache.clear()
    paths = [f"net/x/sXeXrXkXc_{i}.c" for i in range(6)] + ["drivers/usb/serial/Kconfig"]
    head, matching = rank.PathIndex(paths).candidates(rank.parse_query("serkc"), ())
    assert len(matching) == 7 and paths.index("drivers/usb/serial/Kconfig") in head
