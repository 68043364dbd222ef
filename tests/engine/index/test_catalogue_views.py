"""The catalogue's derived views (result order, walk entries, positions, largest size) stay equal to
freshly computed ones while files are added, changed and removed: they are patched, not rebuilt."""

from __future__ import annotations

import sqlite3

from hypothesis import given, settings, strategies as st

from sleuth.engine.index import store
from sleuth.engine.index.catalogue import Catalogue, Indexed

NAMES = ["a.c", "b/a.c", "b/c.h", "B.c", "é.c", "z/y/x.c", "a-b.c", "a_b.c", "ab.c", "b.c"]

operation = st.tuples(st.sampled_from(["put", "remove", "look"]), st.sampled_from(NAMES), st.integers(0, 5000))


def _views(cat: Catalogue) -> tuple:
    ranks = cat.rank()
    return ([r.path for r in cat.sorted_records()], [(e.path, e.size, e.mtime) for e in cat.sorted_entries()],
            cat.order(), {r.id: cat.entry_of(r.id) for r in cat.sorted_records()}, cat.largest(),
            {fid: int(ranks[fid]) for fid in cat.by_id})


def _fresh(cat: Catalogue) -> tuple:
    copy = Catalogue(1)
    for rec in cat.by_id.values():
        copy.add_loaded(rec)
    return _views(copy)


@settings(deadline=None)
@given(st.lists(operation, max_size=40))
def test_views_follow_every_change(ops: list[tuple[str, str, int]]) -> None:
    conn = sqlite3.connect(":memory:")
    store.create_catalog(conn)
    cat = Catalogue(1)
    for step, (op, name, size) in enumerate(ops):
        path = "/r/" + name
        if op == "put":
            cat.put(conn, None, path, name, 0, Indexed(size, step, -1, ()))
        elif op == "remove":
            cat.remove(conn, path)
        else:  # a search builds (some of) the views
            cat.sorted_entries() if size % 2 else cat.order()
        if step % 3 == 0:
            assert _views(cat) == _fresh(cat)
    assert _views(cat) == _fresh(cat)


def test_a_changed_file_keeps_its_place_without_a_re_sort(monkeypatch) -> None:
    conn = sqlite3.connect(":memory:")
    store.create_catalog(conn)
    cat = Catalogue(1)
    for i, name in enumerate(NAMES):
        cat.put(conn, None, "/r/" + name, name, 0, Indexed(10, i, -1, ()))
    before = cat.sorted_entries()
    import sleuth.engine.index.catalogue as catalogue

    monkeypatch.setattr(catalogue, "sort_key", None)  # any re-sort (or key computation) would fail
    cat.put(conn, None, "/r/b/c.h", "b/c.h", 0, Indexed(99, 99, -1, ()))
    after = cat.sorted_entries()
    assert after is not before and [e.path for e in after] == [e.path for e in before]
    assert next(e for e in after if e.path == "/r/b/c.h").size == 99
    assert next(e for e in before if e.path == "/r/b/c.h").size == 10  # the list a search held is untouched
    assert cat.largest() == 99
