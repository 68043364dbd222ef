"""``sleuth mcp``: the MCP server for AI assistants (stdio, or streamable HTTP on loopback).

The flags and the server are :mod:`sleuth.mcp.main`'s; the MCP SDK loads only when it runs.
"""

from __future__ import annotations

import argparse

__all__ = ["add_parser"]


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    from sleuth.mcp.main import add_arguments

    parser = sub.add_parser("mcp", help="run the MCP server for AI assistants",
                            description="Serve Sleuth's searches to an MCP host (Claude Code, VS Code chat, "
                                        "Cursor, Codex, Zed, Gemini CLI...) over stdio, or over streamable "
                                        "HTTP on loopback with --http. The host's roots are the sandbox.")
    add_arguments(parser)
    parser.set_defaults(func=_run)


def _run(ns: argparse.Namespace) -> int:
    from sleuth.mcp.main import run

    return run(ns)
