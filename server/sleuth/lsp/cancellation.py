"""Per-request cancellation: the bridge from LSP's cancel messages to the token the engine polls.

pygls answers ``$/cancelRequest`` by cancelling the request's asyncio future, which neither
reaches a worker thread nor (for ``workspace/executeCommand``) the command's own coroutine.
Every Sleuth invocation therefore registers its :class:`~sleuth.engine.cancel.CancelToken`
here under its JSON-RPC id and, when it reports work-done progress, under that progress
token as well; ``$/cancelRequest`` and ``window/workDoneProgress/cancel`` set the token and
the engine stops at its next poll.
"""

from __future__ import annotations

import threading
from typing import Any, Hashable

from sleuth.engine.cancel import CancelToken

__all__ = ["CancelRegistry"]


class CancelRegistry:
    """Live invocations by request id and by work-done progress token; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_request: dict[Hashable, CancelToken] = {}
        self._by_progress: dict[Hashable, CancelToken] = {}

    def register(self, request_id: Any, token: CancelToken) -> None:
        """Track ``token`` under ``request_id`` (None: an invocation with no id, e.g. internal)."""
        if request_id is None:
            return
        with self._lock:
            self._by_request[_key(request_id)] = token

    def register_progress(self, progress_token: Any, token: CancelToken) -> None:
        """Let ``window/workDoneProgress/cancel`` on ``progress_token`` cancel ``token``."""
        if progress_token is None:
            return
        with self._lock:
            self._by_progress[_key(progress_token)] = token

    def unregister(self, request_id: Any, progress_token: Any = None) -> None:
        with self._lock:
            if request_id is not None:
                self._by_request.pop(_key(request_id), None)
            if progress_token is not None:
                self._by_progress.pop(_key(progress_token), None)

    def cancel_request(self, request_id: Any) -> bool:
        """Cancel the invocation answering ``request_id``; False when no Sleuth invocation owns it."""
        with self._lock:
            token = self._by_request.get(_key(request_id))
        if token is None:
            return False
        token.cancel()
        return True

    def cancel_progress(self, progress_token: Any) -> bool:
        """Cancel the invocation reporting on ``progress_token``; False when unknown."""
        with self._lock:
            token = self._by_progress.get(_key(progress_token))
        if token is None:
            return False
        token.cancel()
        return True

    def cancel_all(self) -> None:
        """Cancel everything still running (shutdown)."""
        with self._lock:
            tokens = list(self._by_request.values()) + list(self._by_progress.values())
        for token in tokens:
            token.cancel()

    def __len__(self) -> int:
        with self._lock:
            return len(self._by_request)


def _key(value: Any) -> Hashable:
    # JSON-RPC ids and progress tokens are int | str; 1 and "1" are different ids.
    return (type(value).__name__, value)
