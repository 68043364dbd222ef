"""Find symbols by name, ranked for Ctrl+T (``workspace/symbol``, ``sleuth.symbols``, the assistants' tool).

The index answers tier by tier (:mod:`sleuth.engine.index.symbols`): the query's own key, then the
keys it prefixes, then — only when those found nothing (:data:`IN_ORDER_BELOW`) — the keys
holding its characters in order. Files with a change pending and open buffers are extracted from
disk or memory, so a function is found as soon as it is saved. Every name found is ranked by
:func:`~sleuth.engine.symbols.rank.match_tier`, then open files, shorter names, shorter paths.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Iterable, Protocol, Sequence

from sleuth.engine.cancel import CancelToken
from sleuth.engine.index.symbols import SymbolFile, SymbolShards, SymbolStore, disk_symbols
from sleuth.engine.definitions.extract import Symbol, SymbolKind
from sleuth.engine.definitions.pack import fast_key
from sleuth.engine.symbols.rank import TIER_NAMES, match_tier
from sleuth.engine.types import FileEntry

__all__ = ["SymbolOptions", "SymbolHit", "search_symbols", "IN_ORDER_BELOW"]

# In-order matches are looked for only when the better tiers found nothing: on the Linux tree that
# tier scans millions of keys (~0.3-1 s under load), where exact and prefix lookups take milliseconds.
IN_ORDER_BELOW = 1


@dataclass(frozen=True)
class SymbolOptions:
    max_results: int = 100
    kinds: frozenset[int] | None = None  # SymbolKind numbers; None: all
    keep: Callable[[str, str], bool] | None = None  # (path, display) -> keep
    open_paths: Collection[str] = field(default_factory=frozenset)  # open editor files rank first among equals


@dataclass(frozen=True, slots=True)
class SymbolHit:
    symbol: Symbol
    path: str
    display: str
    tier: int
    open: bool

    def sort_key(self) -> tuple[Any, ...]:
        return (self.tier, not self.open, len(self.symbol.name) if self.tier > 1 else 0, len(self.display),
                self.display, self.symbol.line, self.symbol.col)

    def to_dict(self) -> dict[str, Any]:
        s = self.symbol
        return {"name": s.name, "kind": SymbolKind.NAMES.get(s.kind, "variable"), "kind_code": s.kind,
                "container": s.container, "path": self.display, "line": s.line + 1,
                "range": {"start": {"line": s.line, "character": s.col}, "end": {"line": s.line, "character": s.end_col}},
                "match": TIER_NAMES[self.tier]}


class SymbolIndex(Protocol):
    """What the search needs from an index service (``IndexService``)."""

    def read_symbols(self, read: Callable[[SymbolShards], bool]) -> bool | None: ...
    def pending_entries(self) -> Sequence[FileEntry]: ...
    def buffer_text(self, path: str) -> str | None: ...


_STORES: "weakref.WeakKeyDictionary[SymbolIndex, SymbolStore]" = weakref.WeakKeyDictionary()


def _store(index: SymbolIndex) -> SymbolStore:
    """The vocabulary cache of ``index`` (one per index service, gone with it; a request's view of
    the service, :class:`~sleuth.engine.index.service.BufferedIndex`, uses its service's)."""
    owner = getattr(index, "service", index)
    store = _STORES.get(owner)
    if store is None:
        store = _STORES[owner] = SymbolStore()
    return store


def search_symbols(index: SymbolIndex, query: str, options: SymbolOptions = SymbolOptions(),
                   token: CancelToken | None = None) -> dict[str, Any]:
    """``{ready, total, results: [SymbolHit]}``; ``ready`` False (no results) before the index is loaded:
    the caller says so (a scan of every file for definitions would take a big tree's build time)."""
    key = fast_key(query.strip())
    if not key:
        return {"ready": True, "total": 0, "results": []}
    store = _store(index)
    hits: dict[tuple[str, int, int, str], SymbolHit] = {}
    open_paths = options.open_paths

    def take(files: Iterable[SymbolFile]) -> None:
        for f in files:
            if options.keep is not None and not options.keep(f.path, f.display):
                continue
            opened = f.path in open_paths
            for s in f.symbols:
                if options.kinds is not None and s.kind not in options.kinds:
                    continue
                tier = match_tier(s.name, query, key)
                if tier is not None:
                    hits[(f.path, s.line, s.col, s.name)] = SymbolHit(s, f.path, f.display, tier, opened)

    def lookup(shards: SymbolShards) -> bool:
        take(store.files(shards, [key]))
        if len(hits) < options.max_results:
            take(store.files(shards, store.prefixed(shards, key)))
        if len(hits) < IN_ORDER_BELOW and not (token is not None and token.should_stop()):
            take(store.files(shards, store.in_order(shards, key)))
        return True

    if index.read_symbols(lookup) is None:
        return {"ready": False, "total": 0, "results": []}
    take(disk_symbols(e.path, e.display, index.buffer_text(e.path)) for e in index.pending_entries())
    ranked = sorted(hits.values(), key=SymbolHit.sort_key)
    return {"ready": True, "total": len(ranked), "results": ranked[:options.max_results]}
