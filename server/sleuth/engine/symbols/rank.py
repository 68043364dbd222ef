"""How a name matches a Ctrl+T query, best first: the order people expect from Go to Symbol.

Tiers: the exact name; the same name ignoring case and ``_`` (``pmresume`` finds ``PM_RESUME``);
a prefix; the starts of the name's words in order (``gubi`` -> ``getUserById``, ``pm_r`` ->
``pm_runtime_resume``); any in-order match of the query's characters. Inside a tier a name of an
open file first, then shorter names, then shorter paths.
"""

from __future__ import annotations

from functools import lru_cache

from sleuth.engine.definitions.defs import split_identifier
from sleuth.engine.definitions.pack import fast_key

__all__ = ["EXACT", "SAME_KEY", "PREFIX", "WORD_STARTS", "IN_ORDER", "match_tier", "TIER_NAMES"]

EXACT, SAME_KEY, PREFIX, WORD_STARTS, IN_ORDER = range(5)
TIER_NAMES = ("exact", "same_key", "prefix", "word_starts", "in_order")


def match_tier(name: str, query: str, query_key: str) -> int | None:
    """The tier of ``name`` for ``query`` (``query_key`` its key), or None when it does not match."""
    if name == query:
        return EXACT
    key = fast_key(name)
    if key == query_key:
        return SAME_KEY
    if key.startswith(query_key):
        return PREFIX
    if not _in_order(key, query_key):
        return None
    return WORD_STARTS if _word_starts(tuple(_parts(name)), query_key) else IN_ORDER


def _in_order(key: str, query_key: str) -> bool:
    at = 0
    for ch in query_key:
        at = key.find(ch, at) + 1
        if not at:
            return False
    return True


@lru_cache(maxsize=4096)
def _parts(name: str) -> tuple[str, ...]:
    return tuple(p for p in split_identifier(name) if p)


@lru_cache(maxsize=4096)
def _word_starts(parts: tuple[str, ...], query_key: str) -> bool:
    """``query_key`` is made of a non-empty prefix of some of ``parts``, in order, the first part's included."""
    if not query_key:
        return True
    if not parts:
        return False
    head, rest = parts[0], parts[1:]
    n = 0
    while n < len(head) and n < len(query_key) and head[n] == query_key[n]:
        n += 1
    for taken in range(n, 0, -1):
        if _word_starts_any(rest, query_key[taken:]):
            return True
    return False


def _word_starts_any(parts: tuple[str, ...], query_key: str) -> bool:
    """Like :func:`_word_starts`, but any later part may be where the next word starts."""
    if not query_key:
        return True
    return any(_word_starts(parts[i:], query_key) for i in range(len(parts)) if parts[i][:1] == query_key[:1])
