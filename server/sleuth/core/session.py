"""One workspace session: the lifecycle of its roots, layered settings, index and warm door.

A transport (the language server, the MCP server) creates one :class:`Session`: it follows the
door's folders (:meth:`Session.set_roots`), its settings layers and files (:meth:`Session.apply_settings`,
:meth:`Session.follow_settings_files`), starts, restarts or stops the index, or uses the engine of the
server already running for the same folders (:meth:`Session.refresh_index`, :meth:`Session.join_engine`),
and opens the warm CLI's door (:meth:`Session.open_warm_door`). Every call then goes through the
invocation policy it is built on (:class:`sleuth.core.policy.InvocationPolicy`: argument shape, rate
limit, worker pools, cancellation, metrics, the log line), which reads this moment's sandbox, settings
and services from here.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from sleuth.commands.config import Settings
from sleuth.commands.context import CommandContext, PartialSink, Services
from sleuth.core.index import IndexHooks, IndexKeeper, store_misplaced
from sleuth.core.invocation import InternalError, InvocationRecord, NotAvailable, StreamSink
from sleuth.core.policy import CANCEL_GRACE_S, Activity, Invocation, InvocationPolicy
from sleuth.core.registry import Runner
from sleuth.core.settings import SettingsLayers
from sleuth.engine import heap
from sleuth.engine.ratelimit import RateLimiter
from sleuth.engine.workspace import Workspace

if TYPE_CHECKING:
    from sleuth.core.engine_guest import EngineGuest
    from sleuth.core.warm_listener import WarmListener

__all__ = ["Session", "Invocation", "InvocationRecord", "Activity", "InternalError", "NotAvailable", "StreamSink",
           "SettingsLayers", "CANCEL_GRACE_S"]

logger = logging.getLogger(__name__)

OWN_ENGINE_ENV = "SLEUTH_OWN_ENGINE"  # "1": this door never uses another door's engine (README, "One engine")
INDEX_COMMANDS = frozenset({"sleuth.index.status", "sleuth.index.build"})  # they say whose engine answers
_JOIN_TRIES = 200  # a takeover's rounds of "bind, else join the door that did" (~10 s at most, on a loaded machine)
_JOIN_RETRY_S = 0.05  # between rounds: the lock's winner is between taking it and binding


class Session(InvocationPolicy):
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
        heap.tune()  # a process that serves searches: big answers are many short-lived objects
        self.config = SettingsLayers(layers=list(layers), where=where)
        self.config.load_user()
        self.settings: Settings = Settings()
        self.workspace: Workspace = Workspace([])
        self.cache_dir = cache_dir
        self.services = Services(rate_limiter=RateLimiter())
        self.index = IndexKeeper(index_hooks or IndexHooks())
        self._start_policy(search_workers, quick_workers, extra_commands, log_tag)
        self.problem_hooks: list[Callable[[str], None]] = []
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
        self._stop_policy()

    # -- which engine runs a call ------------------------------------------------------------------
    def routed(self, name: str, run: Runner) -> Runner:
        """A door command (a search, the index's) runs in the engine this door uses: its host's for a
        guest (:meth:`_shared`); an index status or build says whose engine answered."""
        from sleuth.core.warm import DOOR_COMMANDS

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
                here = ctx.replace(partial=ctx.partial if first else skip,
                                   services=self.services.replace(open_buffers=ctx.services.open_buffers))
                return local(args, here)
            first = False
            try:
                result = guest.call(name, args, ctx.replace(partial=skip), self._door_request(),
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
