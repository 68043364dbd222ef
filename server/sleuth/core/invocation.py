"""The core's invocation policy in the pieces a door that runs one command needs, and :func:`run_once`.

:class:`~sleuth.core.session.Session` applies the policy to every request of a long-lived door (the
language server, the MCP server, the warm CLI's listener): the argument shape, the command looked up
in the registry, errors as :class:`~sleuth.engine.errors.SleuthError`, one log line per call. The
pieces live here, apart from the session, because a cold ``sleuth grep`` needs them and nothing else
of it: a session brings worker-thread pools, the index keeper, logging and its own settings layers,
read from disk once more (issue 30: a cold call read the settings three times and imported ~15 ms
of what it never used).
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from sleuth.commands.args import check_depth
from sleuth.core.registry import COMMANDS, Runner
from sleuth.engine.errors import BadArgs, SleuthError
from sleuth.engine.values import Value, fill

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import Any, Protocol, runtime_checkable
    from sleuth.commands.context import CommandContext
else:
    from sleuth.engine.plain_typing import Protocol, runtime_checkable

__all__ = ["InvocationRecord", "InternalError", "NotAvailable", "StreamSink", "check_call", "resolve_command",
           "mapped_error", "append_log_line", "run_once"]


class InternalError(SleuthError):
    """A command failed on a bug: answered (the server keeps serving), logged with its traceback."""

    code = "internal"


class NotAvailable(SleuthError):
    """A part of Sleuth the command needs is not installed."""

    code = "not_available"
    default_hint = "This Sleuth installation lacks that module; reinstall or upgrade Sleuth."


@runtime_checkable
class StreamSink(Protocol):
    """A partial-result sink that also knows what it sent (LSP's ``partialResultToken``, the CLI's
    printers): the final answer leaves out what was streamed, and the log line counts both."""

    sent: int

    def __call__(self, batch: list[dict[str, Any]]) -> None: ...

    def trim(self, result: dict[str, Any]) -> dict[str, Any]: ...


class InvocationRecord(Value):
    """One finished invocation, for log lines and metrics; ``outcome``: "ok", "cancelled" or an error code."""

    __slots__ = ("command", "args", "outcome", "result", "elapsed_ms", "streamed")
    command: str
    args: Any
    outcome: str
    result: Any
    elapsed_ms: float
    streamed: int

    def __init__(self, command: str, args: Any, outcome: str, result: Any, elapsed_ms: float,
                 streamed: int = 0) -> None:
        fill(self, "command", command)
        fill(self, "args", args)
        fill(self, "outcome", outcome)
        fill(self, "result", result)
        fill(self, "elapsed_ms", elapsed_ms)
        fill(self, "streamed", streamed)

    @property
    def severity(self) -> int:
        """1 error (a bug), 2 warning (a refused call), 3 info (answered or cancelled)."""
        from sleuth.core import logline  # (with the redaction patterns: only a call that logs pays for them)

        return logline.severity(self.outcome)

    def line(self) -> str:
        """The log line (:func:`sleuth.core.logline.summary`): command, sanitised query, count, time."""
        from sleuth.core import logline

        return logline.summary(self.command, self.args, self.outcome,
                               logline.result_count(self.result, self.streamed), self.elapsed_ms)


def check_call(command: str, args: object) -> None:
    """The call's shape: one object of named arguments, nested no deeper than the commands allow."""
    if not isinstance(args, dict):
        raise BadArgs("Arguments must be one object of named arguments.",
                      hint='Pass arguments as [{"pattern": "..."}].')
    check_depth(command, args)


def resolve_command(name: str, extra: Mapping[str, Runner]) -> Runner:
    """The ``run`` function of ``name`` (``extra``: a door's test commands first): :class:`BadArgs` for
    an unknown command, :class:`NotAvailable` for one whose module is not installed."""
    if name in extra:
        return extra[name]
    info = COMMANDS.get(name)
    if info is None:
        names = list(COMMANDS) + [n for n in extra if n not in COMMANDS]
        raise BadArgs(f"Unknown command {name!r}.", hint="Use one of: " + ", ".join(names) + ".")
    try:
        return info.runner()
    except ModuleNotFoundError as exc:
        raise NotAvailable(f"{name} is not available in this installation (module {exc.name} is missing).",
                           command=name, module=exc.name or "?") from None


def mapped_error(command: str, exc: Exception) -> SleuthError:
    """An exception that is not a :class:`SleuthError`: a part of Sleuth the command needs that is not
    installed (yet) is :class:`NotAvailable`; anything else is a bug, :class:`InternalError`, logged
    with its traceback (logging is imported here: only a failing call pays for it)."""
    if isinstance(exc, ModuleNotFoundError) and (exc.name or "").startswith("sleuth."):
        return NotAvailable(f"{command} is not available in this installation (module {exc.name} is missing).",
                            command=command, module=exc.name or "?")
    import logging

    logging.getLogger("sleuth.core.session").error("%s failed", command, exc_info=exc)
    return InternalError(f"Internal error in {command}: {type(exc).__name__}: {exc}",
                         hint="Retry with different arguments; report this if it persists.")


def append_log_line(log_file: str | None, tag: str, line: str) -> None:
    """``line`` appended to the ``log_file`` setting's file (time stamped, the door's ``tag`` first);
    a file that cannot be written is skipped, never an error of the call."""
    if not log_file:
        return
    try:
        with open(log_file, "a", encoding="utf-8") as handle:
            handle.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {tag}{line}\n")
    except OSError:
        pass


def run_once(name: str, args: dict[str, Any], ctx: CommandContext, *, log_tag: str = "") -> dict[str, Any]:
    """``name(args)`` in ``ctx`` on the caller's thread under the core's policy (the shape, the command,
    errors as :class:`SleuthError`, the log line in ``ctx.settings.log_file``), for a door that makes one
    call and exits (the cold CLI). No rate limit, no metrics: a window over one call means nothing, and
    a process's metrics are read from the process (a server's ``sleuth.metrics``), which this one is not.
    The log line counts what ``ctx.partial`` streamed (the CLI's printers) with what the result holds."""
    started = time.monotonic()
    outcome, result = "ok", None
    try:
        try:
            check_call(name, args)
            result = resolve_command(name, {})(args, ctx)
            return result
        except SleuthError:
            raise
        except Exception as exc:
            raise mapped_error(name, exc) from None
    except SleuthError as exc:
        outcome = exc.code
        raise
    finally:
        if ctx.settings.log_file:
            record = InvocationRecord(name, args, outcome, result, (time.monotonic() - started) * 1000,
                                      ctx.partial.sent if isinstance(ctx.partial, StreamSink) else 0)
            append_log_line(ctx.settings.log_file, log_tag, record.line())
