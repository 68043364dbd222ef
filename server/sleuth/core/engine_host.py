"""The host's side of a shared engine: a running server answers its guest doors over the warm door.

Three doors on one workspace (an editor, a chat assistant, a terminal assistant) used to build three
engines: three indexes loaded from the same store, three watchers, three worker pools (issue 29: PSS
936 MiB, 6 inotify instances). Now the first server of some roots is the engine's *host*; a later
``sleuth serve`` or ``sleuth mcp`` for the same roots, safeguards, store and environment is a *guest*
(:mod:`sleuth.core.engine_guest`) that sends its searches through the warm door
(:mod:`sleuth.core.warm`) instead of starting an engine of its own.

A guest speaks two requests on the door, both refused on the warm door's rules (same user, exactly the
same roots, equal :data:`~sleuth.core.warm.GUARD_FIELDS`, the same environment) and one more: the same
index store (the store location decides what the index holds and where its lock is):

* ``{"door": "hello"}``: answered ``{"host": {"pid": ...}}``; the connection then stays open for the
  guest's life and is the liveness signal both ways: the guest sees the host's process exit (kill -9
  included) as the end of the stream, and the host counts its guests;
* ``{"door": "call", "command", "args", "settings", "names", "buffers", "stream", "wait_index_s"}``: one
  command of :data:`~sleuth.core.warm.DOOR_COMMANDS` run with the *guest's* settings (their engine-shaping
  fields equal the host's, by the checks; the rest, result caps and deadlines, are the guest door's
  own, so its answers are a lone door's), its folder names, its open editor buffers; progress goes back
  as ``{"progress": [done, total, message]}`` lines and, with ``stream``, the result's items as
  ``{"partial": [...]}`` lines, before the answer line. A guest that hangs up cancels the command.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from typing import Any, Mapping

from sleuth.commands.config import Settings
from sleuth.commands.context import CommandContext, Services
from sleuth.core.warm import DOOR_COMMANDS, environment, guards
from sleuth.engine.cancel import CancelToken
from sleuth.engine.workspace import Workspace
from sleuth.searches import INDEX_ONLY

__all__ = ["door_refusal", "door_context", "settings_json", "settings_from_json", "LineSink", "wait_for_index",
           "host_answer", "PROGRESS_EVERY_S"]

logger = logging.getLogger(__name__)

PROGRESS_EVERY_S = 0.05  # progress lines to a guest at most this often (its own reporter throttles too)
_INDEX_POLL_S = 0.25


def settings_json(settings: Settings) -> dict[str, Any]:
    """Every field of ``settings``, JSON-shaped (tuples become lists): what a guest sends."""

    return json.loads(json.dumps(settings.to_dict()))


def settings_from_json(raw: object) -> Settings | None:
    """The :class:`Settings` a guest sent (lists back to tuples); None when it is not one."""

    if not isinstance(raw, dict):
        return None
    names = set(Settings.field_names)
    if set(raw) != names:
        return None  # another version's settings: the guest keeps its own engine
    try:
        return Settings(**{name: _tuples(value) for name, value in raw.items()})
    except TypeError:
        return None


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def door_refusal(request: Mapping[str, Any], sandbox: Workspace, settings: Settings, store: str | None) -> str | None:
    """Why a guest's request is not answered here (None: it is), on the warm door's rules plus the store."""
    roots = request.get("roots")
    if not isinstance(roots, list) or not roots or not all(isinstance(r, str) for r in roots):
        return "roots"
    if [r.path for r in Workspace(roots).roots] != [r.path for r in sandbox.roots]:
        return "other roots"
    mine = guards(settings)
    theirs = request.get("guards")
    if theirs != mine:
        differing = sorted(k for k in mine if not isinstance(theirs, dict) or theirs.get(k) != mine[k])
        return "other settings: " + ", ".join(differing)
    if request.get("store") != store:
        return "another index store"
    args = request.get("args") if isinstance(request.get("args"), dict) else {}
    if request.get("environment") != environment(args):
        return "another environment"
    if request.get("door") == "call" and request.get("command") not in DOOR_COMMANDS:
        return "not a door command"
    return None


class LineSink:
    """The guest's progress and partial batches, one JSON line each on its connection (a lock keeps
    the lines whole: progress comes from the search's threads). A guest gone away cancels the work.
    A :class:`~sleuth.core.invocation.StreamSink` whose :meth:`trim` leaves the result whole: the
    guest door trims it against what it forwarded, as a lone door trims its own."""

    def __init__(self, conn: socket.socket, token: CancelToken) -> None:
        self.conn, self.token = conn, token
        self.sent = 0
        self._lock = threading.Lock()
        self._last_progress = 0.0

    def _send(self, line: dict[str, Any]) -> None:
        data = json.dumps(line, separators=(",", ":")).encode("utf-8") + b"\n"
        with self._lock:
            try:
                self.conn.sendall(data)
            except OSError:
                self.token.cancel()

    def __call__(self, batch: list[dict[str, Any]]) -> None:
        self.sent += len(batch)
        self._send({"partial": batch})

    def progress(self, done: int, total: int | None, message: str = "") -> None:
        now = time.monotonic()
        if now - self._last_progress < PROGRESS_EVERY_S and (total is None or done < total):
            return
        self._last_progress = now
        self._send({"progress": [done, total, message]})

    def trim(self, result: dict[str, Any]) -> dict[str, Any]:
        return result


def door_context(request: Mapping[str, Any], settings: Settings, services: Services, token: CancelToken,
                 sink: LineSink) -> CommandContext:
    """The guest's command in the host's engine: the guest's roots and names, settings and buffers."""
    roots = request["roots"]
    names = request.get("names")
    workspace = Workspace(roots, names if isinstance(names, list) and all(isinstance(n, str) for n in names)
                          else None)
    buffers = request.get("buffers")
    if not (isinstance(buffers, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in buffers.items())):
        buffers = None
    return CommandContext(workspace=workspace, settings=settings, token=token, progress=sink.progress,
                          partial=sink if request.get("stream") is True else None,
                          services=services.replace(open_buffers=buffers))


def wait_for_index(request: Mapping[str, Any], services: Services, token: CancelToken) -> None:
    """What a lone door of the guest's kind does before an index-only search (``wait_index_s``: the
    MCP door waits for the first build, the LSP door does not), done here where the index is."""
    wait = request.get("wait_index_s")
    index = services.index
    if request.get("command") not in INDEX_ONLY or index is None or not isinstance(wait, (int, float)) or wait <= 0:
        return
    deadline = time.monotonic() + float(wait)
    while not index.ready and time.monotonic() < deadline and not token.should_stop():
        if index.status().get("state") == "error":
            return
        index.wait_ready(_INDEX_POLL_S)


def host_answer(result: dict[str, Any]) -> dict[str, Any]:
    """The answer line of a call, naming this process as the engine's."""
    return {"result": result, "host_pid": os.getpid()}
