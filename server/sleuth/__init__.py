"""Sleuth: workspace search for editors, assistants and scripts.

Layers (imports point one way only)::

    transports (lsp/, cli/)  ->  commands/  ->  engine/

The engine knows nothing of LSP or JSON; commands validate arguments and shape results;
transports move them over a wire or a terminal.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
