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

from sleuth.engine.symbols.extract import Symbol, symbol_key

__all__ = ["pack", "unpack", "keys_of", "fast_key", "STORED_MIN_BYTES"]

STORED_MIN_BYTES = 64 << 10  # smaller files are extracted again at query time (~25 ns a byte)


def fast_key(name: str) -> str:
    """:func:`symbol_key` with a shortcut for plain identifiers (nearly every name): the build's hot path."""
    key = name.replace("_", "").lower()
    return key if key.isalnum() and key.isascii() else symbol_key(name)


def keys_of(symbols: Iterable[Symbol]) -> set[str]:
    """The distinct keys of ``symbols``' names."""
    keys = {fast_key(name) for name in {s.name for s in symbols}}
    keys.discard("")
    return keys


def pack(symbols: list[Symbol]) -> bytes:
    """``name\\tkind\\tline delta\\tcol\\tend\\tcontainer`` lines, zlib: the end column only when it is not
    ``col + len(name)``, the container ``^`` when it repeats the previous line's (members of one struct)."""
    out = []
    line = 0
    container = None
    for s in symbols:
        if "\t" in s.name or "\n" in s.name:
            continue
        end = "" if s.end_col == s.col + len(s.name) else str(s.end_col)
        same = s.container == container and s.container
        out.append(f"{s.name}\t{s.kind}\t{s.line - line}\t{s.col}\t{end}\t{'^' if same else s.container}\n")
        line, container = s.line, s.container
    return zlib.compress("".join(out).encode("utf-8", "surrogateescape"), 6)


def unpack(blob: bytes) -> list[Symbol]:
    out: list[Symbol] = []
    line = 0
    container = ""
    for text in zlib.decompress(blob).decode("utf-8", "surrogateescape").splitlines():
        name, kind, delta, col, end, held = text.split("\t", 5)
        line += int(delta)
        container = container if held == "^" else held
        start = int(col)
        out.append(Symbol(name, int(kind), container, line, start, int(end) if end else start + len(name)))
    return out
