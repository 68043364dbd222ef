"""``workspace/symbol``: Ctrl+T in VS Code, ``vim.lsp.buf.workspace_symbol()`` in Neovim, assistants' symbol tools.

A thin handler over ``sleuth.symbols``: the query goes to the command (rate limit, cancellation,
work-done progress on the request's token as for every command), the results come back as
``SymbolInformation`` (every client understands it). Kinds a client did not declare are mapped to
ones every client knows (LSP: without ``symbolKind.valueSet`` only File..Array are safe). With a
``partialResultToken`` the list goes out as one ``$/progress`` batch and the response is empty.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from sleuth.lsp.features.base import Feature
from sleuth.lsp.invoke import Request

if TYPE_CHECKING:
    from sleuth.lsp.server import SleuthServer

__all__ = ["SymbolsFeature", "MAX_SYMBOLS"]

MAX_SYMBOLS = 100  # one Ctrl+T list; the client filters further as the person types
_BASIC = 18  # SymbolKind.Array: the last kind a client without a valueSet is sure to know
_FALLBACK = {19: 13, 20: 14, 21: 14, 22: 14, 23: 5, 24: 12, 25: 12, 26: 5}  # object/key/null/enum member ->
# variable/constant, struct/type parameter (typedefs) -> class, event/operator -> function


class SymbolsFeature(Feature):
    """``workspace/symbol`` (no state of its own: the command keeps everything)."""

    def register(self) -> None:
        self.on(types.WORKSPACE_SYMBOL, self.workspace_symbol, types.WorkspaceSymbolOptions(work_done_progress=True))

    async def workspace_symbol(self, params: types.WorkspaceSymbolParams) -> list[types.SymbolInformation]:
        ls = self.server
        query = (params.query or "").strip()
        if not query:
            return []  # VS Code asks with "" when the picker opens: every symbol is no answer
        result = await ls.run_command(Request("sleuth.symbols", {"query": query, "max_results": MAX_SYMBOLS},
                                              ls.protocol.msg_id, params.work_done_token))
        known = _known_kinds(ls)
        symbols = [_information(item, known) for item in result.get("results", [])]
        if params.partial_result_token is not None and symbols:
            ls.notify(types.PROGRESS, types.ProgressParams(token=params.partial_result_token, value=symbols))
            return []
        return symbols


def _known_kinds(ls: "SleuthServer") -> frozenset[int] | None:
    """The SymbolKinds the client declared (None: it declared none, so only File..Array)."""
    caps: Any = getattr(ls.protocol, "client_capabilities", None)
    for name in ("workspace", "symbol", "symbol_kind", "value_set"):
        caps = getattr(caps, name, None)
        if caps is None:
            return None
    return frozenset(int(k) for k in caps)


def _kind(code: int, known: frozenset[int] | None) -> types.SymbolKind:
    if (known is None and code > _BASIC) or (known is not None and code not in known):
        code = _FALLBACK.get(code, 13)
    return types.SymbolKind(code)


def _information(item: dict[str, Any], known: frozenset[int] | None) -> types.SymbolInformation:
    start, end = item["range"]["start"], item["range"]["end"]
    location = types.Location(item["uri"], types.Range(types.Position(start["line"], start["character"]),
                                                       types.Position(end["line"], end["character"])))
    return types.SymbolInformation(name=item["name"], kind=_kind(item["kind_code"], known), location=location,
                                   container_name=item["container"] or None)
