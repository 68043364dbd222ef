"""LSP handlers as feature objects (:class:`~sleuth.lsp.features.base.Feature`, esbonio's), one per
concern; each owns its state and registers its handlers on the server:

* :mod:`.requests` — ``workspace/executeCommand`` advertisement, the custom ``sleuth/*`` requests
  (it owns the list the ``initialize`` answer advertises)
* :mod:`.session` — initialize / initialized / configuration / workspace folders / shutdown (it owns
  the folders as the client names them)
* :mod:`.documents` — didOpen / didChange / didClose into the open-buffer store
* :mod:`.index` — the index lifecycle hook and file-watcher registration (it owns the transport's
  index options and the count of file-change events)
* :mod:`.symbols` — ``workspace/symbol`` over ``sleuth.symbols``
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sleuth.lsp.server import SleuthServer

__all__ = ["setup_all"]


def setup_all(server: "SleuthServer") -> None:
    from sleuth.lsp.features.documents import DocumentsFeature
    from sleuth.lsp.features.index import IndexFeature
    from sleuth.lsp.features.requests import RequestsFeature
    from sleuth.lsp.features.session import SessionFeature
    from sleuth.lsp.features.symbols import SymbolsFeature

    index = IndexFeature(server)
    for feature in (RequestsFeature(server, index), SessionFeature(server, index), DocumentsFeature(server), index,
                    SymbolsFeature(server)):
        server.add_feature(feature)
