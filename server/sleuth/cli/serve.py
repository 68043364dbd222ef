"""``sleuth serve``: the language server over stdio (default), TCP or WebSocket."""

from __future__ import annotations

import argparse

__all__ = ["add_parser"]


def _address(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {value!r}")
    return host, int(port)


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = sub.add_parser("serve", help="run the Sleuth language server",
                            description="Run the language server (stdio unless --tcp or --ws).")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (default)")
    group.add_argument("--tcp", type=_address, metavar="HOST:PORT", help="listen on a TCP socket")
    group.add_argument("--ws", type=_address, metavar="HOST:PORT", help="listen for a WebSocket connection")
    parser.set_defaults(func=_run)


def _run(ns: argparse.Namespace) -> int:
    from sleuth.lsp.main import run  # the LSP stack loads only here

    if ns.tcp:
        return run("tcp", *ns.tcp)
    if ns.ws:
        return run("ws", *ns.ws)
    return run("stdio")
