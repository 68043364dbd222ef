"""The one boundary where Sleuth's error tree becomes JSON-RPC errors (docs/SPEC.md §9).

Every response error carries ``data: {code, message, hint, ...}`` (the command's
:meth:`SleuthError.to_dict`), so a client or an assistant reads a stable code and a next
step. ``bad_args`` is InvalidParams (-32602, with a regex's ``position``), ``cancelled`` is
LSP's RequestCancelled (-32800); every other code gets its own number in JSON-RPC's
server-error range so clients that ignore ``data`` can still tell them apart.
"""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcException

from sleuth.engine.errors import SleuthError

__all__ = ["ERROR_NUMBERS", "REQUEST_CANCELLED", "SleuthRpcError", "to_jsonrpc"]

REQUEST_CANCELLED = -32800
ERROR_NUMBERS: dict[str, int] = {
    "bad_args": -32602,
    "cancelled": REQUEST_CANCELLED,
    "sandbox_violation": -32001,
    "not_found": -32002,
    "index_not_ready": -32003,
    "rate_limited": -32004,
    "timeout": -32005,
    "unknown_tool": -32006,
    "backend_unavailable": -32007,
    "not_available": -32008,
    "internal": -32603,
}


class SleuthRpcError(JsonRpcException):
    """A JSON-RPC error whose ``data`` is a Sleuth error object."""

    def __init__(self, number: int, data: dict[str, Any]) -> None:
        super().__init__(message=str(data.get("message") or data.get("code")), code=number, data=data)


def to_jsonrpc(error: SleuthError) -> SleuthRpcError:
    """``error`` as the exception pygls turns into a response error."""
    data = _jsonable(error.to_dict())
    return SleuthRpcError(ERROR_NUMBERS.get(error.code, -32000), data)


def _jsonable(value: Any) -> Any:
    """Plain JSON values only (a hint may carry a tuple or a path object)."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)
