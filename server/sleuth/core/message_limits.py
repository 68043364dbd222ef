"""Limits on decoding one JSON-RPC message, shared by the language server's and the MCP server's doors.

A 20 KB request whose ``arguments`` nest 10,000 arrays deep made ``json.loads`` raise
``RecursionError``, which the language server did not catch: the process exited and every later
request was lost. A message is never trusted to be shallow or small, so:

* **depth**: a message nested deeper than :data:`MAX_MESSAGE_DEPTH` is refused (``json.loads``'
  own ``RecursionError`` included). No LSP or MCP message needs more than a dozen levels; 64 keeps
  every recursive walk downstream (cattrs, pydantic, the commands' validation, the encoders of the
  answer) far from Python's recursion limit;
* **size**: a body over :data:`MAX_MESSAGE_BYTES` is not decoded (the framing skips it);
* a refused message is answered, never dropped: ``-32600`` (InvalidRequest) with the request's id
  when :func:`recover_id` finds it without decoding the whole message, else with ``null``.

The commands themselves refuse deep arguments too (:func:`sleuth.commands.args.check_depth`),
whichever door they came through.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from sleuth.commands.args import exceeds_depth

__all__ = ["MAX_MESSAGE_DEPTH", "MAX_MESSAGE_BYTES", "INVALID_REQUEST", "PARSE_ERROR", "Refusal", "decode",
           "recover_id", "request_id", "too_large"]

MAX_MESSAGE_DEPTH = 64
MAX_MESSAGE_BYTES = 64 << 20  # above the largest pattern (a 50 MB one is refused by the command, with its id)
PARSE_ERROR, INVALID_REQUEST = -32700, -32600
_ID_SCAN_BYTES = 1 << 20  # how far into an undecodable message its id is looked for
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}:]', re.S)
_SPACE = re.compile(rb"[ \t\r\n]*")


@dataclass(frozen=True)
class Refusal(Exception):
    """A message that is not decoded: answered ``code`` with ``id`` (None: ``null``)."""

    code: int
    message: str
    id: str | int | None = None


def decode(body: bytes | str) -> Any:
    """The message's JSON value, or :class:`Refusal`: ``-32700`` when it is not JSON (or not UTF-8),
    ``-32600`` when it nests deeper than :data:`MAX_MESSAGE_DEPTH` (a recovered id, when it has one)."""
    try:
        value = json.loads(body)
    except RecursionError:
        raise _too_deep(recover_id(body)) from None
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError alike
        raise Refusal(PARSE_ERROR, f"The message is not valid JSON: {exc}") from None
    if exceeds_depth(value, MAX_MESSAGE_DEPTH):
        raise _too_deep(request_id(value.get("id")) if isinstance(value, dict) else None)
    return value


def too_large(size: int, head: bytes | str) -> Refusal:
    """The refusal of a ``size``-byte message, its id looked for in its first bytes (``head``)."""
    return Refusal(INVALID_REQUEST, f"The message is {size} bytes; the server decodes messages of at most "
                   f"{MAX_MESSAGE_BYTES} bytes.", recover_id(head))


def _too_deep(msg_id: str | int | None) -> Refusal:
    return Refusal(INVALID_REQUEST, f"The message nests more than {MAX_MESSAGE_DEPTH} levels of arrays and "
                   "objects; the server decodes no deeper messages.", msg_id)


def recover_id(body: bytes | str) -> str | int | None:
    """The top-level ``"id"`` of a message that cannot be decoded whole (too deep, cut short), found
    by a scan that tracks nesting without recursing; None when it has none in its first MiB, or the
    id is not a string or an integer."""
    data = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
    data = data[:_ID_SCAN_BYTES]
    depth, top, key = 0, b"", False
    for token in _TOKENS.finditer(data):
        text = token.group()
        if text in (b"{", b"["):
            top = top or text
            depth += 1
            key = False
        elif text in (b"}", b"]"):
            depth -= 1
            key = False
        elif text == b":":
            if key:
                return _value_at(data, token.end())
        else:  # a string: a key when a colon follows
            key = depth == 1 and top == b"{" and text == b'"id"'
    return None


def _value_at(data: bytes, offset: int) -> str | int | None:
    """The scalar JSON value starting at ``offset`` (after blanks), as a request id, else None."""
    start = _SPACE.match(data, offset).end()  # type: ignore[union-attr]
    try:
        value, _ = json.JSONDecoder().raw_decode(data[start:start + 4096].decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    return request_id(value)


def request_id(value: Any) -> str | int | None:
    """JSON-RPC ids are strings or numbers (anything else is answered with null)."""
    return value if isinstance(value, (str, int)) and not isinstance(value, bool) else None
