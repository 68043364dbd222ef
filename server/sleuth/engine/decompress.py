"""rg's ``-z/--search-zip``: a compressed file is searched as what it decompresses to.

rg chooses by the file name and pipes the file through ``gzip -d -c``, ``bzip2``, ``xz`` and the like;
Sleuth decompresses with the standard library (gzip, bzip2, xz and lzma), so no program is run. Other
formats rg knows (``.zst``, ``.lz4``, ``.br``, ``.Z``) need modules the standard library lacks: such
files are searched as they are. A file that is not what its name says is a per-file error, as in rg.
Decompression stops past ``limit`` bytes (the file-size cap applies to what is searched, so a small
archive cannot expand into gigabytes).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
from typing import IO, Callable

__all__ = ["compressed_kind", "decompress", "SUFFIXES", "DecompressError"]

_OPENERS: dict[str, Callable[[IO[bytes]], IO[bytes]]] = {
    "gzip": lambda raw: gzip.GzipFile(fileobj=raw),
    "bzip2": lambda raw: bz2.BZ2File(raw),
    "xz": lambda raw: lzma.LZMAFile(raw, format=lzma.FORMAT_XZ),
    "lzma": lambda raw: lzma.LZMAFile(raw, format=lzma.FORMAT_ALONE),
}
SUFFIXES: dict[str, str] = {".gz": "gzip", ".tgz": "gzip", ".bz2": "bzip2", ".tbz2": "bzip2", ".tbz": "bzip2",
                            ".xz": "xz", ".txz": "xz", ".lzma": "lzma"}
_ENDINGS = tuple(SUFFIXES)
CHUNK = 1 << 20


class DecompressError(Exception):
    """The file is not in the format its name says (rg: the tool's complaint, e.g. "not in gzip format")."""


def compressed_kind(path: str) -> str | None:
    """The compression a file's name says it has, or None."""
    lowered = path.lower()
    if not lowered.endswith(_ENDINGS):
        return None
    return SUFFIXES["." + lowered.rsplit(".", 1)[-1]]


def decompress(data: bytes, kind: str, limit: int | None) -> bytes | None:
    """What ``data`` decompresses to; None when that passes ``limit`` bytes."""
    chunks: list[bytes] = []
    total = 0
    try:
        with _OPENERS[kind](io.BytesIO(data)) as stream:
            while chunk := stream.read(CHUNK):  # in pieces: a cap may be far above what memory holds
                chunks.append(chunk)
                total += len(chunk)
                if limit is not None and total > limit:
                    return None
    except (OSError, EOFError, lzma.LZMAError, ValueError) as exc:
        raise DecompressError(f"not in {kind} format ({exc})") from None
    return b"".join(chunks)
