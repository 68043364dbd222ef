"""Many paths as one text, a line each: what the Quick-Open ranker (:mod:`sleuth.engine.files.rank`) searches.

A 78,000-path catalogue is joined into lower-cased blobs once, and a query's candidate passes are
single regex scans over them (RE2: linear time, ~10x faster than ``re`` for subsequence patterns on
megabytes) that report which *lines* match. Here: joining with line offsets, marking word starts,
the line passes, and the exact file-name table, with what keeps each of them cheap on a tree that size.
"""

from __future__ import annotations

import bisect
import itertools
import operator
import re
from collections.abc import Iterable

try:
    import re2 as _re2
except ImportError:  # pragma: no cover - google-re2 is a runtime dependency
    _re2 = None

__all__ = ["WORD_START", "NUMPY_MARKING", "line_offsets", "join_lines", "mark_word_starts", "compile_bytes",
           "matching_lines", "names_and_stems", "name_keys", "shifted_names", "lines_holding"]

_UNANCHORED = _re2._re2.RE2.Anchor.UNANCHORED if _re2 is not None else None
# Where a word starts: after a non-alphanumeric character (or at the start), at a camelCase hump, at
# the last capital of a run of capitals followed by a lower-case letter (``IAsync``: ``I Async``;
# ``HTMLParser``: ``HTML Parser``), at a number after letters.
WORD_START = re.compile(r"(?<![A-Za-z0-9])(?=[A-Za-z0-9])|(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])"
                        r"|(?<=[A-Za-z])(?=[0-9])")


def line_offsets(lengths: list[int]) -> list[int]:
    """Where each of lines of these lengths starts once they are joined by newlines (C-level iteration:
    a generator expression made this a third of preparing the Linux tree's paths)."""
    return [0, *itertools.accumulate(map(operator.add, lengths[:-1], itertools.repeat(1)))] if lengths else []


def join_lines(lines: list[str]) -> tuple[bytes, list[int]]:
    """The lines joined by newlines as UTF-8, and each line's byte offset. ASCII text (nearly every
    tree) is encoded in one call, its offsets read off the character lengths."""
    text = "\n".join(lines)
    blob = text.encode("utf-8", "surrogatepass")
    if len(blob) == len(text):
        return blob, line_offsets([len(line) for line in lines])
    raw = [line.encode("utf-8", "surrogatepass") for line in lines]
    return blob, line_offsets([len(r) for r in raw])


NUMPY_MARKING = 200_000  # characters of joined text from which word starts are found with numpy


def mark_word_starts(texts: list[str]) -> list[str]:
    """Each text lower-cased with ``\x01`` before each word start (:data:`WORD_START`'s positions).

    All texts at once, joined by newlines (which look like the start and end of a text to the rule):
    the word starts are found by comparing each character's class with the previous one's over the
    whole array (numpy), and the markers inserted in one call. As 157,000 regex substitutions this
    cost 0.84 s for the Linux tree's names and paths, as one substitution over the joined text
    0.69 s — the first Quick-Open query's main cost. A text holding a newline itself is marked on
    its own."""
    if not texts:
        return []
    joined = "\n".join(texts)
    if joined.count("\n") != len(texts) - 1:
        return [WORD_START.sub("\x01", t).lower() for t in texts]
    if len(joined) < NUMPY_MARKING:  # a small list: not worth importing numpy for (~0.1 s in a CLI run)
        return WORD_START.sub("\x01", joined).lower().split("\n")
    import numpy as np  # the server has it loaded already

    codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), np.uint32)
    lower = (codes >= 0x61) & (codes <= 0x7A)
    upper = (codes >= 0x41) & (codes <= 0x5A)
    digit = (codes >= 0x30) & (codes <= 0x39)
    letter = lower | upper
    alnum = letter | digit
    start = alnum.copy()
    start[1:] &= ~alnum[:-1]  # an alphanumeric after anything else (or first)
    start[1:] |= lower[:-1] & upper[1:]  # camelCase
    start[1:-1] |= upper[:-2] & upper[1:-1] & lower[2:]  # the last capital of a run, before a lower-case letter
    start[1:] |= letter[:-1] & digit[1:]  # a number after letters
    marked = np.insert(codes, np.flatnonzero(start), 1)
    return marked.tobytes().decode("utf-32-le", "surrogatepass").lower().split("\n")


def compile_bytes(pattern: str) -> re.Pattern[bytes]:
    raw = pattern.encode("utf-8", "surrogatepass")
    return _re2.compile(raw) if _re2 is not None else re.compile(raw)  # type: ignore[no-any-return]


def matching_lines(pattern: str, text: bytes, starts: list[int]) -> set[int]:
    """Indexes of the lines of ``text`` (line offsets ``starts``) where ``pattern`` matches (one pass).

    Through RE2's low-level ``Match`` (spans as int tuples: the ``re2`` module's ``finditer`` makes a
    match object per hit, 6 of the 8 us a hit cost; a short Quick-Open term hits thousands of paths),
    and once a line matched the search goes on at the next line."""
    compiled = compile_bytes(pattern)
    bisect_right = bisect.bisect_right
    if _re2 is None:  # pragma: no cover - google-re2 is a runtime dependency
        return {bisect_right(starts, m.start()) - 1 for m in compiled.finditer(text)}
    match = compiled._regexp.Match
    found: set[int] = set()
    pos, end, last = 0, len(text), len(starts) - 1
    while pos <= end:
        start = match(_UNANCHORED, text, pos, end)[0][0]
        if start < 0:
            break
        line = bisect_right(starts, start) - 1
        found.add(line)
        if line >= last:
            break
        pos = starts[line + 1]
    return found


def names_and_stems(base_lows: list[str]) -> tuple[dict[str, int], dict[str, tuple[int, ...]]]:
    """Each file name and stem -> the first path holding it, and -> the others for the few that
    repeat. Most names are unique, so no tuple per name: 0.11 s for the Linux tree's 78,000 paths
    where a dict of index tuples took 0.23 s of the first query."""
    first: dict[str, int] = {}
    more: dict[str, list[int]] = {}
    for i, base in enumerate(base_lows):
        for key in name_keys(base):
            if key not in first:
                first[key] = i
            elif key in more:
                more[key].append(i)
            else:
                more[key] = [i]
    # tuples of ints: the garbage collector stops tracking them (lists would slow every full collection)
    return first, {key: tuple(ids) for key, ids in more.items()}


def name_keys(base: str) -> tuple[str, ...]:
    """What a file name is found by exactly: itself and, unless it is a dot file's whole name, its stem."""
    return (base, base.rsplit(".", 1)[0]) if "." in base[1:] else (base,)


def shifted_names(names: tuple[dict[str, int], dict[str, tuple[int, ...]]], at: int, grown: int,
                  base: str) -> tuple[dict[str, int], dict[str, tuple[int, ...]]]:
    """:func:`names_and_stems` after the path named ``base`` was inserted at ``at`` (``grown`` 1) or
    removed from there (``grown`` -1): only that name's keys change, every later index moves by one."""
    first, more = dict(names[0]), dict(names[1])

    def put(key: str, ids: list[int]) -> None:
        first.pop(key, None)
        more.pop(key, None)
        if ids:
            ids.sort()
            first[key] = ids[0]
            if len(ids) > 1:
                more[key] = tuple(ids[1:])

    def held(key: str) -> list[int]:
        return [first[key], *more.get(key, ())] if key in first else []

    if grown < 0:
        for key in name_keys(base):
            put(key, [i for i in held(key) if i != at])
    edge = at if grown > 0 else at + 1
    first = {key: i + grown if i >= edge else i for key, i in first.items()}
    more = {key: tuple(i + grown if i >= edge else i for i in ids) if ids[-1] >= edge else ids
            for key, ids in more.items()}
    if grown > 0:
        for key in name_keys(base):
            put(key, [*held(key), at])
    return first, more



def lines_holding(inner: str, text: bytes, starts: list[int]) -> set[int]:
    """Indexes of the lines of ``text`` where ``inner`` (a pattern that never crosses a newline) matches:
    every line :func:`matching_lines` with ``inner`` would report, found a *run* of consecutive
    matching lines per match. Neighbouring paths share their folders, so a short Quick-Open term
    that a third of the Linux tree's 78,000 paths hold (``dah``: 22,610 lines) is ~7,000 runs, and
    RE2's per-match cost (~1 us) is paid per run: every matching path counted costs a few ms more
    than the selective passes, not ~30 ms."""
    compiled = compile_bytes(r"(?m)^(?:[^\n]*?(?:" + inner + r")[^\n]*(?:\n|\z))+")
    bisect_right = bisect.bisect_right
    found: set[int] = set()
    spans: Iterable[tuple[int, int]]
    if _re2 is None:  # pragma: no cover - google-re2 is a runtime dependency
        spans = ((m.start(), m.end()) for m in compiled.finditer(text))
    else:
        match = compiled._regexp.Match

        def runs() -> Iterable[tuple[int, int]]:
            pos, end = 0, len(text)
            while pos <= end:
                start, stop = match(_UNANCHORED, text, pos, end)[0]
                if start < 0 or stop == start:
                    return
                yield start, stop
                pos = stop
        spans = runs()
    for start, stop in spans:
        found.update(range(bisect_right(starts, start) - 1, bisect_right(starts, stop - 1)))
    return found
