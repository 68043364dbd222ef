"""A blocking handle on one long-lived ``sleuth mcp`` process, driven by the official SDK's client.

The adversarial tests send hundreds of calls to one server (an attack corpus, hypothesis examples),
from plain synchronous test functions. The SDK's :class:`mcp.Client` is async, so it lives in an
event loop on a thread of its own for the whole module, and :meth:`McpProcess.call` hands it one
``tools/call`` at a time. The server's stderr (its log lines) goes to a file, so a test can assert
that a secret never reached the log and that no traceback was printed.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import sys
import threading
from concurrent.futures import Future
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import CallToolResult, ListRootsResult, Root

from tests.conftest import HANG_S, SLEUTH  # SLEUTH: the installed command, as hosts start it

__all__ = ["McpProcess"]


class McpProcess:
    """``sleuth mcp ARGS`` with ``roots`` as the client's roots, in protocol era ``mode``."""

    def __init__(self, roots: list[pathlib.Path], base: pathlib.Path, *args: str, mode: str = "auto",
                 timeout: float = HANG_S, argv: list[str] | None = None, cwd: pathlib.Path | None = None,
                 path: str | None = None, env: dict[str, str] | None = None) -> None:
        """``argv``: the whole command line instead of the installed ``sleuth mcp ARGS`` (a host's
        entry, as the README gives it); ``cwd``: where the host starts it (default ``base``); ``path``:
        the host's ``PATH``, through which a bare ``sleuth`` is found; ``env``: extra environment (a
        test's HOME, XDG_CONFIG_HOME)."""
        self.stderr_path = base / f"mcp-{mode}.stderr"
        self.timeout = timeout
        env = {**os.environ, "XDG_CACHE_HOME": str(base / "cache"), "XDG_RUNTIME_DIR": str(base), **(env or {})}
        if path is not None:
            env["PATH"] = path
        command = argv or [SLEUTH, "mcp", *args]
        params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(cwd or base), env=env)
        listed = ListRootsResult(roots=[Root(uri=p.resolve().as_uri(), name=p.name) for p in roots])

        async def list_roots(ctx: Any) -> ListRootsResult:
            return listed

        self._stderr = open(self.stderr_path, "w", encoding="utf-8")
        self._loop = asyncio.new_event_loop()
        self._client: Client | None = None
        self._closed = asyncio.Event()
        self._ready: Future[None] = Future()
        transport = stdio_client(params, errlog=self._stderr)
        client = Client(transport, mode=mode, list_roots_callback=list_roots,  # type: ignore[arg-type]
                        read_timeout_seconds=timeout)
        self._thread = threading.Thread(target=self._run, args=(client,), name="mcp-client", daemon=True)
        self._thread.start()
        self._ready.result(timeout)

    def _run(self, client: Client) -> None:
        asyncio.set_event_loop(self._loop)

        async def main() -> None:
            try:
                async with client:
                    self._client = client
                    self._ready.set_result(None)
                    await self._closed.wait()
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting test
                if not self._ready.done():
                    self._ready.set_exception(exc)
                raise

        try:
            self._loop.run_until_complete(main())
        except BaseException:  # noqa: BLE001 - the test sees a failed call or a failed start
            pass

    def call(self, name: str, arguments: Any) -> CallToolResult:
        """One ``tools/call``; a protocol error (``MCPError``) or a time-out is raised to the test."""
        assert self._client is not None
        future = asyncio.run_coroutine_threadsafe(self._client.call_tool(name, arguments), self._loop)
        return future.result(self.timeout)

    def list_tools(self) -> list[Any]:
        assert self._client is not None
        return asyncio.run_coroutine_threadsafe(self._client.list_tools(), self._loop).result(self.timeout).tools

    def alive(self) -> bool:
        return self._thread.is_alive()

    def stderr(self) -> str:
        self._stderr.flush()
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def close(self) -> None:
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._closed.set)
            self._thread.join(HANG_S)
        self._stderr.close()
