"""Expensive pre-search steps (issue 22 item 6): a list of 10,000 patterns.

The landed server de-duplicated literal sets pairwise (quadratic: ~50 million comparisons for
10,000 ``-e`` patterns), built one prefilter scanner per pattern, parsed every pattern four times,
compiled outside the request's deadline and had no cap on the number of patterns; argparse alone
spent seconds on the command line. The structural tests below count the work (comparisons,
scanners) instead of timing it; the end-to-end ones check answers against ripgrep and that the
server keeps answering while such a search compiles.
"""

from __future__ import annotations

import asyncio
import pathlib
import sys
from typing import Any

import pytest

from sleuth.engine.match import literals
from sleuth.engine.cancel import CancelToken
from sleuth.engine.match import prefilter
from sleuth.engine.types import MatchOptions, SearchOptions, WalkOptions
from tests.conftest import write_tree
from tests.diff.rg import needs_rg, rg_events, sleuth_events

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "lsp"))
from harness import sessions, start  # noqa: E402,F401 - LSP fixtures

MANY = 10_000
PATTERNS = [f"w{i}" for i in range(1, MANY + 1)]


@pytest.fixture
def profile() -> str:
    return "vscode"  # one client profile is enough here (the harness' default runs both)


def small_tree(root: pathlib.Path) -> pathlib.Path:
    """20 files whose lines hold words some of the patterns match (and substrings of others)."""
    return write_tree(root, {f"d{f % 3}/f{f}.txt": "".join(f"w{(f * 7919 + j * 104_729) % 30_000} x{j}\nnothing\n"
                                                          for j in range(6))
                             for f in range(20)})


# -- the work is linear in the number of patterns (counted, not timed) --------------------------

def test_literal_sets_deduplicate_without_pairwise_comparisons(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = [0]
    original = literals.LiteralQuery.__eq__

    def counting_eq(self: Any, other: Any) -> Any:
        calls[0] += 1
        return original(self, other)

    monkeypatch.setattr(literals.LiteralQuery, "__eq__", counting_eq)
    n = 2_000
    query = literals.required_literals(MatchOptions(patterns=tuple(f"v{i}" for i in range(n)), case="sensitive"))
    assert query.op == "or" and len(query.children) == n
    assert calls[0] < 4 * n  # pairwise de-duplication made n*(n-1)/2 = 2 million


def test_an_or_of_many_ands_is_prefiltered_by_one_scanner(monkeypatch: pytest.MonkeyPatch) -> None:
    built = [0]
    original = prefilter._any_literal

    def counting(*args: Any, **kwargs: Any) -> Any:
        built[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(prefilter, "_any_literal", counting)
    query = literals.required_literals(MatchOptions(patterns=tuple(f"alpha.beta{i}" for i in range(1_000)),
                                                    case="sensitive"))
    check = prefilter.compile_prefilter(query)
    assert built[0] == 1  # one scanner per pattern (2,000 Hyperscan databases) before
    assert check is not None
    assert check(b"xx alpha-beta17 yy") and not check(b"nothing to see")


def test_the_compile_stops_at_the_requests_deadline(tmp_path: pathlib.Path) -> None:
    from sleuth.engine.grep import GrepRequest, prepare
    from sleuth.engine.match import CompileStopped, compile_matcher
    from sleuth.engine.workspace import Workspace

    token = CancelToken(timeout_ms=1)
    while token.remaining_seconds():  # bounded: a millisecond
        pass
    options = MatchOptions(patterns=tuple(PATTERNS), case="sensitive")
    with pytest.raises(CompileStopped):
        compile_matcher(options, stop=token)
    folder = small_tree(tmp_path / "ws")
    request = GrepRequest(tuple(Workspace([str(folder)]).resolve(None)), WalkOptions(), options, SearchOptions())
    outcome = prepare(request, token)
    assert outcome is not None and outcome.timed_out and outcome.files_scanned == 0 and not outcome.items


def test_the_cli_takes_patterns_out_before_argparse() -> None:
    from sleuth.cli import _parser
    from sleuth.cli.grep import read_argv

    _parser("grep")
    split = read_argv(["-e", "a", "-ib", "--regexp", "c", "--regexp=d", "-e-x", "-n", ".", "--", "-e", "path"])
    assert split.patterns == ["a", "c", "d", "-x"]
    assert split.options == ["-i", "-b", "-n"]  # -b is no sleuth flag: argparse reports it
    assert split.positionals == [".", "-e", "path"]


# -- end to end ----------------------------------------------------------------------------------

@needs_rg
def test_ten_thousand_patterns_on_the_command_line_equal_rg(tmp_path: pathlib.Path) -> None:
    folder = small_tree(tmp_path / "ws")
    flags = [arg for pattern in PATTERNS for arg in ("-e", pattern)]
    expected = sorted(rg_events(folder, *flags, "."))
    assert expected  # the tree does match
    assert sorted(sleuth_events(folder, "--max-results", "100000", *flags, ".")) == expected


@needs_rg
async def test_ten_thousand_patterns_over_lsp_equal_rg_and_status_answers_meanwhile(start, tmp_path: pathlib.Path) -> None:
    folder = small_tree(tmp_path / "ws")
    session = await start([folder])
    grep = session.send("workspace/executeCommand", _execute("sleuth.grep", {"pattern": PATTERNS, "max_results": 10_000}))
    status = session.send("workspace/executeCommand", _execute("sleuth.index.status", {}))
    done, _ = await asyncio.wait({grep, status}, timeout=120, return_when=asyncio.FIRST_COMPLETED)
    assert status in done  # answered while the 10,000 patterns compile, not after
    result = await asyncio.wait_for(grep, 120)
    got = sorted((m["type"], m["path"], m["line"]) for m in result["matches"])
    assert got == sorted(rg_events(folder, *[a for p in PATTERNS for a in ("-e", p)], "."))


async def test_the_number_of_patterns_is_capped_by_a_setting(start, tmp_path: pathlib.Path) -> None:
    session = await start([small_tree(tmp_path / "ws")], init_options={"maxPatterns": 100})
    result = await session.execute("sleuth.grep", {"pattern": PATTERNS[:100]})
    assert "matches" in result
    with pytest.raises(Exception) as refused:
        await session.execute("sleuth.grep", {"pattern": PATTERNS[:101]})
    data = getattr(refused.value, "data", None) or {}
    assert data.get("code") == "bad_args" and "max_patterns" in data.get("message", ""), refused.value


def _execute(command: str, args: dict[str, Any]) -> Any:
    from lsprotocol import types

    return types.ExecuteCommandParams(command=command, arguments=[args])
