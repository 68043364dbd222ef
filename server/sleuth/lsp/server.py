"""The Sleuth language server: pygls wiring and the state every handler shares.

:class:`SleuthProtocol` changes three of pygls' built-in behaviours, each for a reason:

* ``$/cancelRequest`` first cancels the Sleuth invocation's own token (pygls alone only
  cancels the asyncio future, which neither stops a worker thread nor reaches the command
  behind ``workspace/executeCommand``);
* ``workspace/executeCommand`` goes straight to :meth:`SleuthServer.execute_command` with the
  full params (its ``workDoneToken``) and the request id (for cancellation);
* ``window/workDoneProgress/cancel`` cancels the invocation reporting on that token.

:class:`SleuthServer` wraps one :class:`sleuth.core.session.Session` (the sandbox, the layered
settings, the index, the invocation policy, the warm CLI's door: everything every door shares) and
adds what every LSP handler shares: the open buffers, the cancel registry, and the thread-safe
``post``/``notify`` the progress classes use. The LSP handlers themselves are feature objects
(:mod:`sleuth.lsp.features`), one per concern, each owning its own state; the server holds them
(:meth:`SleuthServer.get_feature`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import itertools
import logging
import os
import sys
import threading
from typing import TYPE_CHECKING, Any, Callable, Generator

import cattrs
from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from lsprotocol import converters
from pygls.exceptions import JsonRpcException, JsonRpcInternalError
from pygls.io_ import StdinAsyncReader, StdoutWriter
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage, MsgId

from sleuth import __version__
from sleuth.commands.args import unwrap_arguments
from sleuth.commands.config import Settings
from sleuth.commands.context import Services
from sleuth.core import message_limits
from sleuth.core.session import Session
from sleuth.engine.workspace import Workspace
from sleuth.lsp import framing, invocation_log, wire
from sleuth.lsp.cancellation import CancelRegistry
from sleuth.lsp.config import session_layers, where_to_set
from sleuth.lsp.documents import OpenBuffers
from sleuth.lsp.invoke import Request, invoke
from sleuth.lsp.progress import WorkDoneReporter

if TYPE_CHECKING:
    from typing import TypeVar

    from sleuth.lsp.features.base import Feature

    F = TypeVar("F", bound=Feature)

__all__ = ["SleuthServer", "SleuthProtocol", "create_server", "converter_factory"]

logger = logging.getLogger(__name__)
CONFIGURED_WAIT_S = 5.0


def converter_factory() -> Any:
    """lsprotocol's converter, keeping the params of non-LSP messages as plain JSON.

    pygls' default turns them into namedtuples, renaming keys that are not identifiers and
    dropping a ``type_name`` key; named arguments must reach the commands exactly as sent
    (an unknown key is reported by its real name). Command results (``executeCommand`` and the
    ``sleuth/*`` requests) are plain JSON already, so their responses skip the converter's walk
    over the result: for a 2,161-match grep answer (423 KB) that walk cost 11.6 ms of 16.
    """
    converter = converters.get_converter()

    def keep_params(obj: dict[str, Any], cls: type) -> Any:
        return cls(**obj)

    for message_type in (JsonRPCRequestMessage, JsonRPCNotification, JsonRPCResponseMessage):
        converter.register_structure_hook(message_type, keep_params)

    def plain_result(response: Any) -> dict[str, Any]:
        result = response.result
        if not isinstance(result, (dict, list, str, int, float, bool, type(None))):
            result = converter.unstructure(result)  # an lsprotocol object: the converter's job
        return {"id": response.id, "jsonrpc": response.jsonrpc, "result": result}

    for message_type in (types.ExecuteCommandResponse, JsonRPCResponseMessage):
        converter.register_unstructure_hook(message_type, plain_result)
    return converter


class SleuthProtocol(LanguageServerProtocol):
    """pygls' LSP protocol with cancellation that reaches the work."""

    _server: "SleuthServer"

    def _send_data(self, data: Any) -> None:
        """pygls' own, encoding with orjson (:mod:`sleuth.lsp.wire`) when it can; pygls' path otherwise."""
        body = wire.dumps(data, self._serialize_message) if data and self.writer is not None else None
        if body is None:
            super()._send_data(data)
            return
        try:
            res = self.writer.write(wire.frame(body, self.CONTENT_TYPE, self.CHARSET) if self._include_headers
                                    else body)
            if inspect.isawaitable(res):
                asyncio.ensure_future(res)
        except BrokenPipeError:
            logger.exception("Error sending data. BrokenPipeError", exc_info=True)
            raise
        except Exception as error:  # as pygls: report the failure to the client, keep serving
            logger.exception("Error sending data", exc_info=True)
            self._server._report_server_error(error, JsonRpcInternalError)

    # -- messages that pygls would drop without an answer ------------------------------------
    def receive(self, body: bytes) -> bool:
        """One framed message body (:mod:`sleuth.lsp.framing`): decoded and handled, or refused — never
        left unanswered: not JSON is a parse error (-32700, id null; returns False, so the caller can
        check whether it swallowed the next header), a message nested too deep InvalidRequest (-32600)
        with its id when one is found (:mod:`sleuth.core.message_limits`)."""
        try:
            message = message_limits.decode(body)
        except message_limits.Refusal as refusal:
            self.refuse(refusal)
            return refusal.code != message_limits.PARSE_ERROR
        self.handle_message(message)
        return True

    def refuse(self, refusal: message_limits.Refusal) -> None:
        """Answer a message that was not decoded."""
        self._refuse(refusal.id, refusal.code, refusal.message)

    def structure_message(self, data: dict[str, Any]) -> Any:
        """Every transport's ``json.loads(..., object_hook=structure_message)`` calls this for every
        object of a message, nested ones first: pygls structured any nested object holding a
        ``"jsonrpc"`` key as a message of its own (``"arguments": [{"jsonrpc": "x"}]``), and the request
        was never answered. Objects stay plain here; :meth:`handle_message` structures the message
        itself, once, at the top."""
        return data

    def _structure(self, data: dict[str, Any]) -> Any:
        """pygls' decoding of one whole message; a request whose params have the wrong type
        (``"arguments": 5``) becomes a :class:`_Refused` that :meth:`handle_message` answers with
        InvalidParams (pygls raised, the request id was lost, and the client waited forever)."""
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if "method" in data and "id" in data:
                reason = exc.__cause__ or exc
                return _Refused(message_limits.request_id(data["id"]), exc.code,
                                f"Invalid params for {data['method']}: {_first_line(reason)}")
            raise

    def handle_message(self, message: Any) -> None:
        """pygls' dispatch, answering what it would only log: undecodable params (InvalidParams), a
        message that is not a JSON-RPC 2.0 object (InvalidRequest) and any request after ``shutdown``
        (InvalidRequest, as the LSP specification says)."""
        if isinstance(message, dict) and "jsonrpc" in message:
            try:
                message = self._structure(message)
            except JsonRpcException:  # a notification pygls cannot decode: nobody waits for an answer
                logger.warning("dropped an undecodable notification %r", str(message.get("method"))[:100])
                return
        if isinstance(message, _Refused):
            self._refuse(message.id, message.code, message.message)
            return
        if not hasattr(message, "jsonrpc") or getattr(message, "jsonrpc", None) != self.VERSION:
            raw_id = message.get("id") if isinstance(message, dict) else getattr(message, "id", None)
            self._refuse(message_limits.request_id(raw_id), InvalidRequest, "Not a JSON-RPC 2.0 message (an object with "
                         '"jsonrpc": "2.0" and a "method" or a response "id").')
            return
        method = getattr(message, "method", None)
        if self._shutdown and method is not None and method != types.EXIT and hasattr(message, "id"):
            self._refuse(message.id, InvalidRequest, f"{method}: the server is shutting down (shutdown was "
                         "received); only the exit notification is accepted now.")
            return
        super().handle_message(message)

    def _refuse(self, msg_id: MsgId | None, code: int, message: str) -> None:
        """An error response as plain JSON: ``id`` stays ``null`` when unknown (lsprotocol's
        converter would leave the member out, which JSON-RPC does not allow)."""
        logger.warning("answered %s: %s", code, message)
        self._send_data({"jsonrpc": self.VERSION, "id": msg_id, "error": {"code": code, "message": message}})

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args: Any) -> Generator[Any, Any, None]:
        """pygls' exit raises SystemExit(0 or 1), which its stdio loop swallows: the process always
        exited 0. The status is kept on the server for :func:`sleuth.lsp.main.run` to return."""
        self._server.exit_code = 0 if self._shutdown else 1
        yield from super().lsp_exit(*args)

    def _handle_cancel_notification(self, msg_id: MsgId) -> None:
        if self._server.cancels.cancel_request(msg_id):
            return  # the invocation answers RequestCancelled once its worker stopped
        super()._handle_cancel_notification(msg_id)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Generator[Any, Any, types.InitializeResult]:
        """pygls' initialize, plus what its capability builder cannot say: commands report
        progress, and which custom requests exist (``experimental.sleuth``)."""
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        capabilities = result.capabilities
        if capabilities.execute_command_provider is not None:
            capabilities.execute_command_provider.work_done_progress = True
        from sleuth.lsp.features.requests import RequestsFeature

        requests = self._server.get_feature(RequestsFeature).methods
        capabilities.experimental = {"sleuth": {"requests": sorted(requests),
                                                "partialResults": True, "workDoneProgress": True}}
        return result

    @lsp_method(types.WORKSPACE_EXECUTE_COMMAND)
    async def lsp_workspace__execute_command(self, params: types.ExecuteCommandParams) -> Any:
        return await self._server.execute_command(params, self.msg_id)

    @lsp_method(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def lsp_work_done_progress_cancel(self, params: types.WorkDoneProgressCancelParams) -> None:
        if not self._server.cancels.cancel_progress(params.token):
            logger.debug("workDoneProgress/cancel for unknown token %r", params.token)


InvalidRequest = message_limits.INVALID_REQUEST


@dataclasses.dataclass(frozen=True)
class _Refused:
    """A request pygls could not decode: answered with ``code`` (see SleuthProtocol.structure_message)."""

    id: MsgId | None
    code: int
    message: str


def _first_line(error: BaseException) -> str:
    """What was wrong, in cattrs' words where it can say where (``... @ $.params.arguments``)."""
    if isinstance(error, cattrs.BaseValidationError):
        return "; ".join(cattrs.transform_error(error))[:300]
    text = str(error).strip().splitlines()
    return text[0][:300] if text else type(error).__name__


class SleuthServer(LanguageServer):
    """Shared state of one connection; see the module docstring."""

    protocol: SleuthProtocol

    def __init__(self) -> None:
        super().__init__("sleuth", __version__, protocol_cls=SleuthProtocol, converter_factory=converter_factory,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.cancels = CancelRegistry()
        self.buffers = OpenBuffers()
        self.session = Session(layers=session_layers(), where=where_to_set())
        self.session.problem_hooks.append(self._show_problem)
        self.session.log_sinks.append(self._log_line)
        self.features: dict[type[Feature], Feature] = {}  # (sleuth.lsp.features.setup_all)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.configured = asyncio.Event()  # set once `initialized` applied every configuration layer
        self._progress_ids = itertools.count(1)
        self.exit_code = 0  # the process status: 1 after `exit` without `shutdown` or broken framing

    # -- the stdio transport --------------------------------------------------------------------
    def start_io(self, stdin: Any = None, stdout: Any = None) -> None:  # type: ignore[override]
        """pygls' stdio server with Sleuth's reader (:mod:`sleuth.lsp.framing`): lenient where the
        framing is unambiguous, and exiting with status 1 (said on stderr) where it cannot resynchronise."""
        self._stop_event = threading.Event()
        reader = StdinAsyncReader(stdin or sys.stdin.buffer, self.thread_pool)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(self.serve_stream(reader))
        except BrokenPipeError:
            logger.error("the connection to the client is lost; shutting down")
            self.exit_code = 1
        except (KeyboardInterrupt, SystemExit):
            pass  # `exit` raises SystemExit; its status is in self.exit_code
        finally:
            self.shutdown()

    async def serve_stream(self, reader: framing.AsyncReader) -> None:
        """Read and handle messages until the input ends or its framing breaks (stdio and TCP alike)."""
        assert self._stop_event is not None
        while not self._stop_event.is_set():
            try:
                body = await framing.read_body(reader)
            except framing.TooLarge as large:
                self.protocol.refuse(message_limits.too_large(large.size, large.head))
                continue
            except framing.FramingError as exc:
                logger.error("unreadable LSP framing on the input, cannot resynchronise: %s; exiting "
                             "with status 1 so that the client can restart the server", exc)
                self.exit_code = 1
                return
            if body is None:  # the client closed the input: the connection is over
                return
            if not self.protocol.receive(body) and framing.holds_header(body):
                logger.error("a message body that is not JSON holds the next message's header (a Content-Length "
                             "larger than its message?): cannot resynchronise; exiting with status 1")
                self.exit_code = 1
                return

    # -- client capabilities ----------------------------------------------------------------
    def _capability(self, *path: str) -> Any:
        value: Any = getattr(self.protocol, "client_capabilities", None)
        for name in path:
            value = getattr(value, name, None)
            if value is None:
                return None
        return value

    @property
    def client_supports_progress(self) -> bool:
        return bool(self._capability("window", "work_done_progress"))

    @property
    def client_supports_configuration(self) -> bool:
        return bool(self._capability("workspace", "configuration"))

    @property
    def client_supports_watcher_registration(self) -> bool:
        return bool(self._capability("workspace", "did_change_watched_files", "dynamic_registration"))

    # -- thread-safe messaging ----------------------------------------------------------------
    def post(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` on the event loop (from any thread), after everything posted before it."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(callback)
        except RuntimeError:  # the loop closed meanwhile: the connection is gone, nothing to tell
            pass

    def notify(self, method: str, params: Any) -> None:
        """Send a notification; loop thread only (use :meth:`post` from workers)."""
        self.protocol.notify(method, params)

    def new_progress_token(self) -> str:
        return f"sleuth-progress-{os.getpid()}-{next(self._progress_ids)}"

    def create_progress(self, reporter: WorkDoneReporter) -> None:
        """Ask the client to create ``reporter.token``; reporting starts when it agrees."""
        future = self.protocol.send_request(
            types.WINDOW_WORK_DONE_PROGRESS_CREATE, types.WorkDoneProgressCreateParams(token=reporter.token))

        def done(fut: Any) -> None:
            if not fut.cancelled() and fut.exception() is None:
                self.post(reporter.created)

        future.add_done_callback(done)

    # -- the session's state, as handlers read it -------------------------------------------
    @property
    def settings(self) -> Settings:
        return self.session.settings

    @property
    def sandbox(self) -> Workspace:
        return self.session.workspace

    @property
    def services(self) -> Services:
        return self.session.services

    # -- the features ----------------------------------------------------------------------------
    def add_feature(self, feature: Feature) -> None:
        """Hold ``feature`` and let it register its handlers."""
        self.features[type(feature)] = feature
        feature.register()

    def get_feature(self, kind: type[F]) -> F:
        """The feature of class ``kind`` (esbonio's ``get_feature``)."""
        return self.features[kind]  # type: ignore[return-value]

    def _show_problem(self, problem: str) -> None:
        self.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=f"Sleuth: {problem}"))

    def _log_line(self, severity: int, line: str) -> None:
        """The invocation's log line as ``window/logMessage``; posted, as it may come from the warm
        CLI's thread (and so that it follows the request's progress end, as before its response)."""
        message = types.LogMessageParams(type=invocation_log.message_type(severity), message=line)
        self.post(lambda: self.window_log_message(message))

    # -- invocations --------------------------------------------------------------------------
    async def execute_command(self, params: types.ExecuteCommandParams, request_id: MsgId | None) -> Any:
        """``workspace/executeCommand``: ``arguments`` is ``[ {named args} ]`` (or absent)."""
        return await self.run_command(Request(params.command, unwrap_arguments(params.arguments), request_id,
                                              params.work_done_token))

    async def run_command(self, request: Request) -> Any:
        await self.wait_configured()
        return await invoke(self, request)

    async def wait_configured(self) -> None:
        """Wait while the client's configuration is being (re)read, so a command uses it."""
        if self.loop is None:
            self.loop = asyncio.get_running_loop()
        if not self.configured.is_set():
            try:
                await asyncio.wait_for(self.configured.wait(), CONFIGURED_WAIT_S)
            except asyncio.TimeoutError:
                pass  # a client that never sends `initialized` is served with what we have

    def shutdown(self) -> None:  # pygls: called when the connection ends
        self.cancels.cancel_all()
        self.session.close()
        super().shutdown()


def create_server() -> SleuthServer:
    """A server with every feature registered (one per call: tests may start several)."""
    from sleuth.lsp.features import setup_all

    server = SleuthServer()
    setup_all(server)
    return server
