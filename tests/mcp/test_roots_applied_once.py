"""With the index off, the MCP server applies unchanged roots once, not on every call (issue 32 item
5): before, a missing index service looked like roots never applied, so every tool call re-read the
settings files, reopened the warm door and asked for the index again."""

from __future__ import annotations

import pathlib
from types import SimpleNamespace

import pytest

pytest.importorskip("mcp")

from mcp_types import ListRootsResult, Root  # noqa: E402

from sleuth.core.session import Session  # noqa: E402
from sleuth.mcp.server import SleuthMCP  # noqa: E402
from tests.conftest import write_tree  # noqa: E402


@pytest.mark.parametrize("index", ["off", "on"])
async def test_unchanged_roots_are_applied_once(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch,
                                                index: str) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    (tmp_path / "run").mkdir(mode=0o700)
    ws = write_tree(tmp_path / "ws", {"a.txt": "needle\n"})
    session = Session(layers=[("flags", {"index": {"enabled": index == "on"}})], extra_commands={})
    server = SleuthMCP(session)
    applied: list[list[str]] = []
    real = session.set_roots
    monkeypatch.setattr(session, "set_roots", lambda *a, **k: applied.append(list(a[0])) or real(*a, **k))
    roots = ListRootsResult(roots=[Root(uri=ws.as_uri())])
    client = SimpleNamespace(client_capabilities=None)  # a client without roots: the list is the resolver's
    try:
        for _ in range(3):
            assert await server._apply_roots(roots, client) == [str(ws)]  # noqa: SLF001
        assert applied == [[str(ws)]]
    finally:
        session.close()
