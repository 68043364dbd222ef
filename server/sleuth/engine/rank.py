"""Quick-Open fuzzy ranking of file paths (``sleuth.files`` with ``query``): ``usrctl`` finds ``UserController.cs``.

The scorer follows what fzf and VS Code's Quick Open learned, as general signals (no tuned cases):

- the query's characters must appear in order (a subsequence) — each space-separated term separately;
- a matched character scores more at a *word start*: the start of a path segment, after ``_ - .``
  or a space, at a camelCase hump or a letter/digit boundary; consecutive matches score more
  (a contiguous run beats scattered letters), gaps cost a little per character;
- matches in the file *name* beat matches in directories; an exact or prefix file-name match wins;
- shorter and shallower paths win ties; callers may boost some paths (open, recently changed).

The best alignment is found by dynamic programming over the positions where each query character
occurs (sparse, so a 60-character path costs tens of steps). Ranking a 78k-path catalogue stays
fast because candidates are first found by one regex pass over all lower-cased file names (and,
when few names match, one linear-time RE2 pass over the joined paths), then pre-ranked by a cheap
tier (contiguous in the name, name prefix, subsequence of the name); only the head gets the DP.
"""

from __future__ import annotations

import bisect
import heapq
import re
import threading
from dataclasses import dataclass
from typing import Collection, Sequence

try:  # linear time and ~10x faster than re for the subsequence pattern on 3 MB of paths
    import re2 as _re2
except ImportError:  # pragma: no cover - google-re2 is a runtime dependency
    _re2 = None

__all__ = ["score_path", "rank_paths", "PathIndex"]

MATCH = 16
BONUS_SEGMENT = 12  # first character of a path segment
BONUS_WORD = 9  # after _ - . space
BONUS_CAMEL = 8  # lower -> Upper
BONUS_DIGIT = 5  # letter <-> digit
BONUS_CONSECUTIVE = 10
BONUS_BASENAME = 6  # per character matched in the file name
GAP_START = 6
GAP_EXTEND = 2
LENGTH_PENALTY = 0.15  # per character of the path
DEPTH_PENALTY = 1.0  # per folder level
RERANK = 200  # candidates that get the full dynamic-programming score


def _bonus(path: str, i: int) -> int:
    if i == 0:
        return BONUS_SEGMENT
    prev, cur = path[i - 1], path[i]
    if prev in "/\\":
        return BONUS_SEGMENT
    if prev in "_-. ":
        return BONUS_WORD
    if prev.islower() and cur.isupper():
        return BONUS_CAMEL
    if prev.isdigit() != cur.isdigit() and cur.isalnum() and prev.isalnum():
        return BONUS_DIGIT
    return 0


def _term_score(term: str, path: str, lower: str, base_start: int) -> float | None:
    """Best alignment score of ``term`` (lowercase) in ``path``; None when it is not a subsequence."""
    prev: list[tuple[int, float]] = []  # (position, best score ending there)
    for j, ch in enumerate(term):
        positions: list[int] = []
        start = prev[0][0] + 1 if prev else 0
        k = lower.find(ch, start)
        while k >= 0:
            positions.append(k)
            k = lower.find(ch, k + 1)
        if not positions:
            return None
        cur: list[tuple[int, float]] = []
        for i in positions:
            own = MATCH + _bonus(path, i) + (BONUS_BASENAME if i >= base_start else 0)
            if j == 0:
                cur.append((i, own - min(i, 20) * 0.2))
                continue
            best = None
            for p, s in prev:
                if p >= i:
                    break
                if p == i - 1:
                    value = s + own + BONUS_CONSECUTIVE
                else:
                    value = s + own - GAP_START - GAP_EXTEND * min(i - p - 2, 12)
                if best is None or value > best:
                    best = value
            if best is not None:
                cur.append((i, best))
        if not cur:
            return None
        prev = cur
    return max(s for _, s in prev)


def _max_term(term: str) -> float:
    return len(term) * (MATCH + BONUS_SEGMENT + BONUS_BASENAME + BONUS_CONSECUTIVE)


def score_path(query: str, path: str, boost: bool = False) -> float | None:
    """Score of ``path`` for ``query`` in 0..1 (higher is better), or None when it does not match."""
    terms = query.lower().split()
    if not terms:
        return None
    lower = path.lower()
    if len(lower) != len(path):  # a character whose lowercase changes length: score on the lowered text
        path = lower
    base_start = max(path.rfind("/"), path.rfind("\\")) + 1
    base = lower[base_start:]
    stem = base.rsplit(".", 1)[0] if "." in base[1:] else base
    raw = 0.0
    top = 0.0
    for term in terms:
        s = _term_score(term, path, lower, base_start)
        if s is None:
            return None
        raw += s
        top += _max_term(term)
    whole = "".join(terms)
    if whole == stem or whole == base:
        raw += 40
    elif base.startswith(whole):
        raw += 20
    elif whole in base:
        raw += 10
    raw -= LENGTH_PENALTY * len(path) + DEPTH_PENALTY * path.count("/")
    if boost:
        raw += 8
    top += 40
    return max(0.0, min(1.0, raw / top))


@dataclass
class _Prepared:
    displays: Sequence[str]
    blob: bytes
    starts: list[int]
    bases: str
    base_starts: list[int]
    base_lows: list[str]
    lengths: list[int]


class PathIndex:
    """A path list prepared for repeated queries (joined, lower-cased blobs for the prefilters)."""

    def __init__(self, displays: Sequence[str]) -> None:
        lows = [d.lower() for d in displays]
        base_lows = [low[low.rfind("/") + 1:] for low in lows]
        raw = [low.encode("utf-8", "surrogatepass") for low in lows]
        self.prepared = _Prepared(displays, b"\n".join(raw), _offsets([len(r) for r in raw]),
                                  "\n".join(base_lows), _offsets([len(b) for b in base_lows]), base_lows,
                                  [len(d) for d in displays])

    @staticmethod
    def _pattern(term: str) -> str:
        return "[^\n]*?".join(re.escape(c) for c in term)

    def _in_paths(self, term: str) -> set[int]:
        """Paths containing ``term`` as a subsequence: one RE2 pass (linear) over all paths."""
        prep = self.prepared
        pattern = self._pattern(term).encode("utf-8")
        compiled = _re2.compile(pattern) if _re2 is not None else re.compile(pattern)
        return {bisect.bisect_right(prep.starts, m.start()) - 1 for m in compiled.finditer(prep.blob)}

    def _in_names(self, term: str) -> set[int]:
        """Paths whose file name contains ``term`` as a subsequence (names are short: ``re`` is fast)."""
        prep = self.prepared
        compiled = re.compile(self._pattern(term))
        return {bisect.bisect_right(prep.base_starts, m.start()) - 1 for m in compiled.finditer(prep.bases)}

    def search(self, query: str, boost: Collection[int] = (), limit: int | None = None) -> list[tuple[int, float]]:
        """``(index, score)`` of matching paths, best first (ties: shorter, then path order).

        When more than :data:`RERANK` file names match a one-word query, matches that need the
        folders are left out: they cannot outrank that many file-name matches in practice.
        """
        terms = query.lower().split()
        prep = self.prepared
        if not terms:
            return []
        whole = "".join(terms)
        in_names = self._in_names(whole) if len(terms) == 1 else set()
        if len(in_names) >= RERANK:
            candidates = in_names
        else:
            found: set[int] | None = None
            for term in terms:
                part = self._in_paths(term)
                found = part if found is None else found & part
            candidates = found or set()
        lows, lengths = prep.base_lows, prep.lengths
        head = whole[:3]

        def cheap(i: int) -> tuple[int, int, int]:
            base = lows[i]
            tier = (4 if whole in base else 0) + (2 if base.startswith(head) else 0) + (i in in_names) + (i in boost)
            return -tier, lengths[i], i

        order = heapq.nsmallest(RERANK, candidates, key=cheap)
        if len(candidates) > RERANK:
            chosen = set(order)
            order += sorted((i for i in candidates if i not in chosen), key=lengths.__getitem__)
        displays = prep.displays
        scored: list[tuple[int, float]] = []
        for i in order[:RERANK]:
            s = score_path(query, displays[i], i in boost)
            if s is not None:
                scored.append((i, s))
        scored.sort(key=lambda x: (-x[1], lengths[x[0]], x[0]))
        result = scored + [(i, 0.0) for i in order[RERANK:]]  # matched, below the re-ranked head
        return result[:limit] if limit is not None else result


def _offsets(lengths: list[int]) -> list[int]:
    out = []
    pos = 0
    for length in lengths:
        out.append(pos)
        pos += length + 1
    return out


_cache_lock = threading.Lock()
_cache: list[PathIndex] = []


def _prepared(displays: Sequence[str]) -> PathIndex:
    with _cache_lock:
        for index in _cache:
            if index.prepared.displays is displays or index.prepared.displays == displays:
                return index
    index = PathIndex(list(displays))
    with _cache_lock:
        _cache.insert(0, index)
        del _cache[2:]
    return index


def rank_paths(query: str, displays: Sequence[str], boost: Collection[int] = (),
               limit: int | None = None) -> list[tuple[int, float]]:
    """Rank ``displays`` for the Quick-Open ``query``: ``(index into displays, score 0..1)``, best first.

    Only matching paths are returned. The prepared form of the last path lists is cached, so
    repeated queries over the same catalogue skip the preparation.
    """
    if not query.strip() or not displays:
        return []
    return _prepared(displays).search(query, boost, limit)
