"""LSP handlers, one module per concern; each has ``setup(server)`` registering its methods.

* :mod:`.requests` — ``workspace/executeCommand`` advertisement, the custom ``sleuth/*`` requests
* :mod:`.session` — initialize / initialized / configuration / workspace folders / shutdown
* :mod:`.documents` — didOpen / didChange / didClose into the open-buffer store
* :mod:`.index` — the index lifecycle hook and file-watcher registration
* :mod:`.symbols` — ``workspace/symbol`` over ``sleuth.symbols``
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sleuth.lsp.server import SleuthServer

__all__ = ["setup_all"]


def setup_all(server: "SleuthServer") -> None:
    from sleuth.lsp.features import documents, index, requests, session, symbols

    for module in (requests, session, documents, index, symbols):
        module.setup(server)
