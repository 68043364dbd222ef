"""The MCP server: the official SDK's ``MCPServer`` in front of one :class:`sleuth.core.Session`.

**Roots are the sandbox**, in both protocol eras. Every tool takes a hidden parameter filled by a
resolver (``Resolve``): when the client declares the roots capability the resolver asks for them
(``ListRoots()``: a ``roots/list`` request on a 2025-11-25 connection, kept until the client sends
``notifications/roots/list_changed``; an input-required round trip on every call of a stateless
2026-07-28 connection, ~1 ms over stdio); a client without roots gets the ``--root`` folders, and
without those the current directory, said once in the log. A change of roots restarts the index
for the new folders (its store lives in a directory derived from the roots: one per workspace).

**One call** goes: raw arguments (kept as sent, so an unknown key is reported by its name) ->
the offset split off -> the result held for the same question (:mod:`sleuth.mcp.pages`), else
:meth:`Session.invoke` on a worker (rate limit, metrics, log line) -> the page that fits the output budget, as ``structuredContent`` plus compact text. Sleuth errors
become ``isError`` results whose text says what to fix (a regex's position, the allowed roots);
only malformed protocol messages are protocol errors. Progress reaches the client when it sent a
``progressToken``; ``notifications/cancelled`` cancels the handler's task, which cancels the
session's token, the one the engine polls.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import os
import time
from typing import Annotated, Any, Callable, Mapping
from urllib.parse import unquote, urlparse

from mcp.server.mcpserver import Context, ListRoots, MCPServer, Resolve
from mcp_types import CallToolResult, ListRootsResult, NotificationParams, TextContent, ToolAnnotations

from sleuth import __version__
from sleuth.commands.profiles import PROFILES, ToolDefinition, all_tools
from sleuth.core.session import Invocation, InvocationRecord, Session
from sleuth.engine.cancel import CancelToken
from sleuth.engine.errors import SleuthError
from sleuth.engine.redact import redact_answer
from sleuth.mcp.pages import PageCache, gives_whole_page, page_key
from sleuth.mcp.sdk import on_notification, set_tool_schemas
from sleuth.mcp.tools import DEFAULT_MAX_TOKENS, SEARCH_TOOLS, SearchTool, page, render_error, split_offset
from sleuth.searches import INDEX_ONLY

__all__ = ["SleuthMCP", "INSTRUCTIONS"]

logger = logging.getLogger("sleuth.mcp")

_RAW_ARGUMENTS: contextvars.ContextVar[Mapping[str, Any]] = contextvars.ContextVar("sleuth_mcp_raw_arguments")
PROGRESS_INTERVAL_S = 0.1
INDEX_WAIT_S = 30.0
STATELESS_SINCE = "2026-07-28"
_LEVELS = {1: logging.ERROR, 2: logging.WARNING}  # the log line's severity (else info)  # the protocol revision without sessions (roots/list_changed deprecated)

INSTRUCTIONS = (
    "Sleuth searches the folders this host shares as roots. Use `grep` for exact text or regexes "
    "(`path:line: text` per match), `find_files` to locate files by glob or fuzzy name, `search_text` for "
    "ranked word search with definitions first, `find_symbols` for where a function, class or struct is "
    "defined, by name. Answers are bounded: a cut answer says so and gives the "
    "`offset` for its next page. Paths are relative to the roots; nothing outside them is searched."
)


class _Server(MCPServer):
    """``MCPServer`` that keeps each call's arguments exactly as the client sent them.

    The SDK validates arguments against a model built from the tool function's signature; Sleuth's
    tools declare no parameters there and validate the raw object with the commands' own tables,
    whose errors name the argument, the limit and the fix."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        reset = _RAW_ARGUMENTS.set(dict(arguments or {}))
        try:
            return await super().call_tool(name, arguments, context)
        finally:
            _RAW_ARGUMENTS.reset(reset)


def _paths_of(result: ListRootsResult) -> list[tuple[str, str | None]]:
    """(path, name) of each ``file://`` root, in the client's order."""
    found = []
    for root in result.roots:
        parsed = urlparse(str(root.uri))
        if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
            continue
        found.append((unquote(parsed.path), root.name))
    return found


class SleuthMCP:
    """The MCP server of one session. ``profiles``: seed tool profiles to expose besides the natives."""

    def __init__(self, session: Session, *, fallback_roots: list[str] | None = None,
                 profiles: list[str] | None = None, max_tokens: int = DEFAULT_MAX_TOKENS,
                 cache_roots: bool = True) -> None:
        self.session = session
        session.index_wait_s = INDEX_WAIT_S  # a guest door's host waits for its first build as this door would
        self.fallback_roots = [os.path.abspath(p) for p in fallback_roots or []]
        self.max_tokens = max_tokens
        self.cache_roots = cache_roots  # stdio: one client; over HTTP each call asks its own client
        self.cached_roots: ListRootsResult | None = None
        self.roots_source = ""
        self._roots_lock = asyncio.Lock()
        self._said_cwd = False
        self._refused_roots: set[str] = set()
        self.pages = PageCache()  # results the next pages are cut from
        self.app = _Server("sleuth", title="Sleuth workspace search", version=__version__,
                           instructions=INSTRUCTIONS, log_level="WARNING")
        on_notification(self.app, "notifications/roots/list_changed", NotificationParams, self._roots_changed)
        for tool in SEARCH_TOOLS:
            self._add(tool.name, tool.title, tool.description, tool.input_schema(session.settings),
                      tool.output_schema(), self._search_handler(tool))
        for definition in self._profile_tools(profiles or []):
            self._add(f"{definition.profile}_{definition.name}", f"{definition.name} ({definition.profile} profile)",
                      definition.description, definition.input_schema, None, self._profile_handler(definition),
                      read_only=definition.read_only)
        if session.extra:  # a test's plumbing commands (sleuth.core.test_commands)
            for name in session.extra:
                self._add(name.replace(".", "_"), name, f"Test command {name}.", {"type": "object"}, None,
                          self._raw_handler(name))
            self._add("debug_workers", "Worker activity", "Workers running, started, finished, cancelled.",
                      {"type": "object"}, None, self._workers_handler())
        # The invocation's log line (the core writes log_file) and settings problems go to stderr's log.
        session.log_sinks.append(lambda severity, line: logger.log(_LEVELS.get(severity, logging.INFO), "%s", line))
        session.problem_hooks.append(lambda problem: logger.warning("%s", problem))

    # -- registration -----------------------------------------------------------------------
    @staticmethod
    def _profile_tools(profiles: list[str]) -> list[ToolDefinition]:
        # Sleuth's own profile is the native find_symbols tool again: "all" means every seed profile
        seeds = [p for p in PROFILES if p != "sleuth"]
        names = seeds if "all" in profiles else [p for p in profiles if p != "none"]
        return [tool for name in dict.fromkeys(names) for tool in all_tools(name)]

    def _add(self, name: str, title: str, description: str, input_schema: dict[str, Any],
             output_schema: dict[str, Any] | None, body: Callable[[Context, Mapping[str, Any], list[str]], Any],
             read_only: bool = True) -> None:
        resolver = self._roots_resolver

        async def tool(ctx, roots):  # type: ignore[no-untyped-def]  # annotated below, with live objects
            folders = await self._apply_roots(roots, ctx)
            try:
                return await body(ctx, _RAW_ARGUMENTS.get({}), folders)
            except SleuthError as error:
                return _error(error, folders)

        tool.__annotations__ = {"ctx": Context, "roots": Annotated[ListRootsResult, Resolve(resolver)],
                                "return": CallToolResult}
        self.app.add_tool(tool, name=name, title=title, description=description,
                          annotations=ToolAnnotations(title=title, read_only_hint=read_only,
                                                      destructive_hint=False, idempotent_hint=read_only,
                                                      open_world_hint=False))
        set_tool_schemas(self.app, name, input_schema, output_schema)  # Sleuth's, not the signature's

    # -- roots ------------------------------------------------------------------------------
    def _roots_resolver(self, ctx: Context) -> ListRoots | ListRootsResult:
        capabilities = ctx.client_capabilities
        if capabilities is None or capabilities.roots is None:
            return ListRootsResult(roots=[])  # no roots from this client: --root, else the current directory
        if self._caches_roots(ctx) and self.cached_roots is not None:
            return self.cached_roots
        return ListRoots()

    def _caches_roots(self, ctx: Context) -> bool:
        """Keep the roots between calls on a handshake-era stdio connection only: there the client says
        when they change. A 2026-07-28 connection is stateless (each call's round trip carries them)."""
        return self.cache_roots and (ctx.protocol_version or "") < STATELESS_SINCE

    async def _roots_changed(self, ctx: Any, params: Any) -> None:
        self.cached_roots = None
        logger.info("the client's roots changed; they are read again at the next call")

    async def _apply_roots(self, result: ListRootsResult, ctx: Context) -> list[str]:
        """Make the session's sandbox what the client says (or the fallbacks); the allowed roots."""
        capabilities = ctx.client_capabilities
        from_client = capabilities is not None and capabilities.roots is not None
        if from_client and self._caches_roots(ctx):
            self.cached_roots = result
        folders = _paths_of(result)
        if folders and self.fallback_roots:
            folders = self._within_root_flags(folders)
        if folders:
            source = "client roots"
        elif self.fallback_roots:
            folders, source = [(p, None) for p in self.fallback_roots], "--root"
        else:
            folders, source = [(os.getcwd(), None)], "current directory"
            if not self._said_cwd:
                self._said_cwd = True
                logger.warning("no roots from the client and no --root: searching the current directory %s",
                               os.getcwd())
        async with self._roots_lock:
            paths = [p for p, _ in folders]
            # Again when the roots changed, or when an enabled index is not running (a failed start is
            # retried); with the index off, once: set_roots, the warm door and the index stay as they are.
            waiting = self.session.settings.index_enabled and not self.session.engine_running
            if paths != self.session.roots or source != self.roots_source or waiting:
                self.roots_source = source
                names = [n or "" for _, n in folders]
                loop = asyncio.get_running_loop()
                changed = await loop.run_in_executor(
                    None, lambda: self.session.set_roots(paths, names))
                if changed:
                    logger.info("roots (%s): %s", source, ", ".join(self.session.roots))
                await loop.run_in_executor(None, self.session.open_warm_door)
                await loop.run_in_executor(None, self.session.refresh_index)
        return self.session.roots

    def _within_root_flags(self, folders: list[tuple[str, str | None]]) -> list[tuple[str, str | None]]:
        """docs/SPEC.md §12: with both client roots and ``--root``, a root outside every ``--root`` is refused
        (said once per root in the log): ``--root`` is the person's bound on what a host may share."""
        bounds = [os.path.realpath(p) for p in self.fallback_roots]
        kept = []
        for path, name in folders:
            real = os.path.realpath(path)
            if any(real == b or real.startswith(b.rstrip(os.sep) + os.sep) for b in bounds):
                kept.append((path, name))
            elif real not in self._refused_roots:
                self._refused_roots.add(real)
                logger.warning("client root %s refused: it is outside every --root (%s)", path,
                               ", ".join(self.fallback_roots))
        return kept

    # -- handlers -----------------------------------------------------------------------------
    def _search_handler(self, tool: SearchTool) -> Callable[..., Any]:
        async def handle(ctx: Context, raw: Mapping[str, Any], roots: list[str]) -> CallToolResult:
            args, offset, _ = split_offset(raw, tool, self.session.settings)
            key, world, began = page_key(tool.name, raw), self._world(), time.perf_counter()
            held = self.pages.get(key, world) if world is not None else None
            if held is not None:  # the next page of an answer already found (mcp/pages.py)
                structured, text = page(tool, held, offset, self.max_tokens)
                if gives_whole_page(held, tool.key, offset, len(structured[tool.key])):
                    # no search ran, but the call is logged and counted as every call is
                    self.session.record(InvocationRecord(tool.command, args, "ok", structured,
                                                         (time.perf_counter() - began) * 1000))
                    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)
            if tool.command in INDEX_ONLY:
                await self._wait_for_index(ctx)
                world = self._world()
            result = await self._invoke(ctx, tool.command, args)
            if self.session.settings.redaction:  # the answer goes to a model: secrets masked (issue 28)
                masked = redact_answer(result)
                assert isinstance(masked, dict)
                result = masked
            if world is not None:
                self.pages.put(key, world, result)
            structured, text = page(tool, result, offset, self.max_tokens)
            return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)

        return handle

    def _world(self) -> tuple[object, ...] | None:
        """What a held result depends on (:mod:`sleuth.mcp.pages`): the sandbox, the settings, the index
        service and its change stamp; None without a ready index (no change would be told)."""
        service = self.session.services.index
        if service is None or not service.ready:
            return None
        return (self.session.workspace, self.session.settings, service, service.change_stamp())

    def _profile_handler(self, definition: ToolDefinition) -> Callable[..., Any]:
        async def handle(ctx: Context, raw: Mapping[str, Any], roots: list[str]) -> CallToolResult:
            envelope = await self._invoke(ctx, "sleuth.tools.call",
                                          {"name": definition.qualified_name, "arguments": dict(raw)})
            return CallToolResult(content=[TextContent(type="text", text=str(envelope.get("content", "")))],
                                  is_error=bool(envelope.get("is_error")))

        return handle

    def _raw_handler(self, command: str) -> Callable[..., Any]:
        async def handle(ctx: Context, raw: Mapping[str, Any], roots: list[str]) -> CallToolResult:
            result = await self._invoke(ctx, command, dict(raw))
            return CallToolResult(content=[TextContent(type="text", text=str(result))], structured_content=result)

        return handle

    def _workers_handler(self) -> Callable[..., Any]:
        async def handle(ctx: Context, raw: Mapping[str, Any], roots: list[str]) -> CallToolResult:
            state = self.session.activity.as_dict()
            return CallToolResult(content=[TextContent(type="text", text=str(state))], structured_content=state)

        return handle

    async def _invoke(self, ctx: Context, command: str, args: dict[str, Any]) -> dict[str, Any]:
        """Run ``command`` through the session, relaying progress and turning a cancelled handler into a
        cancelled token (the engine stops at its next poll)."""
        latest: list[tuple[int, int | None, str]] = []

        def sink(done: int, total: int | None, message: str = "") -> None:
            latest[:] = [(done, total, message)]

        token = CancelToken()
        work = asyncio.ensure_future(self.session.invoke(Invocation(command, args, token, progress=sink)))
        wants_progress = _progress_token(ctx) is not None
        sent: tuple[int, int | None, str] | None = None
        try:
            while True:
                done, _ = await asyncio.wait({work}, timeout=PROGRESS_INTERVAL_S if wants_progress else None)
                if done:
                    return work.result()
                if latest and latest[0] != sent:
                    sent = latest[0]
                    await ctx.report_progress(sent[0], sent[1], sent[2] or f"{command}: {sent[0]} files")
        except asyncio.CancelledError:
            token.cancel()
            work.add_done_callback(_consume)
            raise

    async def _wait_for_index(self, ctx: Context) -> None:
        """``search_text`` and ``find_symbols`` need the index: wait for its first build (with progress) rather than fail."""
        service = self.session.services.index
        if service is None or service.ready:
            return
        deadline = time.monotonic() + INDEX_WAIT_S
        loop = asyncio.get_running_loop()
        while not service.ready and time.monotonic() < deadline:
            if service.status().get("state") == "error":
                return  # sleuth.text says why
            if _progress_token(ctx) is not None:
                await ctx.report_progress(0, None, "building the index")
            await loop.run_in_executor(None, service.wait_ready, 0.25)


def _progress_token(ctx: Context) -> Any:
    meta = ctx.request_context.meta
    if isinstance(meta, Mapping):  # the SDK's TypedDict, snake_case in Python (camelCase on the wire)
        return meta.get("progress_token", meta.get("progressToken"))
    return getattr(meta, "progress_token", None)


def _error(error: SleuthError, roots: list[str]) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=render_error(error, roots))], is_error=True)


def _consume(future: "asyncio.Future[Any]") -> None:
    if not future.cancelled():
        future.exception()
