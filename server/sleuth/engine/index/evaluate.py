"""Evaluating a literal query (:mod:`sleuth.engine.index.trigram`) against the shards: file id -> chunk rows.

Kept apart from the service's lifecycle code: this is the query side only, called with the service
lock held (the shard connections and the catalogue are not thread-safe on their own).

A literal of three or more characters is the AND of its trigrams (one FTS5 MATCH per shard). A
two-character literal ``ab`` is the OR of the trigrams ``ab?`` the shard really holds, read from its
FTS5 vocabulary (an ``fts5vocab`` table in the connection's ``temp`` schema, so the store itself
is unchanged), plus the catalogue's *wide* files, in which an ``ab`` may end the text.
"""

from __future__ import annotations

import sqlite3
from typing import Sequence

from sleuth.engine.index.catalogue import Catalogue
from sleuth.engine.index.trigram import And, Lit, Or, Query, literal_match, pair_spellings, terms_match

__all__ = ["Rows", "evaluate", "vocabulary_terms"]

Rows = dict[int, set[int]]  # file id -> chunk rows that may hold a match

_VOCAB = "CREATE VIRTUAL TABLE IF NOT EXISTS temp.tri_vocab USING fts5vocab(main, 'tri', 'row')"
_MAX_CHAR = "\U0010ffff"


def vocabulary_terms(conn: sqlite3.Connection, prefix: str) -> list[str]:
    """The indexed trigrams of one shard that start with ``prefix`` (a range read of the term index)."""
    conn.execute(_VOCAB)
    return [t for (t,) in conn.execute("SELECT term FROM temp.tri_vocab WHERE term >= ? AND term <= ?",
                                       (prefix, prefix + _MAX_CHAR))]


def _literal(shards: Sequence[sqlite3.Connection], cat: Catalogue, lit: Lit) -> Rows:
    out: Rows = {}
    expr = literal_match(lit)
    spellings = pair_spellings(lit) if expr is None else None
    for shard, conn in enumerate(shards):
        shard_expr = expr
        if spellings is not None:
            shard_expr = terms_match([t for s in spellings for t in vocabulary_terms(conn, s)])
        if shard_expr is None:
            continue
        owner = cat.row_owner[shard]
        for (row,) in conn.execute("SELECT rowid FROM tri WHERE tri MATCH ?", (shard_expr,)):
            fid = owner.get(row)
            if fid is not None:
                rows = out.get(fid)
                if rows is None:
                    out[fid] = {row}
                else:
                    rows.add(row)
    if spellings is not None:  # files whose text may end in the pair: every chunk may hold it
        for fid in cat.wide_ids:
            out.setdefault(fid, set()).update(cat.by_id[fid].rows)
    return out


def evaluate(shards: Sequence[sqlite3.Connection], cat: Catalogue, query: Query, line_mode: bool = False) -> Rows:
    """File id -> the chunk rows that may hold a match of ``query`` (which must not be ALL).

    In line mode every literal of an AND lies on the matching line, hence in one chunk: the AND
    intersects chunk rows (sharper than files). Otherwise (multiline) it intersects files.
    """
    if isinstance(query, Lit):
        if literal_match(query) is None and pair_spellings(query) is None:
            raise ValueError("a literal that cannot narrow must be simplified to ALL first")
        return _literal(shards, cat, query)
    if isinstance(query, And):
        result: Rows | None = None
        for item in query.items:
            part = evaluate(shards, cat, item, line_mode)
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
            for fid, rows in evaluate(shards, cat, item, line_mode).items():
                mine = union.get(fid)
                if mine is None:
                    union[fid] = rows
                else:
                    mine |= rows
        return union
    raise ValueError("ALL cannot be evaluated")
