"""A minimal LSP client over a child process's stdio, for benchmarks: framing, ids, server requests.

Why not pygls' client: a benchmark should time the server, not an asyncio client stack. This one is
a reader thread that splits ``Content-Length`` frames and a blocking :meth:`LspProcess.request`.
Each response is stamped when its last byte has been read, *before* the JSON is decoded, so a
round trip (:attr:`Response.seconds`) is: encode + write the request, the server's whole handling
(parse, dispatch, command, serialise, write), and reading the bytes back. Decoding the answer is
client work and is left out (it is timed separately as :attr:`Response.decode_seconds`).

Requests from the server are answered at once the way VS Code answers them:
``window/workDoneProgress/create`` and ``client/registerCapability`` with ``null``,
``workspace/configuration`` with one ``null`` per item (no client-side settings). Notifications
are counted; ``window/logMessage`` lines are kept (Sleuth logs each invocation's server-side time
there) and ``$/progress`` values are kept per token.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

__all__ = ["LspProcess", "Response", "RpcError", "descendants", "inotify_instances", "peak_rss_mb", "vscode_capabilities"]


SLEUTH = str(Path(sys.executable).with_name("sleuth"))
"""The installed ``sleuth`` command, as editors and hosts start it (not ``python -m sleuth``)."""

class RpcError(Exception):
    """A JSON-RPC error answer (``code``, ``message``, ``data``)."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.code = error.get("code")
        self.data = error.get("data")


@dataclass
class Response:
    """One answered request: the decoded result and when its bytes were sent and received."""

    result: Any
    seconds: float  # request written -> last byte of the answer read
    decode_seconds: float
    size: int  # bytes of the answer's body


@dataclass
class _Pending:
    event: threading.Event = field(default_factory=threading.Event)
    sent: float = 0.0
    received: float = 0.0
    body: bytes = b""


def vscode_capabilities(progress: bool = True) -> dict[str, Any]:
    """The parts of VS Code's client capabilities Sleuth looks at (and a few it does not);
    ``progress=False`` leaves out ``window.workDoneProgress`` (the server then reports none)."""
    return {
        "general": {"positionEncodings": ["utf-16"], "staleRequestSupport": {"cancel": True, "retryOnContentModified": []}},
        "window": {"workDoneProgress": progress, "showMessage": {"messageActionItem": {"additionalPropertiesSupport": True}},
                   "showDocument": {"support": True}},
        "workspace": {
            "applyEdit": True, "workspaceFolders": True, "configuration": True,
            "didChangeConfiguration": {"dynamicRegistration": True},
            "didChangeWatchedFiles": {"dynamicRegistration": True, "relativePatternSupport": True},
            "executeCommand": {"dynamicRegistration": True},
            "symbol": {"dynamicRegistration": True},
        },
        "textDocument": {"synchronization": {"dynamicRegistration": True, "willSave": True, "willSaveWaitUntil": True,
                                             "didSave": True}},
    }


class LspProcess:
    """One server process (``argv``) spoken to over stdin/stdout; its stderr goes to ``stderr_path``."""

    def __init__(self, argv: list[str], *, cwd: str | None = None, env: dict[str, str] | None = None,
                 stderr_path: str = os.devnull) -> None:
        self._stderr = open(stderr_path, "ab")  # noqa: SIM115 - open for the process's lifetime, closed by close()
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                                     cwd=cwd, env=env, bufsize=0)
        self.pid = self.proc.pid
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._write_lock = threading.Lock()
        self._lock = threading.Lock()
        self.log_messages: list[str] = []
        self.progress: dict[Any, list[Any]] = {}
        self.progress_times: list[tuple[float, Any, Any]] = []  # (perf_counter, token, value) as read
        self.notifications = 0
        self.server_requests: dict[str, int] = {}
        self.closed = threading.Event()
        self._reader = threading.Thread(target=self._read_loop, name="lsp-bench-reader", daemon=True)
        self._reader.start()

    # -- writing -------------------------------------------------------------------------------
    def _write(self, message: dict[str, Any]) -> float:
        body = json.dumps(message, separators=(",", ":")).encode("utf-8")
        frame = b"Content-Length: %d\r\n\r\n" % len(body) + body
        stdin = self.proc.stdin
        assert stdin is not None
        with self._write_lock:
            sent = time.perf_counter()
            stdin.write(frame)
            stdin.flush()
        return sent

    def notify(self, method: str, params: Any = None) -> None:
        self._write({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: Any = None, timeout: float = 300.0) -> Response:
        """Send and wait; raises :class:`RpcError` for an error answer, TimeoutError, or EOFError if the server died."""
        msg_id = next(self._ids)
        pending = _Pending()
        with self._lock:
            self._pending[msg_id] = pending
        pending.sent = self._write({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        if not pending.event.wait(timeout):
            raise TimeoutError(f"{method}: no answer in {timeout} s")
        if not pending.body:
            raise EOFError(f"{method}: the server closed the connection")
        started = time.perf_counter()
        message = json.loads(pending.body)
        decode = time.perf_counter() - started
        if "error" in message:
            raise RpcError(message["error"])
        return Response(message.get("result"), pending.received - pending.sent, decode, len(pending.body))

    def execute(self, command: str, args: dict[str, Any] | None = None, timeout: float = 300.0) -> Response:
        """``workspace/executeCommand`` with Sleuth's ``arguments: [ {named args} ]``."""
        return self.request("workspace/executeCommand", {"command": command, "arguments": [args or {}]}, timeout)

    # -- reading -------------------------------------------------------------------------------
    def _read_loop(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        reader: IO[bytes] = os.fdopen(stdout.fileno(), "rb", buffering=1 << 16, closefd=False)
        try:
            while True:
                length = -1
                while True:
                    line = reader.readline()
                    if not line:
                        return
                    line = line.strip()
                    if not line:
                        break
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                if length < 0:
                    continue
                body = reader.read(length)
                received = time.perf_counter()
                if len(body) < length:
                    return
                self._dispatch(body, received)
        finally:
            self.closed.set()
            with self._lock:
                for pending in self._pending.values():
                    pending.event.set()

    def _dispatch(self, body: bytes, received: float) -> None:
        # Responses carry "id" and no "method"; peeking at the bytes avoids decoding big answers here.
        head = body[:200]
        if b'"method"' not in head and b'"id"' in head:
            message_id = _response_id(body)
            with self._lock:
                pending = self._pending.pop(message_id, None) if message_id is not None else None
            if pending is not None:
                pending.body, pending.received = body, received
                pending.event.set()
                return
        message = json.loads(body)
        method = message.get("method")
        if method is None:  # a response whose id was not at the front
            with self._lock:
                pending = self._pending.pop(message.get("id"), None)
            if pending is not None:
                pending.body, pending.received = body, received
                pending.event.set()
            return
        if "id" in message:  # a request from the server
            self.server_requests[method] = self.server_requests.get(method, 0) + 1
            result: Any = None
            if method == "workspace/configuration":
                result = [None for _ in (message.get("params") or {}).get("items", [])]
            self._write({"jsonrpc": "2.0", "id": message["id"], "result": result})
            return
        self.notifications += 1
        params = message.get("params") or {}
        if method == "window/logMessage":
            self.log_messages.append(str(params.get("message", "")))
        elif method == "$/progress":
            self.progress.setdefault(params.get("token"), []).append(params.get("value"))
            self.progress_times.append((received, params.get("token"), params.get("value")))

    # -- lifecycle -----------------------------------------------------------------------------
    def close(self, timeout: float = 30.0) -> int | None:
        """``shutdown`` + ``exit``, then wait (kill after ``timeout``); the exit code."""
        try:
            if self.proc.poll() is None:
                self.request("shutdown", None, timeout)
                self.notify("exit")
        except (OSError, TimeoutError, EOFError, RpcError):
            pass
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        self._stderr.close()
        return code


def _response_id(body: bytes) -> int | None:
    """The integer ``id`` of a response (pygls writes it before ``result``); None if not found up front."""
    at = body.find(b'"id":', 0, 200)
    if at < 0:
        return None
    digits = bytearray()
    for byte in body[at + 5:at + 40]:
        if chr(byte).isdigit():
            digits.append(byte)
        elif digits or chr(byte) not in " ":
            break
    return int(digits) if digits else None


def peak_rss_mb(pid: int) -> float | None:
    """``VmHWM`` (peak resident set) of a live process, in MB; None when it is gone."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


def inotify_instances(*pids: int) -> int:
    """inotify instances the processes ``pids`` hold (their ``anon_inode:inotify`` descriptors): one per
    file watcher; a process gone counts 0."""
    count = 0
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                count += os.readlink(f"/proc/{pid}/fd/{fd}") == "anon_inode:inotify"
            except OSError:
                pass
    return count


def descendants(pid: int) -> list[int]:
    """Every live descendant of ``pid`` (Linux ``/proc/<pid>/task/*/children``)."""
    out: list[int] = []
    todo = [pid]
    while todo:
        current = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{current}/task/{task}/children") as handle:
                    children = [int(c) for c in handle.read().split()]
            except OSError:
                continue
            out.extend(children)
            todo.extend(children)
    return out
