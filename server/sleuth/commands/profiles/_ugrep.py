"""Parsing ugrep's output (a JSON ``--format`` per match) back into ``sleuth.grep`` events.

ugrep reports columns in characters and has no context lines in its formatted mode, so byte
columns are recovered from the line text and context lines are read from the files.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from sleuth.commands.context import CommandContext
from sleuth.commands.profiles._proc import Proc, admit, line_text
from sleuth.engine.events import Context, LineEvent, Match, Submatch
from sleuth.engine.path_rule import PathRule

__all__ = ["UG_FORMAT", "parse_ugrep"]


UG_SEARCHED = re.compile(rb"^Searched ([\d,]+) files? ")
UG_FORMAT = '{"f":%h,"n":%n,"k":%k,"o":%j,"O":%J}%~'


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _byte_column(line: str, line_bytes: bytes, char_column: int, found: bytes) -> int:
    """0-based byte offset of a ugrep match: its column counts characters, so convert, then confirm
    the bytes are there (tabs or odd encodings move it) and otherwise take the nearest occurrence."""
    guess = len(line[: max(char_column - 1, 0)].encode("utf-8", "surrogatepass"))
    if not found or line_bytes[guess:guess + len(found)] == found:
        return guess
    spots = [i for i in range(len(line_bytes)) if line_bytes.startswith(found, i)]
    return min(spots, key=lambda i: abs(i - guess)) if spots else guess


def parse_ugrep(proc: Proc, ctx: CommandContext, state: dict[str, Any], cwd: str, before: int,
                after: int, max_size: int | None, rule: PathRule) -> list[LineEvent]:
    """Events of one ugrep run; a path failing the path rule is dropped unnamed."""
    by_line: dict[tuple[str, int], Match] = {}
    files: dict[str, str] = {}
    too_large: set[str] = set()
    seen: dict[str, bool] = {}
    for raw in proc.lines():
        stats = UG_SEARCHED.match(raw)
        if stats:
            state["files_scanned"] += int(stats.group(1).replace(b",", b""))
            continue
        if not raw.startswith(b"{"):
            continue
        try:
            msg = json.loads(raw.decode("utf-8", "replace"))
        except ValueError as exc:
            state["parse_error"] = f"unparseable ugrep output: {exc}"
            continue
        path = os.path.normpath(os.path.join(cwd, msg["f"]))
        if not admit(rule, path, seen):
            continue
        if path not in files:
            if max_size is not None and _size(path) > max_size:
                too_large.add(path)
            files[path] = ctx.workspace.display(path)
        if path in too_large:
            continue
        display = files[path]
        line_bytes = msg["O"].encode("utf-8", "surrogatepass")
        found = msg["o"].encode("utf-8", "surrogatepass")
        start, size = _byte_column(msg["O"], line_bytes, msg["k"], found), len(found)
        key = (path, msg["n"])
        sub = Submatch(start + 1, start + size + 1, line_bytes[start:start + size].decode("utf-8", "replace"))
        known = by_line.get(key)
        if known is not None:  # another match on the line: every match listed, the first one too
            if known.submatches is None:
                known.submatches = [Submatch(known.column, known.end_column, known.match_text)]
            known.submatches.append(sub)
            continue
        by_line[key] = Match(display, msg["n"], line_text(line_bytes), sub.column, sub.end_column, sub.match_text)
    for path in too_large:
        files.pop(path, None)
    events: list[LineEvent] = list(by_line.values())
    if before or after:
        events = _with_context(events, files, before, after, state)
    return events


def _with_context(events: list[LineEvent], files: dict[str, str], before: int, after: int,
                  state: dict[str, Any]) -> list[LineEvent]:
    """Context lines for backends whose machine-readable mode has none (ugrep): read from the file."""
    display_to_path = {d: p for p, d in files.items()}
    matched = {(e.path, e.line) for e in events}
    out = list(events)
    for display in {e.path for e in events}:
        try:
            with open(display_to_path[display], "rb") as handle:
                lines = handle.read().split(b"\n")
        except OSError as exc:
            state["errors"].append({"path": display, "error": str(exc.strerror or exc)})
            continue
        wanted: set[int] = set()
        for e in events:
            if e.path == display:
                wanted.update(range(max(1, e.line - before), e.line))
                wanted.update(range(e.line + 1, min(len(lines), e.line + after) + 1))
        for n in sorted(wanted):
            if (display, n) not in matched and n <= len(lines) and not (n == len(lines) and lines[-1] == b""):
                out.append(Context(display, n, line_text(lines[n - 1])))
    return out
