"""Workspace symbols: definitions by name, kind, container and range (``workspace/symbol``, ``sleuth.symbols``).

``extract`` finds a file's definitions (per language, by line shape: the regex extractor measured
against tree-sitter and universal-ctags in bench/README.md), ``pack`` is their stored form in the
index, ``rank`` orders the names a query finds as Ctrl+T users expect.
"""
