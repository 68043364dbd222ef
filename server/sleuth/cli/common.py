"""What every CLI subcommand shares: the sandbox, CLI-sized settings, progress bar, errors, exit codes.

The CLI is a transport like the language server: it builds a :class:`CommandContext`, calls
the same command function and renders the result, so ``--json`` prints exactly the command's
result object. Ctrl-C cancels the token; the command stops at its next poll.
"""

from __future__ import annotations

import _signal  # (signal's Python layer builds three enums at import, ~1 ms of a cold call: issue 30)
import os
import sys
import time
from collections.abc import Callable

from sleuth.commands.config import Settings, cli_settings
from sleuth.core.settings import SettingsLayers
from sleuth.engine.errors import SleuthError
from sleuth.engine.workspace import Workspace
from sleuth.engine.words import plural

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:  # loaded by make_context: the warm path never needs them
    from typing import Any
    from sleuth.cli.warm import Answer
    from sleuth.commands.context import CommandContext

__all__ = ["EXIT_FOUND", "EXIT_NONE", "EXIT_ERROR", "cli_settings", "workspace_settings", "make_context",
           "run_in_core", "compute", "run_command", "run_search", "cli_workspace", "cli_path", "add_server_flag", "NO_SERVER_HELP", "ask_server",
           "report_remote_error",
           "report_error", "print_json", "ProgressBar", "parse_size"]

EXIT_FOUND, EXIT_NONE, EXIT_ERROR = 0, 1, 2
EXIT_INTERRUPTED = 130  # Ctrl-C: the status a shell gives a process SIGINT ended, as rg's


_REPORTED: set[str] = set()  # each settings problem is printed once per process


def workspace_settings(roots: list[str] | None) -> Settings:
    """The core's layers without a door's own (:class:`sleuth.core.settings.SettingsLayers`): the
    person's ``config.yml``, then each sandbox folder's ``.agent/config.yml`` (found from the folder up
    to its repository's top, as git finds a repository; only the keys a repository may set), over the
    defaults. Problems, a refused key among them, go to stderr, each once."""
    layers = SettingsLayers(shown=_REPORTED)
    layers.load_user()
    layers.load_agents([os.path.abspath(r) for r in roots] if roots else [os.getcwd()])
    settings, problems = layers.settings()
    for problem in layers.new_problems(problems):
        sys.stderr.write(f"sleuth: {problem}\n")
    return settings


def parse_size(text: str) -> int:
    """rg's --max-filesize syntax: a number with an optional K, M or G suffix (upper case, as rg)."""
    text = text.strip()
    factor = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    number = text[:-1] if factor > 1 else text
    if not number.isdigit():
        raise ValueError(f"invalid size {text!r}: use a number with an optional K, M or G suffix")
    if int(number) * factor >= 1 << 64:
        raise ValueError(f"invalid size {text!r}: the number is too large")
    return int(number) * factor


class ProgressBar:
    """A one-line progress display on stderr, only on a terminal and only once a search runs long."""

    def __init__(self, enabled: bool | None = None, delay: float = 0.5) -> None:
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.started = time.monotonic()
        self.delay = delay
        self.shown = False

    def __call__(self, done: int, total: int | None, message: str) -> None:
        if not self.enabled or time.monotonic() - self.started < self.delay:
            return
        if total:
            width = 30
            filled = int(width * min(done, total) / total)
            line = f"[{'#' * filled}{'.' * (width - filled)}] {done} of {plural(total, 'file')}"
        else:
            line = f"searching… {message}"
        sys.stderr.write("\r\x1b[2K" + line)
        sys.stderr.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[2K")
            sys.stderr.flush()
            self.shown = False


def make_context(roots: list[str] | None, progress: ProgressBar | None = None,
                 settings: Settings | None = None) -> CommandContext:
    """The CLI's context: ``settings`` or rg-like ones (:func:`cli_settings`) with the person's safeguards."""
    from sleuth.commands.context import CommandContext
    from sleuth.engine.cancel import CancelToken

    workspace = cli_workspace(roots)
    if settings is None:
        settings = cli_settings(workspace_settings(roots))
    context = CommandContext(workspace=workspace, settings=settings, token=CancelToken())
    if progress is not None:
        context.progress = progress
    return context


def print_json(value: Any) -> None:
    import json  # (only --json and --result-json print JSON)

    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=None) + "\n")


def report_error(error: SleuthError, as_json: bool = False) -> int:
    """Tell the user what failed and what to do (stderr, or the error object with ``--json``); exit code 2."""
    if as_json:
        print_json({"error": error.to_dict()})
    else:
        from sleuth.cli.terminal import reword

        message, hint = reword(error)  # in the CLI's flags, not the commands' argument names
        sys.stderr.write(f"sleuth: {message}\n  hint: {hint}\n")
    return EXIT_ERROR


def run_in_core(name: str, args: dict[str, Any], ctx: CommandContext) -> dict[str, Any]:
    """``name(args)`` in the CLI's own ``ctx`` under the core's invocation policy
    (:func:`sleuth.core.invocation.run_once`: the argument shape, errors as ``SleuthError``, metrics and
    the log line in ``ctx.settings.log_file``), without a session: its pools, index keeper and settings
    layers (the settings files read once more) serve long-lived doors only."""
    from sleuth.core.invocation import run_once

    return run_once(name, args, ctx, log_tag="cli ")


def compute(name: str, args: dict[str, Any], ctx: CommandContext) -> Callable[[], dict[str, Any]]:
    """:func:`run_in_core` now, with Ctrl-C wired to the token; the callable returns its result or raises
    its error (:class:`SleuthError`), for :func:`run_command` to render, now or later."""
    previous = _signal.getsignal(_signal.SIGINT)
    _signal.signal(_signal.SIGINT, lambda *_: ctx.token.cancel())
    try:
        result = run_in_core(name, args, ctx)
    except SleuthError as error:
        failed = error

        def again() -> dict[str, Any]:
            raise failed

        return again
    finally:
        _signal.signal(_signal.SIGINT, previous)
    return lambda: result


def run_command(name: str, args: dict[str, Any], ctx: CommandContext, as_json: bool,
                render: Callable[[dict[str, Any]], int], seen: Callable[[SleuthError], None] | None = None,
                answer: Callable[[], dict[str, Any]] | None = None) -> int:
    """:func:`compute` (or ``answer``: its callable, computed already), then render the result or report
    the error (``seen`` is told which, before it is reported)."""
    try:
        result = (answer or compute(name, args, ctx))()
    except SleuthError as error:
        if isinstance(ctx.progress, ProgressBar):
            ctx.progress.clear()
        if error.code == "cancelled":
            return EXIT_INTERRUPTED
        if seen is not None:
            seen(error)
        return report_error(error, as_json)
    if isinstance(ctx.progress, ProgressBar):
        ctx.progress.clear()
    return render(result)


NO_SERVER_HELP = "do not ask a running Sleuth server for these folders; search here (cold)"


def add_server_flag(parser: Any) -> None:
    """``--no-server`` (``sleuth grep``'s is a row of :mod:`sleuth.cli.grep_flags` with this help)."""
    parser.add_argument("--no-server", action="store_true", help=NO_SERVER_HELP)


def run_search(name: str, args: dict[str, Any], workspace: Workspace, cold: Callable[[], CommandContext],
               as_json: bool, render: Callable[[dict[str, Any]], int], *, no_server: bool,
               settings: Settings | None = None,
               partial: Callable[[list[dict[str, Any]]], bool] | None = None,
               seen: Callable[[SleuthError], None] | None = None) -> int:
    """:func:`run_command`, answered by a running server of ``workspace``'s folders when there is one
    (:mod:`sleuth.cli.warm`; the result object is the cold path's, rendered the same way); ``cold``
    makes the context only when the search runs here. ``settings``: the call's
    :func:`workspace_settings`, read once by the caller (else read here, for the server's question).
    ``partial``: the server's streamed batches (the cold path streams through ``cold()``'s own
    ``partial``). ``seen``: told of the error, if any, before it is reported."""
    if not no_server:
        answer = ask_server(name, args, [r.path for r in workspace.roots], settings, partial)
        if answer is not None:
            if answer.error is not None:
                return report_remote_error(answer.error, as_json, seen)
            assert answer.result is not None
            return render(answer.result)
    return run_command(name, args, cold(), as_json, render, seen)


def cli_workspace(roots: list[str] | None) -> Workspace:
    """The CLI's sandbox: the ``--root`` folders, else the current folder (as :func:`make_context`)."""
    return Workspace(roots or [os.getcwd()])


def cli_path(workspace: Workspace, typed: str | None, here_by_default: bool = False) -> str | None:
    """A path argument as the commands take it, read from the current folder as rg reads it (the
    commands resolve a relative ``path`` against the first sandbox folder, which is the current folder
    only without ``--root``): relative to that folder when it lies inside it, so messages keep a short
    name, else absolute (the sandbox check then applies to the path the person meant). ``-`` (standard
    input) and an absolute path pass unchanged. No path is the whole sandbox, or with
    ``here_by_default`` (rg's rule: no path searches ``./``) the current folder when it lies inside a
    sandbox folder below its top."""
    cwd = os.getcwd()
    if typed is None and here_by_default:
        inside = workspace.root_of(cwd)
        return cli_path(workspace, ".") if inside is not None and inside.path != cwd else None
    if not typed or typed == "-" or os.path.isabs(typed) or typed.startswith("~"):
        return typed
    first = workspace.roots[0].path if workspace.roots else cwd
    if cwd == first and not workspace.multi:
        return typed  # the commands read it from here already
    absolute = os.path.normpath(os.path.join(cwd, typed))
    relative = os.path.relpath(absolute, first)
    if workspace.multi or relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return absolute
    return relative + ("/" if typed.endswith("/") and relative != "." else "")


def ask_server(name: str, args: dict[str, Any], roots: list[str], settings: Settings | None = None,
               partial: Callable[[list[dict[str, Any]]], bool] | None = None) -> Answer | None:
    """The running server's :class:`~sleuth.cli.warm.Answer`, or None (run cold); ``settings``: the
    call's :func:`workspace_settings` when the caller has read them already; ``partial``: the
    server's streamed batches."""
    from sleuth.core.warm_paths import NO_SERVER_ENV, door_may_exist

    if os.environ.get(NO_SERVER_ENV) == "1" or not door_may_exist(roots):
        return None  # no server to ask: its client is not even loaded
    from sleuth.cli.warm import ask

    return ask(name, args, roots, settings if settings is not None else workspace_settings(roots), partial)


def report_remote_error(error: dict[str, Any], as_json: bool, seen: Callable[[SleuthError], None] | None = None) -> int:
    """A server's error object, reported as :func:`run_command` reports the same error raised here."""
    if error.get("code") == "cancelled":
        return EXIT_INTERRUPTED
    rebuilt = SleuthError(str(error.get("message", "")), hint=str(error.get("hint", "")) or None,
                          **{k: v for k, v in error.items() if k not in ("code", "message", "hint")})
    rebuilt.code = str(error.get("code", "internal"))
    if seen is not None:
        seen(rebuilt)
    return report_error(rebuilt, as_json)
