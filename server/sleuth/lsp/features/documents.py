"""Document sync: pygls applies the (incremental) edits, these handlers copy the text to the buffer store."""

from __future__ import annotations

from lsprotocol import types

from sleuth.lsp.features.base import Feature

__all__ = ["DocumentsFeature"]


class DocumentsFeature(Feature):
    """didOpen / didChange / didClose into the server's open buffers (which the index and the tools share)."""

    def register(self) -> None:
        self.on(types.TEXT_DOCUMENT_DID_OPEN, self.did_open)
        self.on(types.TEXT_DOCUMENT_DID_CHANGE, self.did_change)
        self.on(types.TEXT_DOCUMENT_DID_CLOSE, self.did_close)

    def did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        self.server.buffers.set(params.text_document.uri, params.text_document.text)

    def did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        self.server.buffers.set(uri, self.server.workspace.get_text_document(uri).source)

    def did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        self.server.buffers.close(params.text_document.uri)
