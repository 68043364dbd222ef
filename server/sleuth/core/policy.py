"""The invocation policy: what every door's call goes through, whatever the door.

A transport hands :meth:`InvocationPolicy.invoke` (a long-lived door, on its event loop) or
:meth:`InvocationPolicy.run` (a door that runs one command and waits) an :class:`Invocation`: the
command name, its raw arguments, the cancel token the transport cancels, and where progress and
partial batches go. The policy is the same whatever the door:

* the arguments are one object of named values (a list of several values is refused);
* the native searches' sliding-window rate limit (``native_rate_limit_per_minute``);
* a search is a foreground search from its first step (:mod:`sleuth.engine.foreground`: the
  index's build and upkeep step aside), not only while its files are read: a file list's walk and a
  first call's imports are the person's wait too;
* the command runs on a worker thread (searches and quick status commands in separate pools, so
  a status request is served while every search worker is busy); the event loop only awaits
  either the worker or the cancel token, and a cancelled worker gets ``CANCEL_GRACE_S`` to reach
  its next poll and stop;
* every invocation is counted (:class:`Activity`: proof that cancelled work stopped), recorded in
  the metrics and reported to the log hooks as one :class:`InvocationRecord`;
* errors leave as :class:`~sleuth.engine.errors.SleuthError` (a bug in a command becomes
  :class:`InternalError`, a part of Sleuth that is not installed :class:`NotAvailable`), which
  each transport maps to its own wire form.

It reads the moment's sandbox, settings and services from the session whose policy it is
(:class:`sleuth.core.session.Session`, which keeps their lifecycle: roots, settings layers, index,
warm door) and owns only what the calls need: the worker pools, the activity counters, the extra
(test hook) commands and the log hooks.
"""

from __future__ import annotations

import logging
import threading
import time
from contextlib import nullcontext
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping

from sleuth.commands.config import Settings
from sleuth.commands.context import CommandContext, PartialSink, Services
from sleuth.core import logline, test_commands
from sleuth.core.invocation import (InvocationRecord, StreamSink, append_log_line, check_call, mapped_error,
                                    resolve_command)
from sleuth.core.registry import COMMANDS, QUICK_COMMANDS, RATE_LIMITED, SEARCH_COMMANDS, Runner
from sleuth.engine import foreground
from sleuth.engine.cancel import CancelToken, NullProgress, ProgressSink
from sleuth.engine.errors import Cancelled, RateLimited, SleuthError
from sleuth.engine.workspace import Workspace

if TYPE_CHECKING:
    import asyncio

__all__ = ["InvocationPolicy", "Invocation", "Activity", "CANCEL_GRACE_S"]

logger = logging.getLogger(__name__)

CANCEL_GRACE_S = 0.1


@dataclass
class Invocation:
    """What a transport extracted from its message."""

    command: str
    args: Any
    token: CancelToken = field(default_factory=CancelToken)
    progress: ProgressSink = NullProgress
    partial: PartialSink | None = None
    buffers: Mapping[str, str] | None = None  # open editor buffers at this moment (LSP)
    # Called on the event loop once the call is accepted (valid shape, known command, within the rate
    # limit) and before it is queued: where a transport begins its progress report.
    on_start: Callable[[], None] | None = None


@dataclass
class Activity:
    """Counters for debugging and tests: proof that cancelled work really stopped."""

    running: int = 0
    started: int = 0
    finished: int = 0
    cancelled: int = 0
    last_progress: dict[str, int | None] = field(default_factory=dict)  # command -> last 'done' reported
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def as_dict(self) -> dict[str, Any]:
        with self.lock:
            return {"running": self.running, "started": self.started, "finished": self.finished,
                    "cancelled": self.cancelled, "last_progress": dict(self.last_progress)}


class InvocationPolicy:
    """See the module docstring. Thread-safe for invocations. A session's base: ``settings``,
    ``workspace`` and ``services`` are the session's at this moment; :meth:`follow_settings_files`
    and :meth:`routed` are the session's hooks into its lifecycle."""

    settings: Settings
    workspace: Workspace
    services: Services

    def _start_policy(self, search_workers: int, quick_workers: int, extra_commands: Mapping[str, Runner] | None,
                      log_tag: str) -> None:
        """The policy's own state (called once by the session's constructor)."""
        self.activity = Activity()
        self.extra: dict[str, Runner] = dict(extra_commands if extra_commands is not None
                                             else test_commands.load())
        self.log_tag = log_tag
        self.log_hooks: list[Callable[[InvocationRecord], None]] = []  # every record (tests, metrics views)
        self.log_sinks: list[Callable[[int, str], None]] = []  # (severity, line) that passes ``log_level``
        self.search_pool = ThreadPoolExecutor(max_workers=search_workers, thread_name_prefix="sleuth-search")
        self.quick_pool = ThreadPoolExecutor(max_workers=quick_workers, thread_name_prefix="sleuth-quick")

    def _stop_policy(self) -> None:
        """Stop the worker pools: queued work never starts."""
        self.search_pool.shutdown(wait=False, cancel_futures=True)
        self.quick_pool.shutdown(wait=False, cancel_futures=True)

    # -- the session's hooks -----------------------------------------------------------------------
    def follow_settings_files(self, report: bool = True, buffers: Mapping[str, str] | None = None) -> None:
        """Before a call: the session re-reads a settings file that changed."""

    def routed(self, name: str, run: Runner) -> Runner:
        """``run`` as the session runs it (in the engine it uses now); here, as it is."""
        return run

    # -- commands ------------------------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        return list(COMMANDS) + [n for n in self.extra if n not in COMMANDS]

    def resolve(self, name: str) -> Runner:
        """The ``run`` function of ``name``: :class:`BadArgs` for an unknown command,
        :class:`NotAvailable` for one whose module is not installed; routed by the session
        (:meth:`routed`: a guest door's engine commands run in its host's engine)."""
        return self.routed(name, resolve_command(name, self.extra))

    def context(self, invocation: Invocation) -> CommandContext:
        """The command's world for ``invocation``: this moment's sandbox, settings and services."""
        services = self.services if invocation.buffers is None else \
            self.services.replace(open_buffers=invocation.buffers)
        return CommandContext(workspace=self.workspace, settings=self.settings, token=invocation.token,
                              progress=self._progress_sink(invocation), partial=invocation.partial,
                              services=services)

    def rate_limit(self, command: str) -> dict[str, int] | None:
        """Native searches' sliding window (``native_rate_limit_per_minute``, 0 = off, the default).

        Raises :class:`RateLimited` when the window is full; returns ``{remaining, limit}`` to
        announce in the result when the caller is close to the limit, else None.
        """
        settings = self.settings
        limit = settings.native_rate_limit_per_minute if settings.rate_limit_enabled else 0
        limiter = self.services.rate_limiter
        if command not in RATE_LIMITED or limit <= 0 or limiter is None:
            return None
        decision = limiter.acquire(f"native:{command}", limit)
        if not decision.allowed:
            self.services.metrics_registry.record_rate_limited(command)
            raise RateLimited(f"{command} was called more than {limit} times in the last minute.",
                              retry_after_seconds=decision.retry_after_whole_seconds, limit=limit)
        return {"remaining": decision.remaining, "limit": limit} if decision.near_limit else None

    def prepare(self, invocation: Invocation, rate_limited: bool = True,
                follow_report: bool = True) -> tuple[Runner, CommandContext, dict[str, int] | None]:
        """Validate the call's shape, follow changed settings files, find the command, take a rate-limit
        slot, build the context. ``follow_report``: hand new settings problems to the problem hooks now
        (False off the event loop: they are shown at the next report)."""
        check_call(invocation.command, invocation.args)
        self.follow_settings_files(follow_report, invocation.buffers)
        run = self.resolve(invocation.command)
        budget = self.rate_limit(invocation.command) if rate_limited else None
        return run, self.context(invocation), budget

    def call(self, run: Runner, args: dict[str, Any], ctx: CommandContext, search: bool = False) -> dict[str, Any]:
        """Worker-thread side: run the command, counting the activity so tests can see work stop;
        ``search``: marked as a person's search while it runs (:mod:`sleuth.engine.foreground`)."""
        with self.activity.lock:
            self.activity.running += 1
            self.activity.started += 1
        try:
            with foreground.searching() if search else nullcontext():
                return run(args, ctx)
        finally:
            with self.activity.lock:
                self.activity.running -= 1
                self.activity.finished += 1
                if ctx.token.cancelled:
                    self.activity.cancelled += 1

    async def invoke(self, invocation: Invocation) -> dict[str, Any]:
        """Run ``invocation`` on a worker; its result, or a :class:`SleuthError` (``Cancelled`` when the
        token was cancelled). The event loop never runs the command itself."""
        import asyncio  # here, not at the top: the CLI runs commands with run() and never pays for asyncio

        loop = asyncio.get_running_loop()
        token = invocation.token
        started = time.monotonic()
        outcome, result, streamed = "ok", None, 0
        try:
            try:
                run, ctx, budget = self.prepare(invocation)
                if invocation.on_start is not None:
                    invocation.on_start()
                pool = self.quick_pool if invocation.command in QUICK_COMMANDS else self.search_pool
                work = loop.run_in_executor(pool, self.call, run, invocation.args, ctx,
                                            invocation.command in SEARCH_COMMANDS)
                stop = loop.create_future()
                token.on_cancel(lambda: loop.call_soon_threadsafe(_settle, stop))
                try:
                    await asyncio.wait({work, stop}, return_when=asyncio.FIRST_COMPLETED)
                except asyncio.CancelledError:  # the transport's task was cancelled: stop the work too
                    token.cancel()
                    work.add_done_callback(_consume)
                    raise
                if not work.done():
                    await asyncio.wait({work}, timeout=CANCEL_GRACE_S)
                    # still queued (every worker busy): never starts; still running: its late outcome is dropped
                    work.cancel()
                    work.add_done_callback(_consume)
                    raise Cancelled(f"{invocation.command} was cancelled.")
                stop.cancel()
                if token.cancelled:
                    work.add_done_callback(_consume)
                    raise Cancelled(f"{invocation.command} was cancelled.")
                result = work.result()
                if budget is not None and isinstance(result, dict):
                    result = {**result, "rate_limit": budget}
                if isinstance(invocation.partial, StreamSink) and isinstance(result, dict):
                    streamed = invocation.partial.sent
                    result = invocation.partial.trim(result)
                return result
            except SleuthError:
                raise
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                raise self._mapped(invocation.command, exc) from None
        except asyncio.CancelledError:
            outcome = "cancelled"
            token.cancel()
            raise
        except SleuthError as exc:
            outcome = exc.code
            raise
        finally:
            self.record(InvocationRecord(invocation.command, invocation.args, outcome, result,
                                         (time.monotonic() - started) * 1000, streamed))

    def run(self, invocation: Invocation, ctx: CommandContext | None = None, *,
            rate_limited: bool = True) -> dict[str, Any]:
        """The same policy on the caller's own thread, for a door that runs one command and waits (the
        CLI: Ctrl-C cancels ``invocation.token``; the warm CLI's listener). ``ctx``: a context the door
        built itself (its own progress display, rg-like defaults), else this session's."""
        started = time.monotonic()
        outcome, result = "ok", None
        partial = ctx.partial if ctx is not None else invocation.partial
        try:
            try:
                run, own, budget = self.prepare(invocation, rate_limited, follow_report=False)
                result = self.call(run, invocation.args, ctx or own, invocation.command in SEARCH_COMMANDS)
                if budget is not None and isinstance(result, dict):
                    result = {**result, "rate_limit": budget}
                return result
            except SleuthError:
                raise
            except Exception as exc:
                raise self._mapped(invocation.command, exc) from None
        except SleuthError as exc:
            outcome = exc.code
            raise
        finally:  # a door that streamed (the CLI's printers) counts what it was sent
            self.record(InvocationRecord(invocation.command, invocation.args, outcome, result,
                                         (time.monotonic() - started) * 1000,
                                         partial.sent if isinstance(partial, StreamSink) else 0))

    def record(self, record: InvocationRecord) -> None:
        """Metrics, the log line (``log_file`` and every log sink, when ``log_level`` lets it pass) and
        every log hook; a failure is logged, never raised. Called from any thread."""
        settings = self.settings
        try:
            self.services.metrics_registry.record(record.command, record.elapsed_ms / 1000,
                                                  logline.result_count(record.result, record.streamed),
                                                  None if record.outcome == "ok" else record.outcome)
        except Exception:
            logger.exception("recording metrics failed")
        line = record.line()
        append_log_line(settings.log_file, self.log_tag, line)
        if logline.enabled(settings.log_level, record.severity):
            for sink in self.log_sinks:
                _safely(sink, record.severity, line)
        for hook in self.log_hooks:
            _safely(hook, record)

    @staticmethod
    def _mapped(command: str, exc: Exception) -> SleuthError:
        return mapped_error(command, exc)

    def _progress_sink(self, invocation: Invocation) -> ProgressSink:
        activity, command, inner = self.activity, invocation.command, invocation.progress

        def sink(done: int, total: int | None, message: str = "") -> None:
            activity.last_progress[command] = done
            inner(done, total, message)

        return sink


def _safely(hook: Callable[..., None], *args: Any) -> None:
    try:
        hook(*args)
    except Exception:
        logger.exception("log hook failed")


def _settle(future: "asyncio.Future[None]") -> None:
    if not future.done():
        future.set_result(None)


def _consume(future: "asyncio.Future[Any]") -> None:
    """Read a late worker's outcome so asyncio does not warn about it."""
    if not future.cancelled():
        future.exception()
