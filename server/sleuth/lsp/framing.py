"""The base protocol's framing (``Content-Length: N`` headers, a blank line, N bytes of JSON) read
from a byte stream, strictly where a mistake would desynchronise and leniently where it cannot.

pygls' own loop matches exactly ``Content-Length: <digits>\\r\\n`` and ignores every other line: a
lower-case header, LF-only line ends, a negative or non-numeric length or a missing header left the
server alive and silently answering nothing until a stray blank line happened to line up. Here,
case by case:

* **Header names are case-insensitive** (RFC 7230 §3.2, which the LSP base protocol follows), and
  the space after the colon is optional: ``content-length:12`` is accepted.
* **A line may end with LF alone**: nothing is ambiguous about it, and some hand-written clients
  send it. Blank lines *between* messages are skipped for the same reason.
* Headers other than ``Content-Length`` (``Content-Type``) are read and ignored, as the spec allows.
* **No way to resynchronise** — a header line that is not ``name: value`` (which is what the rest of
  a body looks like after a ``Content-Length`` too small), a length that is missing, negative, not a
  number or given twice with two values, the input ending inside a header or a body (what a length
  too large looks like once the client gives up) — raises :class:`FramingError`: the server logs it
  to stderr and exits with status 1, so the client sees a dead server it can restart instead of a
  deaf one. Guessing where the next message starts could run a request cut in two.
* A length too large with the client still connected cannot be told from a slow client: the server
  waits for the bytes (a body split across writes is normal), and exits when the input ends; if the
  client sends on, the body it reads is not JSON and holds the next message's header
  (:func:`holds_header`), which is the same dead end.

A body that is read whole but is not JSON is not a framing problem: the connection answers it with
a JSON-RPC parse error and goes on (:meth:`sleuth.lsp.server.SleuthProtocol.receive`). Nor is a body
over :data:`sleuth.core.message_limits.MAX_MESSAGE_BYTES`: it is read in chunks and dropped (its
first bytes kept, to find its id), and :class:`TooLarge` lets the server refuse it and go on.
"""

from __future__ import annotations

import asyncio
import re
from typing import Awaitable, Protocol

from sleuth.core.message_limits import MAX_MESSAGE_BYTES

__all__ = ["FramingError", "TooLarge", "read_body", "holds_header", "AsyncReader"]

_TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # RFC 7230 field-name
_HEADER_IN_BODY = re.compile(rb"(?i)content-length[ \t]*:[ \t]*\d+\r?\n")
_MAX_HEADER_LINES = 32  # a real header has one or two: more is a stream out of step
_HEAD_BYTES = 1 << 20  # what is kept of a body too large to decode: where its id is looked for
_CHUNK_BYTES = 1 << 20


class AsyncReader(Protocol):
    """pygls' stdin reader and asyncio's StreamReader both offer these two."""

    def readline(self) -> Awaitable[bytes]: ...

    def readexactly(self, n: int) -> Awaitable[bytes]: ...


class FramingError(Exception):
    """The byte stream no longer splits into messages; the connection cannot go on."""


class TooLarge(Exception):
    """A whole message too large to decode was read past: the stream is in step, the message refused."""

    def __init__(self, size: int, head: bytes) -> None:
        super().__init__(f"a {size}-byte message")
        self.size = size
        self.head = head


async def read_body(reader: AsyncReader, max_bytes: int = MAX_MESSAGE_BYTES) -> bytes | None:
    """The next message's body; None when the input ends cleanly between two messages;
    :class:`TooLarge` after reading past a body longer than ``max_bytes``."""
    length: int | None = None
    lines = 0
    while True:
        line = await reader.readline()
        if not line:
            if lines:
                raise FramingError("the input ended inside a message header")
            return None
        if not line.endswith(b"\n"):
            raise FramingError(f"the input ended inside a header line: {_show(line)}")
        text = line.rstrip(b"\n").removesuffix(b"\r")
        if not text:
            if lines:
                break  # the blank line that ends the header
            continue  # a blank line between messages: harmless
        lines += 1
        if lines > _MAX_HEADER_LINES:
            raise FramingError("more than 32 header lines: the input is not LSP base-protocol framing")
        name, sep, value = text.partition(b":")
        if not sep or not _TOKEN.fullmatch(name):
            raise FramingError(f"not a header line: {_show(text)} (a Content-Length that did not match its body?)")
        if name.lower() != b"content-length":
            continue
        value = value.strip(b" \t")
        if not value.isdigit():
            raise FramingError(f"Content-Length is not a non-negative integer: {_show(value)}")
        if length is not None and int(value) != length:
            raise FramingError(f"two different Content-Length headers ({length} and {int(value)})")
        length = int(value)
    if length is None:
        raise FramingError("a message header without Content-Length")
    if length > max_bytes:
        await _skip(reader, length)
    body = await _read_exactly(reader, length)
    if len(body) < length:
        raise FramingError(f"the input ended {len(body)} bytes into a {length}-byte message body "
                           "(a Content-Length larger than the message?)")
    return body


async def _skip(reader: AsyncReader, length: int) -> None:
    """Read past a ``length``-byte body in chunks, never holding it whole; raises :class:`TooLarge`
    (with its first bytes) once it is read, FramingError when the input ends inside it."""
    head = b""
    left = length
    while left:
        chunk = await _read_exactly(reader, min(left, _CHUNK_BYTES))
        if not chunk:
            raise FramingError(f"the input ended {length - left} bytes into a {length}-byte message body")
        if len(head) < _HEAD_BYTES:
            head += chunk[:_HEAD_BYTES - len(head)]
        left -= len(chunk)
    raise TooLarge(length, head)


def holds_header(body: bytes) -> bool:
    """Whether a body that is not JSON swallowed the start of the next message (what a Content-Length
    too large does while the client goes on sending): the stream is out of step from there on.
    Only asked of bodies that failed to parse: valid JSON may quote a header in a string."""
    return _HEADER_IN_BODY.search(body) is not None


async def _read_exactly(reader: AsyncReader, length: int) -> bytes:
    """``length`` bytes, or fewer when the input ends (pygls' stdin reader returns them short,
    asyncio's StreamReader raises)."""
    if length == 0:
        return b""
    try:
        return await reader.readexactly(length)
    except asyncio.IncompleteReadError as short:
        return short.partial


def _show(data: bytes) -> str:
    """A header fragment for a log line: short and printable."""
    return repr(data[:60]) + ("…" if len(data) > 60 else "")
