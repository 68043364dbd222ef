"""A blocking client for one long-lived ``sleuth serve`` process, recording every byte it sends back.

The adversarial tests send hundreds of requests to one server (hypothesis examples, attack
corpora, load rounds), so they drive it from plain threads with the benchmark's client
(``bench/lsp_client.py``: a reader thread that splits frames, a blocking ``request``). This
subclass keeps every message body the server writes (responses, ``$/progress``,
``window/logMessage``, ``window/showMessage``), so a test can assert that a secret appears in
none of them, and its stderr in a file, so a test can assert that no traceback was printed.
"""

from __future__ import annotations

import os
import pathlib
import sys
import threading
import time
from typing import Any

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from lsp_client import LspProcess, Response, RpcError, vscode_capabilities  # noqa: E402

__all__ = ["RecordingServer", "RpcError", "Response", "start_server"]


class RecordingServer(LspProcess):
    """:class:`LspProcess` that keeps every body the server sent, in order."""

    def __init__(self, *args: Any, stderr_path: str, **kwargs: Any) -> None:
        self.bodies: list[bytes] = []
        self._bodies_lock = threading.Lock()
        self.stderr_path = stderr_path
        super().__init__(*args, stderr_path=stderr_path, **kwargs)

    def _dispatch(self, body: bytes, received: float) -> None:
        with self._bodies_lock:
            self.bodies.append(body)
        super()._dispatch(body, received)

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

    def settle(self, timeout: float = 10.0) -> None:
        """Wait until a round trip has passed (notifications sent before it have been read)."""
        self.request("sleuth/debug/workers", {}, timeout)

    def wait_idle(self, timeout: float = 60.0) -> None:
        """Poll until no command worker runs (bounded)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.request("sleuth/debug/workers", {}, timeout).result["running"] == 0:
                return
            time.sleep(0.02)
        raise TimeoutError("workers still running")


def start_server(folders: list[pathlib.Path], tmp: pathlib.Path, init_options: dict[str, Any] | None = None,
                 progress: bool = True) -> RecordingServer:
    """Start and initialize a server on ``folders`` (VS Code's capabilities), index cache under ``tmp``."""
    env = dict(os.environ)
    env.pop("SLEUTH_TEST_COMMANDS", None)
    tmp.mkdir(parents=True, exist_ok=True)
    server = RecordingServer([sys.executable, "-m", "sleuth", "serve"], cwd=str(folders[0]), env=env,
                             stderr_path=str(tmp / "server.stderr"))
    options = {"cacheDir": str(tmp / "cache"), **(init_options or {})}
    uri = folders[0].as_uri()
    params = {"processId": os.getpid(), "rootUri": uri, "capabilities": vscode_capabilities(progress),
              "workspaceFolders": [{"uri": f.as_uri(), "name": f.name} for f in folders],
              "initializationOptions": options}
    server.request("initialize", params, 60)
    server.notify("initialized", {})
    return server
