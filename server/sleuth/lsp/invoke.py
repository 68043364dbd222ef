"""One command invocation over LSP: the core session's invocation, plus what only LSP has.

Both entry points — ``workspace/executeCommand`` and the custom ``sleuth/*`` requests — end in
:func:`invoke`, which hands the call to :meth:`sleuth.core.session.Session.invoke` (worker pools,
validation, rate limit, metrics, the log line, cancellation that reaches the work) and adds LSP's
own parts: the request id's cancel token (``$/cancelRequest``), work-done progress on the client's
token or one the server creates, partial results on ``partialResultToken``, the open buffers, and
Sleuth's errors as JSON-RPC errors (:mod:`sleuth.lsp.errors`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sleuth.core.logline import query_of, result_count, sanitise
from sleuth.core.registry import PROGRESS_COMMANDS, QUICK_COMMANDS, STREAM_KEYS
from sleuth.core.session import Invocation
from sleuth.engine.cancel import CancelToken
from sleuth.engine.errors import SleuthError
from sleuth.engine.words import plural
from sleuth.lsp import errors
from sleuth.lsp.progress import PartialSender, WorkDoneReporter

if TYPE_CHECKING:
    from sleuth.lsp.server import SleuthServer

__all__ = ["invoke", "Request"]


@dataclass
class Request:
    """What a transport handler extracted from an LSP message."""

    command: str
    args: Any
    request_id: Any = None
    work_done_token: Any = None
    partial_token: Any = None


async def invoke(server: "SleuthServer", request: Request) -> Any:
    """Run ``request`` through the server's session; its result, or a raised JSON-RPC error."""
    token = CancelToken()
    server.cancels.register(request.request_id, token)  # first, before any await
    partial = None if request.partial_token is None else \
        PartialSender(server.post, server.notify, request.partial_token, STREAM_KEYS.get(request.command, "items"))
    reporter: WorkDoneReporter | None = None

    def progress(done: int, total: int | None, message: str = "") -> None:
        if reporter is not None:
            reporter.sink(done, total, message)

    def start() -> None:  # accepted: an unknown command or a refused call is answered without progress
        nonlocal reporter
        reporter = _reporter(server, request, token)
        if reporter is not None:
            reporter.begin()

    outcome, result = "ok", None
    try:
        result = await server.session.invoke(Invocation(request.command, request.args, token, progress, partial,
                                                        server.buffers.snapshot(), start))
        return result
    except SleuthError as exc:
        outcome = exc.code
        raise errors.to_jsonrpc(exc) from None
    except asyncio.CancelledError:
        outcome = "cancelled"
        raise
    finally:
        server.cancels.unregister(request.request_id, reporter.token if reporter else None)
        if partial is not None:
            partial.close()
        if reporter is not None:
            reporter.end(_end_message(outcome, result, partial.sent if partial else 0))


def _reporter(server: "SleuthServer", request: Request, token: CancelToken) -> WorkDoneReporter | None:
    """Progress on the client's token, else on a server-created one when the client allows it."""
    title = _title(request)
    if request.work_done_token is not None:
        reporter = WorkDoneReporter(server.post, server.notify, request.work_done_token, title, heartbeat=True)
    elif server.client_supports_progress and _reports_progress(server, request.command):
        reporter = WorkDoneReporter(server.post, server.notify, server.new_progress_token(), title, ready=False,
                                    heartbeat=True)
        server.create_progress(reporter)
    else:
        return None
    server.cancels.register_progress(reporter.token, token)
    return reporter


def _reports_progress(server: "SleuthServer", command: str) -> bool:
    """Searches and index builds; commands of the test hook too, unless they are quick."""
    return command in PROGRESS_COMMANDS or (command in server.session.extra and command not in QUICK_COMMANDS)


def _title(request: Request) -> str:
    verb = request.command.removeprefix("sleuth.").replace(".", " ")
    query = query_of(request.args)
    return f"Sleuth: {verb} “{sanitise(query)}”" if query else f"Sleuth: {verb}"


def _end_message(outcome: str, result: Any, streamed: int) -> str:
    if outcome != "ok":
        return outcome.replace("_", " ")
    count = result_count(result, streamed)
    return "done" if count is None else plural(count, "result")
