"""Workspace symbols: definitions by name, kind, container and range (``workspace/symbol``, ``sleuth.symbols``).

``search`` looks names up in the index's symbol store (:mod:`sleuth.engine.index.symbols`) and in
files the index cannot vouch for; ``rank`` orders the names a query finds as Ctrl+T users expect. What
a file defines is extracted below the index (:mod:`sleuth.engine.definitions`), measured against
tree-sitter and universal-ctags in bench/README.md.
"""
