"""The core's command registry and session, without any transport."""

from __future__ import annotations

import asyncio
import pathlib
import sys

import pytest

from sleuth.commands import COMMAND_NAMES
from sleuth.core.registry import COMMANDS, QUICK_COMMANDS, RATE_LIMITED, STREAM_KEYS
from sleuth.core.session import Invocation, Session
from sleuth.engine.errors import BadArgs
from tests.conftest import write_tree


def test_registry_names_every_command_and_the_lsp_uses_its_tables() -> None:
    assert set(COMMANDS) == set(COMMAND_NAMES)
    for info in COMMANDS.values():
        assert callable(info.runner())
    assert STREAM_KEYS["sleuth.grep"] == "matches" and "sleuth.metrics" in QUICK_COMMANDS
    assert RATE_LIMITED == {"sleuth.grep", "sleuth.files", "sleuth.text", "sleuth.symbols"}
    from sleuth.lsp import invoke

    assert invoke.STREAM_KEYS is STREAM_KEYS and invoke.QUICK_COMMANDS is QUICK_COMMANDS
    assert not hasattr(invoke, "Invoker")  # the language server runs commands through the core's Session


def test_the_core_imports_no_transport() -> None:
    code = ("import sys, sleuth.core.session, sleuth.mcp.tools; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol', 'mcp')))")
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_session_invokes_refuses_and_counts(tmp_path: pathlib.Path) -> None:
    ws = write_tree(tmp_path / "ws", {"a.txt": "needle\n"})
    session = Session([str(ws)], extra_commands={}, layers=[("test", {"index_enabled": False})])
    seen = []
    session.log_hooks.append(seen.append)
    try:
        result = asyncio.run(session.invoke(Invocation("sleuth.grep", {"pattern": "needle"})))
        assert [m["path"] for m in result["matches"]] == ["a.txt"]
        with pytest.raises(BadArgs):
            asyncio.run(session.invoke(Invocation("sleuth.grep", ["a", "b"])))
        with pytest.raises(BadArgs):
            asyncio.run(session.invoke(Invocation("sleuth.nope", {})))
        assert [r.outcome for r in seen] == ["ok", "bad_args", "bad_args"]
        assert session.activity.as_dict()["finished"] == 1
    finally:
        session.close()
