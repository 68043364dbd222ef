"""One workspace session: roots, layered settings, the index, and the invocation policy.

A transport (the language server, the MCP server, the CLI) creates one :class:`Session` and, for
every request it receives, hands :meth:`Session.invoke` an :class:`Invocation`: the command name,
its raw arguments, the cancel token the transport cancels, and where progress and partial batches
go. The session applies the same policy whatever the door:

* the arguments are one object of named values (a list of several values is refused);
* the native searches' sliding-window rate limit (``native_rate_limit_per_minute``);
* the command runs on a worker thread (searches and quick status commands in separate pools, so
  a status request is served while every search worker is busy); the event loop only awaits
  either the worker or the cancel token, and a cancelled worker gets ``CANCEL_GRACE_S`` to reach
  its next poll and stop;
* every invocation is counted (:class:`Activity`: proof that cancelled work stopped), recorded in
  the metrics and reported to the log hooks as one :class:`InvocationRecord`;
* errors leave as :class:`~sleuth.engine.errors.SleuthError` (a bug in a command becomes
  :class:`InternalError`, a part of Sleuth that is not installed :class:`NotAvailable`), which
  each transport maps to its own wire form.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import logging
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

from sleuth.commands.config import Settings
from sleuth.commands.context import CommandContext, PartialSink, Services
from sleuth.core import logline
from sleuth.core.index import IndexHooks, IndexKeeper, store_misplaced
from sleuth.core.invocation import (InternalError, InvocationRecord, NotAvailable, StreamSink, append_log_line,
                                    check_call, mapped_error, resolve_command)
from sleuth.core.registry import COMMANDS, QUICK_COMMANDS, RATE_LIMITED, STREAM_KEYS, Runner
from sleuth.core.settings import SettingsLayers
from sleuth.engine.cancel import CancelToken, NullProgress, ProgressSink
from sleuth.engine.errors import Cancelled, RateLimited, SleuthError
from sleuth.engine.ratelimit import RateLimiter
from sleuth.engine.workspace import Workspace

if TYPE_CHECKING:
    import asyncio

    from sleuth.core.engine_guest import EngineGuest
    from sleuth.core.warm_listener import WarmListener

__all__ = ["Session", "Invocation", "InvocationRecord", "Activity", "InternalError", "NotAvailable", "StreamSink",
           "SettingsLayers", "load_test_commands", "TEST_COMMANDS_ENV", "CANCEL_GRACE_S"]

logger = logging.getLogger(__name__)

CANCEL_GRACE_S = 0.1
TEST_COMMANDS_ENV = "SLEUTH_TEST_COMMANDS"
OWN_ENGINE_ENV = "SLEUTH_OWN_ENGINE"  # "1": this door never uses another door's engine (README, "One engine")
INDEX_COMMANDS = frozenset({"sleuth.index.status", "sleuth.index.build"})  # they say whose engine answers
_JOIN_TRIES = 200  # a takeover's rounds of "bind, else join the door that did" (~10 s at most, on a loaded machine)
_JOIN_RETRY_S = 0.05  # between rounds: the lock's winner is between taking it and binding


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


def load_test_commands(spec: str | None) -> dict[str, Runner]:
    """Extra commands from the ``SLEUTH_TEST_COMMANDS`` test hook (a module name or a ``.py`` path
    whose ``COMMANDS`` maps names to ``run`` functions and ``STREAM_KEYS`` names their lists)."""
    if not spec:
        return {}
    if spec.endswith(".py") or os.sep in spec:
        module_spec = importlib.util.spec_from_file_location("sleuth_test_commands", spec)
        if module_spec is None or module_spec.loader is None:
            raise ImportError(f"{TEST_COMMANDS_ENV}: cannot load {spec}")
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(spec)
    STREAM_KEYS.update(getattr(module, "STREAM_KEYS", {}))
    return dict(getattr(module, "COMMANDS", {}))


class Session:
    """See the module docstring. Thread-safe for invocations; roots and settings change on one thread.

    ``layers`` are the door's own settings layers (the person's), ``where`` names them in the message
    about a refused repository key; ``cache_dir`` is an explicit index store location (the
    ``index.path`` setting wins); ``log_tag`` starts the door's lines in ``log_file``.
    """

    def __init__(self, roots: Sequence[str] = (), names: Sequence[str] | None = None, *,
                 layers: Sequence[tuple[str, Mapping[str, Any]]] = (), where: str = "",
                 cache_dir: str | None = None, index_hooks: IndexHooks | None = None, search_workers: int = 16,
                 quick_workers: int = 4, extra_commands: Mapping[str, Runner] | None = None,
                 log_tag: str = "") -> None:
        self.config = SettingsLayers(layers=list(layers), where=where)
        self.config.load_user()
        self.settings: Settings = Settings()
        self.workspace: Workspace = Workspace([])
        self.cache_dir = cache_dir
        self.services = Services(rate_limiter=RateLimiter())
        self.index = IndexKeeper(index_hooks or IndexHooks())
        self.activity = Activity()
        self.extra: dict[str, Runner] = dict(extra_commands if extra_commands is not None
                                             else load_test_commands(os.environ.get(TEST_COMMANDS_ENV)))
        self.log_tag = log_tag
        self.log_hooks: list[Callable[[InvocationRecord], None]] = []  # every record (tests, metrics views)
        self.log_sinks: list[Callable[[int, str], None]] = []  # (severity, line) that passes ``log_level``
        self.problem_hooks: list[Callable[[str], None]] = []
        self.search_pool = ThreadPoolExecutor(max_workers=search_workers, thread_name_prefix="sleuth-search")
        self.quick_pool = ThreadPoolExecutor(max_workers=quick_workers, thread_name_prefix="sleuth-quick")
        self.warm: WarmListener | None = None  # the warm CLI's socket, once a door opens it
        # A guest door's link to the engine of the server already running (sleuth.core.engine_guest);
        # None: this door's own engine (or none yet).
        self.guest: EngineGuest | None = None
        self.sharing = False  # set by open_warm_door: a server door shares one engine per workspace
        self.index_wait_s = 0.0  # how long an index-only search waits for the first build (the MCP door's choice)
        self.open_buffers: Callable[[], Mapping[str, str]] | None = None  # the door's buffers now (a new index's)
        self._engine_lock = threading.RLock()
        self._own_engine_said: str | None = None
        self.refusal: str | None = None  # why the host of these folders last refused this door (None: it did not)
        self._roots_lock = threading.Lock()
        self.set_roots(roots, names, report=False)

    # -- roots, settings, index ------------------------------------------------------------
    @property
    def roots(self) -> list[str]:
        return [r.path for r in self.workspace.roots]

    def set_roots(self, roots: Sequence[str], names: Sequence[str] | None = None, *, report: bool = True) -> bool:
        """Replace the sandbox (invocations already running keep theirs); re-read every root's
        ``.agent/config.yml`` and the settings; move the warm CLI's socket. True if the roots changed.
        The index follows when the door calls :meth:`refresh_index` (each door decides when: LSP once
        the client is configured, MCP after the roots of a call)."""
        with self._roots_lock:
            workspace = Workspace(list(roots), list(names) if names is not None else None)
            changed = [r.path for r in workspace.roots] != self.roots
            self.workspace = workspace
            self.config.load_agents(self.roots)
            self.apply_settings(report)
        if changed and self.warm is not None:
            self.warm.update(self.roots)
        return changed

    def follow_settings_files(self, report: bool = True, buffers: Mapping[str, str] | None = None) -> None:
        """Before a request: when a settings file changed on disk (a root's ``.agent/config.yml``, the
        person's ``config.yml``), recompute the settings, so this request already obeys a deny glob the
        repository just added; restart the index when what it depends on changed (with the open
        ``buffers`` the request carries, as :meth:`refresh_index` takes them)."""
        with self._roots_lock:
            if not self.config.refresh():
                return
            before = self.settings.index_config()
            self.apply_settings(report)
            restart = self.settings.index_config() != before and self.index.service is not None
        if restart:
            self.refresh_index(buffers)

    def apply_settings(self, report: bool = True) -> list[str]:
        """Recompute the settings from every layer; with ``report``, hand each new problem to the
        problem hooks once (without, they wait for the next report: a door that cannot show them yet)."""
        settings, problems = self.config.settings()
        self.settings = settings
        if not report:
            return []
        fresh = self.config.new_problems(problems)
        for problem in fresh:
            for hook in self.problem_hooks:
                hook(problem)
        return fresh

    @property
    def store_location(self) -> str | None:
        """Where the index store goes: the ``index.path`` setting, else the door's ``cache_dir``, else
        None (the user cache directory, by roots only: every door on the same folders shares it)."""
        return self.settings.index_path or self.cache_dir

    def refresh_index(self, buffers: Mapping[str, str] | None = None) -> Any:
        """Bring the engine in line with the roots and settings: use the engine of the server already
        running for them (:meth:`join_engine`), else start, restart or stop this door's own index. A
        failure to start leaves searches scanning (told to the index hooks' ``on_start_failed``)."""
        with self._engine_lock:
            if self.join_engine():
                return None
            try:
                service = self.index.refresh(self.workspace, self.settings, self.store_location, buffers)
            except Exception as exc:  # the session stays useful without its index (searches scan)
                if not store_misplaced(exc):
                    logger.exception("index start failed")
                self.index.stop()
                service = None
                if self.index.hooks.on_start_failed is not None:
                    self.index.hooks.on_start_failed(exc)
            self.services.index = service
            return service

    @property
    def engine_running(self) -> bool:
        """Whether searches have an engine's index: this door's own, or its host's."""
        return self.index.service is not None or self.guest is not None

    def join_engine(self) -> bool:
        """Whether this door now uses the engine of another door on the same roots (``True``: its own
        index, watcher and rescans are stopped). Only a door that shares (:meth:`open_warm_door`), does
        not hold the roots' door itself (then it is the host) and is not opted out (``SLEUTH_OWN_ENGINE``);
        a host that refuses (other safeguards, store or environment) leaves this door its own engine,
        said once in the log."""
        from sleuth.core import engine_guest

        with self._engine_lock:
            wanted = self.sharing and os.environ.get(OWN_ENGINE_ENV) != "1" and bool(self.roots) \
                and not (self.warm is not None and self.warm.bound)
            guest = self.guest
            if guest is not None and (not wanted or guest.roots != self.roots):
                self.guest = None
                guest.close()
            if not wanted:
                return False
            if self.guest is None:
                joined = engine_guest.join(self.roots, self._door_request(), self._host_lost)
                self.refusal = joined if isinstance(joined, str) else None
                if isinstance(joined, str):
                    if joined != self._own_engine_said:
                        self._own_engine_said = joined
                        logger.warning("own engine: the server already running on these folders refused to share "
                                       "its engine (%s)", joined)
                    return False
                if joined is None:
                    return False
                self.guest = joined
                logger.warning("using the engine of process %d (it serves the same folders); no index of its own",
                               joined.host_pid)
            self.services.index = None
            self.index.stop()
            return True

    def _door_request(self) -> dict[str, Any]:
        """What a guest's requests carry for the host's checks (:func:`sleuth.core.engine_host.door_refusal`)."""
        from sleuth.core.warm import guards

        return {"roots": self.roots, "names": [r.name for r in self.workspace.roots], "guards": guards(self.settings),
                "store": self.store_location}

    def _host_lost(self, guest: EngineGuest) -> None:
        """The host of this door's engine is gone: the first door to take the roots' lock binds the door
        and starts its own engine; the others become its guests (:meth:`WarmListener._arbitrate`)."""
        with self._engine_lock:
            if self.guest is not guest:
                return  # another thread already took over from this host
            self.guest = None
            guest.close()
            for attempt in range(_JOIN_TRIES):
                if self.warm is not None:
                    self.warm.update(self.roots)
                if self.join_engine() or (self.warm is not None and self.warm.bound) or self.refusal is not None:
                    break  # a guest again, the host now, or a host that will not share: its own engine
                time.sleep(_JOIN_RETRY_S)  # the lock's winner is binding: join it at the next round
            if self.guest is None:
                self.refresh_index(self.open_buffers() if self.open_buffers is not None else None)
                logger.warning("took the engine over (host process %d exited)", guest.host_pid)

    def stop_index(self) -> None:
        with self._engine_lock:
            guest, self.guest = self.guest, None
            self.sharing = False
            if guest is not None:
                guest.close()
            self.services.index = None
            self.index.stop()

    def open_warm_door(self) -> None:
        """Answer the warm searches (``sleuth grep|files|text|symbols``) from this session over the
        private socket (:mod:`sleuth.core.warm`); moved by :meth:`set_roots`, closed by :meth:`close`."""
        from sleuth.core.warm_listener import WarmListener

        self.sharing = True
        if self.warm is None:
            # No rate-limit note in a warm answer: the CLI prints exactly what its cold path prints.
            self.warm = WarmListener(lambda: (self.workspace, self.settings, self.services),
                                     lambda command, args, ctx: self.run(Invocation(command, args, ctx.token), ctx,
                                                                         rate_limited=False),
                                     lambda: self.store_location)
        if self.guest is None:  # a guest's host answers the CLI
            self.warm.update(self.roots)

    def close_warm_door(self) -> None:
        warm, self.warm = self.warm, None
        if warm is not None:
            warm.close()

    def close(self) -> None:
        """Close the warm door, stop the index (or leave the host's) and the worker pools (queued work never starts)."""
        self.close_warm_door()  # first: the guests take the engine over while this one still answers
        self.stop_index()
        self.search_pool.shutdown(wait=False, cancel_futures=True)
        self.quick_pool.shutdown(wait=False, cancel_futures=True)

    # -- commands ------------------------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        return list(COMMANDS) + [n for n in self.extra if n not in COMMANDS]

    def resolve(self, name: str) -> Runner:
        """The ``run`` function of ``name``: :class:`BadArgs` for an unknown command,
        :class:`NotAvailable` for one whose module is not installed. A guest door's engine commands
        run in its host's engine (:meth:`_shared`)."""
        from sleuth.core.warm import DOOR_COMMANDS

        run = resolve_command(name, self.extra)
        if name not in DOOR_COMMANDS or name in self.extra:
            return run
        if not self.sharing:
            return lambda args, ctx: self._engine_answer(name, run(args, ctx))
        return lambda args, ctx: self._engine_answer(name, self._shared(name, run, args, ctx))

    def _shared(self, name: str, local: Runner, args: dict[str, Any], ctx: CommandContext) -> dict[str, Any]:
        """``name(args)`` in the engine this door uses now: its host's, or, once it took the engine over
        (the host exited before answering), its own, run again from the start. Items already streamed to
        the door's client are not streamed twice: the run again skips as many (the engine's order is
        the same), so no answer mixes a gone engine's list with a new one's beyond what was shown."""
        from sleuth.core.engine_guest import HostLost, HostRefused

        skip = _Skipping(ctx.partial) if ctx.partial is not None else None
        first = True
        while True:
            with self._engine_lock:  # a takeover under way ends first: never a call on no engine at all
                guest = self.guest
            if skip is not None:
                skip.restart()
            if guest is None:  # this door's own engine: it hosts, or it took over (its index is new: not ctx's)
                here = dataclasses.replace(ctx, partial=ctx.partial if first else skip, services=dataclasses.replace(
                    self.services, open_buffers=ctx.services.open_buffers))
                return local(args, here)
            first = False
            try:
                result = guest.call(name, args, dataclasses.replace(ctx, partial=skip), self._door_request(),
                                    self.index_wait_s)
                if name in INDEX_COMMANDS:
                    result["engine"] = {**result.get("engine", {}), "pid": guest.host_pid, "role": "guest"}
                return result
            except HostLost:
                self._host_lost(guest)
            except HostRefused as refused:
                logger.warning("own engine: the engine's host stopped answering this door (%s)", refused)
                with self._engine_lock:
                    if self.guest is guest:
                        self.stop_index()
                        self.refresh_index(self.open_buffers() if self.open_buffers is not None else None)

    def _engine_answer(self, name: str, result: dict[str, Any]) -> dict[str, Any]:
        """An index status or build says which process holds the engine (``engine.pid``) and whether it
        is this door's own (``own``), shared with guests (``host``) or another door's (``guest``)."""
        if name in INDEX_COMMANDS and isinstance(result, dict) and "engine" not in result:
            guests = self.warm.guests if self.warm is not None else 0
            result["engine"] = {"pid": os.getpid(), "role": "host" if guests else "own", "guests": guests}
        return result

    def context(self, invocation: Invocation) -> CommandContext:
        """The command's world for ``invocation``: this moment's sandbox, settings and services."""
        services = self.services if invocation.buffers is None else \
            dataclasses.replace(self.services, open_buffers=invocation.buffers)
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

    def call(self, run: Runner, args: dict[str, Any], ctx: CommandContext) -> dict[str, Any]:
        """Worker-thread side: run the command, counting the activity so tests can see work stop."""
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
                work = loop.run_in_executor(pool, self.call, run, invocation.args, ctx)
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
                result = self.call(run, invocation.args, ctx or own)
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


class _Skipping:
    """A partial sink that passes on only what its door has not shown yet: a call run again after a
    takeover streams its first items once more, and they are dropped here. A StreamSink (counts)."""

    def __init__(self, inner: PartialSink) -> None:
        self.inner = inner
        self.sent = 0  # items passed on, over every run
        self._seen = 0  # items of the current run

    def restart(self) -> None:
        self._seen = 0

    def __call__(self, batch: list[dict[str, Any]]) -> None:
        fresh = batch[max(0, self.sent - self._seen):]
        self._seen += len(batch)
        if fresh:
            self.sent += len(fresh)
            self.inner(fresh)

    def trim(self, result: dict[str, Any]) -> dict[str, Any]:
        return result


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
