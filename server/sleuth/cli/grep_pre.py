"""``sleuth grep --pre COMMAND [--pre-glob GLOB]``: rg's preprocessor. Each file the search takes
(those matching a ``--pre-glob`` when one is given) is searched as what ``COMMAND FILE`` prints,
the file also on its standard input, as rg runs it (``--pre xzcat`` searches compressed files,
``--pre pdftotext``-like wrappers search documents).

It runs a program, so it is a command-line flag and nothing else: it is no ``sleuth.grep``
argument (an LSP or MCP caller, or a repository's settings, cannot name one), the call never goes
to a running server (:mod:`sleuth.cli.fork_client` runs it here, and :mod:`sleuth.cli.grep_run`
sets ``--no-server``), and the program runs as the person who typed it, in their folder, with their
environment, with no shell between (the command is one program name or path, as in rg). Every file
is searched here, one buffer at a time, as a file named on the command line is (a NUL marks the
lines after it, it does not drop the file).
"""

from __future__ import annotations

import fnmatch
import os
import subprocess
from typing import TYPE_CHECKING, Any, Callable

from sleuth.engine.errors import SleuthError

if TYPE_CHECKING:
    from sleuth.commands.context import CommandContext
    from sleuth.engine.workspace import Workspace

__all__ = ["wants_pre", "preprocessed", "PreprocessorFailed"]


class PreprocessorFailed(Exception):
    """The command could not be run or failed on a file: reported for that file, the others searched."""


def wants_pre(globs: list[str], shown: str) -> bool:
    """Whether a file (its path as printed) goes through the preprocessor: every file without
    ``--pre-glob``; else as rg's overrides decide, gitignore-style (a glob without ``/`` matches the
    file's name), the last glob that matches wins (``!`` excludes), and a file no glob matches goes
    through only when every glob is an exclusion."""
    if not globs:
        return True
    verdict: bool | None = None
    name = shown.rsplit("/", 1)[-1]
    for glob in globs:
        negated = glob.startswith("!")
        body = glob[1:] if negated else glob
        if fnmatch.fnmatchcase(shown if "/" in body else name, body.lstrip("/")):
            verdict = not negated
    return all(g.startswith("!") for g in globs) if verdict is None else verdict


def _output(command: str, path: str, shown: str) -> bytes:
    """What ``command FILE`` prints, the file on its standard input (rg's way); ``FILE`` is the path
    as printed when it names the file from here (as rg passes it), else the absolute ``path``."""
    arg = shown if os.path.exists(shown) and os.path.samefile(shown, path) else path
    quoted = f"'\"{command}\" \"{arg}\"'"
    try:
        with open(path, "rb") as stdin:
            done = subprocess.run([command, arg], stdin=stdin, capture_output=True, check=False)
    except OSError as exc:
        raise PreprocessorFailed(f"preprocessor command could not start: {quoted}: {exc.strerror}") from None
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", "replace").strip() or "<stderr is empty>"
        raise PreprocessorFailed(f"preprocessor command failed: {quoted}: {err}")
    return done.stdout


def preprocessed(command: str, globs: list[str], items: list[dict[str, Any]], workspace: Workspace,
                 show: Callable[[str], str], args: dict[str, Any], ctx: CommandContext,
                 take: Callable[[dict[str, Any]], object]) -> list[str]:
    """Search each listed file (``items``: a ``sleuth.files`` listing), preprocessed when
    :func:`wants_pre` says so; each result goes to ``take`` as a one-file ``sleuth.grep`` result.
    Returns the messages of the files that failed."""
    from sleuth.commands.grep import run_buffer

    failed: list[str] = []
    args = {k: v for k, v in args.items() if k != "path"}
    for item in items:
        shown = item["path"]
        try:
            path = workspace.resolve(shown)[0].path
            if wants_pre(globs, show(shown)):
                data = _output(command, path, show(shown))
            else:
                with open(path, "rb") as handle:
                    data = handle.read()
            result = run_buffer(args, data, ctx, display=shown)
        except PreprocessorFailed as exc:
            failed.append(f"{show(shown)}: {exc}")
            continue
        except OSError as exc:
            failed.append(f"{show(shown)}: {exc.strerror}")
            continue
        except SleuthError as exc:
            failed.append(f"{show(shown)}: {exc.message}")
            continue
        take(result)
    return failed
