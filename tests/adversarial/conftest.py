"""The hardening suite (issues 20, 22, 23): a hostile client, a hostile tree, a failing machine.

Each test file is named for what it attacks and keeps its own fixtures; shared helpers come from
``tests/conftest.py`` (trees, ``run_sleuth``) and ``tests/lsp/harness.py`` (the LSP client).
"""
