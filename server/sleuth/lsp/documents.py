"""Open editor buffers: absolute path -> unsaved text, for ``use_open_buffers`` (docs/SPEC.md §4).

pygls applies ``didOpen`` / ``didChange`` (incremental, with the negotiated position
encoding) / ``didClose`` to its own document store; the handlers in
:mod:`sleuth.lsp.features.documents` copy the resulting text here, keyed by the canonical
file path the engine walks. Every invocation gets an immutable snapshot, so a search sees
one consistent state of the buffers however the user keeps typing.
"""

from __future__ import annotations

import logging
import threading
from types import MappingProxyType
from typing import Callable, Mapping

from pygls.uris import to_fs_path

from sleuth.engine.workspace import canonicalize

__all__ = ["OpenBuffers", "uri_to_path"]

logger = logging.getLogger(__name__)


def uri_to_path(uri: str) -> str | None:
    """The canonical file path of a ``file:`` URI; None for other schemes (untitled:, git:)."""
    if not uri.startswith("file:"):
        return None
    path = to_fs_path(uri)
    return canonicalize(path) if path else None


class OpenBuffers:
    """The texts of open documents; written on the loop, read (as snapshots) by workers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._texts: dict[str, str] = {}
        self._snapshot: Mapping[str, str] = MappingProxyType({})
        self.listeners: list[Callable[[str, str | None], None]] = []  # (path, text or None when closed)

    def set(self, uri: str, text: str) -> str | None:
        path = uri_to_path(uri)
        if path is None:
            return None
        with self._lock:
            self._texts[path] = text
            self._snapshot = MappingProxyType(dict(self._texts))
        self._notify(path, text)
        return path

    def close(self, uri: str) -> str | None:
        path = uri_to_path(uri)
        if path is None:
            return None
        with self._lock:
            if self._texts.pop(path, None) is None:
                return path
            self._snapshot = MappingProxyType(dict(self._texts))
        self._notify(path, None)
        return path

    def snapshot(self) -> Mapping[str, str]:
        """A read-only view that later edits do not change."""
        return self._snapshot

    def __len__(self) -> int:
        return len(self._snapshot)

    def _notify(self, path: str, text: str | None) -> None:
        for listener in list(self.listeners):
            try:
                listener(path, text)
            except Exception:  # a listener (the index) must not break document sync
                logger.exception("open-buffer listener failed for %s", path)
