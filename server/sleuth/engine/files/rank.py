"""Quick-Open fuzzy ranking of file paths (``sleuth.files`` with ``query``): ``usrctl`` finds ``UserController.cs``.

The scorer follows what fzf (its v2 algorithm) and VS Code's Quick Open learned, as general signals:

- the query is read as VS Code reads it (:func:`parse_query`): space-separated terms, each of which
  must appear in the path in order (a subsequence) on its own — terms may share characters; a term
  in double quotes must appear contiguously; ``*`` and ``…`` are dropped; ``\\`` is ``/``;
- an alignment scores per matched character, more at a *word start* — a path segment start, after
  ``_ - .`` or a space, a camelCase hump, the last of a run of capitals before a lower-case letter
  (``IAsync``), a letter/digit boundary — and twice that for the term's first character; a run of
  consecutive matches keeps the bonus of the word start it began at, so ``gemobj`` on
  ``gem_object`` scores like two word prefixes; gaps cost a little per character;
- *file-name matches win* (VS Code's label preference): a term that fits inside the file name
  scores its alignment there plus a bonus, so ``pbui`` prefers ``phy-brcm-usb-init.c`` to
  ``tools/pci/Build``; a term with a ``/`` matches its folder part before the last ``/`` and its
  name part inside the file name; a term that runs on from the folders into the file name
  (``partisettings`` on ``…/_settings/settings.js``, ``schedcore`` on ``sched/core.c``) is credited
  for the part inside the name;
- the whole query equal to the file name or its stem, or a prefix of it, wins outright; of several
  terms, one that is the file name (``window node``: ``window.ts``) or starts it is credited too;
- a lone term that abbreviates the name's words from the first (numbers may be left out) is
  credited by the share of words it spells, more when it is their acronym (``dah``:
  ``drm_atomic_helper.c``);
- a file name the query covers more of, then a term found in it with the case as typed
  (``Lists.php``), then a shorter path, wins ties; callers may boost paths.

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
from typing import Any
from dataclasses import dataclass


from sleuth.engine.files.path_lines import (WORD_START, join_lines, lines_holding, mark_word_starts, matching_lines, names_and_stems,
                                      shifted_names)

__all__ = ["Term", "parse_query", "score_path", "rank_paths", "rank_paths_counted", "PathIndex"]

MATCH = 16
BONUS_SEGMENT = 9  # first character of a path segment (or of the path)
BONUS_BOUNDARY = 8  # after _ - . space and other non-word characters
BONUS_CAMEL = 7  # lower -> Upper, letter -> digit
BONUS_NONWORD = 8  # matching a separator itself (``/`` in ``gem/obj``)
BONUS_CONSECUTIVE = 4  # least bonus of a character continuing a run
FIRST_MULTIPLIER = 2  # the first character's word-start bonus counts twice
GAP_START = 3
GAP_EXTEND = 1
LABEL = 12  # a term aligned inside the file name
NAME_EXACT = 64  # the whole query is the file name or its stem
NAME_PREFIX = 24  # the whole query starts the file name
TERM_EXACT = 16  # of several terms, one is the file name or its stem (``window node``: window.ts)
TERM_PREFIX = 6  # of several terms, one starts the file name
SPAN_TAIL = 2  # characters of a term, at least, that run on from its folders into the file name
CASE = 2  # a term found in the file name with the letters' case as typed (``Lists.php``)
COVER = 16  # times the fraction of the file name's characters the query explains
ABBREV = 32  # times the fraction of the name's words a term abbreviates, word by word from the first
ACRONYM = 24  # a lone term that is the initials of three or more of the name's words, one letter each
PATH_LENGTH = 0.05  # per character of the path
RERANK = 240  # candidates that get the full dynamic-programming score
TIER_POOL = 8000  # matching paths tiered one by one; beyond, the strong ones and the shortest names


def _bonuses(path: str) -> bytes:
    """Bonus of a match at each character of ``path`` (see the module docstring)."""
    out = bytearray(len(path))
    prev = "/"
    for i, ch in enumerate(path):
        if ch.isalnum():
            if prev in "/\\":
                out[i] = BONUS_SEGMENT
            elif not prev.isalnum():
                out[i] = BONUS_BOUNDARY
            elif (prev.islower() and ch.isupper()) or (ch.isdigit() and not prev.isdigit()):
                out[i] = BONUS_CAMEL
            elif prev.isupper() and ch.isupper() and path[i + 1:i + 2].islower():  # IAsync: the A starts a word
                out[i] = BONUS_CAMEL
        else:
            out[i] = BONUS_NONWORD
        prev = ch
    return bytes(out)


def _align(term: str, low: str, bonus: bytes, lo: int = 0, hi: int | None = None) -> float | None:
    """Best fzf-style alignment score of ``term`` in ``low[lo:hi]``; None when it is not a subsequence."""
    hi = len(low) if hi is None else hi
    prev_pos: list[int] = []
    prev_score: list[float] = []
    prev_chunk: list[int] = []
    for j, ch in enumerate(term):
        start = prev_pos[0] + 1 if j else lo
        positions: list[int] = []
        k = low.find(ch, start, hi)
        while k >= 0:
            positions.append(k)
            k = low.find(ch, k + 1, hi)
        if not positions:
            return None
        scores: list[float] = []
        chunks: list[int] = []
        keep: list[int] = []
        if j == 0:
            for p in positions:
                keep.append(p)
                scores.append(MATCH + bonus[p] * FIRST_MULTIPLIER)
                chunks.append(bonus[p])
        else:
            # predecessors p' <= p - 2 pay GAP_START + GAP_EXTEND * (p - p' - 2): keep max(score + GAP_EXTEND * p')
            best_gap = None
            q = 0
            n_prev = len(prev_pos)
            at = {p: i for i, p in enumerate(prev_pos)}
            for p in positions:
                while q < n_prev and prev_pos[q] <= p - 2:
                    value = prev_score[q] + GAP_EXTEND * prev_pos[q]
                    if best_gap is None or value > best_gap:
                        best_gap = value
                    q += 1
                b = bonus[p]
                candidate = None
                chunk = b
                i = at.get(p - 1)
                if i is not None:
                    run = prev_chunk[i]
                    candidate = prev_score[i] + MATCH + max(b, run, BONUS_CONSECUTIVE)
                    chunk = b if b >= BONUS_BOUNDARY and b > run else run
                if best_gap is not None:
                    gapped = best_gap - GAP_EXTEND * (p - 2) - GAP_START + MATCH + b
                    if candidate is None or gapped > candidate:
                        candidate, chunk = gapped, b
                if candidate is not None:
                    keep.append(p)
                    scores.append(candidate)
                    chunks.append(chunk)
            if not keep:
                return None
        prev_pos, prev_score, prev_chunk = keep, scores, chunks
    return max(prev_score)


@dataclass(frozen=True)
class Term:
    """One space-separated piece of a Quick-Open query: ``text`` lower-cased for matching, ``typed`` as
    typed (for the case tie-break), ``contiguous`` when it was quoted (it must occur as it is)."""

    text: str
    typed: str
    contiguous: bool = False

    @property
    def name(self) -> str:
        """The part matched inside the file name: after the term's last ``/``."""
        return self.text[self.text.rfind("/") + 1:]


_DROPPED = str.maketrans("", "", "*\u2026\"")  # wildcards, an ellipsis (pasted from a shortened label), quotes


def parse_query(query: str) -> list[Term]:
    """The query's terms as VS Code's Quick Open reads them: split at white space; a backslash is a path
    separator; ``*`` and ``…`` are dropped; a term in double quotes (or inside a quoted span:
    ``"foo bar"``) must occur contiguously."""
    terms: list[Term] = []
    quoted = False
    for raw in query.replace("\\", "/").split():
        contiguous = quoted or (len(raw) > 1 and raw.startswith('"') and raw.endswith('"'))
        if raw.count('"') % 2:
            quoted = not quoted
            contiguous = contiguous or quoted
        typed = raw.translate(_DROPPED)
        if typed:
            terms.append(Term(typed.lower(), typed, contiguous))
    return terms


def _term_max(term: str) -> float:
    return (len(term) * (MATCH + BONUS_SEGMENT) + BONUS_SEGMENT * (FIRST_MULTIPLIER - 1)) + LABEL


def score_path(query: "str | Sequence[Term]", path: str, boost: bool = False, bonus: bytes | None = None) -> float | None:
    """Score of ``path`` for ``query`` in 0..1 (higher is better), or None when it does not match."""
    terms = parse_query(query) if isinstance(query, str) else list(query)
    if not terms:
        return None
    low = path.lower()
    if len(low) != len(path):  # a character whose lowercase changes length: score on the lowered text
        path = low
    if bonus is None:
        bonus = _bonuses(path)
    base_start = max(path.rfind("/"), path.rfind("\\")) + 1
    raw = 0.0
    top = 0.0
    named = 0
    for term in terms:
        found = _term_score(term, low, bonus, base_start)
        if found is None:
            return None
        raw += found[0]
        named += found[1]
        top += _term_max(term.text)
    base = low[base_start:]
    whole = "".join(t.text for t in terms)
    stem = base.rsplit(".", 1)[0] if "." in base[1:] else base
    if whole in (stem, base):
        raw += NAME_EXACT
    elif base.startswith(whole):
        raw += NAME_PREFIX
    if len(terms) > 1:  # a term that is the file name, or starts it, is credited on its own
        names = [t.name for t in terms if t.name]
        raw += TERM_EXACT if any(n in (stem, base) for n in names) else TERM_PREFIX if any(
            base.startswith(n) for n in names) else 0
        top += TERM_EXACT
    raw += COVER * min(1.0, named / max(len(stem), 1))
    if len(terms) == 1 and "/" not in whole:  # a lone term is the name as the user abbreviates it
        words = _words(path[base_start:])
        stem_words = _words(path[base_start:len(path) - len(base) + len(stem)])
        raw += ABBREV * min(1.0, _abbreviates(whole, words) / max(1, sum(1 for w in stem_words if not w[:1].isdigit())))
        letters = sum(1 for c in whole if c.isalnum())
        if letters >= 3 and _abbreviates(whole, stem_words) == letters:
            raw += ACRONYM  # every character a word's initial: the name's acronym (``dah``: drm_atomic_helper)
    if any(t.typed[t.typed.rfind("/") + 1:] in path[base_start:] for t in terms):
        raw += CASE
    raw -= PATH_LENGTH * len(path)
    if boost:
        raw += 8
    top += NAME_EXACT + COVER + ABBREV + CASE + ACRONYM
    return max(0.0, min(1.0, raw / top))


def _words(name: str) -> list[str]:
    """Lower-cased words of a file name: split at separators, camelCase humps and letter/digit boundaries."""
    return [w for w in WORD_START.sub("\x01", name).lower().split("\x01") if w]


def _abbreviates(term: str, words: list[str]) -> int:
    """How many of ``words``, from the first on, ``term`` spells as consecutive word prefixes (``i9gemobj``
    -> ``i 915 gem object``: 4); a word that is a number may be left out, as people leave out the
    numbers of a name (``isw`` -> ``ieee 80211 softmac wx``: 3). 0 unless it spans two words or more
    and is not simply the name's start (that is the prefix signal). Separators in either are ignored."""
    term = "".join(c for c in term if c.isalnum())
    words = ["".join(c for c in w if c.isalnum()) for w in words]
    best = 0
    stack = [(0, 0, 0)]  # (characters of term spelled, words passed, words spelled)
    seen = set()
    while stack:
        at, used, spelled = stack.pop()
        if at == len(term):
            best = max(best, spelled)
            continue
        if used == len(words) or (at, used, spelled) in seen:
            continue
        seen.add((at, used, spelled))
        word = words[used]
        if word[:1].isdigit() and used:
            stack.append((at, used + 1, spelled))
        k = 0
        while k < len(word) and at + k < len(term) and term[at + k] == word[k]:
            k += 1
            stack.append((at + k, used + 1, spelled + 1))
    return best if best >= 2 and not "".join(words).startswith(term) else 0


def _align_term(term: Term, text: str, low: str, bonus: bytes, lo: int = 0, hi: int | None = None) -> float | None:
    """:func:`_align` of ``text`` (the term or a part of it), or for a quoted term its best occurrence."""
    if not term.contiguous:
        return _align(text, low, bonus, lo, hi)
    hi = len(low) if hi is None else hi
    best = None
    at = low.find(text, lo, hi)
    while at >= 0:
        score = _align(text, low, bonus, at, at + len(text))
        best = score if best is None or (score is not None and score > best) else best
        at = low.find(text, at + 1, hi)
    return best


def _term_score(term: Term, low: str, bonus: bytes, base_start: int) -> tuple[float, int] | None:
    """One term: the best alignment over the path, or one inside the file name plus :data:`LABEL`: the
    whole term there, or its folder part (before a ``/``, or else the start of a term that runs on
    into the file name: ``partisettings`` on ``…/-project/_settings/settings.js``) before the file
    name and the rest inside it (a spanning term without the label bonus, and its tail's first character
    not counted as a term's first: only the file-name coverage credits it). With the score, how many
    of the term's characters the file name explains (0 when the best alignment is over the path)."""
    text = term.text
    whole = _align_term(term, text, low, bonus)
    if whole is None:
        return None
    slash = text.rfind("/")
    if slash < 0:
        in_name = _align_term(term, text, low, bonus, base_start)
        if in_name is not None:
            return (in_name + LABEL, len(text)) if in_name + LABEL >= whole else (whole, 0)
        if term.contiguous:
            return whole, 0
        split = _span_split(text, low, base_start)
        if not split:
            return whole, 0
        folder, name = text[:split], text[split:]
    else:
        folder, name = text[:slash + 1], text[slash + 1:]
        if not name:
            return whole, 0
    in_name = _align_term(term, name, low, bonus, base_start)
    head = _align_term(term, folder, low, bonus, 0, base_start)
    if in_name is None or head is None:
        return whole, 0
    split_score = head + in_name + (LABEL if slash >= 0 else -BONUS_SEGMENT * (FIRST_MULTIPLIER - 1) - GAP_START)
    return (split_score, len(name)) if split_score >= whole else (whole, 0)


def _span_split(text: str, low: str, base_start: int) -> int:
    """Where a term running on from the folders into the file name (``partisettings``) enters the
    name: the longest tail the name holds as a subsequence, begun where the name's first word begins;
    0 when there is no such tail of :data:`SPAN_TAIL` characters or more with folder characters before."""
    split = _name_suffix(text, low, base_start)
    first = next((c for c in low[base_start:] if c.isalnum()), "")
    while split < len(text) and text[split] != first:
        split += 1
    return split if len(text) - split >= SPAN_TAIL and split else 0


def _spans(text: str, low: str, base_start: int) -> bool:
    """Whether ``text`` runs from the folders of ``low`` into its file name (see :func:`_span_split`)."""
    split = _span_split(text, low, base_start)
    return bool(split) and _is_subsequence(text[:split], low[:base_start])


def _name_suffix(text: str, low: str, base_start: int) -> int:
    """Where the longest tail of ``text`` that the file name holds as a subsequence begins."""
    k = len(text)
    at = len(low)
    while k > 0:
        found = low.rfind(text[k - 1], base_start, at)
        if found < 0:
            break
        k -= 1
        at = found
    return k


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


def _is_subsequence(small: str, big: str) -> bool:
    rest = iter(big)
    return all(c in rest for c in small)


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
            o.text != t.text and not t.contiguous and (t.text in o.text if o.contiguous else _is_subsequence(t.text, o.text))
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
            found = self._bonus[i] = _bonuses(self.prepared.displays[i])
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
            if best == 6 and loose and base.lstrip("_-.")[:1] in span_starts and _spans(terms[0].text, prep.lows[i], len(prep.lows[i]) - len(base)):
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
