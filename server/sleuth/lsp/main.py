"""``sleuth serve``: run the language server over stdio (default), TCP or WebSocket.

The CLI's ``serve`` subcommand calls :func:`run` (or :func:`serve` with its parsed
namespace after :func:`add_arguments`); ``python -m sleuth.lsp`` does the same on its own.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Sequence

__all__ = ["run", "serve", "add_arguments", "parse_address", "main"]


def parse_address(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (or ``:PORT`` / ``PORT`` for localhost) -> (host, port)."""
    host, sep, port = value.rpartition(":")
    if not sep:
        host, port = "", value
    try:
        number = int(port)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {value!r}") from None
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"port out of range in {value!r}")
    return (host.strip("[]") or "127.0.0.1"), number


def run(transport: str = "stdio", host: str | None = None, port: int | None = None) -> int:
    """Serve one connection over ``transport`` (``stdio`` | ``tcp`` | ``ws``) until it ends; exit code."""
    from sleuth.lsp.server import create_server

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="sleuth: %(levelname)s %(name)s: %(message)s")
    logging.getLogger("pygls.protocol.json_rpc").addFilter(_drop_answered_errors)
    server = create_server()
    if transport == "stdio":
        server.start_io()
        return server.exit_code
    elif transport == "tcp":
        server.start_tcp(host or "127.0.0.1", port or 2087)
    elif transport == "ws":
        try:
            import websockets  # noqa: F401 - checked here for a clear message
        except ImportError:
            print("sleuth serve --ws needs the websockets package: pip install 'sleuth[ws]'", file=sys.stderr)
            return 2
        server.start_ws(host or "127.0.0.1", port or 2087)
    else:
        print(f"sleuth serve: unknown transport {transport!r} (stdio, tcp or ws)", file=sys.stderr)
        return 2
    return 0


def _drop_answered_errors(record: logging.LogRecord) -> bool:
    """pygls logs every error response with a traceback; Sleuth's own errors are answers, not crashes."""
    from sleuth.lsp.errors import SleuthRpcError

    exc = record.exc_info[1] if record.exc_info else None
    return not isinstance(exc, SleuthRpcError)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``serve`` flags: ``--stdio`` (default), ``--tcp HOST:PORT``, ``--ws HOST:PORT``."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    group.add_argument("--tcp", metavar="HOST:PORT", type=parse_address, help="listen for one LSP client on TCP")
    group.add_argument("--ws", metavar="HOST:PORT", type=parse_address, help="listen for one LSP client on WebSocket")


def serve(namespace: argparse.Namespace) -> int:
    """Run with the flags :func:`add_arguments` defined."""
    if getattr(namespace, "tcp", None):
        return run("tcp", *namespace.tcp)
    if getattr(namespace, "ws", None):
        return run("ws", *namespace.ws)
    return run("stdio")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="sleuth serve", description="Run the Sleuth language server.")
    add_arguments(parser)
    return serve(parser.parse_args(argv))
