"""Sleuth: workspace search for editors, assistants and scripts.

Layers (imports point one way only)::

    doors (lsp/, mcp/, cli/)  ->  core/  ->  commands/  ->  engine/

The engine knows nothing of LSP, MCP or JSON; commands validate arguments and shape results;
``core/`` is what every door shares (the :class:`~sleuth.core.session.Session`: roots, settings,
index, the invocation policy, the warm CLI's door); the doors move requests and results over a
wire or a terminal. The contract is ``docs/SPEC.md``; ``docs/ARCHITECTURE.md`` draws the layers
and follows one request through each door.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
