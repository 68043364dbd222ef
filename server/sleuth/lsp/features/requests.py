"""The command surface: ``workspace/executeCommand`` names and the custom ``sleuth/*`` requests.

Custom requests take the command's named arguments as params plus LSP's ``workDoneToken``
and ``partialResultToken``. ``sleuth/debug/workers`` answers on the event loop itself (no
worker) with the activity counters: how many command workers run right now, how many were
started, finished and cancelled — the observable proof that a cancel stopped the work.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sleuth.commands.args import unwrap_arguments
from sleuth.lsp.features.base import Feature
from sleuth.lsp.invoke import Request
from sleuth.searches import SEARCHES

if TYPE_CHECKING:
    from sleuth.lsp.features.index import IndexFeature
    from sleuth.lsp.server import SleuthServer

__all__ = ["RequestsFeature", "CUSTOM_REQUESTS", "DEBUG_WORKERS"]

CUSTOM_REQUESTS: dict[str, str] = {search.request: search.command for search in SEARCHES}
DEBUG_WORKERS = "sleuth/debug/workers"


def _split(params: Any) -> tuple[Any, Any, Any]:
    """(named args, workDoneToken, partialResultToken) of a custom request's params."""
    if params is None:
        return {}, None, None
    if not isinstance(params, dict):
        return params, None, None
    args = dict(params)
    return args, args.pop("workDoneToken", None), args.pop("partialResultToken", None)


class RequestsFeature(Feature):
    """Every command as ``workspace/executeCommand`` and as its custom request. Owns ``methods``: the
    custom requests it registered, which the ``initialize`` answer advertises (``experimental.sleuth``)."""

    def __init__(self, server: "SleuthServer", index: "IndexFeature") -> None:
        super().__init__(server)
        self.index = index  # (its count of file-change events, for sleuth/debug/workers)
        self.methods: set[str] = set()

    def register(self) -> None:
        server = self.server
        for name in server.session.names:
            _advertise(server, name)
        requests = dict(CUSTOM_REQUESTS)
        for name in server.session.extra:  # test hook commands get a request form too
            requests.setdefault(name.replace(".", "/"), name)
        for method, command in requests.items():
            _custom_request(server, method, command)
            self.methods.add(method)
        self.on(DEBUG_WORKERS, self.debug_workers)

    async def debug_workers(self, params: Any) -> dict[str, Any]:
        ls = self.server
        await ls.wait_configured()
        return {**ls.session.activity.as_dict(), "open_buffers": len(ls.buffers),
                "watched_events": self.index.watched_events, "index": ls.services.index is not None,
                "folders": [root.path for root in ls.sandbox.roots]}


def _advertise(server: "SleuthServer", name: str) -> None:
    """Register ``name`` with pygls so ``executeCommandProvider`` lists it.

    :class:`~sleuth.lsp.server.SleuthProtocol` routes ``workspace/executeCommand`` itself;
    this handler is the same route for code that calls pygls' command table directly.
    """

    async def command(ls: "SleuthServer", *arguments: Any) -> Any:
        return await ls.run_command(Request(name, unwrap_arguments(arguments), ls.protocol.msg_id))

    server.command(name)(command)


def _custom_request(server: "SleuthServer", method: str, command: str) -> None:
    async def handler(ls: "SleuthServer", params: Any) -> Any:
        args, work_done, partial = _split(params)
        return await ls.run_command(Request(command, args, ls.protocol.msg_id, work_done, partial))

    server.feature(method)(handler)
