"""The real grep and files commands over LSP: both entry points, streaming, buffers, errors, cancel."""

from __future__ import annotations

import asyncio
import pathlib
import random
import shutil

import pytest
from harness import make_tree
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path
from tests.conftest import HANG_S

WORDS = ["alpha", "beta", "gamma", "delta", "kappa", "omega", "sigma", "theta"]


def word_tree(root: pathlib.Path, files: int, lines: int = 40, seed: int = 7) -> pathlib.Path:
    """``files`` text files of random words; every fifth line of every file holds 'needle'."""
    rng = random.Random(seed)
    for i in range(files):
        text = "\n".join(" ".join(rng.choice(WORDS) for _ in range(8)) + (" needle" if n % 5 == 0 else "")
                         for n in range(lines))
        path = root / f"d{i % 7}" / f"f{i:04}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n", encoding="utf-8")
    return root


def _without_timing(result: dict) -> dict:
    return {k: v for k, v in result.items() if k != "elapsed_ms"}


async def test_grep_same_result_from_execute_command_and_custom_request(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {"a.py": "def hello():\n    return 1\n", "b/c.txt": "say hello\nnope\n"})
    session = await start([root])
    by_command = await session.execute("sleuth.grep", {"pattern": "hello"})
    by_request = await session.request("sleuth/grep", {"pattern": "hello"})
    assert _without_timing(by_command) == _without_timing(by_request)
    assert [(m["path"], m["line"]) for m in by_command["matches"]] == [("a.py", 1), ("b/c.txt", 1)]


async def test_several_folders_prefix_paths_with_the_folder_name(start, tmp_path: pathlib.Path, profile: str) -> None:
    api = make_tree(tmp_path / "api", {"x.txt": "needle\n"})
    web = make_tree(tmp_path / "web", {"y.txt": "needle\n"})
    session = await start([api, web])
    paths = [m["path"] for m in (await session.execute("sleuth.grep", {"pattern": "needle"}))["matches"]]
    assert paths == (["api/x.txt", "web/y.txt"] if session.vscode else ["x.txt"])


async def test_grep_streams_batches_in_final_order(start, tmp_path: pathlib.Path) -> None:
    root = word_tree(tmp_path / "ws", files=300)  # enough files for the parallel path
    session = await start([root])
    args = {"pattern": "needle", "max_results": 5000}
    whole = await session.execute("sleuth.grep", args)
    streamed = await session.request("sleuth/grep", {**args, "partialResultToken": "g", "workDoneToken": "gw"})
    sent = [event for value in session.progress["g"] for event in value["matches"]]
    assert sent == whole["matches"] and len(sent) == 300 * 8
    assert streamed["matches"] == []
    assert _without_timing({**streamed, "matches": None}) == _without_timing({**whole, "matches": None})
    kinds = [v["kind"] for v in session.progress["gw"]]
    assert kinds[0] == "begin" and kinds[-1] == "end"


async def test_files_by_glob_and_streamed(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {"a.py": "", "b/c.py": "", "b/d.txt": ""})
    session = await start([root])
    whole = await session.execute("sleuth.files", {"patterns": ["**/*.py"]})
    assert [i["path"] for i in whole["items"]] == ["a.py", "b/c.py"] and whole["total"] == 2
    streamed = await session.request("sleuth/files", {"patterns": ["**/*.py"], "partialResultToken": "f"})
    assert [i for v in session.progress["f"] for i in v["items"]] == whole["items"]
    assert streamed["items"] == [] and streamed["total"] == 2


async def test_grep_errors_are_coded(start, tmp_path: pathlib.Path) -> None:
    outside = make_tree(tmp_path / "outside", {"secret.txt": "needle\n"})
    root = make_tree(tmp_path / "ws", {"a.txt": "needle\n"})
    session = await start([root])
    with pytest.raises(JsonRpcException) as caught:
        await session.request("sleuth/grep", {"pattern": "a(b"})
    assert caught.value.code == -32602 and caught.value.data["code"] == "bad_args"
    assert "position" in caught.value.data
    with pytest.raises(JsonRpcException) as caught:
        await session.execute("sleuth.grep", {"pattern": "needle", "path": "../outside"})
    assert caught.value.data["code"] == "sandbox_violation" and caught.value.code == -32001
    with pytest.raises(JsonRpcException) as caught:
        await session.execute("sleuth.grep", {"pattern": "needle", "path": "missing.txt"})
    assert caught.value.data["code"] == "not_found"
    with pytest.raises(JsonRpcException) as caught:
        await session.execute("sleuth.grep", {"pattern": "needle", "colour": True})
    assert caught.value.code == -32602 and "colour" in caught.value.data["message"]
    assert outside.exists()


async def test_open_buffers_are_searched_as_their_unsaved_text(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {"doc.txt": "on disk\nsecond line\n"})
    session = await start([root])
    uri = session.open(root / "doc.txt", "unsaved words\nsecond line\n")
    found = await session.execute("sleuth.grep", {"pattern": "unsaved"})
    assert [(m["path"], m["line"]) for m in found["matches"]] == [("doc.txt", 1)]
    assert (await session.execute("sleuth.grep", {"pattern": "unsaved", "use_open_buffers": False}))["matches"] == []
    # an incremental edit: replace "second" on line 2 with "edited"
    session.client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=1, character=0), end=types.Position(line=1, character=6)),
            text="edited")]))
    found = await session.execute("sleuth.grep", {"pattern": "edited line"})
    assert [(m["path"], m["line"], m["text"]) for m in found["matches"]] == [("doc.txt", 2, "edited line")]
    session.client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert (await session.execute("sleuth.grep", {"pattern": "edited"}))["matches"] == []
    assert len((await session.execute("sleuth.grep", {"pattern": "on disk"}))["matches"]) == 1


def slow_tree(root: pathlib.Path, files: int = 400, copies: int = 1) -> pathlib.Path:
    """Files on which a back-reference pattern (run by the backtracking engine) is slow; ``copies``
    repeats them in more folders (copying is much cheaper than drawing more random words)."""
    word_tree(root, files=files, lines=200)
    for k in range(1, copies):
        for folder in sorted(root.glob("d*")):
            shutil.copytree(folder, root / f"copy{k}" / folder.name)
    return root


# Slow per file in the backtracking engine, and rare: ~75 matches in 400 files (``(\w+) \1 \1`` found
# 6,728, so on more files max_results ended the search early)
SLOW = {"pattern": r"(\w+) \1 \1 \1 \1", "max_results": 10000}


async def test_cancelling_a_real_grep_stops_the_scan(start, tmp_path: pathlib.Path) -> None:
    root = slow_tree(tmp_path / "ws", copies=6)  # seconds of work: the cancel surely arrives before the end
    session = await start([root])
    msg_id = session.next_id()
    pending = session.send("sleuth/grep", {**SLOW, "partialResultToken": "slow"}, msg_id)
    await session.first_progress("slow")
    session.cancel(msg_id)
    with pytest.raises(JsonRpcException) as caught:
        await asyncio.wait_for(pending, HANG_S)
    assert caught.value.code == -32800
    state = await session.until_idle()  # the worker thread is free again
    scanned = state["last_progress"].get("sleuth.grep")
    assert scanned is None or scanned < 2400  # it stopped early: not every file was searched
    sent = [event for value in session.progress["slow"] for event in value["matches"]]
    assert sent and sent == sorted(sent, key=lambda e: (e["path"].encode(), e["line"], e.get("column", 0)))


async def test_status_is_answered_while_a_long_grep_runs(start, tmp_path: pathlib.Path) -> None:
    # 2,400 slow files and a pattern that matches rarely (no max_results cut): the grep takes seconds,
    # so it surely still runs when the status and the quick grep are answered (400 files took ~0.5 s,
    # and a loaded machine once saw that grep end first)
    root = slow_tree(tmp_path / "ws", copies=6)
    session = await start([root])
    msg_id = session.next_id()
    pending = session.send("sleuth/grep", {**SLOW, "partialResultToken": "slow"}, msg_id)
    await session.first_progress("slow")
    try:
        await session.execute("sleuth.index.status", {})
    except JsonRpcException as exc:
        assert exc.data["code"] != "internal"
    quick = await session.execute("sleuth.grep", {"pattern": "needle", "path": "d0/f0000.txt"})
    assert len(quick["matches"]) == 40  # another search finished meanwhile
    assert (await session.workers())["running"] == 1 and not pending.done()  # the long one still runs
    session.cancel(msg_id)
    with pytest.raises(JsonRpcException):
        await asyncio.wait_for(pending, HANG_S)
    await session.until_idle()


async def test_watched_files_registration_and_events(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {"a.txt": "x\n"})
    session = await start([root])
    await session.workers()
    methods = [r.method for r in session.registrations]
    if session.vscode:
        assert methods == [types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
        assert session.registrations[0].register_options["watchers"][0]["globPattern"] == "**/*"
    else:
        assert methods == []
    (root / "new.txt").write_text("fresh\n")
    session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=from_fs_path(str(root / "new.txt")), type=types.FileChangeType.Created)]))
    assert (await session.workers())["watched_events"] == 1
    assert len((await session.execute("sleuth.grep", {"pattern": "fresh"}))["matches"]) == 1


async def test_native_rate_limit_when_configured(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {"a.txt": "needle\n"})
    session = await start([root], init_options={"nativeRateLimitPerMinute": 2})
    first = await session.execute("sleuth.grep", {"pattern": "needle"})
    assert first["rate_limit"] == {"remaining": 1, "limit": 2}  # close to the limit: announced
    await session.request("sleuth/grep", {"pattern": "needle"})
    with pytest.raises(JsonRpcException) as caught:
        await session.execute("sleuth.grep", {"pattern": "needle"})
    assert caught.value.code == -32004 and caught.value.data["code"] == "rate_limited"
    assert caught.value.data["retry_after_seconds"] >= 1
    assert len((await session.execute("sleuth.files", {"patterns": ["*.txt"]}))["items"]) == 1  # its own window


async def test_native_commands_are_not_rate_limited_by_default(start, tmp_path: pathlib.Path) -> None:
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "needle\n"})], profile="minimal")
    for _ in range(40):
        assert "rate_limit" not in await session.execute("sleuth.grep", {"pattern": "needle"})


async def test_non_ascii_answers_arrive_whole_over_stdio(start, tmp_path: pathlib.Path) -> None:
    """Answers go out as UTF-8 (orjson, sleuth/lsp/wire.py), not \\u escapes: the header's
    Content-Length must count bytes, or the client would cut the message or read into the next one."""
    text = "naïve café — 日本語 needle 🙂\n"
    root = make_tree(tmp_path / "ws", {"ü/é.txt": text * 3, "plain.txt": "needle\n"})
    session = await start([root])
    for _ in range(2):  # two answers in a row: the second starts where the first one's bytes end
        result = await session.execute("sleuth.grep", {"pattern": "café"})
        assert [(m["path"], m["line"], m["text"]) for m in result["matches"]] == [
            ("ü/é.txt", n, text.rstrip("\n")) for n in (1, 2, 3)]
    assert (await session.execute("sleuth.grep", {"pattern": "needle"}))["count"] == 4
