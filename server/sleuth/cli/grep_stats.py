"""``sleuth grep --stats``: rg's block of counts after the output, and the count of the bytes its
standard printer wrote (rg's "bytes printed"; its ``-c``/``-l`` printers count none)."""

from __future__ import annotations

import sys

from sleuth.cli.grep_sinks import Tally

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Counted", "print_stats"]


class Counted:
    """Standard output for ``--stats``: counts the bytes the printers write (rg's "bytes printed")."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.printed = 0

    def write(self, text: str) -> int:
        self.printed += len(text.encode(self.stream.encoding or "utf-8", "surrogateescape"))
        return self.stream.write(text)

    def __getattr__(self, name: str) -> Any:  # flush, buffer, isatty...: the stream's own
        return getattr(self.stream, name)


def print_stats(result: dict[str, Any], tally: Tally) -> None:
    """rg's ``--stats`` block. The bytes printed are those the printers wrote (:class:`Counted`);
    the bytes searched the search's (a server too old to count them: that line is left out)."""
    matches, lines = tally.matches, tally.lines
    seconds = result["elapsed_ms"] / 1000
    printed = sys.stdout.printed if isinstance(sys.stdout, Counted) else 0
    searched = result.get("bytes_searched")
    sys.stdout.write(f"\n{matches} matches\n{lines} matched lines\n{result['files_matched']} files contained matches\n"
                     f"{result['files_scanned']} files searched\n"
                     + f"{printed} bytes printed\n"
                     + (f"{searched} bytes searched\n" if searched is not None else "")
                     + f"{seconds:.6f} seconds spent searching\n{seconds:.6f} seconds total\n")
