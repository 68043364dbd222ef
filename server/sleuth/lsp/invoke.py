"""One command invocation over LSP: worker thread, cancellation, progress, streaming, errors, log.

Both entry points — ``workspace/executeCommand`` and the custom ``sleuth/*`` requests —
end in :meth:`Invoker.invoke`. It never runs a command on the event loop: the command goes
to a worker pool (searches and quick status commands have separate pools, so a status
request is served at once while every search worker is busy) and the loop only awaits
either the worker or the request's :class:`CancelToken`. On cancel the worker gets up to
``CANCEL_GRACE_S`` to reach its next poll and return (so the batches it already produced
leave first and its thread is free), then the request is answered RequestCancelled.

A command module that is not installed yet answers a clear ``not_available`` error; the
test hook ``SLEUTH_TEST_COMMANDS`` (a module name or a ``.py`` path whose ``COMMANDS`` dict
maps extra command names to ``run`` functions) lets the e2e tests drive the plumbing with
commands of their own.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from sleuth.commands import COMMAND_NAMES, CommandContext, get_command
from sleuth.core.registry import PROGRESS_COMMANDS, QUICK_COMMANDS, RATE_LIMITED, STREAM_KEYS
from sleuth.core.session import TEST_COMMANDS_ENV, Activity, load_test_commands
from sleuth.engine.cancel import CancelToken
from sleuth.engine.errors import BadArgs, Cancelled, RateLimited, SleuthError
from sleuth.engine.words import plural
from sleuth.lsp import errors
from sleuth.lsp.progress import PartialSender, WorkDoneReporter

if TYPE_CHECKING:
    from sleuth.lsp.server import SleuthServer

__all__ = ["Invoker", "Request", "STREAM_KEYS", "QUICK_COMMANDS", "PROGRESS_COMMANDS", "CANCEL_GRACE_S",
           "load_test_commands"]

logger = logging.getLogger(__name__)

CANCEL_GRACE_S = 0.1
# Per-command metadata lives in the core's registry (sleuth.core.registry), shared with the MCP server.

Runner = Callable[[dict[str, Any], CommandContext], dict[str, Any]]


@dataclass
class Request:
    """What a transport handler extracted from an LSP message."""

    command: str
    args: Any
    request_id: Any = None
    work_done_token: Any = None
    partial_token: Any = None


class Invoker:
    """Runs commands for one server; owns the worker pools and the activity counters."""

    def __init__(self, server: "SleuthServer", search_workers: int = 16, quick_workers: int = 4) -> None:
        self.server = server
        self.search_pool = ThreadPoolExecutor(max_workers=search_workers, thread_name_prefix="sleuth-search")
        self.quick_pool = ThreadPoolExecutor(max_workers=quick_workers, thread_name_prefix="sleuth-quick")
        self.extra: dict[str, Runner] = load_test_commands(os.environ.get(TEST_COMMANDS_ENV))
        self.activity = Activity()

    @property
    def names(self) -> list[str]:
        return list(COMMAND_NAMES) + [n for n in self.extra if n not in COMMAND_NAMES]

    def shutdown(self) -> None:
        self.search_pool.shutdown(wait=False, cancel_futures=True)
        self.quick_pool.shutdown(wait=False, cancel_futures=True)

    def resolve(self, name: str) -> Runner:
        """The ``run`` function of ``name``; JSON-RPC errors for unknown or not-yet-installed commands."""
        if name in self.extra:
            return self.extra[name]
        try:
            return get_command(name)
        except KeyError:
            raise errors.to_jsonrpc(BadArgs(f"Unknown command {name!r}.",
                                            hint="Use one of: " + ", ".join(self.names) + ".")) from None
        except ModuleNotFoundError as exc:
            raise errors.not_available(name, exc.name or "?") from None

    # -- the invocation ------------------------------------------------------------------
    async def invoke(self, request: Request) -> Any:
        """Run ``request`` in a worker and answer it (result dict or a raised JSON-RPC error)."""
        server = self.server
        loop = asyncio.get_running_loop()
        token = CancelToken()
        server.cancels.register(request.request_id, token)  # first, before any await
        started = time.monotonic()
        reporter: WorkDoneReporter | None = None
        partial: PartialSender | None = None
        if request.partial_token is not None:
            key = STREAM_KEYS.get(request.command, "items")
            partial = PartialSender(server.post, server.notify, request.partial_token, key)
        outcome, result, streamed = "ok", None, 0
        try:
            if not isinstance(request.args, dict):
                raise errors.to_jsonrpc(BadArgs("Arguments must be one object of named arguments.",
                                                hint='Pass arguments as [{"pattern": "..."}].'))
            run = self.resolve(request.command)  # an unknown command is answered without any progress
            reporter = self._reporter(request, token)
            budget = self._rate_limit(request.command)
            ctx = CommandContext(
                workspace=server.sandbox, settings=server.settings, token=token,
                progress=self._progress_sink(request.command, reporter), partial=partial,
                services=server.services_for_request(),
            )
            if reporter is not None:
                reporter.begin()
            pool = self.quick_pool if request.command in QUICK_COMMANDS else self.search_pool
            work = loop.run_in_executor(pool, self._call, run, request.args, ctx)
            stop = loop.create_future()
            token.on_cancel(lambda: loop.call_soon_threadsafe(_settle, stop))
            await asyncio.wait({work, stop}, return_when=asyncio.FIRST_COMPLETED)
            if not work.done():
                await asyncio.wait({work}, timeout=CANCEL_GRACE_S)
                # still queued (every worker busy): never starts; still running: its late outcome is dropped
                work.cancel()
                work.add_done_callback(_consume)
                raise Cancelled(f"{request.command} was cancelled.")
            stop.cancel()
            if token.cancelled:
                work.add_done_callback(_consume)
                raise Cancelled(f"{request.command} was cancelled.")
            result = work.result()
            if budget is not None and isinstance(result, dict):
                result = {**result, "rate_limit": budget}
            if partial is not None and isinstance(result, dict):
                streamed = partial.sent
                result = partial.trim(result)
            return result
        except Cancelled as exc:
            outcome = "cancelled"
            raise errors.to_jsonrpc(exc) from None
        except SleuthError as exc:
            outcome = exc.code
            raise errors.to_jsonrpc(exc) from None
        except errors.SleuthRpcError as exc:
            outcome = str((exc.data or {}).get("code", "error"))
            raise
        except ModuleNotFoundError as exc:  # a part of Sleuth the command needs is not installed (yet)
            if not (exc.name or "").startswith("sleuth."):
                outcome = "internal"
                raise errors.internal(request.command, exc) from None
            outcome = "not_available"
            raise errors.not_available(request.command, exc.name or "?") from None
        except asyncio.CancelledError:
            outcome = "cancelled"
            token.cancel()
            raise
        except Exception as exc:  # a bug in a command: answer it, keep serving
            outcome = "internal"
            logger.exception("%s failed", request.command)
            raise errors.internal(request.command, exc) from None
        finally:
            server.cancels.unregister(request.request_id, reporter.token if reporter else None)
            if partial is not None:
                partial.close()
            elapsed_ms = (time.monotonic() - started) * 1000
            if reporter is not None:
                reporter.end(_end_message(outcome, result, streamed))
            server.log_invocation(request.command, request.args, outcome, result, streamed, elapsed_ms)

    def _rate_limit(self, command: str) -> dict[str, int] | None:
        """Native searches' sliding window (``native_rate_limit_per_minute``, 0 = off, the default).

        Raises :class:`RateLimited` when the window is full; returns ``{remaining, limit}`` to
        announce in the result when the caller is close to the limit, else None.
        """
        settings = self.server.settings
        limit = settings.native_rate_limit_per_minute if settings.rate_limit_enabled else 0
        limiter = self.server.services.rate_limiter
        if command not in RATE_LIMITED or limit <= 0 or limiter is None:
            return None
        decision = limiter.acquire(f"native:{command}", limit)
        if not decision.allowed:
            self.server.services.metrics_registry.record_rate_limited(command)
            raise RateLimited(f"{command} was called more than {limit} times in the last minute.",
                              retry_after_seconds=decision.retry_after_whole_seconds, limit=limit)
        return {"remaining": decision.remaining, "limit": limit} if decision.near_limit else None

    def _call(self, run: Runner, args: dict[str, Any], ctx: CommandContext) -> dict[str, Any]:
        """Worker-thread side: count the activity so tests and benchmarks can see work stop."""
        with self.activity.lock:
            self.activity.running += 1
            self.activity.started += 1
        try:
            return run(args, ctx)
        finally:
            with self.activity.lock:
                self.activity.running -= 1
                self.activity.finished += 1
                if ctx.token.cancelled:
                    self.activity.cancelled += 1

    def _reporter(self, request: Request, token: CancelToken) -> WorkDoneReporter | None:
        """Progress on the client's token, else on a server-created one when the client allows it."""
        server = self.server
        title = _title(request)
        if request.work_done_token is not None:
            reporter = WorkDoneReporter(server.post, server.notify, request.work_done_token, title, heartbeat=True)
        elif server.client_supports_progress and self._reports_progress(request.command):
            reporter = WorkDoneReporter(server.post, server.notify, server.new_progress_token(), title, ready=False,
                                        heartbeat=True)
            server.create_progress(reporter)
        else:
            return None
        server.cancels.register_progress(reporter.token, token)
        return reporter

    def _reports_progress(self, command: str) -> bool:
        """Searches and index builds; commands of the test hook too, unless they are quick."""
        return command in PROGRESS_COMMANDS or (command in self.extra and command not in QUICK_COMMANDS)

    def _progress_sink(self, command: str, reporter: WorkDoneReporter | None) -> Callable[[int, int | None, str], None]:
        activity = self.activity

        def sink(done: int, total: int | None, message: str = "") -> None:
            activity.last_progress[command] = done
            if reporter is not None:
                reporter.sink(done, total, message)

        return sink


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _consume(future: "asyncio.Future[Any]") -> None:
    """Read a late worker's outcome so asyncio does not warn about it."""
    if not future.cancelled():
        future.exception()


def _title(request: Request) -> str:
    from sleuth.lsp.invocation_log import query_of, sanitise

    verb = request.command.removeprefix("sleuth.").replace(".", " ")
    query = query_of(request.args)
    return f"Sleuth: {verb} “{sanitise(query)}”" if query else f"Sleuth: {verb}"


def _end_message(outcome: str, result: Any, streamed: int) -> str:
    from sleuth.lsp.invocation_log import result_count

    if outcome != "ok":
        return outcome.replace("_", " ")
    count = result_count(result, streamed)
    return "done" if count is None else plural(count, "result")
