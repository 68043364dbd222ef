"""The MCP stdio transport, answering the lines the SDK cannot read instead of dropping them.

The SDK's ``stdio_server`` validates each line (pydantic's JSON parser, which stops at 200 levels of
nesting) and hands a line it cannot read to the session as an exception, which the session logs at
debug level and forgets: a request nested 10,000 deep, a line that is not JSON or not JSON-RPC was
never answered and the host waited on it forever. :class:`AnsweringReader` sits between the
transport and the session and answers each such line itself, as the language server does
(:mod:`sleuth.core.message_limits`): ``-32700`` when it is not JSON, ``-32600`` when it is too deep
or not a JSON-RPC message, with the request's id when one can be found; the line after it is served
as usual.
"""

from __future__ import annotations

import logging
from types import TracebackType
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.shared.message import SessionMessage
from mcp_types import ErrorData, JSONRPCError

from sleuth.core import message_limits
from sleuth.mcp.sdk import run_stdio_with

__all__ = ["AnsweringReader", "run_stdio"]

logger = logging.getLogger("sleuth.mcp")


class AnsweringReader:
    """The transport's read stream, less the lines it could not read: those are answered on ``write``."""

    def __init__(self, inner: Any, write: Any) -> None:
        self._inner = inner
        self._write = write

    @property
    def last_context(self) -> Any:  # the sender's context, which the SDK's dispatcher restores
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        while True:
            item = await self._inner.receive()
            if not isinstance(item, Exception):
                return item
            await self._answer(item)

    def __aiter__(self) -> "AnsweringReader":
        return self

    async def __anext__(self) -> Any:
        while True:
            item = await self._inner.__anext__()
            if not isinstance(item, Exception):
                return item
            await self._answer(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> "AnsweringReader":
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc, tb)

    async def _answer(self, error: Exception) -> None:
        refusal = refusal_of(error)
        logger.warning("answered %s: %s", refusal.code, refusal.message)
        answer = JSONRPCError(jsonrpc="2.0", id=refusal.id, error=ErrorData(code=refusal.code, message=refusal.message))
        await self._write.send(SessionMessage(answer))


def refusal_of(error: Exception) -> message_limits.Refusal:
    """What to answer for a line the SDK could not read (``error``: its validation error, whose input
    is the line when it is not JSON or too deep to parse, else the decoded value)."""
    given = _input_of(error)
    if isinstance(given, str):
        try:
            given = message_limits.decode(given)
        except message_limits.Refusal as refusal:
            return refusal
    if given is None:
        return message_limits.Refusal(message_limits.PARSE_ERROR, f"The message could not be read: {_first_line(error)}")
    msg_id = message_limits.request_id(given.get("id")) if isinstance(given, dict) else None
    return message_limits.Refusal(message_limits.INVALID_REQUEST, "Not a JSON-RPC 2.0 message: "
                                  f"{_first_line(error)}", msg_id)


def _input_of(error: Exception) -> Any:
    """What a pydantic ValidationError was raised for (its first error's input), if it says."""
    errors = getattr(error, "errors", None)
    try:
        details = errors() if callable(errors) else []
    except Exception:  # not pydantic's: nothing to read
        return None
    return details[0].get("input") if details else None


def _first_line(error: Exception) -> str:
    errors = getattr(error, "errors", None)
    if callable(errors):
        try:
            detail = errors()[0]
            return f"{detail.get('msg')} at {'.'.join(map(str, detail.get('loc', ()))) or 'the top level'}"[:300]
        except Exception:
            pass
    text = str(error).strip().splitlines()
    return text[0][:300] if text else type(error).__name__


async def run_stdio(app: MCPServer) -> None:
    """``MCPServer.run_stdio_async`` with :class:`AnsweringReader` between the transport and the session."""
    await run_stdio_with(app, AnsweringReader)
