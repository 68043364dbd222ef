"""``sleuth.text``: ranked search for words, per line, definitions first.

``query`` parses the query language, ``search`` ranks lines from a :class:`~sleuth.engine.text.search.TextSource`
(the index's narrowing, or ``scan``'s files read from disk while there is no index). A search over the
index service (:mod:`sleuth.engine.index`), which it uses and which does not know it.
"""
