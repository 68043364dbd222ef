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
    """``HOST:PORT`` (or ``:PORT`` / ``PORT``: loopback, 127.0.0.1) -> (host, port)."""
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


def run(transport: str = "stdio", host: str | None = None, port: int | None = None, *,
        token_file: str | None = None, allowed_origins: Sequence[str] = ()) -> int:
    """Serve one connection over ``transport`` (``stdio`` | ``tcp`` | ``ws``) until it ends; exit code.

    TCP and WebSocket admit only a client showing the token of ``token_file`` (default
    :func:`sleuth.lsp.sockets.default_token_path`, created when absent) and, for WebSocket, no
    browser page whose ``Origin`` is not in ``allowed_origins`` (:mod:`sleuth.lsp.sockets`).
    """
    from sleuth.lsp.server import create_server

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="sleuth: %(levelname)s %(name)s: %(message)s")
    logging.getLogger("pygls.protocol.json_rpc").addFilter(_drop_answered_errors)
    if transport not in ("stdio", "tcp", "ws"):
        print(f"sleuth serve: unknown transport {transport!r} (stdio, tcp or ws)", file=sys.stderr)
        return 2
    if transport == "ws":
        try:
            import websockets  # noqa: F401 - checked here for a clear message
        except ImportError:
            print("sleuth serve --ws needs the websockets package: pip install 'sleuth[ws]'", file=sys.stderr)
            return 2
    server = create_server()
    if transport == "stdio":
        server.start_io()
        return 0
    from sleuth.lsp import sockets

    path = token_file or sockets.default_token_path()
    try:
        token = sockets.load_or_create_token(path)
    except (OSError, ValueError) as exc:
        print(f"sleuth serve: cannot use the token file: {exc}", file=sys.stderr)
        return 2
    door = sockets.Door(token, host or "127.0.0.1", 2087 if port is None else port, tuple(allowed_origins))
    sockets.announce(transport, door, path)
    (sockets.serve_tcp if transport == "tcp" else sockets.serve_ws)(server, door)
    return 0


def _drop_answered_errors(record: logging.LogRecord) -> bool:
    """pygls logs every error response with a traceback; Sleuth's own errors are answers, not crashes."""
    from sleuth.lsp.errors import SleuthRpcError

    exc = record.exc_info[1] if record.exc_info else None
    return not isinstance(exc, SleuthRpcError)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``serve`` flags: ``--stdio`` (default), ``--tcp HOST:PORT``, ``--ws HOST:PORT``, ``--token-file``,
    ``--allow-origin``."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    group.add_argument("--tcp", metavar="HOST:PORT", type=parse_address, help="listen for one LSP client on TCP")
    group.add_argument("--ws", metavar="HOST:PORT", type=parse_address, help="listen for one LSP client on WebSocket")
    parser.add_argument("--token-file", metavar="PATH",
                        help="TCP/WebSocket: the file holding the client's secret (created 0600 when absent; "
                             "default $XDG_RUNTIME_DIR/sleuth/token, else ~/.config/sleuth/token)")
    parser.add_argument("--allow-origin", metavar="ORIGIN", action="append", default=[],
                        help="WebSocket: a browser Origin allowed to connect (repeatable; none by default)")


def serve(namespace: argparse.Namespace) -> int:
    """Run with the flags :func:`add_arguments` defined."""
    options = {"token_file": getattr(namespace, "token_file", None),
               "allowed_origins": getattr(namespace, "allow_origin", None) or ()}
    if getattr(namespace, "tcp", None):
        return run("tcp", *namespace.tcp, **options)
    if getattr(namespace, "ws", None):
        return run("ws", *namespace.ws, **options)
    return run("stdio")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="sleuth serve", description="Run the Sleuth language server.")
    add_arguments(parser)
    return serve(parser.parse_args(argv))
