"""The next pages of an MCP search cut from the first search's result, not from a new search.

A model pages through a long answer with ``offset`` (:func:`sleuth.mcp.tools.page`). Running the
search again for each page reads the tree again for items already found; instead the session holds
the last few results (:class:`PageCache`, least recently used first out), keyed by the tool and its
arguments without ``offset``, and cuts the next page from the held result while:

* the world it was computed in holds: the same sandbox, settings and index service, and the index's
  :meth:`~sleuth.engine.index.service.IndexService.change_stamp` unchanged (no file or buffer change
  notified, no rescan since). Without a ready index nothing tells a change, so nothing is held;
* the held result can give the whole page: it is complete (not truncated), or the page ends, cut by
  the output budget, before the held items do. A page that would reach the end of a truncated result
  runs the search again for ``offset + page size`` items (as every page did before), and that result
  is held instead.

A timed-out result is never held: a new search may find more. A page cut from a held result is
still one invocation for the log line and the metrics (the MCP server records it).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any, Mapping

__all__ = ["PageCache", "page_key", "gives_whole_page", "MAX_HELD"]

MAX_HELD = 8  # results held per session: a model pages through one or two answers at a time


def page_key(tool: str, arguments: Mapping[str, Any]) -> str:
    """The arguments as the tool received them, without ``offset``: one key per question."""
    rest = {k: v for k, v in arguments.items() if k != "offset"}
    return json.dumps([tool, rest], sort_keys=True, ensure_ascii=False, default=repr)


def gives_whole_page(result: Mapping[str, Any], items_key: str, offset: int, shown: int) -> bool:
    """Whether a page of ``shown`` items at ``offset`` cut from ``result`` is the page a new search
    would give: the result is complete, or the page ends (cut by the budget) before its items do."""
    return not result.get("truncated") or offset + shown < len(result.get(items_key) or [])


class PageCache:
    """The last :data:`MAX_HELD` results, each with the stamp of the world it was computed in."""

    def __init__(self, size: int = MAX_HELD) -> None:
        self.size = size
        self._held: OrderedDict[str, tuple[object, dict[str, Any]]] = OrderedDict()

    def get(self, key: str, stamp: object) -> dict[str, Any] | None:
        """The result held for ``key`` when it was computed under ``stamp``; a stale one is dropped."""
        entry = self._held.get(key)
        if entry is None:
            return None
        if entry[0] != stamp:
            del self._held[key]
            return None
        self._held.move_to_end(key)
        return entry[1]

    def put(self, key: str, stamp: object, result: dict[str, Any]) -> None:
        if result.get("timed_out"):
            self._held.pop(key, None)
            return
        self._held[key] = (stamp, result)
        self._held.move_to_end(key)
        while len(self._held) > self.size:
            self._held.popitem(last=False)

    def __len__(self) -> int:
        return len(self._held)
