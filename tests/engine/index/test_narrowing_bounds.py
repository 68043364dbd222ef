"""Issue 27 item 5: the index's narrowing is bounded, so a 10,000-pattern grep keeps its deadline.

The OR of 10,000 literals cost a planning lookup and posting reads per literal and per shard, with
no deadline and under the service lock (``sleuth.index.status`` waited behind it): 15-20 s on the
Linux tree for ``timeout_ms: 3000``. Now a query of more than ``MAX_NARROWING_LITERALS`` literals
is not evaluated (the grep reads the catalogue's files, as a scan would), and an evaluation stops
when the search's token says so.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from sleuth.commands.args import parse_args
from sleuth.commands.grep import GREP_ARGS, build_request
from sleuth.engine.cancel import CancelToken
from sleuth.engine.index.narrowing import MAX_NARROWING_LITERALS
from tests.fixtures import context

FILES = {f"f{n:03}.c": f"int word_{n:03}_here;\n" for n in range(40)}


def _candidates(service, patterns: list[str], token: CancelToken | None = None):  # type: ignore[no-untyped-def]
    ctx = context(service.workspace, index=service)
    request = build_request(parse_args("sleuth.grep", {"pattern": patterns}, GREP_ARGS, ctx.settings), ctx)
    if token is None:
        return service.candidate_entries(service.workspace, request)
    return service.candidate_entries(service.workspace, request, token)


def test_an_or_of_more_literals_than_the_bound_is_not_evaluated(tmp_path: Path, kit: SimpleNamespace) -> None:
    service = kit.start(kit.write_tree(tmp_path / "ws", FILES), tmp_path / "cache")
    try:
        few = _candidates(service, ["word_001_here", "word_002_here"])
        assert few is not None and few.narrowed and len(few) == 2  # the index narrows a small OR
        many = [f"word_001_here{n}" for n in range(MAX_NARROWING_LITERALS)] + ["word_002_here"]
        listed = _candidates(service, many)
        assert listed is not None and not listed.narrowed and len(listed) == len(FILES)  # main: narrowed, 1 file
    finally:
        service.stop()


def test_the_evaluation_stops_with_the_search(tmp_path: Path, kit: SimpleNamespace) -> None:
    service = kit.start(kit.write_tree(tmp_path / "ws", FILES), tmp_path / "cache")
    try:
        stopped = CancelToken()
        stopped.cancel()  # what a passed deadline does too: should_stop() says so
        listed = _candidates(service, ["word_001_here"], stopped)
        assert listed is not None and not listed.narrowed  # not evaluated: the scan ends at once, stopped
        assert _candidates(service, ["word_001_here"], CancelToken()).narrowed
    finally:
        service.stop()
