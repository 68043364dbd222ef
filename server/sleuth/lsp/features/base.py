"""The shape of an LSP feature (esbonio's ``LanguageFeature``): an object that owns the state only it
uses and puts its handlers, bound methods, on the server in :meth:`Feature.register`.

The server holds its features and finds one by its class (:meth:`sleuth.lsp.server.SleuthServer.get_feature`);
a feature that needs another takes it in its constructor (:func:`sleuth.lsp.features.setup_all` wires them).
State every feature shares (the session, the open buffers, the cancel registry) stays on the server.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from sleuth.lsp.server import SleuthServer

__all__ = ["Feature"]


class Feature:
    """One concern's handlers and its own state."""

    def __init__(self, server: "SleuthServer") -> None:
        self.server = server

    def register(self) -> None:
        """Put this feature's handlers on the server (once, before the connection starts)."""
        raise NotImplementedError

    def on(self, method: str, handler: Callable[[Any], Any], options: Any = None) -> None:
        """Register ``handler`` (a bound method taking the params) for ``method``. pygls marks each
        function it registers with attributes, which a bound method cannot carry: it gets a function
        of its own."""
        if inspect.iscoroutinefunction(handler):
            async def run_async(params: Any) -> Any:
                return await handler(params)

            self.server.feature(method, options)(run_async)
        else:
            def run(params: Any) -> Any:
                return handler(params)

            self.server.feature(method, options)(run)
