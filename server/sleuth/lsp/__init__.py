"""The LSP transport: a pygls 2 server that is a thin layer over the core's :class:`sleuth.core.session.Session`.

Modules: :mod:`.server` (wiring and what only LSP holds), :mod:`.features` (handlers),
:mod:`.invoke` (one invocation: the session's, plus LSP's progress, partial results and errors),
:mod:`.cancellation`, :mod:`.progress`, :mod:`.config`, :mod:`.documents`, :mod:`.errors`,
:mod:`.invocation_log`, :mod:`.main` (``sleuth serve``).
"""

from __future__ import annotations

__all__ = ["run"]


def run(transport: str = "stdio", host: str | None = None, port: int | None = None) -> int:
    """See :func:`sleuth.lsp.main.run` (kept importable without loading pygls)."""
    from sleuth.lsp.main import run as _run

    return _run(transport, host, port)
