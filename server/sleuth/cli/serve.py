"""``sleuth serve``: the language server over stdio (default), TCP or WebSocket.

The flags and their parsing are :mod:`sleuth.lsp.main`'s (the same as ``python -m sleuth.lsp``);
that module loads no pygls until the server runs, so ``sleuth --help`` stays light.
"""

from __future__ import annotations

import argparse

__all__ = ["add_parser"]


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    from sleuth.lsp.main import add_arguments

    parser = sub.add_parser("serve", help="run the Sleuth language server",
                            description="Run the language server (stdio unless --tcp or --ws).")
    add_arguments(parser)
    parser.set_defaults(func=_run)


def _run(ns: argparse.Namespace) -> int:
    from sleuth.lsp.main import serve

    return serve(ns)
