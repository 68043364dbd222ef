"""A guest door's side of a shared engine: its searches run in the engine of the server already running.

:mod:`sleuth.core.engine_host` says why and what the host answers. A :class:`EngineGuest` is one
door's membership: the hello connection kept open (its end is how the guest learns that the host's
process exited, kill -9 included) and :meth:`EngineGuest.call`, which runs one command in the host's
engine over a fresh connection to the warm door, handing the host's progress and partial batches to
the door's own sinks as they come. Cancelling the call's token closes that connection, which cancels
the host's search (the warm door's rule: a client that hangs up cancels).

The session (:class:`sleuth.core.session.Session`) decides when to join, and what to do when
:class:`HostLost` says the host is gone mid-call: take the engine over and run the call again.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
from typing import Any, Callable, Mapping, Sequence

from sleuth.commands.context import CommandContext
from sleuth.core.engine_host import settings_json
from sleuth.core.warm import PROTOCOL, connect, environment
from sleuth.engine import errors

__all__ = ["EngineGuest", "HostLost", "HostRefused", "join", "error_from_dict"]

logger = logging.getLogger(__name__)

_HELLO_TIMEOUT_S = 10.0  # for the host's answer to a hello (it answers from its accept thread at once)


class HostLost(Exception):
    """The host's connection ended before a whole answer (its process exited, its door closed)."""


class HostRefused(Exception):
    """The host no longer answers this door (its settings changed under it): the door takes its own engine."""


def error_from_dict(data: Mapping[str, Any]) -> errors.SleuthError:
    """The :class:`~sleuth.engine.errors.SleuthError` the host raised, rebuilt from its ``to_dict()``
    (its class found by ``code``, so every transport maps it as it maps its own)."""
    code = str(data.get("code", "internal"))
    found: type[errors.SleuthError] = errors.SleuthError
    pending = list(errors.SleuthError.__subclasses__())
    while pending:
        cls = pending.pop()
        if cls.code == code:
            found = cls
            break
        pending.extend(cls.__subclasses__())
    error = found.__new__(found)
    extra = {k: v for k, v in data.items() if k not in ("code", "message", "hint")}
    errors.SleuthError.__init__(error, str(data.get("message", "")), hint=data.get("hint"), **extra)
    for key, value in extra.items():  # e.g. RateLimited.retry_after_seconds, read as an attribute
        if not hasattr(error, key):
            setattr(error, key, value)
    if error.code != code:
        error.code = code
    return error


class EngineGuest:
    """One door's use of another process's engine for ``roots``; see the module docstring."""

    def __init__(self, roots: Sequence[str], hello: socket.socket, token: str | None, host_pid: int,
                 on_lost: Callable[["EngineGuest"], None]) -> None:
        self.roots = list(roots)
        self.host_pid = host_pid
        self.closed = False
        self._hello, self._token = hello, token
        threading.Thread(target=self._watch, args=(on_lost,), name="sleuth-engine-host-watch", daemon=True).start()

    def _watch(self, on_lost: Callable[["EngineGuest"], None]) -> None:
        """Block on the hello connection: the host sends nothing more, so its end means it is gone."""
        try:
            self._hello.recv(1)
        except OSError:
            pass
        if not self.closed:
            logger.warning("the engine's host (process %d) is gone: taking over", self.host_pid)
            on_lost(self)

    def close(self) -> None:
        self.closed = True
        try:
            self._hello.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._hello.close()

    def call(self, command: str, args: dict[str, Any], ctx: CommandContext, request: Mapping[str, Any],
             wait_index_s: float = 0.0) -> dict[str, Any]:
        """``command(args)`` in the host's engine with ``ctx``'s settings and open buffers; progress and
        partial batches reach ``ctx``'s sinks. Raises the host's :class:`SleuthError`,
        :class:`~sleuth.engine.errors.Cancelled` once ``ctx.token`` is cancelled, :class:`HostLost`
        when the host went away before answering, :class:`HostRefused` when it will not answer."""
        door = connect(self.roots)
        if door is None:
            raise HostLost(f"no door for {self.roots}")
        sock, token = door
        call = {**request, "v": PROTOCOL, "door": "call", "command": command, "args": args, "settings": settings_json(ctx.settings),
                "environment": environment(args), "stream": ctx.partial is not None, "wait_index_s": wait_index_s}
        buffers = ctx.services.open_buffers
        if buffers:
            call["buffers"] = dict(buffers)
        if token is not None:
            call["token"] = token
        try:
            sock.settimeout(None)
            ctx.token.on_cancel(lambda: _hang_up(sock))
            sock.sendall(json.dumps(call).encode("utf-8") + b"\n")
            answer = self._read_answer(sock, ctx)
        except OSError as exc:
            answer = None
            if not ctx.token.cancelled:
                raise HostLost(str(exc)) from None
        finally:
            sock.close()
        if ctx.token.cancelled:
            raise errors.Cancelled(f"{command} was cancelled.")
        if answer is None:
            raise HostLost("the connection ended before a whole answer")
        if isinstance(answer.get("result"), dict):
            return answer["result"]  # type: ignore[no-any-return]
        if isinstance(answer.get("error"), dict):
            raise error_from_dict(answer["error"])
        raise HostRefused(str(answer.get("refused", "no answer")))

    @staticmethod
    def _read_answer(sock: socket.socket, ctx: CommandContext) -> dict[str, Any] | None:
        """The answer line, handing each progress and partial line before it to ``ctx``'s sinks."""
        pending = b""
        while True:
            chunk = sock.recv(1 << 20)
            if not chunk:
                return None
            pending += chunk
            while True:
                newline = pending.find(b"\n")
                if newline < 0:
                    break
                line, pending = json.loads(pending[:newline]), pending[newline + 1:]
                if not isinstance(line, dict):
                    return None
                if "partial" in line:
                    if ctx.partial is not None:
                        ctx.partial(line["partial"])
                elif "progress" in line:
                    done, total, message = line["progress"]
                    ctx.progress(done, total, message)
                else:
                    return line


def join(roots: Sequence[str], request: Mapping[str, Any],
         on_lost: Callable[[EngineGuest], None]) -> EngineGuest | str | None:
    """Become a guest of the server that holds the door of ``roots``: the guest, or why the host
    refused (a string: the door keeps its own engine), or None when no host answers."""
    door = connect(roots)
    if door is None:
        return None
    sock, token = door
    hello = {**request, "v": PROTOCOL, "door": "hello", "environment": environment({})}
    if token is not None:
        hello["token"] = token
    try:
        sock.settimeout(_HELLO_TIMEOUT_S)
        sock.sendall(json.dumps(hello).encode("utf-8") + b"\n")
        line = b""
        while not line.endswith(b"\n"):
            chunk = sock.recv(4096)
            if not chunk:
                raise OSError("closed")
            line += chunk
        answer = json.loads(line)
        sock.settimeout(None)
    except (OSError, ValueError):
        sock.close()
        return None
    host = answer.get("host") if isinstance(answer, dict) else None
    if not isinstance(host, dict) or not isinstance(host.get("pid"), int):
        sock.close()
        return str(answer.get("refused", "no answer")) if isinstance(answer, dict) else "no answer"
    return EngineGuest(roots, sock, token, host["pid"], on_lost)


def _hang_up(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
