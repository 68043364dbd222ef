"""LSP features own their state (issue 32, esbonio's feature objects): each concern is an object that
registers its handlers as bound methods and holds what only it uses; the server holds the features,
and only what every handler shares (session, buffers, cancels). The behaviour is the e2e suites'."""

from __future__ import annotations

from sleuth.lsp.features.base import Feature
from sleuth.lsp.features.documents import DocumentsFeature
from sleuth.lsp.features.index import IndexFeature
from sleuth.lsp.features.requests import CUSTOM_REQUESTS, DEBUG_WORKERS, RequestsFeature
from sleuth.lsp.features.session import SessionFeature
from sleuth.lsp.features.symbols import SymbolsFeature
from sleuth.lsp.server import create_server


def test_each_concern_is_a_feature_object_with_its_own_state() -> None:
    server = create_server()
    try:
        assert {type(f) for f in server.features.values()} == {RequestsFeature, SessionFeature, DocumentsFeature,
                                                                IndexFeature, SymbolsFeature}
        assert all(isinstance(f, Feature) and f.server is server for f in server.features.values())
        for moved in ("watched_events", "transport_options", "custom_requests", "folders", "set_folders"):
            assert not hasattr(server, moved), moved  # held by the feature that uses it
        requests = server.get_feature(RequestsFeature)
        assert set(CUSTOM_REQUESTS) <= requests.methods and DEBUG_WORKERS not in requests.methods
        index = server.get_feature(IndexFeature)
        assert (index.watched_events, dict(index.options)) == (0, {})
        assert server.get_feature(SessionFeature).index is index and requests.index is index
        assert server.get_feature(SessionFeature).folders == []
    finally:
        server.session.close()
