"""Document sync: pygls applies the (incremental) edits, these handlers copy the text to the buffer store."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from sleuth.lsp.server import SleuthServer

__all__ = ["setup"]


def setup(server: "SleuthServer") -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: "SleuthServer", params: types.DidOpenTextDocumentParams) -> None:
        ls.buffers.set(params.text_document.uri, params.text_document.text)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: "SleuthServer", params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.buffers.set(uri, ls.workspace.get_text_document(uri).source)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: "SleuthServer", params: types.DidCloseTextDocumentParams) -> None:
        ls.buffers.close(params.text_document.uri)
