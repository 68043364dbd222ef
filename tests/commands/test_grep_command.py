"""``sleuth.grep`` as commands call it: real trees, real cancellation, the result contract of docs/SPEC.md §4."""

from __future__ import annotations

import json
import threading

import pytest

from sleuth.commands import get_command
from sleuth.commands.context import Services
from sleuth.engine.cancel import CancelToken
from sleuth.engine.errors import BadArgs, Cancelled, SandboxViolation
from tests.fixtures import context

grep = get_command("sleuth.grep")


@pytest.fixture
def tree(make_tree):
    return make_tree({f"d{i:02d}/f{j:02d}.txt": "".join(f"line {k} needle\n" for k in range(3))
                      for i in range(10) for j in range(10)})


def test_result_has_every_field_of_the_contract(tree):
    result = grep({"pattern": "needle", "max_results": 5}, context(tree))
    assert set(result) == {"matches", "count", "truncated", "truncated_reason", "timed_out", "files_scanned",
                           "files_matched", "files_in_workspace", "skipped", "errors", "elapsed_ms"}
    assert result["truncated"] is True and result["truncated_reason"] == "max_results"
    assert [(m["path"], m["line"]) for m in result["matches"]] == [
        ("d00/f00.txt", 1), ("d00/f00.txt", 2), ("d00/f00.txt", 3), ("d00/f01.txt", 1), ("d00/f01.txt", 2)]


def test_exactly_max_results_is_not_truncated(tree):
    result = grep({"pattern": "needle", "max_results": 300}, context(tree))
    assert result["count"] == 300 and result["truncated"] is False


def test_partial_results_stream_in_final_order_and_are_left_out_of_the_response(tree):
    batches: list[list[dict]] = []
    result = grep({"pattern": "needle", "max_results": 1000}, context(tree, partial=batches.append))
    streamed = [m for batch in batches for m in batch]
    assert result["matches"] == [] and len(streamed) == 300
    keys = [(m["path"].encode(), m["line"]) for m in streamed]
    assert keys == sorted(keys)


def test_cancelled_token_raises_cancelled(tree):
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        grep({"pattern": "needle"}, context(tree, token=token))


def test_cancel_from_another_thread_stops_a_running_search(make_tree):
    root = make_tree({f"big/{i:04d}.txt": "x" * 2000 + "\n" for i in range(3000)})
    token = CancelToken()
    progress_seen = threading.Event()

    def progress(done, total, message):
        progress_seen.set()
        token.cancel()

    with pytest.raises(Cancelled):
        grep({"pattern": "nothing-matches-this"}, context(root, token=token, progress=progress))
    assert progress_seen.is_set()


def test_path_outside_the_sandbox_is_refused(tree):
    with pytest.raises(SandboxViolation):
        grep({"pattern": "x", "path": "../.."}, context(tree))


def test_invalid_regex_is_bad_args_with_a_position(tree):
    with pytest.raises(BadArgs) as info:
        grep({"pattern": "a(b"}, context(tree))
    assert "position" in info.value.to_dict()


def test_open_buffers_are_searched_as_unsaved_text(tree):
    path = str(tree / "d00" / "f00.txt")
    services = Services(open_buffers={path: "unsaved edit here\n"})
    result = grep({"pattern": "unsaved", "max_results": 10}, context(tree, services=services))
    assert [(m["path"], m["line"]) for m in result["matches"]] == [("d00/f00.txt", 1)]
    result = grep({"pattern": "unsaved", "use_open_buffers": False}, context(tree, services=services))
    assert result["matches"] == []


def test_max_output_bytes_keeps_json_valid_and_says_so(tree):
    result = grep({"pattern": "needle", "max_results": 300, "max_output_bytes": 2000}, context(tree))
    assert len(json.dumps(result, ensure_ascii=False, separators=(",", ":")).encode()) <= 2000
    assert result["truncated_reason"] == "max_output_bytes" and result["matches"]


def test_output_modes(tree):
    files = grep({"pattern": "needle", "output": "files_with_matches", "max_results": 1000}, context(tree))
    assert len(files["matches"]) == 100 and files["files_matched"] == 100
    counts = grep({"pattern": "needle", "output": "count", "max_results": 1000}, context(tree))
    assert {m["count"] for m in counts["matches"]} == {3}


def test_files_without_match_lists_the_files_searched_whole_without_one(make_tree):
    """rg's ``--files-without-match``: a binary file a folder's search quits on is neither with nor without
    a match; named, the same file is searched whole and listed; the list counts against ``max_results``."""
    root = make_tree({"hit.txt": "needle\n", "miss.txt": "hay\n", "miss2.txt": "straw\n", "bin.dat": "hay\0\n"})
    result = grep({"pattern": "needle", "output": "files_without_match"}, context(root))
    assert result["matches"] == [{"type": "file", "path": "miss.txt", "matched": False},
                                 {"type": "file", "path": "miss2.txt", "matched": False}]
    assert (result["count"], result["files_matched"], result["skipped"]["binary"]) == (2, 1, 1)
    named = grep({"pattern": "needle", "output": "files_without_match", "path": "bin.dat"}, context(root))
    assert [m["path"] for m in named["matches"]] == ["bin.dat"]
    capped = grep({"pattern": "needle", "output": "files_without_match", "max_results": 1}, context(root))
    assert [m["path"] for m in capped["matches"]] == ["miss.txt"] and capped["truncated"]


def test_per_file_errors_do_not_fail_the_search(make_tree):
    root = make_tree({"ok.txt": "needle\n", "locked.txt": "needle\n"})
    (root / "locked.txt").chmod(0)
    try:
        result = grep({"pattern": "needle"}, context(root))
    finally:
        (root / "locked.txt").chmod(0o644)
    assert ("ok.txt", 1) in [(m["path"], m["line"]) for m in result["matches"]]
    import os
    if os.geteuid() != 0:  # root can read anything
        assert [e["path"] for e in result["errors"]] == ["locked.txt"]


def test_progress_says_n_of_m_files_once_the_scope_was_scanned_before(make_tree):
    root = make_tree({f"p/{i // 100}/{i:04d}.txt": "plain text\n" for i in range(600)})
    first: list[tuple[int, int | None]] = []
    second: list[tuple[int, int | None]] = []
    grep({"pattern": "nowhere"}, context(root, progress=lambda d, t, m: first.append((d, t))))
    grep({"pattern": "nowhere"}, context(root, progress=lambda d, t, m: second.append((d, t))))
    assert first and all(total is None for _, total in first)
    assert second and all(total == 600 for _, total in second)


def test_a_context_reused_for_several_commands_does_not_inherit_a_deadline(tree):
    ctx = context(tree)
    grep({"pattern": "needle", "timeout_ms": 1}, ctx)
    import time
    time.sleep(0.01)
    result = grep({"pattern": "needle", "max_results": 5}, ctx)
    assert result["timed_out"] is False and len(result["matches"]) == 5


def test_cancelling_the_context_token_cancels_a_command_with_its_own_deadline(tree):
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        grep({"pattern": "needle", "timeout_ms": 60_000}, context(tree, token=token))


def test_an_ignore_file_edited_between_two_pooled_searches_is_obeyed(make_tree, pool_as_in_a_server):
    """Workers walking a big scan's subtrees share one ignore filter per search; the pool outlives
    the search, so the next search must read the edited ignore file, not the remembered one."""
    files = {f"a/b{i:02d}/f{j:02d}.txt": "nothing here\n" for i in range(20) for j in range(16)}
    files["a/b07/target.txt"] = "needle\n"
    root = make_tree(files)

    def found() -> list[str]:
        return sorted({m["path"] for m in grep({"pattern": "needle"}, context(root))["matches"]})

    assert found() == ["a/b07/target.txt"]
    (root / ".ignore").write_text("target.txt\n")
    assert found() == []
    (root / "a" / "b07" / ".ignore").write_text("!target.txt\n")
    assert found() == ["a/b07/target.txt"]


def test_twenty_thousand_results_is_within_the_hard_cap(make_tree):
    """The VS Code search view's 'load more' goes up to 20,000 matches; one more is refused."""
    root = make_tree({f"f{i:02d}.txt": "hit\n" * 1000 for i in range(21)})
    result = grep({"pattern": "hit", "max_results": 20_000}, context(root))
    assert result["count"] == 20_000 and result["truncated"] is True
    with pytest.raises(BadArgs):
        grep({"pattern": "hit", "max_results": 20_001}, context(root))
