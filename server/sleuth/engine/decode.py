"""A file's bytes as every searcher sees them: one decoder for grep, ``sleuth.text`` and the index.

ripgrep 14's defaults: UTF-16 with a byte-order mark is transcoded to UTF-8; a UTF-8 byte-order mark
is dropped; a file whose first 64 KiB block holds a NUL byte is binary and passed over by a recursive
search (rg reads files in 64 KiB blocks and looks for a NUL in each; a NUL further on stops the search
at that block, which :mod:`sleuth.engine.search` handles). Invalid UTF-8 is searched as is and
replaced by U+FFFD only when text is shown, so a regex never sees characters that are not there.
``-E`` (:func:`transcode` with a codec) decodes from another encoding. There were two decoders once,
and ``sleuth.text`` (NUL in the first 8 KiB only, no UTF-16) disagreed with ``sleuth.grep`` about the
same file.
"""

from __future__ import annotations

import codecs

__all__ = ["BINARY_BLOCK", "transcoded", "transcode", "decode_buffer", "decode_text"]

BINARY_BLOCK = 1 << 16  # rg reads a file in 64 KiB buffers and looks for a NUL in each one it reads

_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def transcoded(data: bytes) -> bytes:
    """UTF-16 with a BOM as UTF-8; any other buffer unchanged (byte offsets kept: the index chunks
    these bytes and, for a file that is not UTF-16, reads its chunks back from disk by offset)."""
    if data[:2] in _UTF16_BOMS:
        return data.decode("utf-16", "replace").encode("utf-8")
    return data


def transcode(data: bytes, encoding: str | None = None) -> bytes:
    """The bytes to search as UTF-8, as rg 14 reads a file (``-E``). ``None`` (rg's ``auto``): UTF-16
    with a BOM transcoded, a UTF-8 BOM dropped, anything else as is. ``"none"``: raw bytes, no BOM
    sniffing. A codec name: the file decoded from it (invalid sequences become U+FFFD, which ``.``
    then matches, as in rg), except that a UTF-16 BOM still wins."""
    if encoding == "none":
        return data
    if data[:2] in _UTF16_BOMS:
        return transcoded(data)
    if encoding is None or encoding == "utf-8":
        if data[:3] == codecs.BOM_UTF8:
            data = data[3:]
        return data if encoding is None else data.decode("utf-8", "replace").encode("utf-8")
    return data.decode(encoding, "replace").encode("utf-8", "surrogatepass")


def decode_buffer(data: bytes) -> bytes | None:
    """The bytes to search (:func:`transcode`), or None for a file rg's recursive search passes over:
    one with a NUL byte in its first 64 KiB."""
    data = transcode(data)
    return None if data.find(b"\x00", 0, BINARY_BLOCK) >= 0 else data


def decode_text(data: bytes) -> str | None:
    """:func:`decode_buffer` as text (invalid UTF-8 replaced), or None for a binary file."""
    decoded = decode_buffer(data)
    return None if decoded is None else decoded.decode("utf-8", "replace")
