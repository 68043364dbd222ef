"""``sleuth grep`` over standard input: when rg reads it (:func:`stdin_is_readable`) and the search of
it, always in this process (a server cannot read the caller's input). The flags are
:mod:`sleuth.cli.grep_flags`' rows.
"""

from __future__ import annotations

import os
import stat
import sys
from typing import TYPE_CHECKING, Any, Callable

from sleuth.cli.common import report_error

if TYPE_CHECKING:
    from sleuth.commands.context import CommandContext

__all__ = ["stdin_is_readable", "search_stdin", "STDIN_PATH"]


STDIN_PATH = "-"


def stdin_is_readable() -> bool:
    """rg's rule for searching standard input when no path is given: it is a file, a pipe or a socket
    (not a terminal, not ``/dev/null`` or another device, not closed)."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return False
    return stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def search_stdin(args: dict[str, Any], cold: Callable[[], "CommandContext"], as_json: bool,
                 keep: Callable[[dict[str, Any]], int]) -> int:
    """``sleuth.grep``'s arguments over standard input, always here (a server cannot read our input)."""
    from sleuth.commands.grep import run_buffer
    from sleuth.engine.errors import SleuthError

    data = sys.stdin.buffer.read()
    try:
        result = run_buffer({k: v for k, v in args.items() if k != "path"}, data, cold())
    except SleuthError as error:
        return report_error(error, as_json)
    return keep(result)
