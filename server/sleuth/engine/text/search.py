"""Ranked text search (``sleuth.text``): per-line results that put where a thing is *defined* first.

Zoekt's lesson, rather than BM25 over files (which ranked the defining file first for 35 of 100
definition queries on the Linux tree): score each matching *line* by where the match sits.

1. Candidates: files defining the query's identifier (the definition keys of the index — exact,
   or by prefix for ``word*``), then files whose trigrams contain every clause's literal.
2. Scan candidates (open buffers as their unsaved text) for lines where every clause matches and
   no excluded term occurs; definition files first, then file-name matches, within a budget of
   files and bytes read — never of time, so the same query over the same files gives the same
   answer every time (a scan cut short says so: ``complete`` is false).
3. Score each line: match quality per clause (whole word > identifier part > word start >
   substring), the query's words forming one identifier (``get user by id`` ~ ``getUserById``),
   the line being a definition site of that identifier, the file name containing the words; a
   short path breaks ties. Scores are squashed into 0..1, highest first.
"""

from __future__ import annotations

import heapq
import itertools
import os
import re
import stat
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Protocol, Sequence

from sleuth.engine.cancel import CancelToken
from sleuth.engine.decode import decode_buffer

try:  # linear time; several times faster than re on megabytes with re.I
    import re2 as _re2
except ImportError:  # pragma: no cover - google-re2 is a runtime dependency
    _re2 = None
from sleuth.engine.definitions.defs import definition_name, identifier_key, split_identifier
from sleuth.engine.text.query import Term, TextQuery, parse_query
from sleuth.engine.index.trigram import And, Grams, Or, Query, gram_code, spellings, trigram_code

__all__ = ["TextHit", "TextOptions", "TextSource", "search_text"]

# The scan's budget is counted in bytes read, not in time: a time budget cut the scan at a different
# file on every run ("scheduler tick": totals 13, 14, 16 on three runs, issue 14). 8/24 MB cost a
# p95 of 850 ms over LSP (issue 29); 2/6 MB lost MRR only while the files spelling the query as one
# identifier were chosen by trigrams alone: with the underscore grams and digits kept to their
# letters (_lead_words), 348 ctags-judged queries rank 0.991 at 2/6 MB, 0.994 at 8/24 (0.971 before).
SCAN_BUDGET_BYTES = 2 << 20  # bytes read before other files than definition files are no longer started
HARD_BUDGET_BYTES = 6 << 20  # no file is started past this once there are hits
MAX_FILE_MATCHES = 1 << 16  # a file's scan stops after this many pattern matches (a minified megabyte)
BIG_FILE_BYTES = 256 * 1024  # in a bigger file, lines spelling the identifier are enough
MAX_SCAN_FILES = 400
TOGETHER_CLAUSES = 3  # a file's lines are found by the rarest-looking clauses together, up to this many
MAX_DEFINITION_FILES = 64  # definition files read whatever the budget
MAX_LINE_CHARS = 400
MAX_LINES_PER_FILE = 100

W_WORD, W_PART, W_START, W_SUB = 3.0, 2.2, 1.5, 1.0
W_IDENTIFIER, W_EXACT_IDENTIFIER = 4.0, 2.5
W_DEFINITION_WEAK, W_DEFINITION, W_DEFINITION_EXACT = 1.0, 4.0, 8.0
W_FILENAME, W_STEM = 1.0, 3.0


class _Record(Protocol):
    """A file as the ranking reads it (read-only: the catalogue's records are frozen)."""

    @property
    def path(self) -> str: ...
    @property
    def display(self) -> str: ...
    @property
    def size(self) -> int: ...


class TextSource(Protocol):
    """What the ranking asks of the files it searches: the index service (indexed answers) or
    :class:`sleuth.engine.text.scan.ScannedFiles` (the same questions answered from disk)."""

    def definers(self, key: str, prefix: bool = False) -> set[int]: ...
    def files_matching(self, query: Query) -> set[int]: ...
    def all_ids(self) -> list[int]: ...
    def records(self, fids: Iterable[int]) -> Sequence[_Record]: ...
    def pending_entries(self) -> Sequence[_Record]: ...
    def buffer_text(self, path: str) -> str | None: ...


@dataclass(frozen=True)
class TextOptions:
    max_results: int = 20
    context_lines: int = 2
    file_filter: Callable[[str, str], bool] | None = None  # (abs path, display) -> keep


@dataclass
class TextHit:
    path: str
    display: str
    line: int
    score: float
    snippet: str
    highlights: list[tuple[int, int]]
    before: list[str]
    after: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.display, "line": self.line, "score": round(self.score, 4), "snippet": self.snippet,
                "highlights": [{"start": s, "end": e} for s, e in self.highlights],
                "context": {"before": self.before, "after": self.after}}


def _file_pattern(pattern: str) -> Any:
    """A case-insensitive pattern compiled for scanning a whole file's UTF-8 bytes: RE2 when it is
    installed (it folds case over UTF-8 as ``re`` does over text). Bytes, not text: RE2's Python
    wrapper encodes a ``str`` again on every call and maps each match's offsets back to characters,
    which cost more than the search itself (8.5 MB of C, ``type``: 34 ms over bytes, 152 ms over text),
    and the whole file need not be decoded first: only the lines that match are."""
    encoded = pattern.encode("utf-8", "surrogatepass")
    if _re2 is not None:
        try:
            return _re2.compile(b"(?i)" + encoded)
        except Exception:  # noqa: BLE001 - a pattern RE2 does not support: re does
            pass
    return re.compile(encoded, re.I)  # pragma: no cover - google-re2 is a runtime dependency (ASCII case only)


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _quality(line: str, start: int, end: int) -> float:
    """Whole word > identifier part (``_``/camel/digit boundary both sides) > part start > substring."""
    before = line[start - 1] if start > 0 else ""
    after = line[end] if end < len(line) else ""
    left_word = not before or not _is_word(before)
    right_word = not after or not _is_word(after)
    if left_word and right_word:
        return W_WORD
    first, last = line[start], line[end - 1]
    left_part = left_word or before == "_" or (before.islower() and first.isupper()) or (before.isdigit() != first.isdigit())
    right_part = right_word or after == "_" or (last.islower() and after.isupper()) or (after.isdigit() != last.isdigit())
    if left_part and right_part:
        return W_PART
    if left_part:
        return W_START
    return W_SUB


class _Compiled:
    """The query's regexes: one per clause (alternatives ORed), exclusions, and the joined identifier."""

    def __init__(self, query: TextQuery) -> None:
        self.query = query
        self.clauses = [re.compile("|".join(f"(?:{t.pattern()})" for t in clause), re.I) for clause in query.clauses]
        # a line must hold every clause: the file scan is driven by the lines holding the likeliest-rarest
        # clauses together (one RE2 pass: linear, and several times faster than re with re.I on megabytes),
        # and a line is scored only once the others are on it too (``z stream`` driven by ``z`` scored every
        # line holding a z; ``pin ena s`` driven by ``pin`` matched 87,000 times in 8 MB: two seconds)
        order = sorted(range(len(query.clauses)), key=lambda i: -_selectivity(query.clauses[i]))
        together = order[:TOGETHER_CLAUSES] if _apart([query.clauses[i] for i in order[:TOGETHER_CLAUSES]]) else order[:1]
        # (RE2's [^\n] matches no invalid UTF-8 byte: a file that is not valid UTF-8 is driven by one clause)
        self.file_together = _file_pattern(_together([self.clauses[i].pattern for i in together]))
        self.after_together = [self.clauses[i] for i in order[len(together):]]
        self.file_clause = _file_pattern(self.clauses[order[0]].pattern)
        self.after_clause = [self.clauses[i] for i in order[1:]]
        self.excluded = [re.compile(t.pattern(), re.I) for t in query.excluded]
        words = query.plain_words
        self.key = identifier_key(" ".join(words)) if words else ""
        self.joined = (re.compile(r"[\s_\-]*".join(re.escape(w) for w in words), re.I) if len(words) > 1 else None)
        self.file_joined = _file_pattern(self.joined.pattern) if self.joined is not None else None
        self.words = words
        named = [re.escape(w) for w in words if len(w) > 2]
        self.name_pattern = re.compile("|".join(named), re.I) if named else None
        # every identifier the query may name: the plain words joined, and each multi-word term (a
        # lone word of a several-word query names nothing by itself: ``id`` of ``get user by id``)
        terms = [t for c in query.clauses for t in c if len(t.words) > 1 or len(query.clauses) == 1 or len(c) > 1]
        self.keys = {k for k in [self.key] + [identifier_key(" ".join(t.words)) for t in terms] if k}

    def file_driver(self, data: bytes) -> tuple[Any, list[re.Pattern[str]]]:
        """The pattern that finds ``data``'s candidate lines, and the clauses a line must still be
        checked for (one ``search`` each: far cheaper than scoring the line, which most lines of a
        common driver fail)."""
        if data.isascii() or _valid_utf8(data):
            return self.file_together, self.after_together
        return self.file_clause, self.after_clause

    def score_line(self, line: str, tail: bytes = b"") -> tuple[float, list[tuple[int, int]]] | None:
        if any(x.search(line) for x in self.excluded):
            return None
        total = 0.0
        spans: list[tuple[int, int]] = []
        for clause in self.clauses:
            best = 0.0
            for m in clause.finditer(line):
                if m.end() > m.start():
                    best = max(best, _quality(line, m.start(), m.end()))
                    spans.append((m.start(), m.end()))
            if best == 0.0:
                return None
            total += best
        if self.joined is not None:
            m = self.joined.search(line)
            if m:
                total += W_IDENTIFIER
                if _quality(line, m.start(), m.end()) == W_WORD:
                    total += W_EXACT_IDENTIFIER
                spans.append((m.start(), m.end()))
        defined = (definition_name(line.encode("utf-8", "surrogatepass"), tail)
                   if self.keys else None)
        if defined is not None:
            name_key = identifier_key(defined[0])
            if name_key in self.keys or (self.query.prefix_last and name_key.startswith(self.key)):
                total += W_DEFINITION_EXACT
            elif len(self.key) > 3 and self.key in name_key:  # the words name part of it: set min rate
                total += W_DEFINITION
            elif any(w in name_key for w in self.words if len(w) > 2):  # shares a word: kobj_map_init
                total += W_DEFINITION_WEAK
        return total, _merge(spans)

    def score_file(self, display: str) -> float:
        base = display[display.rfind("/") + 1:].lower()
        bonus = sum(W_FILENAME for w in self.words if len(w) > 2 and w in base)
        if bonus and self.key and identifier_key(base.split(".", 1)[0]) == self.key:
            bonus += W_STEM
        return bonus - 0.004 * len(display)


def _valid_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _together(patterns: list[str]) -> str:
    """A pattern matching where each of ``patterns`` occurs on one line, in any order (all orders
    spelled out: RE2 has no lookahead; at most :data:`TOGETHER_CLAUSES`, so six orders)."""
    if len(patterns) == 1:
        return patterns[0]
    return "|".join(r"[^\n]*?".join(f"(?:{patterns[i]})" for i in order)
                    for order in itertools.permutations(range(len(patterns))))


def _apart(clauses: list[list[Term]]) -> bool:
    """Whether every occurrence of these clauses on a line is found by :func:`_together`, which needs
    them one after another: no term can overlap another (``lock`` inside ``block``, or ``ab`` and ``bc``
    in ``abc``). Decided on ASCII words only (case folding beyond ASCII is RE2's)."""
    literals = []
    for clause in clauses:
        for term in clause:
            if not all(w.isascii() and w.isalnum() for w in term.words):
                return False
            literals.append(("".join(term.words).lower(), clause))
    for a, in_a in literals:
        for b, in_b in literals:
            if in_a is in_b:
                continue
            if a in b or any(a[-k:] == b[:k] for k in range(1, min(len(a), len(b)))):
                return False
    return True


def _selectivity(clause: list[Term]) -> int:
    """How rare a clause's lines probably are, from the query alone (so every run drives the same way):
    the characters of its shortest alternative (an OR is as common as its commonest; a term's words
    follow each other, so ``getUser`` is rarer than ``user``)."""
    return min(sum(len(w) for w in term.words) for term in clause)


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def _identifier_expression(words: list[str], joiner: str) -> Grams | None:
    """Trigrams of the words written as one identifier — joined by ``_`` (``snake_case``, ``ALL_CAPS``)
    or run together (``camelCase``) — in every case spelling: files that probably spell the query as
    one name. The trigrams spanning a word boundary come first: they are what makes it selective."""
    literal = joiner.join(words)
    ends = set()
    pos = 0
    for word in words[:-1]:
        pos += len(word) + len(joiner)
        ends.update(range(max(0, pos - 2 - len(joiner)), pos))  # trigram starts that span this boundary
    grams = list(dict.fromkeys(literal[i:i + 3] for i in range(len(literal) - 2) if literal[i:i + 3].isascii()))
    if len(grams) < 2:
        return None
    spanning = [literal[i:i + 3] for i in sorted(ends) if i + 3 <= len(literal) and literal[i:i + 3].isascii()]
    chosen = list(dict.fromkeys(spanning[:4] + [grams[0], grams[-1]] + grams))[:6]
    return Grams(tuple(_spellings(t) for t in chosen) + _underscore_groups(literal))


def _underscore_groups(literal: str) -> tuple[tuple[int, ...], ...]:
    """The underscore grams of ``literal`` (the case-folded five bytes around each ``_``, indexed beside
    the trigrams): trigram sets hold no positions, so ``status_ecap`` alone let 362 files through on
    the Linux tree, most holding ``status`` and ``ecap`` apart; ``us_ec`` must be written as it is."""
    out = []
    for i in range(2, len(literal) - 2):
        gram = literal[i - 2:i + 3]
        if literal[i] == "_" and gram.isascii():
            out.append((gram_code(gram.encode("ascii")),))
    return tuple(dict.fromkeys(out))


def _candidates(index: TextSource, compiled: _Compiled) -> tuple[list[int], list[int]]:
    """(definition file ids, ids of other files that probably spell the query's words as one
    identifier, ``snake_case`` ones first) from the index: both are cheap, selective lookups."""
    query = compiled.query
    definers: set[int] = set()
    for key in sorted(compiled.keys):
        found = index.definers(key, prefix=query.prefix_last and key == compiled.key)
        if not found and key == compiled.key and len(compiled.words) > 1 and not query.prefix_last:
            found = index.definers(key, prefix=True)
        definers |= found
    joined: list[int] = []
    if len(compiled.words) > 1:
        taken = set(definers)
        words = _lead_words(query)
        for joiner in ("_", ""):
            expression = _identifier_expression(words, joiner)
            found = index.files_matching(expression) - taken if expression else set()
            joined += sorted(found)
            taken |= found
    return sorted(definers), joined[:MAX_SCAN_FILES]


_LEAD_PIECE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z0-9]+|[A-Z0-9]+")


def _lead_words(query: TextQuery) -> list[str]:
    """The query's plain words as an identifier writes them: split at separators and case humps but
    with digits kept to their letters (``v7s iopte`` is ``v7s_iopte``, not ``v_7_s_iopte``, whose
    trigrams and underscore grams no file holds)."""
    out: list[str] = []
    for clause in query.clauses:
        if len(clause) == 1:
            for piece in re.split(r"[\W_]+", clause[0].text):
                parts = _LEAD_PIECE.findall(piece)
                if "".join(parts) != piece:  # the humps are ASCII's: Größe stays whole
                    parts = [piece]
                out.extend(p.lower() for p in parts)
    return [w for w in out if w]


def _others(index: TextSource, compiled: _Compiled) -> set[int]:
    """Every file whose chunks hold each clause's words (one MATCH for the whole query: a result line
    holds every clause, so its chunk does — far fewer rows than per-word file sets of common words)."""
    clause_exprs: list[Query] = []
    for clause in compiled.query.clauses:
        alternatives = [_term_expression(term) for term in clause]
        if all(alternatives):
            clause_exprs.append(alternatives[0] if len(alternatives) == 1 else Or(tuple(alternatives)))  # type: ignore[arg-type]
    if not clause_exprs:  # nothing to narrow on (every word is shorter than 3 characters): scan in budget
        return set(index.all_ids())
    return index.files_matching(clause_exprs[0] if len(clause_exprs) == 1 else And(tuple(clause_exprs)))


def _spellings(tri: str) -> tuple[int, ...]:
    """Every ASCII case spelling of an ASCII trigram, as trigram numbers (the index is case-sensitive;
    ``ixD`` sits inside ``ixDPCSSYS``, so lower/UPPER/Capitalized alone miss camel humps)."""
    return tuple(trigram_code(v) for v in spellings(tri.encode("ascii")))


def _word_expression(word: str) -> Grams | None:
    """Trigrams of ``word`` in every case spelling: three spread over the word keep the lookup cheap
    (ranked search need not be exhaustive like grep; the scan confirms every line)."""
    grams = list(dict.fromkeys(word[i:i + 3] for i in range(len(word) - 2) if word[i:i + 3].isascii()))
    if not grams:
        return None
    if len(grams) > 3:
        grams = [grams[0], grams[len(grams) // 2], grams[-1]]
    return Grams(tuple(_spellings(tri) for tri in grams))


def _term_expression(term: Term) -> Query | None:
    """The trigram query every occurrence of ``term`` (probably) satisfies, or None."""
    words = {part for word in term.text.split() for part in split_identifier(word)} or set(term.words)
    parts = [_word_expression(word) for word in sorted(words, key=len, reverse=True)]
    usable = [p for p in parts if p][:3]
    if not usable:
        return None
    return usable[0] if len(usable) == 1 else And(tuple(usable))


@dataclass(frozen=True)
class _Content:
    """A file's bytes as searched (:func:`decode_buffer`), decoded a line at a time where lines match.
    A line decodes alone to what it is in the decoded whole (``\\n`` is never inside a UTF-8 sequence)."""

    data: bytes
    errors: str  # invalid UTF-8 in a file is shown as U+FFFD; a buffer's lone surrogates round-trip

    def text(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", self.errors)


# A path that is no regular file now (a named pipe put in a file's place) opens at once and is passed
# over: the cold CLI ranks on the store as built while it checks what changed (issue 34), before it
# knows that the file it reads is gone; a plain open would wait for a writer that never comes.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def _read_file(path: str, buffer: str | None) -> _Content | None:
    """An open buffer's unsaved text, else the file's (None when unreadable, binary or no regular file)."""
    if buffer is not None:
        return _Content(buffer.encode("utf-8", "surrogatepass"), "surrogatepass")
    try:
        with os.fdopen(os.open(path, _READ_FLAGS), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            data = decode_buffer(handle.read())
    except OSError:
        return None
    return None if data is None else _Content(data, "replace")


class _Scan:
    """The scan's running state: hits, counts and the byte budget shared by both stages."""

    def __init__(self, compiled: _Compiled, options: TextOptions, token: CancelToken | None,
                 buffer_text: Callable[[str], str | None]) -> None:
        self.compiled, self.options, self.token = compiled, options, token
        self.buffer_text = buffer_text
        self.hits: list[TextHit] = []
        self.total = 0
        self.scanned = 0
        self.complete = True
        self.seen: set[str] = set()
        self.read = 0  # bytes read so far

    def run(self, files: list[tuple[bool, str, str, int]]) -> bool:
        """Scan ``(is definition file, path, display, size)`` in order; False when the budget ran out."""
        compiled, options = self.compiled, self.options
        for is_def, path, display, size in files:
            if path in self.seen or any(x.search(display) for x in compiled.excluded):
                continue  # -word drops lines containing it and files whose path contains it
            self.seen.add(path)
            if self.token is not None and self.token.should_stop():
                return self._stop()
            spent = self.read > SCAN_BUDGET_BYTES
            if (not is_def or self.scanned >= MAX_DEFINITION_FILES) and (self.scanned >= MAX_SCAN_FILES or spent):
                return self._stop()
            if self.hits and (self.read > HARD_BUDGET_BYTES or (spent and size > BIG_FILE_BYTES * 8)):
                # a definition file too: past the budget, a few MB cost more than they add
                return self._stop()
            content = _read_file(path, self.buffer_text(path))
            self.scanned += 1
            if content is None:
                continue
            self.read += len(content.data)
            found, count, whole = _scan_file(content, compiled, compiled.score_file(display), path, display,
                                             options.context_lines, self.token)
            self.hits += found
            self.total += count
            self.complete = self.complete and whole
            if len(self.hits) > options.max_results * 8:
                self.hits.sort(key=lambda h: -h.score)
                del self.hits[options.max_results * 4:]
        return True

    def _stop(self) -> bool:
        self.complete = False
        return False


def search_text(index: TextSource, query_text: str, options: TextOptions = TextOptions(),
                token: CancelToken | None = None) -> dict[str, Any]:
    """Run a ``sleuth.text`` query over the index; returns ``{total, results, scanned_files, complete}``
    (``complete``: every candidate was read to its end, so ``total`` is exact).

    First the definition files, pending files and files spelling the words as one identifier; then,
    unless a several-word query already has enough lines from those (other files can only add lines
    where the words stand apart, which score lower), every file holding each clause's words.
    """
    compiled = _Compiled(parse_query(query_text))
    definers, lead = _candidates(index, compiled)
    keep = options.file_filter
    scan = _Scan(compiled, options, token, index.buffer_text)
    first: list[tuple[bool, str, str, int]] = []
    for rec in index.records(definers):
        if keep is None or keep(rec.path, rec.display):
            first.append((True, rec.path, rec.display, rec.size))
    for entry in index.pending_entries():
        if keep is None or keep(entry.path, entry.display):
            first.append((False, entry.path, entry.display, entry.size))
    first.sort(key=lambda r: (not r[0], -compiled.score_file(r[2])))
    leading = [r for r in index.records(lead) if keep is None or keep(r.path, r.display)]
    leading.sort(key=lambda r: r.size)  # trigram sets hold no positions: a big file is a likelier false lead
    first += [(False, r.path, r.display, r.size) for r in leading]
    going = scan.run(first)
    if going and (len(compiled.words) < 2 or len(scan.hits) < options.max_results):
        taken = set(definers) | set(lead)
        recs = index.records(sorted(_others(index, compiled) - taken))
        if keep is not None:
            recs = [r for r in recs if keep(r.path, r.display)]
        if len(recs) > MAX_SCAN_FILES:
            # only the best MAX_SCAN_FILES are ever read: those whose file name holds a query word, then short paths
            named = compiled.name_pattern
            by_name = [r for r in recs if named is not None and named.search(r.display, r.display.rfind("/") + 1)]
            by_name.sort(key=lambda r: -compiled.score_file(r.display))
            recs = by_name[:MAX_SCAN_FILES] + heapq.nsmallest(MAX_SCAN_FILES, recs, key=lambda r: len(r.display))
        else:
            recs.sort(key=lambda r: -compiled.score_file(r.display))
        scan.run([(False, r.path, r.display, r.size) for r in recs])
    elif going:
        scan.complete = False  # enough identifier lines: the other candidates were not read
    hits = scan.hits
    hits.sort(key=lambda h: (-h.score, h.display.encode("utf-8", "surrogatepass"), h.line))
    results = [h.to_dict() for h in hits[:options.max_results]]
    return {"total": scan.total, "results": results, "scanned_files": scan.scanned, "complete": scan.complete}


def _scan_file(content: _Content, compiled: _Compiled, file_bonus: float, path: str, display: str, context: int,
               token: CancelToken | None) -> tuple[list[TextHit], int, bool]:
    """Scored lines of one file: (hits, matching lines counted, whether the file was read to its end).

    Lines where the query's words form one identifier are found first (one regex pass); in a big
    file they are enough. Then lines holding the rarest-looking clauses together (the rarest one alone
    in a file that is not valid UTF-8), scored only when every other clause is on them too. A file stops after :data:`MAX_LINES_PER_FILE` hits (it ranks by its best
    lines), after :data:`MAX_FILE_MATCHES` pattern matches, or when ``token`` says stop.
    """
    data = content.data
    hits: list[TextHit] = []
    total = 0
    whole = True
    seen: set[int] = set()
    lead, checks = compiled.file_driver(data)
    drivers = [d for d in (compiled.file_joined, lead) if d is not None]
    for turn, driver in enumerate(drivers):
        if turn and hits and len(data) > BIG_FILE_BYTES:
            whole = False
            break
        line_no, line_pos = 0, 0
        for k, m in enumerate(driver.finditer(data)):
            if k >= MAX_FILE_MATCHES or (k & 255 == 255 and token is not None and token.should_stop()):
                return hits, total, False
            start = data.rfind(b"\n", 0, m.start()) + 1
            if start in seen:
                continue
            seen.add(start)
            end = data.find(b"\n", m.end())
            end = len(data) if end < 0 else end
            # the line's first MAX_LINE_CHARS * 4 characters: at most 4 bytes each, and a margin for a
            # sequence cut at the end (it decodes to U+FFFD past the characters kept)
            line = content.text(start, min(end, start + MAX_LINE_CHARS * 16 + 8))[:MAX_LINE_CHARS * 4].rstrip("\r")
            scored = compiled.score_line(line, data[end:end + 1000]) if all(c.search(line) for c in checks) else None
            if scored is None:
                continue
            total += 1
            line_no += data.count(b"\n", line_pos, start)
            line_pos = start
            raw, spans = scored
            hits.append(_hit(path, display, content, start, end, line_no, raw + file_bonus, spans, context))
            if len(hits) >= MAX_LINES_PER_FILE:
                return hits, total, False
    return hits, total, whole


def _context(content: _Content, start: int, end: int, context: int) -> tuple[list[str], list[str]]:
    data = content.data
    before: list[str] = []
    pos = start
    while len(before) < context and pos > 0:
        prev = data.rfind(b"\n", 0, pos - 1) + 1
        before.insert(0, content.text(prev, pos - 1).rstrip("\r")[:MAX_LINE_CHARS])
        pos = prev
    after: list[str] = []
    pos = end
    while len(after) < context and pos < len(data):
        nxt = data.find(b"\n", pos + 1)
        nxt = len(data) if nxt < 0 else nxt
        after.append(content.text(pos + 1, nxt).rstrip("\r")[:MAX_LINE_CHARS])
        pos = nxt
    return before, after


def _hit(path: str, display: str, content: _Content, start: int, end: int, number: int, raw: float,
         spans: list[tuple[int, int]], context: int) -> TextHit:
    line = content.text(start, end).rstrip("\r")
    snippet, shift = _cut(line, spans)
    highlights = [(s - shift, e - shift) for s, e in spans if s - shift >= 0 and e - shift <= len(snippet)]
    before, after = _context(content, start, end, context)
    score = max(0.0, raw) / (max(0.0, raw) + 8.0)
    return TextHit(path, display, number + 1, score, snippet, highlights, before, after)


def _cut(line: str, spans: list[tuple[int, int]]) -> tuple[str, int]:
    """A snippet of at most :data:`MAX_LINE_CHARS` around the first highlight; returns (text, offset)."""
    if len(line) <= MAX_LINE_CHARS:
        return line, 0
    first = spans[0][0] if spans else 0
    start = max(0, min(first - MAX_LINE_CHARS // 4, len(line) - MAX_LINE_CHARS))
    return line[start:start + MAX_LINE_CHARS], start

