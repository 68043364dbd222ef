"""A file's symbols as stored in the index: one compressed text blob per file, and the file's name keys.

One row per file (not per symbol) keeps the build's extra cost to an insert per file: the Linux
tree has millions of definitions, and a row each would cost the build seconds it does not have.
A query finds the files through the keys (an FTS5 term per distinct name key) and unpacks only those.
"""

from __future__ import annotations

import zlib
from typing import Iterable

from sleuth.engine.symbols.extract import Symbol, symbol_key

__all__ = ["pack", "unpack", "name_keys", "fast_key"]


def fast_key(name: str) -> str:
    """:func:`symbol_key` with a shortcut for plain identifiers (nearly every name): the build's hot path."""
    key = name.replace("_", "").lower()
    return key if key.isalnum() and key.isascii() else symbol_key(name)


def name_keys(symbols: Iterable[Symbol]) -> str:
    """The distinct keys of ``symbols``' names, space separated (an FTS5 document)."""
    keys = {fast_key(name) for name in {s.name for s in symbols}}
    keys.discard("")
    return " ".join(sorted(keys))


def pack(symbols: list[Symbol]) -> bytes:
    """``name\\tkind\\tline\\tcol\\tend\\tcontainer`` lines, zlib level 1 (a fifth of the text on the Linux tree)."""
    text = "".join(f"{s.name}\t{s.kind}\t{s.line}\t{s.col}\t{s.end_col}\t{s.container}\n"
                   for s in symbols if "\t" not in s.name and "\n" not in s.name)
    return zlib.compress(text.encode("utf-8", "surrogateescape"), 1)


def unpack(blob: bytes) -> list[Symbol]:
    out: list[Symbol] = []
    for line in zlib.decompress(blob).decode("utf-8", "surrogateescape").splitlines():
        name, kind, row, col, end, container = line.split("\t", 5)
        out.append(Symbol(name, int(kind), container, int(row), int(col), int(end)))
    return out
