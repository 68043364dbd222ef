"""rg's ``-z/--search-zip``: a compressed file is searched as what it decompresses to.

rg chooses by the file name and pipes the file through ``gzip -d -c``, ``bzip2``, ``xz`` and the like;
Sleuth decompresses gzip, bzip2, xz and lzma with the standard library (no program is run) and, like rg,
pipes the formats the standard library lacks (``.zst``, ``.lz4``, ``.br``, ``.Z``) through the tool
of that name on ``PATH`` (``zstd``, ``lz4``, ``brotli``, ``uncompress``), only with ``-z``. A file
that is not what its name says, or whose tool is missing, is a per-file error, as in rg.
Decompression stops past ``limit`` bytes (the file-size cap applies to what is searched, so a small
archive cannot expand into gigabytes).
"""

from __future__ import annotations

import io
from collections.abc import Callable

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import IO

__all__ = ["compressed_kind", "decompress", "SUFFIXES", "DecompressError"]

# Each format's module is imported when a file of it is searched: a search of plain files (nearly every
# one) never pays for gzip, bz2, lzma and subprocess (~3 ms of a cold ``sleuth grep``).


def _gzip(raw: IO[bytes]) -> IO[bytes]:
    import gzip

    return gzip.GzipFile(fileobj=raw)


def _bzip2(raw: IO[bytes]) -> IO[bytes]:
    import bz2

    return bz2.BZ2File(raw)


def _xz(raw: IO[bytes], alone: bool = False) -> IO[bytes]:
    import lzma

    return lzma.LZMAFile(raw, format=lzma.FORMAT_ALONE if alone else lzma.FORMAT_XZ)


_OPENERS: dict[str, Callable[[IO[bytes]], IO[bytes]]] = {
    "gzip": _gzip, "bzip2": _bzip2, "xz": _xz, "lzma": lambda raw: _xz(raw, alone=True)}
# Formats the standard library lacks: the program rg runs for them, reading standard input.
_PROGRAMS: dict[str, list[str]] = {"zstd": ["zstd", "-q", "-d", "-c"], "lz4": ["lz4", "-d", "-c"],
                                   "brotli": ["brotli", "-d", "-c"], "compress": ["uncompress", "-c"]}
SUFFIXES: dict[str, str] = {".gz": "gzip", ".tgz": "gzip", ".bz2": "bzip2", ".tbz2": "bzip2", ".tbz": "bzip2",
                            ".xz": "xz", ".txz": "xz", ".lzma": "lzma", ".zst": "zstd", ".zstd": "zstd",
                            ".lz4": "lz4", ".br": "brotli", ".z": "compress"}
_ENDINGS = tuple(SUFFIXES)
CHUNK = 1 << 20


def programs() -> dict[str, str | None]:
    """Where each program :func:`decompress` would run is found on ``$PATH`` (None: not installed)."""
    import shutil

    return {argv[0]: shutil.which(argv[0]) for argv in _PROGRAMS.values()}


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
    if kind in _PROGRAMS:
        return _by_program(data, kind, limit)
    import lzma  # (its error class; the openers import their own modules)

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


def _by_program(data: bytes, kind: str, limit: int | None) -> bytes | None:
    import shutil
    import subprocess

    argv = _PROGRAMS[kind]
    program = shutil.which(argv[0])
    if program is None:
        raise DecompressError(f"{argv[0]} is not installed (needed for {kind} files)")
    try:
        done = subprocess.run([program, *argv[1:]], input=data, capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DecompressError(f"{argv[0]} failed ({exc})") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise DecompressError(f"not in {kind} format ({message[-1] if message else f'exit {done.returncode}'})")
    if limit is not None and len(done.stdout) > limit:
        return None
    return done.stdout
