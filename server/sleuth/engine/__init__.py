"""The search engine: workspace/sandbox -> walk -> match -> search -> collect, plus index and rank.

Nothing here imports pygls, lsprotocol or any transport: the engine takes plain Python values,
a :class:`~sleuth.engine.cancel.CancelToken` and a progress sink, and returns plain values.
"""
