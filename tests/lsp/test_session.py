"""Sandbox from the editor, the advertised command surface, error mapping (docs/SPEC.md §3, §4, §9)."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest
from harness import make_tree
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path

ALL_COMMANDS = ["sleuth.grep", "sleuth.files", "sleuth.text", "sleuth.index.status", "sleuth.index.build",
                "sleuth.tools.list", "sleuth.tools.call", "sleuth.metrics"]
KNOWN_CODES = {"bad_args", "sandbox_violation", "not_found", "index_not_ready", "rate_limited", "timeout",
               "unknown_tool", "backend_unavailable", "not_available"}


async def test_capabilities_advertise_every_command_and_incremental_sync(start, tmp_path: pathlib.Path) -> None:
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "x\n"})])
    caps = session.initialize_result.capabilities
    assert caps.execute_command_provider is not None
    assert set(ALL_COMMANDS) <= set(caps.execute_command_provider.commands)
    assert caps.text_document_sync.change == types.TextDocumentSyncKind.Incremental
    assert caps.text_document_sync.open_close
    assert caps.workspace.workspace_folders.supported and caps.workspace.workspace_folders.change_notifications
    assert caps.execute_command_provider.work_done_progress
    assert {"sleuth/grep", "sleuth/files", "sleuth/text"} <= set(caps.experimental["sleuth"]["requests"])


async def test_every_command_answers_a_result_or_a_coded_error(start, tmp_path: pathlib.Path) -> None:
    """A command whose module is not installed yet says so; none crashes with an internal error."""
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "x\n"})])
    for command in ALL_COMMANDS:
        module = "sleuth.commands." + command.removeprefix("sleuth.").replace(".", "_")
        try:
            result = await session.execute(command, {})
        except JsonRpcException as exc:
            assert exc.data["code"] in KNOWN_CODES, (command, exc.data)
            assert exc.data["message"] and exc.data["hint"]
            if importlib.util.find_spec(module) is None:
                assert exc.data["code"] == "not_available" and command in exc.data["message"]
        else:
            assert isinstance(result, dict), command


async def test_workspace_folders_from_initialize(start, tmp_path: pathlib.Path, profile: str) -> None:
    one = make_tree(tmp_path / "api", {"a.txt": "x\n"})
    two = make_tree(tmp_path / "web", {"b.txt": "y\n"})
    session = await start([one, two])
    echo = await session.execute("sleuth.test.echo", {})
    if session.vscode:  # workspaceFolders: both, named
        assert echo["folders"] == [str(one.resolve()), str(two.resolve())]
        assert echo["names"] == ["api", "web"]
    else:  # rootUri only
        assert echo["folders"] == [str(one.resolve())]


async def test_root_path_when_the_client_sends_nothing_else(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "legacy", {"a.txt": "x\n"})
    session = await start([root], mode="root_path")
    assert (await session.execute("sleuth.test.echo", {}))["folders"] == [str(root.resolve())]


async def test_no_folder_means_nothing_to_search(start, tmp_path: pathlib.Path) -> None:
    session = await start([])
    assert (await session.execute("sleuth.test.echo", {}))["folders"] == []
    with pytest.raises(JsonRpcException) as caught:
        await session.execute("sleuth.test.echo", {"path": "a.txt"})
    assert caught.value.data["code"] == "bad_args" and "folder" in caught.value.data["message"]


async def test_did_change_workspace_folders_updates_the_sandbox(start, tmp_path: pathlib.Path) -> None:
    one = make_tree(tmp_path / "one", {"a.txt": "x\n"})
    two = make_tree(tmp_path / "two", {"b.txt": "y\n"})
    session = await start([one])
    session.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(
            added=[types.WorkspaceFolder(uri=from_fs_path(str(two)), name="two")], removed=[])))
    echo = await session.execute("sleuth.test.echo", {"path": "two/b.txt"})
    assert echo["folders"] == [str(one.resolve()), str(two.resolve())]
    assert echo["resolved"] == [str((two / "b.txt").resolve())]  # folder-name prefix with several folders
    session.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(
            added=[], removed=[types.WorkspaceFolder(uri=from_fs_path(str(one)), name="one")])))
    echo = await session.execute("sleuth.test.echo", {})
    assert echo["folders"] == [str(two.resolve())]
    with pytest.raises(JsonRpcException) as caught:  # the removed folder is outside the sandbox now
        await session.execute("sleuth.test.echo", {"path": str(one / "a.txt")})
    assert caught.value.data["code"] == "sandbox_violation"
    assert caught.value.code == -32001


ERROR_NUMBERS = [
    ("BadArgs", -32602), ("SandboxViolation", -32001), ("NotFound", -32002), ("IndexNotReady", -32003),
    ("RateLimited", -32004), ("SearchTimeout", -32005), ("UnknownTool", -32006), ("BackendUnavailable", -32007),
]


async def test_errors_carry_code_message_hint(start, tmp_path: pathlib.Path) -> None:
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "x\n"})])
    for error, number in ERROR_NUMBERS:
        with pytest.raises(JsonRpcException) as caught:
            await session.execute("sleuth.test.fail", {"error": error})
        assert caught.value.code == number, error
        data = caught.value.data
        assert set(data) >= {"code", "message", "hint"} and data["hint"], error
        if error == "RateLimited":
            assert data["retry_after_seconds"] == 7
        else:
            assert data["position"] == 3
    with pytest.raises(JsonRpcException) as caught:  # the custom request form maps the same way
        await session.request("sleuth/test/fail", {"error": "NotFound"})
    assert caught.value.code == -32002 and caught.value.data["code"] == "not_found"


async def test_unexpected_exception_is_an_internal_error_and_the_server_lives_on(start, tmp_path: pathlib.Path) -> None:
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "x\n"})], profile="minimal")
    with pytest.raises(JsonRpcException) as caught:
        await session.execute("sleuth.test.fail", {"error": "RuntimeError"})
    assert caught.value.code == -32603 and caught.value.data["code"] == "internal"
    assert "boom" in caught.value.data["message"]
    assert (await session.execute("sleuth.test.counter", {}))["running"] == 0


async def test_unknown_command_and_malformed_arguments_are_bad_args(start, tmp_path: pathlib.Path) -> None:
    session = await start([make_tree(tmp_path / "ws", {"a.txt": "x\n"})], profile="minimal")
    with pytest.raises(JsonRpcException) as caught:
        await session.execute("sleuth.nope", {})
    assert caught.value.code == -32602 and "sleuth.grep" in caught.value.data["hint"]
    params = types.ExecuteCommandParams(command="sleuth.test.echo", arguments=["not", "an object"])
    with pytest.raises(JsonRpcException) as caught:
        await session.request(types.WORKSPACE_EXECUTE_COMMAND, params)
    assert caught.value.code == -32602 and caught.value.data["code"] == "bad_args"
