"""The CLI's side of the warm door (:mod:`sleuth.core.warm`): ask a running server, else run cold.

:func:`ask` returns the server's result (or its error) for one command, or None whenever the cold
path must run: ``--no-server``, no socket for these roots, a folder or a peer that is not this
user's, a refusal (other roots, other settings, another environment, index not ready), or a connection that ends before
a whole answer. The caller renders either exactly as the cold path's result.
"""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from sleuth.core.warm import PROTOCOL, connect, environment, guards

__all__ = ["Answer", "ask"]

@dataclass(frozen=True)
class Answer:
    """The server's answer: ``result`` (the command's result object) or ``error`` (its ``to_dict()``)."""

    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


Partial = Callable[[list[Any]], bool]  # a streamed batch (items, or rows: Decoder.items); False: the caller wants no more


def ask(command: str, args: dict[str, Any], roots: Sequence[str], settings: Any,
        partial: Partial | None = None) -> Answer | None:
    """``command(args)`` answered by the server of ``roots`` (canonical paths, in order) whose
    settings match ``settings`` (the CLI's own :func:`~sleuth.cli.common.workspace_settings`).

    ``partial``: the server streams the result's items in batches as it finds them (``{"partial":
    [...]}`` lines before the answer, whose list then leaves them out; a server that does not stream
    answers whole, which is the same to the caller). Once a batch was taken the call cannot fall
    back to a cold run (its output is out): a connection lost then is an error; ``partial``
    returning False hangs up, which cancels the server's search, and answers ``cancelled``."""
    door = connect(roots)  # (SLEUTH_NO_SERVER and a missing door file: sleuth.cli.common.ask_server)
    if door is None:
        return None
    sock, token = door
    try:
        sock.settimeout(None)  # the search takes as long as it takes (Ctrl-C closes the socket: the server stops)
        request = {"v": PROTOCOL, "command": command, "args": args, "roots": list(roots), "guards": guards(settings),
                   "environment": environment(args)}
        if token is not None:
            request["token"] = token
        if command == "sleuth.grep":
            # The grep CLI makes the count None itself (its result is the cold one) and reads it only to know
            # that the index held files (grep_run's any_file): a search that matched nothing then lists none.
            request["files_in_workspace"] = True
        if partial is not None:
            request["stream"] = True
            request["rows"] = True  # plain lines as arrays (sleuth.engine.events.to_wire); partial reads both
        streamed = [False]
        try:
            sock.sendall(json.dumps(request).encode("ascii") + b"\n")
            raw = _read_all(sock) if partial is None else _read_streamed(sock, partial, streamed)
        except OSError:
            if streamed[0]:
                return Answer(error={"code": "internal", "message": "The server closed the connection mid-answer.",
                                     "hint": "Retry with --no-server."})
            return None
        if raw is None:
            return Answer(error={"code": "cancelled", "message": "Cancelled."})
    finally:
        sock.close()
    try:
        answer = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(answer, dict):
        return None
    if isinstance(answer.get("result"), dict):
        return Answer(result=answer["result"])
    error = answer.get("error")
    if isinstance(error, dict):
        if error.get("code") == "bad_args" and "unknown argument" in str(error.get("message", "")):
            return None  # an older server that lacks an argument this CLI sends (a new flag): cold
        return Answer(error=error)
    return None  # refused: cold


def _read_streamed(sock: socket.socket, partial: Partial, streamed: list[bool]) -> bytes | None:
    """The answer line, handing each ``{"partial": [...]}`` line before it to ``partial``; None once
    ``partial`` wanted no more (the caller hangs up: the server's search is cancelled)."""
    pending = b""
    while True:
        chunk = sock.recv(1 << 20)
        if not chunk:
            raise OSError("the server closed the connection before a whole answer")
        pending += chunk
        while True:
            newline = pending.find(b"\n")
            if newline < 0:
                break
            line, pending = pending[:newline + 1], pending[newline + 1:]
            if not line.startswith(b'{"partial":'):
                return line
            streamed[0] = True
            if not partial(json.loads(line)["partial"]):
                return None


def _read_all(sock: socket.socket) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = sock.recv(1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
    data = b"".join(chunks)
    if not data.endswith(b"\n"):
        raise OSError("the server closed the connection before a whole answer")
    return data
