"""A file's bytes as every searcher sees them: one decoder for grep, ``sleuth.text`` and the index.

ripgrep's defaults: UTF-16 with a byte-order mark is transcoded to UTF-8; a UTF-8 byte-order mark is
dropped; anything else holding a NUL byte (anywhere, not only in a first block) is binary and not
searched. Invalid UTF-8 is searched as is and replaced by U+FFFD only when text is shown, so a regex
never sees characters that are not there. There were two decoders once, and ``sleuth.text`` (NUL in
the first 8 KiB only, no UTF-16) disagreed with ``sleuth.grep`` about the same file.
"""

from __future__ import annotations

import codecs

__all__ = ["transcoded", "decode_buffer", "decode_text"]

_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def transcoded(data: bytes) -> bytes:
    """UTF-16 with a BOM as UTF-8; any other buffer unchanged (byte offsets kept: the index chunks
    these bytes and, for a file that is not UTF-16, reads its chunks back from disk by offset)."""
    if data[:2] in _UTF16_BOMS:
        return data.decode("utf-16", "replace").encode("utf-8")
    return data


def decode_buffer(data: bytes) -> bytes | None:
    """The bytes to search, as UTF-8, or None for a binary file (see the module docstring)."""
    if data[:2] in _UTF16_BOMS:
        return transcoded(data)
    if data[:3] == codecs.BOM_UTF8:
        data = data[3:]
    if b"\x00" in data:
        return None
    return data


def decode_text(data: bytes) -> str | None:
    """:func:`decode_buffer` as text (invalid UTF-8 replaced), or None for a binary file."""
    decoded = decode_buffer(data)
    return None if decoded is None else decoded.decode("utf-8", "replace")
