"""The error tree every layer raises and every transport maps (docs/SPEC.md §9).

::

    SleuthError                  code            what the caller should do
    ├── BadArgs                  bad_args        fix the argument named in the message
    ├── SandboxViolation         sandbox_violation  pass a path inside a workspace folder
    ├── NotFound                 not_found       check the path exists
    ├── IndexNotReady            index_not_ready wait for the build or call sleuth.index.build
    ├── RateLimited              rate_limited    retry after ``retry_after_seconds``
    ├── SearchTimeout            timeout         narrow the search or raise timeout_ms
    ├── UnknownTool              unknown_tool    call sleuth.tools.list
    ├── BackendUnavailable       backend_unavailable  install the backend or pick ``native``
    └── Cancelled                cancelled       (the client asked for it)

Per-file problems (permission denied, vanished, binary, too large) are *not* exceptions:
they are reported in a result's ``errors`` list and never fail a search.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import Any


__all__ = [
    "SleuthError",
    "BadArgs",
    "SandboxViolation",
    "NotFound",
    "IndexNotReady",
    "RateLimited",
    "SearchTimeout",
    "UnknownTool",
    "BackendUnavailable",
    "Cancelled",
    "describe_os_error",
]


class SleuthError(Exception):
    """Base of all errors a command may raise; ``code`` is the stable machine-readable name."""

    code: str = "internal"
    default_hint: str = "Report this as a bug with the arguments that caused it."

    def __init__(self, message: str, *, hint: str | None = None, **data: Any) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint or self.default_hint
        self.data = data

    def to_dict(self) -> dict[str, Any]:
        """The ``data`` object of a JSON-RPC error response and of the CLI's ``--json`` error."""
        return {"code": self.code, "message": self.message, "hint": self.hint, **self.data}


class BadArgs(SleuthError):
    """An argument is missing, mistyped, out of range or an invalid pattern (``position`` for regexes)."""

    code = "bad_args"
    default_hint = "Fix the argument named in the message and call again."


class SandboxViolation(SleuthError):
    """A path resolves outside every workspace folder; nothing beyond the check was touched."""

    code = "sandbox_violation"
    default_hint = "Pass a path inside one of the workspace folders (relative paths resolve against the first)."


class NotFound(SleuthError):
    """A path inside the sandbox does not exist."""

    code = "not_found"
    default_hint = "Check the path (it is resolved against the first workspace folder) or omit it to search everything."


class IndexNotReady(SleuthError):
    """A command that cannot fall back to a scan was called before the index was built."""

    code = "index_not_ready"
    default_hint = "Wait for the index build to finish (sleuth.index.status) or start one with sleuth.index.build."


class RateLimited(SleuthError):
    """The per-tool sliding window is full."""

    code = "rate_limited"
    default_hint = "Wait retry_after_seconds before calling this tool again."

    def __init__(self, message: str, *, retry_after_seconds: float, hint: str | None = None, **data: Any) -> None:
        super().__init__(message, hint=hint, retry_after_seconds=retry_after_seconds, **data)
        self.retry_after_seconds = retry_after_seconds


class SearchTimeout(SleuthError):
    """A search ran past its deadline where partial results cannot be returned."""

    code = "timeout"
    default_hint = "Narrow the search (path, include_globs, file_types) or raise timeout_ms."


class UnknownTool(SleuthError):
    """``sleuth.tools.call`` named a tool no profile defines."""

    code = "unknown_tool"
    default_hint = "Call sleuth.tools.list for the available tool names."


class BackendUnavailable(SleuthError):
    """An external backend (rg, ugrep) is missing or too old."""

    code = "backend_unavailable"
    default_hint = "Install the backend (pip install 'sleuth[rg]' for rg) or set backend to 'native'."


class Cancelled(SleuthError):
    """The caller cancelled the operation; transports map it to LSP's RequestCancelled."""

    code = "cancelled"
    default_hint = "Nothing to do: the request was cancelled by its caller."


def describe_os_error(exc: OSError) -> str:
    """The ``errors`` entry for a file the walk or the searcher could not use: what happened, what to do."""
    if isinstance(exc, FileNotFoundError):
        return "vanished during the search (deleted or moved); skipped, search again to include it"
    if isinstance(exc, PermissionError):
        return "permission denied; skipped, grant read access or exclude it with exclude_globs"
    return f"{(exc.strerror or str(exc)).lower()}; skipped"
