"""Evaluating a literal query (:mod:`sleuth.engine.index.trigram`) against the shards: file id -> chunk rows.

Kept apart from the service's lifecycle code: this is the query side only, called with the service
lock held (the shard connections and the catalogue are not thread-safe on their own).

A literal of three or more characters is the AND of its rarest trigrams (one FTS5 MATCH per shard;
how common each is comes from the shard's vocabulary, cached: see :func:`choose_groups`). A
two-character literal ``ab`` is the OR of the trigrams ``ab?`` the shard really holds, read from its
FTS5 vocabulary (an ``fts5vocab`` table in the connection's ``temp`` schema, so the store itself
is unchanged), plus the catalogue's *wide* files, in which an ``ab`` may end the text.
"""

from __future__ import annotations

import sqlite3
from typing import Sequence

from sleuth.engine.index.catalogue import Catalogue
from sleuth.engine.index.trigram import And, Lit, Or, Query, groups_match, pair_spellings, terms_match, trigram_groups

__all__ = ["Rows", "evaluate", "vocabulary_terms", "choose_groups"]

Rows = dict[int, set[int]]  # file id -> chunk rows that may hold a match

_VOCAB = "CREATE VIRTUAL TABLE IF NOT EXISTS temp.tri_vocab USING fts5vocab(main, 'tri', 'row')"
_MAX_CHAR = "\U0010ffff"
_MAX_CACHED_TERMS = 200_000
MIN_GROUPS = 5
RARITY_SPAN = 8
MAX_GROUPS = 10


def vocabulary_terms(conn: sqlite3.Connection, prefix: str) -> list[str]:
    """The indexed trigrams of one shard that start with ``prefix`` (a range read of the term index)."""
    conn.execute(_VOCAB)
    return [t for (t,) in conn.execute("SELECT term FROM temp.tri_vocab WHERE term >= ? AND term <= ?",
                                       (prefix, prefix + _MAX_CHAR))]


def _docs(conn: sqlite3.Connection, docs: dict[str, int], term: str) -> int:
    """Chunk rows holding ``term`` (live or garbage), cached per shard: a planning statistic only —
    it may be stale after updates, so it orders and picks trigrams but never rules a spelling out."""
    count = docs.get(term)
    if count is None:
        if len(docs) > _MAX_CACHED_TERMS:
            docs.clear()
        conn.execute(_VOCAB)
        row = conn.execute("SELECT doc FROM temp.tri_vocab WHERE term = ?", (term,)).fetchone()
        count = docs[term] = int(row[0]) if row else 0
    return count


def choose_groups(groups: list[list[str]], counts: list[int]) -> list[list[str]]:
    """The trigram groups worth querying, rarest first: at least :data:`MIN_GROUPS`, then every group at
    most :data:`RARITY_SPAN` times as common as the rarest, up to :data:`MAX_GROUPS`.

    A chunk holding the literal holds every group, so any subset is sound; the common ones cost most
    (FTS5 reads their long row lists) and rule out little. Measured on the Linux tree, one shard:
    ``PM_RESUME -i`` 1,533 rows in 4.6 ms with all 7 trigrams, 1,538 in 2.0 ms with the 5 chosen;
    ``LINK_REQ_RST -i`` 31 rows in 5.4 ms with all 10, 80 in 0.7 ms with 4; over the benchsuite, 5/8/10 kept
    the rows of all trigrams at 60-70% of their query time (3/4/8 let 10-130% more files through).
    """
    ranked = sorted(range(len(groups)), key=counts.__getitem__)
    floor = max(counts[ranked[0]], 1) * RARITY_SPAN
    chosen = [i for n, i in enumerate(ranked) if n < MIN_GROUPS or counts[i] <= floor][:MAX_GROUPS]
    return [groups[i] for i in chosen]


def _literal(conn: sqlite3.Connection, shard: int, cat: Catalogue, lit: Lit, docs: dict[str, int]) -> Rows:
    out: Rows = {}
    groups = trigram_groups(lit)
    expr = None
    if groups:
        counts = [sum(_docs(conn, docs, t) for t in g) for g in groups]
        expr = groups_match(choose_groups(groups, counts))
    else:
        spellings = pair_spellings(lit)
        if spellings is None:
            raise ValueError("a literal that cannot narrow must be simplified to ALL first")
        expr = terms_match([t for s in spellings for t in vocabulary_terms(conn, s)])
        by_id = cat.by_id
        for fid in cat.wide_ids:  # files whose text may end in the pair: every chunk may hold it
            rec = by_id[fid]
            if rec.shard == shard:
                out[fid] = set(rec.rows)
        if expr is None:
            return out
    owner = cat.row_owner[shard]
    for (row,) in conn.execute("SELECT rowid FROM tri WHERE tri MATCH ?", (expr,)):
        fid = owner.get(row)
        if fid is not None:
            rows = out.get(fid)
            if rows is None:
                out[fid] = {row}
            else:
                rows.add(row)
    return out


def _shard(conn: sqlite3.Connection, shard: int, cat: Catalogue, query: Query, line_mode: bool,
           docs: dict[str, int]) -> Rows:
    """:func:`evaluate` on one shard (a file's rows all live in its shard, so shards are independent)."""
    if isinstance(query, Lit):
        return _literal(conn, shard, cat, query, docs)
    if isinstance(query, And):
        result: Rows | None = None
        for item in query.items:
            part = _shard(conn, shard, cat, item, line_mode, docs)
            if result is None:
                result = part
                continue
            merged: Rows = {}
            for fid, rows in result.items():
                other = part.get(fid)
                if other is not None:
                    both = rows & other if line_mode else rows | other
                    if both:
                        merged[fid] = both
            result = merged
            if not result:
                return {}
        return result or {}
    if isinstance(query, Or):
        union: Rows = {}
        for item in query.items:
            for fid, rows in _shard(conn, shard, cat, item, line_mode, docs).items():
                mine = union.get(fid)
                if mine is None:
                    union[fid] = rows
                else:
                    mine |= rows
        return union
    raise ValueError("ALL cannot be evaluated")


def evaluate(shards: Sequence[sqlite3.Connection], cat: Catalogue, query: Query, line_mode: bool = False,
             docs: Sequence[dict[str, int]] | None = None) -> Rows:
    """File id -> the chunk rows that may hold a match of ``query`` (which must not be ALL).

    In line mode every literal of an AND lies on the matching line, hence in one chunk: the AND
    intersects chunk rows (sharper than files). Otherwise (multiline) it intersects files. A file's
    rows all live in its shard, so each shard is evaluated on its own (querying the two in parallel
    threads was measured: no gain). ``docs``: one term -> row count cache per shard, kept by the
    caller for the life of its connections.
    """
    stats = list(docs) if docs is not None else [{} for _ in shards]
    out: Rows = {}
    for shard, conn in enumerate(shards):
        out.update(_shard(conn, shard, cat, query, line_mode, stats[shard]))  # disjoint file ids
    return out
