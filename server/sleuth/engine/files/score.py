"""Quick-Open fuzzy scoring of one file path against a query (``sleuth.files`` with ``query``): ``usrctl`` finds ``UserController.cs``.

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

Ranking many paths (the candidate passes over a whole catalogue) is :mod:`sleuth.engine.files.rank`'s job.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sleuth.engine.files.path_lines import WORD_START

__all__ = ["Term", "parse_query", "score_path", "bonuses", "is_subsequence", "runs_into_name"]

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


def bonuses(path: str) -> bytes:
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
        bonus = bonuses(path)
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


def runs_into_name(text: str, low: str, base_start: int) -> bool:
    """Whether ``text`` runs from the folders of ``low`` into its file name (see :func:`_span_split`)."""
    split = _span_split(text, low, base_start)
    return bool(split) and is_subsequence(text[:split], low[:base_start])


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


def is_subsequence(small: str, big: str) -> bool:
    """Whether ``small``'s characters appear in ``big`` in order (a term matches a path so)."""
    rest = iter(big)
    return all(c in rest for c in small)
