"""``sleuth grep`` over standard input: when rg reads it (:func:`stdin_is_readable`) and the search of
it, always in this process (a server cannot read the caller's input). The flags are
:mod:`sleuth.cli.grep_flags`' rows. A path argument that names one of this process's own files
(:func:`is_stream`: a shell's ``<(command)``, ``/dev/null``) is read and searched the same way.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable

from sleuth.cli.common import report_error
from sleuth.engine.platform import OWN_DESCRIPTORS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import Any
    from sleuth.commands.context import CommandContext

__all__ = ["stdin_is_readable", "is_stream", "read_input", "search_input", "STDIN_PATH"]


STDIN_PATH = "-"


def stdin_is_readable() -> bool:
    """rg's rule for searching standard input when no path is given: it is a file, a pipe or a socket
    (not a terminal, not ``/dev/null`` or another device, not closed)."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return False
    return stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def is_stream(typed: str | None) -> bool:
    """Whether a path argument names one of this process's own open files rather than a file of the
    tree: what a shell's ``<(command)`` hands over (``/dev/fd/63``, a pipe), ``/dev/stdin``, or
    ``/dev/null`` (the idiom that makes grep print a single file's name). rg reads them as it reads
    standard input, and so does Sleuth, in this process only (a server cannot read them); no sandbox
    folder is read through one. A named pipe in the tree stays a per-file error (a search never waits
    on a pipe nobody writes to), and a device that never ends (``/dev/zero``) is not read whole."""
    if typed is None or typed == STDIN_PATH:
        return False
    if typed == os.devnull:
        return True
    if not typed.startswith(OWN_DESCRIPTORS) and typed != "/dev/stdin":
        return False
    try:
        mode = os.stat(typed).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode) or stat.S_ISSOCK(mode)


def read_input(source: str | None) -> bytes:
    """All of standard input (``source`` None) or of the stream named ``source`` (:func:`is_stream`);
    OSError when it cannot be read."""
    if source is None:
        return sys.stdin.buffer.read()
    with open(source, "rb") as stream:
        return stream.read()


def search_input(args: dict[str, Any], data: bytes, display: str | None, cold: Callable[[], "CommandContext"],
                 as_json: bool, keep: Callable[[dict[str, Any]], int]) -> int:
    """``sleuth.grep``'s arguments over ``data`` (standard input's, or a stream's shown as ``display``),
    always here (a server cannot read our input)."""
    from sleuth.commands.grep import run_buffer
    from sleuth.engine.errors import SleuthError

    try:
        shown = {} if display is None else {"display": display}
        result = run_buffer({k: v for k, v in args.items() if k != "path"}, data, cold(), **shown)
    except SleuthError as error:
        return report_error(error, as_json)
    return keep(result)
