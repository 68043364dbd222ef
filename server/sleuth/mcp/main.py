"""``sleuth mcp``: flags and the two transports (stdio; streamable HTTP on loopback).

Over HTTP the server listens on a loopback address only, checks ``Host`` and ``Origin`` against
DNS rebinding (the SDK's transport security: only ``127.0.0.1``/``localhost``/``[::1]`` at this
port) and requires ``Authorization: Bearer <token>`` with the token from a private file
(:mod:`sleuth.core.secret`, the same file as ``sleuth serve --tcp/--ws``), printed path on stderr at start.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from typing import TYPE_CHECKING, Any

from sleuth.engine.platform import signal_receiver

if TYPE_CHECKING:
    from sleuth.core.session import Session
    from sleuth.mcp.server import SleuthMCP

__all__ = ["add_arguments", "run", "serve_stdio", "parse_http", "build_http_app"]

PROFILE_CHOICES = ("forge", "codex", "kimi", "acode", "all", "none")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--root", action="append", default=[], metavar="DIR",
                        help="folder to search when the client shares no roots (repeatable); with roots, a "
                             "client root outside every --root is refused; without roots or --root the current "
                             "directory is searched")
    parser.add_argument("--profile", action="append", default=[], choices=PROFILE_CHOICES,
                        help="also expose a seed tool profile's tools (repeatable; 'all' for every profile)")
    parser.add_argument("--max-output-tokens", type=int, default=None, metavar="N",
                        help="budget of one answer, per form (text and structured), in estimated tokens "
                             "(default 10000; hosts such as Claude Code refuse answers over 25000)")
    parser.add_argument("--http", metavar="HOST:PORT",
                        help="serve streamable HTTP on a loopback address instead of stdio (bearer token required)")
    parser.add_argument("--token-file", metavar="PATH",
                        help="the bearer token's file for --http (default: the one `sleuth serve --tcp/--ws` uses, "
                             "$XDG_RUNTIME_DIR/sleuth/token; created private when missing)")
    parser.add_argument("--cache-dir", metavar="DIR", help="where the index lives (default: the user cache)")
    parser.add_argument("--no-index", action="store_true", help="do not build or use the index (search_text needs it)")
    parser.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error", "off"),
                        help="what is logged to stderr (default info)")


def parse_http(value: str) -> tuple[str, int]:
    """``HOST:PORT`` with a loopback host; ValueError otherwise."""
    host, sep, port_text = value.rpartition(":")
    if not sep or not port_text.isdigit():
        raise ValueError(f"--http expects HOST:PORT, got {value!r}")
    from sleuth.core.secret import is_loopback

    host = host.strip("[]") or "127.0.0.1"
    if not is_loopback(host):
        raise ValueError(f"--http only listens on a loopback address (127.0.0.1, ::1, localhost), not {host!r}")
    return host, int(port_text)


def build_http_app(mcp_app: Any, host: str, port: int, token: str) -> Any:
    """The SDK's streamable-HTTP Starlette app behind DNS-rebinding checks and the bearer token."""
    from mcp.server.transport_security import TransportSecuritySettings

    from sleuth.core.secret import bearer_matches

    names = ["127.0.0.1", "localhost", "[::1]"]
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{n}:{port}" for n in names],
        allowed_origins=[f"{scheme}://{n}:{port}" for n in names for scheme in ("http", "https")],
    )
    inner = mcp_app.streamable_http_app(transport_security=security, host=host)

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            if not bearer_matches(headers.get("authorization"), token):
                body = b"Missing or wrong bearer token (see the token file named in sleuth mcp's log).\n"
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body", "body": body})
                return
        await inner(scope, receive, send)

    return app


def serve_stdio(server: SleuthMCP, session: Session) -> None:
    """Serve over stdio until the host closes stdin or sends SIGINT/SIGTERM.

    Hosts stop their server with signals while stdin is still open (Claude Code: SIGINT, then SIGTERM
    100 ms later). The SDK reads stdin in a worker thread that cancellation cannot interrupt, so
    asyncio's SIGINT (cancel the main task) would wait for the host's next line, and SIGTERM's default
    would end the process without closing the session (the warm socket file stays). On either signal
    the session is closed here and the process exits at once, 128 + the signal's number."""
    import anyio
    import anyio.to_thread

    from sleuth.mcp.stdio import run_stdio

    async def stop_on_signal() -> None:
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for signum in signals:
                await anyio.to_thread.run_sync(session.close)
                logging.shutdown()
                sys.stderr.flush()
                os._exit(128 + signum)

    async def serve() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(stop_on_signal)
            await run_stdio(server.app)
            group.cancel_scope.cancel()

    if not signal_receiver():  # Windows: the SDK's own loop, as before
        server.app.run("stdio")
    else:
        anyio.run(serve)


def run(ns: argparse.Namespace) -> int:
    logging.basicConfig(stream=sys.stderr, format="sleuth mcp: %(message)s",
                        level={"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
                               "error": logging.ERROR, "off": logging.CRITICAL + 1}[ns.log_level])
    for noisy in ("mcp", "httpx", "uvicorn.access"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.getLogger().level))
    http = None
    if ns.http:
        try:
            http = parse_http(ns.http)
        except ValueError as exc:
            sys.stderr.write(f"sleuth mcp: {exc}\n")
            return 2
    for root in ns.root:
        if not os.path.isdir(root):
            sys.stderr.write(f"sleuth mcp: --root {root!r} is not a folder\n")
            return 2
    if ns.max_output_tokens is not None and ns.max_output_tokens < 500:
        sys.stderr.write("sleuth mcp: --max-output-tokens must be at least 500\n")
        return 2

    from sleuth.core.session import Session
    from sleuth.mcp.server import SleuthMCP
    from sleuth.mcp.tools import DEFAULT_MAX_TOKENS

    layers = [("--no-index", {"index_enabled": False})] if ns.no_index else []
    session = Session(layers=layers, cache_dir=ns.cache_dir, log_tag="mcp ")
    server = SleuthMCP(session, fallback_roots=ns.root, profiles=ns.profile,
                       max_tokens=ns.max_output_tokens or DEFAULT_MAX_TOKENS, cache_roots=http is None)
    try:
        if http is None:
            serve_stdio(server, session)
            return 0
        import anyio
        import uvicorn

        from sleuth.core.secret import default_token_path, load_or_create_token

        path = os.path.abspath(os.path.expanduser(ns.token_file or default_token_path()))
        try:
            token = load_or_create_token(path)
        except ValueError as exc:
            sys.stderr.write(f"sleuth mcp: {exc}\n")
            return 2
        host, port = http
        logging.getLogger("sleuth.mcp").warning("streamable HTTP on http://%s:%d/mcp; bearer token in %s",
                                                host if ":" not in host else f"[{host}]", port, path)
        config = uvicorn.Config(build_http_app(server.app, host, port, token), host=host, port=port,
                                log_level="warning", lifespan="on")
        anyio.run(uvicorn.Server(config).serve)
        return 0
    except KeyboardInterrupt:
        return 130
    finally:
        session.close()
