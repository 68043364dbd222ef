"""``sleuth grep --json``: rg's JSON Lines (``begin``, ``match``, ``context``, ``end`` per file, then
``summary``), the format tools that parse rg read (VS Code's own search provider does).

The CLI asks ``sleuth.grep`` for ``byte_offsets``: each event's ``offset`` is rg's
``absolute_offset`` (its line's first byte in the file, after decoding as rg's), and a file's last
event carries its ``bytes_searched`` (rg's count: all of it, up to the last matching line with
``-m``, up to the NUL of a binary file); a binary file's ``end`` has its NUL's offset as rg's. The
line numbers and the submatches' ``start``/``end`` are exact; a line's text carries ``\n`` as its
end (the result keeps no line terminator). ``bytes_printed`` is 0 and the per-file times are 0; the
summary's are the search's own. ``--result-json`` prints the ``sleuth.grep`` result object instead.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from sleuth.cli.grep_print import PrintOptions, line_bytes

__all__ = ["print_rg_json"]


def _data(text: str) -> dict[str, str]:
    """rg's arbitrary data: ``{"text": ...}`` for UTF-8, else ``{"bytes": base64}``."""
    raw = line_bytes(text)
    try:
        return {"text": raw.decode("utf-8")}
    except UnicodeDecodeError:
        import base64

        return {"bytes": base64.b64encode(raw).decode("ascii")}


def _elapsed(seconds: float) -> dict[str, Any]:
    whole = int(seconds)
    return {"secs": whole, "nanos": int((seconds - whole) * 1e9), "human": f"{seconds:.6f}s"}


def _emit(kind: str, data: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"type": kind, "data": data}, ensure_ascii=False, separators=(",", ":")) + "\n")


def print_rg_json(groups: list[list[dict[str, Any]]], options: PrintOptions, result: dict[str, Any] | None,
                  quiet: bool = False, inverted: bool = False) -> None:
    """The messages of ``groups`` (one file each, in order), then the summary; ``quiet``: the summary alone;
    ``inverted`` (``-v``): a match line has no submatches, as in rg."""
    emit = (lambda kind, data: None) if quiet else _emit
    totals = {"bytes_searched": 0, "bytes_printed": 0, "matched_lines": 0, "matches": 0,
              "searches": 0, "searches_with_match": 0}
    for group in groups:
        path = _data(options.display(group[0]["path"]))
        emit("begin", {"path": path})
        stats = {"matched_lines": 0, "matches": 0}
        for event in group:
            if event["type"] not in ("match", "context"):
                continue
            text = event["text"] + ("\r\n" if event.get("cr") else "\n")
            subs = []
            if event["type"] == "match" and not inverted:
                replaced = event.get("match_replacements") or ()  # -r: rg 15 prints each match replaced
                for i, s in enumerate(event.get("submatches") or ([event] if event.get("column") else [])):
                    a, b = s["column"] - 1, s["end_column"] - 1
                    sub = {"match": _data(line_bytes(event["text"])[a:b].decode("utf-8", "surrogateescape"))}
                    if i < len(replaced):
                        sub["replacement"] = _data(replaced[i])
                    subs.append({**sub, "start": a, "end": b})
            if event["type"] == "match":
                stats["matched_lines"] += 1
                stats["matches"] += len(subs)
            emit(event["type"], {"path": path, "lines": _data(text), "line_number": event["line"],
                                  "absolute_offset": event.get("offset", 0), "submatches": subs})
        seconds = 0.0
        searched = group[-1].get("bytes_searched", 0)
        binary = next((e.get("binary_offset", e.get("binary_after")) for e in group
                       if "binary_offset" in e or "binary_after" in e), None)
        emit("end", {"path": path, "binary_offset": binary, "stats": {
            "elapsed": _elapsed(seconds), "searches": 1, "searches_with_match": 1 if stats["matched_lines"] else 0,
            "bytes_searched": searched, "bytes_printed": 0, "matched_lines": stats["matched_lines"],
            "matches": stats["matches"]}})
        totals["bytes_searched"] += searched
        totals["searches"] += 1
        totals["searches_with_match"] += 1 if stats["matched_lines"] else 0
        totals["matched_lines"] += stats["matched_lines"]
        totals["matches"] += stats["matches"]
    seconds = (result or {}).get("elapsed_ms", 0) / 1000
    summary = {"data": {"elapsed_total": _elapsed(seconds), "stats": {"elapsed": _elapsed(seconds), **totals}},
               "type": "summary"}
    sys.stdout.write(json.dumps(summary, separators=(",", ":"), sort_keys=True) + "\n")  # rg's summary is sorted
