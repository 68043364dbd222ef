"""The TCP and WebSocket doors of ``sleuth serve``: loopback by default, the person's secret, no foreign page.

Over a socket the client is whoever connects first, and the client names the sandbox
(``initialize``'s workspace folders): without a check, any local user (TCP) or any web page the
person visits (WebSocket: browsers let a page's script open ``ws://127.0.0.1``) could search
``/etc``. So, before a single LSP message is read:

* **a secret**: a token in a file only the person can read (:func:`load_or_create_token`,
  ``0600`` in a ``0700`` folder; ``--token-file`` chooses it). WebSocket: ``Authorization:
  Bearer TOKEN`` in the handshake, or ``?token=TOKEN`` in the URL (a browser cannot set headers);
  TCP: a ``Sleuth-Token: TOKEN`` header in the first header block (a block of its own,
  ``Sleuth-Token: TOKEN\\r\\n\\r\\n``, or next to the first message's ``Content-Length``);
* **WebSocket, DNS rebinding and foreign pages** (as the MCP SDK's ``TransportSecuritySettings``
  does for HTTP): a ``Host`` that is not the loopback name the server listens on is refused
  (421), and so is a browser ``Origin`` not given with ``--allow-origin`` (403); a client that
  sends no ``Origin`` is not a browser page;
* **one client**: a second connection while one is served is closed.

A refused connection is closed (WebSocket: an HTTP error before the upgrade) and the server
keeps listening; after the person's client disconnects, the server ends as before. pygls'
``start_tcp``/``start_ws`` are replaced, not patched: an admitted connection's messages go through
the same reading as stdio's (:meth:`SleuthServer.serve_stream` over TCP, :meth:`SleuthProtocol.receive`
per WebSocket message), so a message too deep or not JSON is answered there too (pygls' loops
logged it and answered nothing).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import sys
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Awaitable, Callable
from urllib.parse import parse_qs, urlsplit

from pygls.io_ import WebSocketWriter

from sleuth.core.secret import default_token_path, is_loopback, load_or_create_token

if TYPE_CHECKING:
    from sleuth.lsp.server import SleuthServer

__all__ = ["Door", "default_token_path", "load_or_create_token", "is_loopback", "serve_tcp", "serve_ws",
           "TOKEN_HEADER"]

logger = logging.getLogger(__name__)

TOKEN_HEADER = "sleuth-token"
HANDSHAKE_TIMEOUT_S = 10.0  # a TCP client that sends no header block in time is dropped
MAX_HEADER_LINE = 8192
MAX_HEADER_LINES = 32


@dataclass
class Door:
    """What a connection must show to be served."""

    token: str
    host: str
    port: int
    allowed_origins: tuple[str, ...] = ()
    busy: bool = field(default=False, init=False)  # one client at a time

    def token_ok(self, presented: str | None) -> bool:
        return presented is not None and hmac.compare_digest(presented.encode(), self.token.encode())

    def origin_ok(self, origin: str | None) -> bool:
        """No ``Origin``: not a browser page. Otherwise only an origin the person allowed (case-insensitive)."""
        return origin is None or origin.lower() in {o.lower() for o in self.allowed_origins}

    def host_ok(self, host_header: str | None) -> bool:
        """A loopback listener answers only to a loopback ``Host`` (DNS rebinding: evil.example -> 127.0.0.1)."""
        if not is_loopback(self.host):
            return True
        if not host_header:
            return False
        name = urlsplit("//" + host_header).hostname or ""
        return name == "localhost" or is_loopback(name)




# -- TCP -----------------------------------------------------------------------------------------

class _Replay:
    """The reader pygls' loop reads from: the header lines Sleuth already read, then the socket."""

    def __init__(self, lines: list[bytes], reader: asyncio.StreamReader) -> None:
        self.lines = lines
        self.reader = reader

    async def readline(self) -> bytes:
        return self.lines.pop(0) if self.lines else await self.reader.readline()

    async def readexactly(self, n: int) -> bytes:
        return await self.reader.readexactly(n)


async def _first_header_block(reader: asyncio.StreamReader) -> list[bytes]:
    """The lines of the first header block, its blank line included; ValueError when malformed."""
    lines: list[bytes] = []
    while len(lines) < MAX_HEADER_LINES:
        line = await reader.readline()
        if not line or len(line) > MAX_HEADER_LINE:
            raise ValueError("no header block")
        lines.append(line)
        if not line.strip():
            return lines
    raise ValueError("header block too long")


def _token_of(lines: list[bytes]) -> str | None:
    for line in lines:
        name, sep, value = line.decode("latin-1").partition(":")
        if sep and name.strip().lower() == TOKEN_HEADER:
            return value.strip()
    return None


def serve_tcp(server: "SleuthServer", door: Door) -> None:
    """Listen on ``door.host:door.port``; serve the first connection that shows the token."""
    server._stop_event = threading.Event()

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if door.busy:
            writer.close()
            return
        try:
            lines = await asyncio.wait_for(_first_header_block(reader), HANDSHAKE_TIMEOUT_S)
        except (ValueError, asyncio.TimeoutError, asyncio.IncompleteReadError, ConnectionError):
            lines = []
        if door.busy or not door.token_ok(_token_of(lines)):
            logger.warning("refused a TCP connection from %s: no valid %s header", writer.get_extra_info("peername"),
                           TOKEN_HEADER)
            writer.close()
            return
        door.busy = True
        server.protocol.set_writer(writer)  # type: ignore[arg-type]
        kept = [line for line in lines if not line.decode("latin-1").lower().startswith(TOKEN_HEADER)]
        if not any(line.strip() for line in kept):
            kept = []  # the token came in a block of its own
        await server.serve_stream(_Replay(kept, reader))
        server.shutdown()

    _serve_forever(server, lambda: asyncio.start_server(connection, door.host, door.port))


# -- WebSocket -----------------------------------------------------------------------------------

def serve_ws(server: "SleuthServer", door: Door) -> None:
    """Listen for WebSocket clients; refuse a handshake without the token, from a foreign page or Host."""
    from websockets.asyncio.server import serve

    stop_event = server._stop_event = threading.Event()

    def check(connection: Any, request: Any) -> Any:
        headers = request.headers
        hosts, origins, auths = (headers.get_all(name) for name in ("Host", "Origin", "Authorization"))
        if len(hosts) != 1 or not door.host_ok(hosts[0]):
            return connection.respond(421, "Sleuth: this server answers to a loopback Host only.\n")
        if len(origins) > 1 or not door.origin_ok(origins[0] if origins else None):
            logger.warning("refused a WebSocket handshake from Origin %r (allow it with --allow-origin)", origins)
            return connection.respond(403, "Sleuth: Origin not allowed; start the server with --allow-origin.\n")
        auth = auths[0] if len(auths) == 1 else ""
        presented = auth[7:].strip() if auth[:7].lower() == "bearer " else None
        if presented is None:
            presented = (parse_qs(urlsplit(request.path).query).get("token") or [None])[0]
        if not door.token_ok(presented):
            return connection.respond(401, "Sleuth: a token is required (Authorization: Bearer, or ?token=).\n")
        if door.busy:
            return connection.respond(409, "Sleuth: this server already has its client.\n")
        return None

    async def connection(websocket: Any) -> None:
        door.busy = True
        await _serve_websocket(server, websocket, stop_event)
        server.shutdown()

    _serve_forever(server, lambda: serve(connection, door.host, door.port, process_request=check))


async def _serve_websocket(server: "SleuthServer", websocket: Any, stop_event: threading.Event) -> None:
    """pygls' ``run_websocket`` loop, each message read by :meth:`SleuthProtocol.receive`."""
    from websockets.exceptions import ConnectionClosed

    server.protocol.set_writer(WebSocketWriter(websocket), include_headers=False)
    while not stop_event.is_set():
        try:
            data = await websocket.recv(decode=False)
        except ConnectionClosed:
            break
        server.protocol.receive(data)
    await websocket.close()


def _serve_forever(server: "SleuthServer", listen: Callable[[], Awaitable[Any]]) -> None:
    """Run the listener ``listen`` makes until the server stops it (``server._server`` is what shutdown closes)."""

    async def main() -> None:
        server._server = await listen()
        async with server._server:
            try:
                await server._server.serve_forever()
            except asyncio.CancelledError:
                pass

    asyncio.run(main())


def announce(transport: str, door: Door, token_path: str) -> None:
    """Tell the person where the server listens and where its token is (stderr)."""
    how = ("'Sleuth-Token: <token>' in the first header block" if transport == "tcp"
           else "'Authorization: Bearer <token>' (or ?token=<token>)")
    sys.stderr.write(f"sleuth: listening on {transport}://{door.host}:{door.port}; clients send {how}; "
                     f"the token is in {token_path}\n")
    if not is_loopback(door.host):
        sys.stderr.write(f"sleuth: warning: {door.host} is not a loopback address: other machines can reach "
                         f"this port (the token is still required).\n")
    sys.stderr.flush()
