"""The definition scan's optional compiled loop (``_scan.c``, built by ``setup.py``), or None for each.

Why compiled: ``bench/build_profile.py`` put 58% of a build worker's CPU in the symbols stage, most of it
the definition regex tried line by line and the Python work around each of its 4.5 million matches in the
Linux tree (a match object, a decode, a key, a tuple, a line count), then the stored form's keys and text.
``_scan.c`` resolves the same ten alternatives as the regex does (the first that matches, the same
captured name) and does that work per match in C. Optional: where the extension was not compiled (no
compiler, the pure wheel), or with ``SLEUTH_FORCE_FALLBACKS=no-compiled-defs``, the regex path runs and
gives the same symbols, keys and stored bytes (``tests/engine/symbols/test_compiled_scan.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from sleuth.engine.platform import compiled_module

if TYPE_CHECKING:
    from sleuth.engine.definitions.extract import Symbol

__all__ = ["sites", "found", "place", "block_lines", "name_keys", "pack_text"]

Found = tuple[int, int, str, int, str]  # (name offset, name end, name, SymbolKind, container) in the file's bytes

#: ``sites(b"\n" + data)``: ``(line start, name start, name end, kind index)`` per accepted definition line
sites: Callable[[bytes], list[tuple[int, int, int, int]]] | None = None
#: ``found(b"\n" + data, keys, kinds, type_kinds)``: the C family's tuples, each name's key added to ``keys``
#: (``kinds`` None: the keys only)
found: Callable[[bytes, set[str], tuple[int, ...] | None, tuple[int, ...] | None], list[Found]] | None = None
#: ``place(data, sorted found, Symbol)``: the symbols (name, kind, container, 0-based line, UTF-16 columns)
place: Callable[[bytes, list[Found], type[Symbol]], list[Symbol]] | None = None
#: ``block_lines(b"\n" + data)``: the "\n"s before lines led by typedef/static/const/extern/struct/union/enum
block_lines: Callable[[bytes], list[int]] | None = None
#: ``name_keys(symbols, fast_key)``: ``{name: fast_key(name)}`` for each distinct name
name_keys: Callable[[list[Symbol], Callable[[str], str]], dict[str, str]] | None = None
#: ``pack_text(symbols, keys)``: what :func:`sleuth.engine.definitions.pack.pack` compresses
pack_text: Callable[[list[Symbol], dict[str, str]], bytes] | None = None

_scan = compiled_module("sleuth.engine.definitions._scan", "no-compiled-defs")
if _scan is not None:
    sites = _scan.sites
    found = _scan.found
    place = _scan.place
    block_lines = _scan.block_lines
    name_keys = _scan.name_keys
    pack_text = _scan.pack_text
