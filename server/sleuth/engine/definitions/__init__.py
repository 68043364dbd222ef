"""What a file defines, read from its text: below the index, which stores it, and the searches,
which rank it.

``defs`` recognises definition lines by shape, language-neutrally, and turns names into lookup keys
(``sleuth.text`` ranks defining lines first with them); ``extract`` finds a file's symbols (name,
kind, container, range) per language; ``pack`` is their stored form in the index. The index build
(:mod:`sleuth.engine.index.builder`) runs them; the text search (:mod:`sleuth.engine.text`) and the
symbols search (:mod:`sleuth.engine.symbols`) read what they produce. Nothing here imports the index.

The index stores their output: a change of what they find must bump
:data:`sleuth.engine.index.store.SCHEMA`, so that stores built before it are rebuilt.
"""
