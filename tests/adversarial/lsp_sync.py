"""A blocking client for one long-lived ``sleuth serve`` process, recording every byte it sends back.

The adversarial tests send hundreds of requests to one server (hypothesis examples, attack
corpora, load rounds), so they drive it from plain threads with the benchmark's client
(``bench/lsp_client.py``: a reader thread that splits frames, a blocking ``request``). This
subclass keeps every message body the server writes (responses, ``$/progress``,
``window/logMessage``, ``window/showMessage``), so a test can assert that a secret appears in
none of them, and its stderr in a file, so a test can assert that no traceback was printed.
"""

from __future__ import annotations

import json
import os
import pathlib
import sys
import threading
import time
from typing import Any

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from lsp_client import LspProcess, Response, RpcError, _Pending, vscode_capabilities  # noqa: E402
from tests.conftest import HANG_S, SLEUTH  # noqa: E402

__all__ = ["RecordingServer", "RpcError", "Response", "start_server"]


class RecordingServer(LspProcess):
    """:class:`LspProcess` that keeps every body the server sent, in order."""

    def __init__(self, *args: Any, stderr_path: str, **kwargs: Any) -> None:
        self.bodies: list[bytes] = []
        self._waiting: dict[int, Any] = {}
        self._bodies_lock = threading.Lock()
        self.stderr_path = stderr_path
        super().__init__(*args, stderr_path=stderr_path, **kwargs)

    def _dispatch(self, body: bytes, received: float) -> None:
        with self._bodies_lock:
            self.bodies.append(body)
        super()._dispatch(body, received)

    def send(self, method: str, params: Any) -> int:
        """Send a request without waiting; its id (answer with :meth:`answer`, cancel with :meth:`cancel`)."""
        msg_id = next(self._ids)
        pending = _Pending()
        with self._lock:
            self._pending[msg_id] = pending
        self._waiting[msg_id] = pending
        pending.sent = self._write({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return msg_id

    def answer(self, msg_id: int, timeout: float) -> dict[str, Any]:
        """The raw response message to :meth:`send`'s request ``msg_id`` (TimeoutError if none came)."""
        pending = self._waiting.pop(msg_id)
        if not pending.event.wait(timeout):
            raise TimeoutError(f"request {msg_id}: no answer in {timeout} s")
        if not pending.body:
            raise EOFError(f"request {msg_id}: the server closed the connection")
        return json.loads(pending.body)

    def cancel(self, msg_id: int) -> None:
        self.notify("$/cancelRequest", {"id": msg_id})

    def response_ids(self) -> list[Any]:
        """The id of every response the server sent, in order (duplicates included)."""
        ids = []
        with self._bodies_lock:
            bodies = list(self.bodies)
        for body in bodies:
            message = json.loads(body)
            if "method" not in message and "id" in message:
                ids.append(message["id"])
        return ids

    def mark(self) -> int:
        """A position in the recorded stream (see :meth:`since`)."""
        with self._bodies_lock:
            return len(self.bodies)

    def since(self, mark: int) -> bytes:
        """Everything the server sent after ``mark``, joined."""
        with self._bodies_lock:
            return b"\n".join(self.bodies[mark:])

    def everything(self) -> bytes:
        return self.since(0)

    def stderr(self) -> str:
        try:
            return pathlib.Path(self.stderr_path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def alive(self) -> bool:
        return self.proc.poll() is None and not self.closed.is_set()

    def settle(self, timeout: float = HANG_S) -> None:
        """Wait until a round trip has passed (notifications sent before it have been read)."""
        self.request("sleuth/debug/workers", {}, timeout)

    def wait_idle(self, timeout: float = HANG_S) -> None:
        """Poll until no command worker runs (bounded)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.request("sleuth/debug/workers", {}, timeout).result["running"] == 0:
                return
            time.sleep(0.02)
        raise TimeoutError("workers still running")


def start_server(folders: list[pathlib.Path], tmp: pathlib.Path, init_options: dict[str, Any] | None = None,
                 progress: bool = True) -> RecordingServer:
    """Start and initialize a server on ``folders`` (VS Code's capabilities), index cache under ``tmp``;"""
    env = dict(os.environ)
    env.pop("SLEUTH_TEST_COMMANDS", None)
    tmp.mkdir(parents=True, exist_ok=True)
    server = RecordingServer([SLEUTH, "serve"], cwd=str(folders[0]), env=env,
                             stderr_path=str(tmp / "server.stderr"))
    options = {"cacheDir": str(tmp / "cache"), **(init_options or {})}
    uri = folders[0].as_uri()
    params = {"processId": os.getpid(), "rootUri": uri, "capabilities": vscode_capabilities(progress),
              "workspaceFolders": [{"uri": f.as_uri(), "name": f.name} for f in folders],
              "initializationOptions": options}
    server.request("initialize", params, HANG_S)
    server.notify("initialized", {})
    return server
