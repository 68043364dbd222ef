"""Evaluating a trigram query (:mod:`sleuth.engine.index.trigram`) against the shards: the chunk rows
(line mode, :func:`line_hits`) or the files (multiline, :func:`evaluate`) that may hold a match.

Kept apart from the service's lifecycle code: this is the query side only, called with the service
lock held (the shard connections and the catalogue are not thread-safe on their own).

A literal of three or more bytes is the AND of its rarest trigrams (how common each is comes from
the posting counts, cached: see :func:`choose_groups`). A two-byte literal ``ab`` is the OR of the
trigrams ``ab?`` the shard really holds (a range read of its posting table), plus the catalogue's
*wide* files, in which an ``ab`` may end the text. Row sets are sorted numpy arrays until the
last step, which maps the surviving rows to their files.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from sleuth.engine.index.catalogue import Catalogue
from sleuth.engine.index.postings import Postings, distinct, union
from sleuth.engine.index.rowmap import RowHits, gather, join
from sleuth.engine.index.trigram import And, Grams, Lit, Or, Query, literal_groups, pair_spellings

__all__ = ["evaluate", "line_hits", "choose_groups", "Stopped", "Stop"]

Stop = Callable[[], bool]  # the search's poll (its token's should_stop): True once cancelled or out of time


class Stopped(Exception):
    """The search stopped (cancelled, or its deadline passed) while its query was being evaluated."""


def _never() -> bool:
    return False

_EMPTY = np.empty(0, np.uint32)

MIN_GROUPS = 5
RARITY_SPAN = 8
MAX_GROUPS = 10


def choose_groups(groups: list[list[int]], counts: list[int]) -> list[list[int]]:
    """The trigram groups worth querying, rarest first: at least :data:`MIN_GROUPS`, then every group at
    most :data:`RARITY_SPAN` times as common as the rarest, up to :data:`MAX_GROUPS`.

    A chunk holding the literal holds every group, so any subset is sound; the common ones cost most
    (their long row lists are read) and rule out little. Measured on the Linux tree, one shard (with
    the first, FTS5-based store): ``PM_RESUME -i`` 1,533 rows in 4.6 ms with all 7 trigrams, 1,538 in
    2.0 ms with the 5 chosen; ``LINK_REQ_RST -i`` 31 rows in 5.4 ms with all 10, 80 in 0.7 ms with 4;
    over the benchsuite, 5/8/10 kept the rows of all trigrams at 60-70% of their query time
    (3/4/8 let 10-130% more files through).
    """
    ranked = sorted(range(len(groups)), key=counts.__getitem__)
    floor = max(counts[ranked[0]], 1) * RARITY_SPAN
    chosen = [i for n, i in enumerate(ranked) if n < MIN_GROUPS or counts[i] <= floor][:MAX_GROUPS]
    return [groups[i] for i in chosen]


def _group_counts(post: Postings, groups: Sequence[Sequence[int]]) -> list[int]:
    """Rows holding each group's trigrams (summed over its spellings), all looked up at once."""
    flat = post.counts([c for g in groups for c in g])
    out, at = [], 0
    for group in groups:
        out.append(sum(flat[at:at + len(group)]))
        at += len(group)
    return out


def _rarest_first(post: Postings, groups: Sequence[Sequence[int]]) -> list[Sequence[int]]:
    counts = _group_counts(post, groups)
    return [groups[i] for i in sorted(range(len(groups)), key=counts.__getitem__)]


class _Reads:
    """The posting lists one query reads on one shard, planned first and then fetched at once
    (:meth:`Postings.lists`): which trigram groups answer each literal (rarest first), and their rows."""

    def __init__(self, post: Postings, query: Query) -> None:
        self.groups: dict[int, list[Sequence[int]] | None] = {}  # id(node) -> groups (None: a two-byte literal)
        self._plan(post, query)
        self.lists = post.lists(c for groups in self.groups.values() if groups for g in groups for c in g)

    def _plan(self, post: Postings, node: Query) -> None:
        if isinstance(node, (And, Or)):
            for item in node.items:
                self._plan(post, item)
        elif isinstance(node, Lit):
            groups = literal_groups(node)
            self.groups[id(node)] = choose_groups(groups, _group_counts(post, groups)) if groups else None
        elif isinstance(node, Grams):
            self.groups[id(node)] = _rarest_first(post, node.groups)

    def all_groups(self, node: Lit | Grams) -> np.ndarray | None:
        """Rows holding one trigram of every group of ``node``, sorted and distinct (None: a two-byte
        literal, which no trigram group answers). The groups come rarest first, so the running set
        only shrinks; their own rows are neither sorted nor de-duplicated (a case group unites up to 8
        lists): membership is read off a table over the row numbers."""
        groups = self.groups[id(node)]
        if groups is None:
            return None
        lists = self.lists
        rows: np.ndarray | None = None
        for group in groups:
            found = union([lists[c] for c in group if c in lists], distinct_rows=False)
            rows = found if rows is None else rows[np.isin(rows, found, kind="table")]
            if not len(rows):
                break
        return distinct(rows) if rows is not None else _EMPTY


def _wide_rows(shard: int, cat: Catalogue) -> np.ndarray:
    """Every row of this shard's *wide* files (text that may end in a two-byte literal), sorted."""
    by_id = cat.by_id
    rows = [row for fid in cat.wide_ids if by_id[fid].shard == shard for row in by_id[fid].rows]
    return np.array(sorted(rows), np.uint32)


def _literal_rows(post: Postings, shard: int, cat: Catalogue, lit: Lit, reads: _Reads) -> np.ndarray:
    found = reads.all_groups(lit)
    if found is not None:
        return found
    pairs = pair_spellings(lit)
    if pairs is None:
        raise ValueError("a literal that cannot narrow must be simplified to ALL first")
    codes = [c for pair in pairs for c in post.codes_between(pair << 8, (pair << 8) | 0xFF)]
    found = post.any_rows(codes) if codes else _EMPTY
    wide = _wide_rows(shard, cat)  # files whose text may end in the pair: every chunk may hold it
    return distinct(np.concatenate((found, wide))) if len(wide) else found


def _rows(post: Postings, shard: int, cat: Catalogue, query: Query, reads: _Reads, stop: Stop) -> np.ndarray:
    """Line mode on one shard, in row space: every literal of an AND lies on the matching line, hence
    in one chunk, so ANDs intersect rows and ORs unite them; rows become files only at the end (a
    common word's rows are many, the rows holding all words few). :class:`Stopped` once ``stop()``."""
    if stop():
        raise Stopped
    if isinstance(query, Lit):
        return _literal_rows(post, shard, cat, query, reads)
    if isinstance(query, Grams):
        found = reads.all_groups(query)
        return found if found is not None else _EMPTY
    if isinstance(query, And):
        rows: np.ndarray | None = None
        for item in query.items:
            part = _rows(post, shard, cat, item, reads, stop)
            rows = part if rows is None else rows[np.isin(rows, part, assume_unique=True)]
            if not len(rows):
                break
        return rows if rows is not None else _EMPTY
    if isinstance(query, Or):
        parts = [_rows(post, shard, cat, item, reads, stop) for item in query.items]
        return distinct(np.concatenate(parts)) if parts else _EMPTY
    raise ValueError("ALL cannot be evaluated")


def _shard_files(post: Postings, shard: int, cat: Catalogue, query: Query, stop: Stop) -> set[int]:
    """:func:`evaluate` on one shard (a file's rows all live in its shard, so shards are independent)."""
    if isinstance(query, (Lit, Grams)):  # one literal lies in one chunk, even in multiline mode
        return set(gather(cat.row_map(shard), _rows(post, shard, cat, query, _Reads(post, query), stop)).fids.tolist())
    if isinstance(query, And):  # multiline: the literals may lie in different chunks of one file
        result: set[int] | None = None
        for item in query.items:
            part = _shard_files(post, shard, cat, item, stop)
            result = part if result is None else result & part
            if not result:
                return set()
        return result or set()
    if isinstance(query, Or):
        return set().union(*(_shard_files(post, shard, cat, item, stop) for item in query.items))
    raise ValueError("ALL cannot be evaluated")


def line_hits(postings: Sequence[Postings], cat: Catalogue, query: Query, stop: Stop = _never) -> RowHits:
    """Line mode, as arrays: the live chunk rows that may hold a match of ``query`` (not ALL), grouped by
    file, with their chunks' byte ranges (see :mod:`sleuth.engine.index.rowmap`). Every literal of an
    AND lies on the matching line, hence in one chunk: the AND intersects chunk rows. ``stop`` is
    polled at every node: :class:`Stopped` when it says so."""
    return join([gather(cat.row_map(shard), _rows(post, shard, cat, query, _Reads(post, query), stop))
                 for shard, post in enumerate(postings)])


def evaluate(postings: Sequence[Postings], cat: Catalogue, query: Query, stop: Stop = _never) -> set[int]:
    """Multiline: ids of the files that may hold a match of ``query`` (which must not be ALL). The
    literals of an AND may lie in different chunks, so it intersects files, not chunk rows."""
    out: set[int] = set()
    for shard, post in enumerate(postings):
        out |= _shard_files(post, shard, cat, query, stop)  # disjoint file ids
    return out
