"""``sleuth.grep`` and ``sleuth.text`` read the same file the same way (one decoder, ripgrep's rules).

The text search had its own: a NUL in the first 8 KiB made a file binary (a NUL further on did not)
and UTF-16 was never transcoded. So a UTF-16 file that grep searched was binary to ``sleuth.text``,
a file with a NUL after 8 KiB that grep skipped as binary was searched by it, and a UTF-8 byte-order
mark stayed in the first line's text.
"""

from __future__ import annotations

import codecs
from pathlib import Path
from typing import Any

from sleuth.commands import get_command
from sleuth.commands.config import Settings
from tests.fixtures import context

FILES = {
    "utf16.txt": codecs.BOM_UTF16_LE + "int needle_count = 1;\n".encode("utf-16-le"),
    "late_nul.txt": b"int needle_count = 1;\n" + b"x" * 9000 + b"\x00\n",
    "bom.txt": codecs.BOM_UTF8 + b"needle_count first\n",
    "plain.txt": b"int needle_count = 2;\n",
}


def _run(root: Path, command: str, args: dict[str, Any]) -> dict[str, Any]:
    ctx = context(root, Settings(index_enabled=False))
    return get_command(command)(args, ctx)


def test_grep_and_text_agree_on_binary_utf16_and_bom_files(tmp_path: Path) -> None:
    for name, data in FILES.items():
        (tmp_path / name).write_bytes(data)
    grep = _run(tmp_path, "sleuth.grep", {"pattern": "needle_count"})
    text = _run(tmp_path, "sleuth.text", {"query": "needle_count", "max_results": 50, "context_lines": 0})
    grep_lines = {(m["path"], m["line"], m["text"]) for m in grep["matches"] if m["type"] == "match"}
    text_lines = {(r["path"], r["line"], r["snippet"].strip()) for r in text["results"]}
    assert {p for p, _, _ in grep_lines} == {"utf16.txt", "bom.txt", "plain.txt"}
    assert {(p, n) for p, n, _ in text_lines} == {(p, n) for p, n, _ in grep_lines}
    assert ("bom.txt", 1, "needle_count first") in text_lines  # no U+FEFF in front
