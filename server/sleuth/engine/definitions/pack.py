"""A file's symbols as stored in the index: one compressed text blob per big file, and name keys.

One row per file (not per symbol) keeps the build's extra cost to an insert per file: the Linux
tree has millions of definitions, and a row each would cost the build seconds it does not have.
A query finds the files through the keys (FTS5 terms) and unpacks only those; files under
:data:`STORED_MIN_BYTES` are not stored at all but extracted again when a query needs them (a
millisecond or less each), which keeps the store a third smaller on the Linux tree.
"""

from __future__ import annotations

import zlib
from typing import Iterable

from sleuth.engine.definitions import native
from sleuth.engine.definitions.extract import Symbol, symbol_key

__all__ = ["pack", "unpack", "fast_key", "name_keys", "STORED_MIN_BYTES"]

STORED_MIN_BYTES = 64 << 10  # smaller files are extracted again at query time (~25 ns a byte)


def fast_key(name: str) -> str:
    """:func:`symbol_key` with a shortcut for plain identifiers (nearly every name): the build's hot path."""
    key = name.replace("_", "").lower()
    return key if key.isalnum() and key.isascii() else symbol_key(name)


def name_keys(symbols: list[Symbol]) -> dict[str, str]:
    """``{name: fast_key(name)}`` for each distinct name of ``symbols`` (compiled where it can be: the build
    asks it of every file)."""
    if native.name_keys is not None:
        return native.name_keys(symbols, fast_key)
    return {name: fast_key(name) for name in {s.name for s in symbols}}


def pack(symbols: list[Symbol], keys: dict[str, str] | None = None) -> bytes:
    """``key\tname\tkind\tline\tcol\tend\tcontainer`` lines, zlib; the end column only when it is not
    ``col + len(name)``. The key leads, so a lookup finds its lines with ``str.find``: a big generated
    header holds tens of thousands of names, and parsing them all for one costs tens of milliseconds.
    ``keys``: each name's :func:`fast_key`, when the caller has them already (the build does)."""
    if native.pack_text is not None:  # the same text, formatted in C
        return zlib.compress(native.pack_text(symbols, keys if keys is not None else name_keys(symbols)), 6)
    out = ["\n"]
    key_of = keys.__getitem__ if keys is not None else fast_key
    for name, kind, container, line, col, end_col in symbols:
        if "\t" in name or "\n" in name:
            continue
        end = "" if end_col == col + len(name) else str(end_col)
        out.append(f"{key_of(name)}\t{name}\t{kind}\t{line}\t{col}\t{end}\t{container}\n")
    return zlib.compress("".join(out).encode("utf-8", "surrogateescape"), 6)


def unpack(blob: bytes, keys: Iterable[str] | None = None) -> list[Symbol]:
    """The packed symbols, or only those whose key is one of ``keys``, in file order."""
    text = zlib.decompress(blob).decode("utf-8", "surrogateescape")
    if keys is None:
        lines = [line for line in text.split("\n") if line]
    else:
        lines = []
        for key in keys:
            needle = "\n" + key + "\t"
            at = text.find(needle)
            while at >= 0:
                end = text.index("\n", at + 1)
                lines.append(text[at + 1:end])
                at = text.find(needle, end)
    out: list[Symbol] = []
    for line in lines:
        _, name, kind, row, col, end, container = line.split("\t", 6)
        start = int(col)
        out.append(Symbol(name, int(kind), container, int(row), start, int(end) if end else start + len(name)))
    if keys is not None:
        out.sort(key=lambda s: (s.line, s.col))
    return out
