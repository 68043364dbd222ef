"""A server opens its store without loading the catalogue, and still writes it (issue 34).

A restart makes no record up front (:class:`~sleuth.engine.index.lazy_catalogue.LazyCatalogue`:
a file's record is made when a search or an update first touches it), then changes notified to
it are written through: the property is that after any random changes, applied by the opened
store, its answers equal a cold scan's, its catalogue in memory equals what it wrote to disk, and
another restart reads back the same catalogue and answers the same.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sleuth.engine.index import IndexService
from sleuth.engine.index.catalogue import Catalogue
from sleuth.engine.index.lazy_catalogue import LazyCatalogue
from tests.fixtures import started_index
from tests.engine.index.test_random_operations import _agree, apply, operation
from tests.engine.index.test_restart_freshness import _tree


def _memory_and_disk(service: IndexService) -> tuple[dict[str, tuple], dict[str, tuple]]:
    """Every record as the service holds it, and as its database holds it."""
    with service.state.lock:
        cat, conn = service.state.cat, service.state.catalog_db
        assert cat is not None and conn is not None
        held = {p: Catalogue.row_values(r) for p, r in cat.by_path.items()}
        stored = {p: Catalogue.row_values(r) for p, r in Catalogue.from_rows(Catalogue.fetch(conn), 2).by_path.items()}
    return held, stored


def _restarted(tmp_path: Path) -> IndexService:
    """The service of a second start over ``_tree``'s published store: its catalogue opened lazily."""
    root = tmp_path / "ws"
    root.mkdir()
    _tree(root)
    started_index(root, tmp_path / "cache").stop()
    return started_index(root, tmp_path / "cache")


def test_a_restart_makes_no_record_up_front(tmp_path: Path) -> None:
    service = _restarted(tmp_path)
    try:
        cat = service.state.cat
        assert isinstance(cat, LazyCatalogue) and cat.records_made() == 0  # (no file of this tree is chunked)
        assert len(cat) == 6 and _agree(service) == []
        assert 0 < cat.records_made() < 6  # the candidates of the patterns only
    finally:
        service.stop()


def test_the_length_of_a_lazy_catalogue_builds_no_index(tmp_path: Path) -> None:
    """``len`` of an opened catalogue is its stored rows' count until a change is put (the open's
    catch-up asks for it; building the path index of the Linux tree's 78,255 files for it was 6% of a
    cold call's samples); after a put and a removal it counts them."""
    from sleuth.engine.index import catalogue_map
    from sleuth.engine.index.lazy_catalogue import of_columns

    root = tmp_path / "ws"
    root.mkdir()
    _tree(root)
    service = started_index(root, tmp_path / "cache")
    try:
        with service.state.lock:
            gen, conn = service.state.gen, service.state.catalog_db
            assert gen is not None and conn is not None
            cols = catalogue_map.read(gen, conn)
        assert cols is not None
        cat = of_columns(cols, 2)
        assert len(cat) == 6 and len(cat.by_path) == 6
        assert cat._paths._made_index is None and cat._ids._made_index is None
        some = next(iter(cat.by_path))
        record = cat.by_path[some]
        del cat.by_path[some]
        assert len(cat.by_path) == 5
        cat.by_path[some] = record
        cat.by_path[str(root / "new.txt")] = record
        assert len(cat.by_path) == 7
    finally:
        service.stop()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(operation, min_size=1, max_size=6))
def test_changes_after_a_lazy_open_are_written_through(tmp_path_factory: pytest.TempPathFactory, ops: list) -> None:
    root = tmp_path_factory.mktemp("lazy") / "ws"
    root.mkdir()
    _tree(root)
    cache, away = tmp_path_factory.mktemp("cache"), tmp_path_factory.mktemp("away")
    started_index(root, cache).stop()
    service = started_index(root, cache)
    try:
        assert isinstance(service.state.cat, LazyCatalogue)
        reported: list[str] = []
        for op in ops:
            reported += [str(p) for p in apply(root, away, op)]
        service.notify_changed(reported)
        assert service.wait_idle(60)
        assert _agree(service) == []
        held, stored = _memory_and_disk(service)
        assert held == stored
        assert service.state.cat.stat_view() == Catalogue.from_rows(  # type: ignore[union-attr]
            Catalogue.fetch(service.state.catalog_db), 2).stat_view()  # type: ignore[arg-type]
    finally:
        service.stop()
    again = started_index(root, cache)
    try:
        assert _memory_and_disk(again)[0] == held
        assert _agree(again) == []
    finally:
        again.stop()


class _Counted(dict):  # type: ignore[type-arg]
    """A catalogue's ``by_id`` that counts its look-ups."""

    def __init__(self, inner: object) -> None:
        super().__init__()
        self.inner, self.lookups = inner, 0

    def __getitem__(self, key: object) -> object:
        self.lookups += 1
        return self.inner[key]  # type: ignore[index]


def test_the_candidate_lookup_looks_each_candidates_record_up_once(tmp_path: Path) -> None:
    """A lazy catalogue makes (or finds) a record per look-up, ~3 us each: the order, the list and the
    pieces of 1,067 candidates looked each one up again (a third of the lookup's time on Linux)."""
    from sleuth.commands.args import parse_args
    from sleuth.commands.grep import GREP_ARGS, build_request
    from tests.fixtures import context

    root = tmp_path / "ws"
    files = {f"d{n % 3}/f{n:03}.c": f"int pm_resume_{n};\n" + "x\n" * (9000 if n % 4 == 0 else 1) for n in range(24)}
    root.mkdir()
    for rel, text in (files | {"other.c": "nothing\n"}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    started_index(root, tmp_path / "cache").stop()
    service = started_index(root, tmp_path / "cache")
    try:
        cat = service.state.cat
        assert isinstance(cat, LazyCatalogue)
        ctx = context(service.workspace, index=service)
        request = build_request(parse_args("sleuth.grep", {"pattern": "pm_resume"}, GREP_ARGS, ctx.settings), ctx)
        service.candidate_entries(service.workspace, request)  # the first makes (and keeps) the walk entries
        counted = _Counted(cat.by_id)
        cat.by_id = counted  # type: ignore[assignment]
        candidates = service.candidate_entries(service.workspace, request)
        assert candidates is not None and candidates.narrowed and len(candidates) == 24
        assert counted.lookups == 24
    finally:
        service.stop()


def test_a_lazy_catalogue_looks_a_candidates_records_up_at_once(tmp_path: Path) -> None:
    """``by_id.many``: the records of many ids by one vectorised search of the stored ids (a numpy call
    per id was 2.7 of the 3.1 ms of an indexed ``[A-Z]+_RESUME``'s candidate lookup on the Linux tree),
    the same records as one by one; with changes put over the stored rows, one by one as before."""
    import numpy as np

    service = _restarted(tmp_path)
    try:
        cat = service.state.cat
        assert isinstance(cat, LazyCatalogue)
        ids = cat._cols.ids[::-1].astype(np.int64)
        found = cat.by_id.many(ids)  # type: ignore[attr-defined]
        assert cat._ids._index._dict is None  # (searched, no dict of every id made)
        assert list(found) == ids.tolist()
        assert all(found[i] is cat.by_id[i] and found[i].id == i for i in ids.tolist())
        with pytest.raises(KeyError):
            cat.by_id.many(np.array([int(ids.max()) + 7], np.int64))  # type: ignore[attr-defined]
        assert cat.by_id.many(np.array([], np.int64)) == {}  # type: ignore[attr-defined]
        first = int(ids[0])
        record = cat.by_id[first]
        del cat.by_id[first]
        cat.by_id[first] = record
        assert cat.by_id.many(ids) == found  # type: ignore[attr-defined]
    finally:
        service.stop()
