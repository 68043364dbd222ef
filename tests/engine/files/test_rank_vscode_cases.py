"""Quick-Open ranking against cases from VS Code's fuzzy-scorer tests (issue 17), one test per class
of failure, each case checked with the paths given in both orders. The cases are data: the paths
and queries of ``src/vs/base/test/common/fuzzyScorer.test.ts``, written here as they would be typed
into ``sleuth files -q``; none of VS Code's code is used."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sleuth.engine.files.path_lines import mark_word_starts
from sleuth.engine.files.rank import _cache, rank_paths, rank_paths_counted
from sleuth.engine.files.score import score_path

Case = tuple[str, list[str], str]


def _first(query: str, paths: list[str]) -> str | None:
    _cache.clear()
    ranked = rank_paths(query, paths)
    return paths[ranked[0][0]] if ranked else None


def _check(cases: list[Case]) -> None:
    for query, paths, expected in cases:
        for order in (paths, paths[::-1]):
            assert _first(query, list(order)) == expected, (query, order)


def test_a_word_start_after_a_run_of_capitals_is_a_word_start() -> None:
    """``IAsynchronousTask``: the ``A`` starts a word, so ``async`` is exact and contiguous at a word
    start there, and beats a scattered match from the path's start."""
    _check([("async", ["AssymblyInfo.cs", "IAsynchronousTask.java"], "IAsynchronousTask.java")])
    assert mark_word_starts(["IAsynchronousTask", "HTMLParser", "ABC"]) == [
        "\x01i\x01asynchronous\x01task", "\x01html\x01parser", "\x01abc"]


def test_a_query_word_that_equals_or_starts_the_file_name_gets_credit_of_its_own() -> None:
    window = ["src/vs/workbench/node/actions/windowActions.ts", "src/vs/workbench/electron-node/window.ts"]
    workbench = ["src/vs/workbench/services/host/browser/browserHostService.ts", "src/vs/workbench/browser/workbench.ts"]
    _check([
        ("window node", window, window[1]),
        ("window.ts node", window, window[1]),
        *[(q, workbench, workbench[1]) for q in
          ("workbench.ts browser", "browser workbench.ts", "browser workbench", "workbench browser")],
        ("smoke main.ts", ["test/smoke/src/main.ts", "src/vs/editor/common/services/semantikTokensProviderStyling.ts"],
         "test/smoke/src/main.ts"),
    ])


def test_a_word_spanning_folder_and_file_name_gets_file_name_credit() -> None:
    settings_js = "static/app/source/angular/-admin/-project/-settings/_settings/settings.js"
    _check([
        ("partisettings", ["static/app/source/angluar/-admin/-organization/-settings/layout/layout.js", settings_js],
         settings_js),
        # a folder + name abbreviation better than VS Code's Quick Open, which puts sch_red_core.sh first
        ("schedcore", ["kernel/sched/core.c", "tools/testing/selftests/net/forwarding/sch_red_core.sh"],
         "kernel/sched/core.c"),
        # ... while a term wholly inside a file name still beats one spread over folders and name
        ("kvmirq", ["arch/x86/kvm/irq.c", "include/linux/kvm_irqfd.h"], "include/linux/kvm_irqfd.h"),
    ])


def test_letter_case_is_the_last_tie_breaker() -> None:
    _check([
        ("Lists.php", ["lists.php", "Lists.php"], "Lists.php"),
        ("lists.php", ["lists.php", "Lists.php"], "lists.php"),
        ("Lists.php", ["lists.php", "lib/Lists.php"], "lib/Lists.php"),
        ("Color", ["app/constants/color.js", "app/components/model/input/Color.js"], "app/components/model/input/Color.js"),
        ("color", ["app/constants/color.js", "app/components/model/input/Color.js"], "app/constants/color.js"),
    ])


def test_query_clean_up_quotes_ellipsis_and_backslash() -> None:
    """VS Code's query rules: ``"…"`` asks for an exact, contiguous match; an ellipsis (pasted from a
    shortened label) and ``*`` are dropped; a backslash separates folders like ``/``."""
    paths = ["contiguous.txt", "c-o-n-t-i-g-u-o-u-s.txt"]
    _cache.clear()
    assert [paths[i] for i, _ in rank_paths('"contiguous"', paths)] == ["contiguous.txt"]
    assert rank_paths('"contguous"', paths) == []  # missing the i: no contiguous match
    assert [paths[i] for i, _ in rank_paths("contguous", paths)][0] == "contiguous.txt"  # unquoted: fuzzy
    _check([
        ("sub\\hello", ["other/hello.txt", "sub/hello.txt"], "sub/hello.txt"),
        ("hel\u2026", ["hello.txt", "ab.txt"], "hello.txt"),
        ("*.rs", ["lib.rs", "lib.py"], "lib.rs"),
        ("ui\\input\\index", ["ui/src/components/IDInput/index.js", "ui/src/ui/Input/index.js"], "ui/src/ui/Input/index.js"),
    ])
    from sleuth.engine.files.score import parse_query

    assert [(t.text, t.contiguous) for t in parse_query('"foo bar" baz"  \u2026  *')] == [
        ("foo", True), ("bar", True), ("baz", True)]


def test_a_multi_word_query_matches_a_file_whatever_other_files_exist() -> None:
    """The old candidate pass looked for the terms' disjoint occurrences first and only fell back to
    each term on its own when no path had them: ``foobar`` (``foo`` and ``oba`` share an ``o``)
    matched alone and vanished, ``total`` with it, once ``foo_oba.c`` existed."""
    alone = ["src/foobar.c"]
    both = ["src/foobar.c", "src/foo_oba.c"]
    _cache.clear()
    assert rank_paths_counted("foo oba", alone)[1] == 1
    _cache.clear()
    ranked, total = rank_paths_counted("foo oba", both)
    assert total == 2 and {both[i] for i, _ in ranked} == set(both)


def test_a_one_word_query_counts_every_file_it_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    """A term that many file names hold tiers only those, but every path holding it is still counted
    and listed (the old code counted only the tiered ones: ``total`` fell when names were added)."""
    from sleuth.engine.files import rank

    monkeypatch.setattr(rank, "RERANK", 3)
    paths = [f"src/net{i}.c" for i in range(5)] + ["n/e/t.txt"]
    _cache.clear()
    ranked, total = rank_paths_counted("net", paths)
    assert total == 6 and "n/e/t.txt" in {paths[i] for i, _ in ranked}
    _cache.clear()
    assert len(rank_paths_counted("net", paths, limit=6)[0]) == 6
    _cache.clear()


KEPT: list[Case] = [  # VS Code's other cases, which ranked as VS Code does before issue 17: kept so
    ("foo bar", ["app/emails/foo.bar.js", "app/emails/other-footer.other-bar.js"], "app/emails/foo.bar.js"),
    ("foobar", ["app/emails/foo.bar.js", "app/emails/other-footer.other-bar.js"], "app/emails/foo.bar.js"),
    ("payment model", ["app/components/payment/payment.model.js",
                       "app/components/online-payments-history/online-payments-history.model.js"],
     "app/components/payment/payment.model.js"),
    ("colorjs", ["app/constants/color.js", "app/components/model/input/pick-avatar-color.js"], "app/constants/color.js"),
    ("listview", ["editor/core/components/tests/list-view-spec.js", "editor/core/components/list-view.js"],
     "editor/core/components/list-view.js"),
    ("xyz", ["xerxes-yak-zubba/index.js", "xyz/index.js"], "xyz/index.js"),
    ("abc", ["alpha-beta-cappa.txt", "abc.txt"], "abc.txt"),
    ("gradientmain", ["pkg/search/gradient/testdata/constraint_attrMatchString.yml", "cmd/gradient/main.go"],
     "cmd/gradient/main.go"),
    ("djancosig", ["django/contrib/sites/locale/ga/LC_MESSAGES/django.mo", "django/core/signals.py"],
     "django/core/signals.py"),
    ("ui/icons", ["ui/src/utils/constants.js", "ui/src/ui/Icons/index.js"], "ui/src/ui/Icons/index.js"),
    ("bookpageIndex", ["photobook/src/components/AddPagesButton/index.js",
                       "photobook/src/components/ApprovalPageHeader/index.js",
                       "photobook/src/canvasComponents/BookPage/index.js"],
     "photobook/src/canvasComponents/BookPage/index.js"),
    ("reproreduxts", ["src/build-helper/store/redux.ts", "src/repository/store/redux.ts"], "src/repository/store/redux.ts"),
    ("modu1/index.js", ["node_modules1/bundle/lib/model/modules/ot1/index.js",
                        "node_modules1/bundle/lib/model/modules/modu1/index.js"],
     "node_modules1/bundle/lib/model/modules/modu1/index.js"),
    ("exfile", ["config/example/thisfile.ts", "config/24234243244/example/file.js"], "config/24234243244/example/file.js"),
    ("xp", ["config/test/examasdaple.js", "config/test/exampleasdaasd.ts"], "config/test/exampleasdaasd.ts"),
    ("npe", ["config/test/NullPointerException.java", "config/test/nopointerexception.java"],
     "config/test/NullPointerException.java"),
    ("partsquick", ["parts/quick/arrow-left-dark.svg", "parts/quickopen/quickopen.ts"], "parts/quickopen/quickopen.ts"),
    ("co/te", ["config/test/t1.js", "config/test.js", "config/test/t2.js"], "config/test.js"),
    ("tipsindex.cshtml", ["Trilby.TrilbyTV.Web.Portal/Views/Systems/Index.cshtml",
                          "Trilby.TrilbyTV.Web.Portal/Areas/Admins/Views/Tips/Index.cshtml"],
     "Trilby.TrilbyTV.Web.Portal/Areas/Admins/Views/Tips/Index.cshtml"),
]


def test_vscode_cases_that_already_ranked_well_still_do() -> None:
    _check(KEPT)


_NAMES = st.text(alphabet="abo_./", min_size=1, max_size=8).filter(lambda s: not s.startswith("/"))


@settings(max_examples=150, deadline=None)
@given(st.lists(_NAMES, min_size=1, max_size=6, unique=True), st.lists(_NAMES, max_size=6, unique=True),
       st.sampled_from(["a", "ab", "bo", "a b", "ob ba", "ab ba", "bob ob", "o/b", "a.b", '"ab"', "b\u2026", "o_ a_ b."]))
@example(["src/foobar.c"], ["src/foo_oba.c"], "foo oba")
def test_membership_does_not_depend_on_other_files(mine: list[str], others: list[str], query: str) -> None:
    """A file's membership in the results of a query does not depend on which other files exist:
    ranking ``mine`` alone and ``mine`` plus ``others`` (no cap) lists the same files of ``mine``,
    exactly those :func:`score_path` scores, and ``total`` counts every file it scores."""
    both = mine + [p for p in others if p not in mine]
    _cache.clear()
    alone = {mine[i] for i, _ in rank_paths(query, mine)}
    _cache.clear()
    ranked, total = rank_paths_counted(query, both)
    together = {both[i] for i, _ in ranked}
    _cache.clear()
    assert alone == together & set(mine)
    assert together == {p for p in both if score_path(query, p) is not None}
    assert total == len(together) == len(ranked)
