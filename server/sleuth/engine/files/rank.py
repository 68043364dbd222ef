"""Quick-Open fuzzy ranking of many file paths (``sleuth.files`` with ``query``): which paths match,
and the best of them in order. Each path is scored by :func:`sleuth.engine.files.score.score_path`
(how a query aligns with one path, and why); this module finds the paths to score.

Which paths match never depends on which other paths exist: every path each term matches is
found (:meth:`PathIndex._all_terms`) and counted. The best alignment is a dynamic program over the
positions of each query character (sparse: a 60-character path costs tens of steps; the gap penalty
is linear so the best predecessor is a running maximum). Ranking a 78k-path catalogue stays fast
because the matching paths come from RE2 passes over joined, lower-cased path blobs (a run of
neighbouring matches per search) and are tiered (exact name, name prefix, contiguous in the name,
word starts of the name or folders running into it, subsequence of the name, then of the path);
only the best few hundred get the dynamic program.
"""

from __future__ import annotations

import bisect
import heapq
import re
import threading
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from sleuth.engine.files.path_lines import (join_lines, lines_holding, mark_word_starts, matching_lines, names_and_stems,
                                            shifted_names)
from sleuth.engine.files.score import Term, bonuses, is_subsequence, parse_query, runs_into_name, score_path

__all__ = ["rank_paths", "rank_paths_counted", "PathIndex", "RERANK", "TIER_POOL"]

RERANK = 240  # candidates that get the full dynamic-programming score
TIER_POOL = 8000  # matching paths tiered one by one; beyond, the strong ones and the shortest names


@dataclass
class _Prepared:
    displays: Sequence[str]
    lows: list[str]
    blob: bytes  # lower-cased paths, one a line
    starts: list[int]
    bases: bytes  # lower-cased file names, one a line
    base_starts: list[int]
    base_lows: list[str]
    lengths: list[int]


def _finder(term: Term, text: str | None = None) -> Any:
    """``search`` of a compiled pattern for one text that ``term`` (or ``text``, a part of it) matches."""
    text = term.text if text is None else text
    return re.compile(re.escape(text) if term.contiguous else ".*?".join(re.escape(c) for c in text), re.S).search


def _word_aligned(term: str) -> str:
    """Each character either continues the previous one or starts a word (``\\x01`` marks word starts)."""
    return "\x01" + "(?:[^\n]*\x01)?".join(re.escape(c) for c in term) + "[^\n]*"


def _markable(which: str, displays: Sequence[str]) -> Sequence[str]:
    """The texts whose word starts :meth:`PathIndex._marked` marks: the paths, or their file names."""
    return displays if which == "paths" else [d[d.rfind("/") + 1:] for d in displays]


class PathIndex:
    """A path list prepared for repeated queries (joined, lower-cased blobs for the candidate passes)."""

    def __init__(self, displays: Sequence[str]) -> None:
        joined = "\n".join(displays)
        if joined.count("\n") == len(displays) - 1:  # one call (lowering is per character, the sigma rule sees
            lows = joined.lower().split("\n") if displays else []  # a newline as the end of a word)
        else:
            lows = [d.lower() for d in displays]
        self._fill(displays, lows, [low[low.rfind("/") + 1:] for low in lows], {}, None)

    def _fill(self, displays: Sequence[str], lows: list[str], base_lows: list[str],
              marked: dict[str, list[str]], names: "tuple[dict[str, int], dict[str, tuple[int, ...]]] | None") -> None:
        blob, starts = join_lines(lows)
        bases, base_starts = join_lines(base_lows)
        self.prepared = _Prepared(displays, lows, blob, starts, bases, base_starts, base_lows,
                                  [len(d) for d in displays])
        self._marked_cache: dict[str, tuple[list[str], bytes, list[int]]] = {
            which: (texts, *join_lines(texts)) for which, texts in marked.items()}
        self._names: tuple[dict[str, int], dict[str, tuple[int, ...]]] | None = names  # see names_and_stems
        self._bonus: dict[int, bytes] = {}
        self._lock = threading.Lock()

    def spliced(self, displays: Sequence[str]) -> "PathIndex | None":
        """This index for ``displays`` when they are this index's paths with one path added or removed
        (a file created or deleted), made by splicing the prepared lists: ~0.05 s on the Linux tree
        where preparing from scratch takes ~0.45 s. None for any other difference."""
        old = self.prepared.displays
        grown = len(displays) - len(old)
        if grown not in (1, -1):
            return None
        at = next((i for i, (a, b) in enumerate(zip(old, displays)) if a != b), min(len(old), len(displays)))
        if grown == 1 and list(displays[at + 1:]) != list(old[at:]) or grown == -1 and list(displays[at:]) != list(old[at + 1:]):
            return None

        def splice(items: list, item: object = None) -> list:
            return [*items[:at], item, *items[at:]] if grown == 1 else [*items[:at], *items[at + 1:]]

        prep = self.prepared
        low = displays[at].lower() if grown == 1 else ""
        base = low[low.rfind("/") + 1:] if grown == 1 else prep.base_lows[at]
        with self._lock:
            cached = {which: texts for which, (texts, _blob, _starts) in self._marked_cache.items()}
            names = self._names
        marked = {which: splice(texts, mark_word_starts(_markable(which, [displays[at]]))[0] if grown == 1 else None)
                  for which, texts in cached.items()}
        index = PathIndex.__new__(PathIndex)
        index._fill(displays, splice(prep.lows, low), splice(prep.base_lows, base), marked,
                    None if names is None else shifted_names(names, at, grown, base))
        return index

    def _marked(self, which: str) -> tuple[list[str], bytes, list[int]]:
        """File names (``names``) or paths (``paths``) lower-cased with ``\\x01`` before each word start:
        the list, and joined one a line with the line offsets; made on first use."""
        with self._lock:
            found = self._marked_cache.get(which)
            if found is None:
                marked = mark_word_starts(_markable(which, self.prepared.displays))
                found = self._marked_cache[which] = (marked, *join_lines(marked))
            return found

    def _named(self, name: str) -> set[int]:
        """Paths whose file name, or its stem (the name without its last extension), is ``name``."""
        with self._lock:
            if self._names is None:
                self._names = names_and_stems(self.prepared.base_lows)
        first, more = self._names
        at = first.get(name)
        if at is None:
            return set()
        return {at, *more[name]} if name in more else {at}

    def _matching(self, term: Term, among: Collection[int] | None = None, names: bool = False) -> set[int]:
        """Paths (or file names) that ``term`` matches, of those ``among``: one RE2 pass over the joined
        text (:func:`lines_holding`), or a check per path of a small ``among``."""
        prep = self.prepared
        if among is None or len(among) > 4000:
            text, starts = (prep.bases, prep.base_starts) if names else (prep.blob, prep.starts)
            found = lines_holding(re.escape(term.text) if term.contiguous else
                                  "[^\n]*?".join(re.escape(c) for c in term.text), text, starts)
            return found if among is None else found & set(among)
        search = _finder(term)
        texts = prep.base_lows if names else prep.lows
        return {i for i in among if search(texts[i])}

    def _all_terms(self, terms: list[Term]) -> set[int]:
        """Paths that every term matches, each on its own (terms may share characters: ``foo oba``
        matches ``foobar``): exactly the paths :func:`score_path` scores, whatever other paths exist.
        A subsequence term implied by another term is skipped; the longest first as one RE2 pass,
        the others checked per path on what is left (or as a pass of their own while much is)."""
        unique = [t for t in dict.fromkeys(terms) if not any(
            o.text != t.text and not t.contiguous and (t.text in o.text if o.contiguous else is_subsequence(t.text, o.text))
            for o in terms)] or terms[:1]
        pool: set[int] | None = None
        for term in sorted(unique, key=lambda t: (not t.contiguous, -len(t.text))):
            if pool is None:
                pool = self._matching(term)
            elif len(pool) > 20000 and len(term.text) >= 4:
                pool &= self._matching(term)
            else:
                pool = self._matching(term, pool)
        return pool or set()

    def _bonus_of(self, i: int) -> bytes:
        found = self._bonus.get(i)
        if found is None:
            if len(self._bonus) > 20000:
                self._bonus = {}
            found = self._bonus[i] = bonuses(self.prepared.displays[i])
        return found

    def candidates(self, terms: list[Term], boost: Collection[int]) -> tuple[list[int], set[int]]:
        """(up to :data:`RERANK` likely-best matching paths, best tier first; every path matching).

        Every path matching is every path :func:`score_path` scores, found by one RE2 pass per term
        (:meth:`_all_terms`): which paths match never depends on which other paths exist.
        Tiers, for each term's name part (the best-placed term decides): the whole query is the file
        name or stem; the name starts with the term; holds it contiguously; at word starts; as a
        subsequence; the path holds it at word starts; anywhere. Each other term found in the file
        name lifts a path one tier.
        A one-term query that at least :data:`RERANK` file names hold (or paths at word starts) tiers
        only those: the paths that need their folders to match loosely could not outrank that many.
        """
        prep = self.prepared
        lengths, base_lows = prep.lengths, prep.base_lows
        whole = "".join(t.text for t in terms)
        names = [t.name for t in terms]
        key_name = max(names, key=len)
        exact = self._named(whole)
        pool = self._all_terms(terms)
        considered = pool
        loose = len(terms) == 1 and "/" not in whole and not terms[0].contiguous
        if loose and len(pool) > RERANK:
            strong = self._matching(terms[0], names=True)
            if len(whole) >= 4 or len(strong) < RERANK:
                # folder + name abbreviations at word starts (``netlint``: netlink/intro.rst): a selective pass
                _, marked_blob, marked_starts = self._marked("paths")
                strong |= matching_lines(_word_aligned(whole), marked_blob, marked_starts)
            if len(strong) >= RERANK:
                considered = strong | exact
        marked_names = self._marked("names")[0]
        parts = list(dict.fromkeys(t for t in terms if t.name)) or terms[:1]

        def name_tests(term: Term) -> tuple[str, Any, Any]:
            if term.contiguous:
                return term.name, _finder(term, term.name), _finder(term, term.name)
            return term.name, re.compile(_word_aligned(term.name)).search, _finder(term, term.name)

        tests = [name_tests(t) for t in parts]
        spread = "/" in whole or len(terms) > 1 or len(considered) <= 4 * RERANK
        marked_paths = self._marked("paths")[0] if spread and loose else None
        aligned_path = re.compile(_word_aligned(terms[0].text)).search if marked_paths is not None else None

        span_starts = set(terms[0].text[1:])  # a name that a term runs into starts with one of these

        def name_tier(base: str, marked: str, name: str, aligned: Any, loose_test: Any) -> int:
            if base.startswith(name):
                return 1
            if name in base:
                return 2
            if aligned(base if aligned is loose_test else marked):
                return 3
            return 4 if loose_test(base) else 6

        def level(i: int) -> int:
            if i in exact:
                return -len(parts) - (i in boost)
            base, marked = base_lows[i], marked_names[i]
            tiers = [name_tier(base, marked, *test) for test in tests] or [6]
            best = min(tiers)
            if best == 6 and loose and base.lstrip("_-.")[:1] in span_starts and runs_into_name(terms[0].text, prep.lows[i], len(prep.lows[i]) - len(base)):
                best = 3  # folders, then the file name: as good as word starts inside the name
            elif best == 6 and aligned_path is not None and marked_paths is not None and aligned_path(marked_paths[i]):
                best = 5
            # the best-placed term decides; every other term found in the file name lifts a path a tier
            return best - sum(1 for t in tiers if t < 6) + 1 - (i in boost)

        if len(considered) > TIER_POOL:  # too many to tier one by one: first the few the blobs say are strong
            strong = set(exact)
            if len(key_name) >= 3:
                _, marked_blob, marked_starts = self._marked("names")
                strong |= matching_lines(_word_aligned(key_name), marked_blob, marked_starts) & considered
                strong |= {bisect.bisect_right(prep.base_starts, m.start()) - 1
                           for m in re.finditer(re.escape(key_name.encode("utf-8", "surrogatepass")), prep.bases)}
            strong &= considered
            pool_head = list(strong) + heapq.nsmallest(
                TIER_POOL, considered - strong,
                key=lambda i: (not base_lows[i].startswith(key_name), len(base_lows[i]), lengths[i]))
        else:
            pool_head = list(considered)
        keyed = [((level(i), len(base_lows[i]), lengths[i], i), i) for i in pool_head]
        head = [i for _, i in heapq.nsmallest(RERANK, keyed)]
        return head, pool

    def search(self, query: str, boost: Collection[int] = (), limit: int | None = None) -> tuple[list[tuple[int, float]], int]:
        """(``(index, score)`` of the best matching paths, best first; how many paths match).

        Ties go to the shorter path, then to path order. Matches beyond the re-ranked head follow it
        with score 0, shortest first (up to ``limit``; all of them without one).
        """
        terms = parse_query(query)
        if not terms:
            return [], 0
        displays, lengths = self.prepared.displays, self.prepared.lengths
        head, pool = self.candidates(terms, boost)
        scored: list[tuple[int, float]] = []
        for i in head:
            s = score_path(terms, displays[i], i in boost, self._bonus_of(i))
            if s is not None:
                scored.append((i, s))
        scored.sort(key=lambda x: (-x[1], lengths[x[0]], x[0]))
        if limit is not None and len(scored) >= limit:
            return scored[:limit], len(pool)
        chosen = set(head)
        rest = (i for i in pool if i not in chosen)
        more = sorted(rest, key=lambda i: (lengths[i], i)) if limit is None else heapq.nsmallest(
            limit - len(scored), rest, key=lambda i: (lengths[i], i))
        return scored + [(i, 0.0) for i in more], len(pool)


_cache_lock = threading.Lock()
_cache: list[PathIndex] = []


_build_lock = threading.Lock()  # one build at a time: concurrent first queries wait for it, not build twice


def _cached(displays: Sequence[str]) -> PathIndex | None:
    with _cache_lock:
        for index in _cache:
            if index.prepared.displays is displays or index.prepared.displays == displays:
                return index
    return None


def _prepared(displays: Sequence[str]) -> PathIndex:
    index = _cached(displays)
    if index is not None:
        return index
    with _build_lock:
        index = _cached(displays)  # built meanwhile by another query
        if index is None:
            with _cache_lock:
                latest = _cache[0] if _cache else None
            index = (latest.spliced(list(displays)) if latest is not None else None) or PathIndex(list(displays))
            with _cache_lock:
                _cache.insert(0, index)
                del _cache[2:]
    return index


def rank_paths(query: str, displays: Sequence[str], boost: Collection[int] = (),
               limit: int | None = None) -> list[tuple[int, float]]:
    """Rank ``displays`` for the Quick-Open ``query``: ``(index into displays, score 0..1)``, best first.

    Only matching paths are returned (the best :data:`RERANK` of them when more match). The prepared
    form of the last path lists is cached, so repeated queries over the same catalogue skip it.
    """
    return rank_paths_counted(query, displays, boost, limit)[0]


def rank_paths_counted(query: str, displays: Sequence[str], boost: Collection[int] = (),
                       limit: int | None = None) -> tuple[list[tuple[int, float]], int]:
    """:func:`rank_paths` and how many paths match in all (``limit`` only cuts the list)."""
    if not displays:
        return [], 0
    return _prepared(displays).search(query, boost, limit)
