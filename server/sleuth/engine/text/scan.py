"""``sleuth.text`` without a ready index: the same ranking over files read from disk.

:func:`sleuth.engine.text.search.search_text` ranks lines by signals of the line itself (match
quality, the words forming one identifier, a definition site, the file name); what the index
contributes is *which files to read first*: definition files (its definition keys), files spelling
the words as one identifier and files holding every clause's words (its chunk trigrams). While the
index loads or builds (75 s on first open of the Linux tree), :class:`ScannedFiles` answers those
same questions from the disk, so the answer is the indexed one, marked ``source: scan``:

1. one cold grep (the scan every core runs, under the index's own path rule) lists the files holding
   the most selective clause's literal, case-insensitively — a result line holds a match of every
   clause, so no other file can contribute one;
2. for those files only, what the index would hold: each chunk's trigrams (the same chunks and
   trigram numbers the build computes) and the file's definition keys, computed on first use and
   within the request's deadline (:attr:`ScannedFiles.complete` turns false when it cut the work).

On the same files (a tree within the ranking's budgets) the scan's results equal the index's
(``tests/commands/test_text_scan.py``); on a big tree it costs about one cold grep plus reading the
files that hold the query's rarest word.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

import numpy as np

from sleuth.engine.cancel import CancelToken
from sleuth.engine.index.builder import chunk_trigrams
from sleuth.engine.definitions.defs import definition_keys
from sleuth.engine.text.query import TextQuery, parse_query
from sleuth.engine.decode import transcoded
from sleuth.engine.index.trigram import ALL, And, Grams, Or, Query, chunks, simplify
from sleuth.engine.types import FileEntry, MatchOptions, SearchOptions, SkipCounts, WalkOptions
from sleuth.engine.workspace import Target, Workspace, sort_key

__all__ = ["ScannedFile", "ScannedFiles"]


@dataclass(frozen=True)
class ScannedFile:
    """What the ranking reads of a file record: where it is, how it is shown, its size."""

    id: int
    path: str
    display: str
    size: int


class ScannedFiles:
    """The index's text-search questions (``definers``, ``files_matching``, ``all_ids``, ``records``,
    ``pending_entries``, ``buffer_text``) answered from disk for one query; see the module docstring."""

    def __init__(self, workspace: Workspace, query_text: str, options: WalkOptions, token: CancelToken,
                 max_bytes: int | None = None, buffers: Mapping[str, str] | None = None) -> None:
        self.workspace = workspace
        self.token = token
        self.buffers = dict(buffers or {})
        self.complete = True
        self._features: dict[int, tuple[frozenset[str], list[np.ndarray]] | None] = {}
        self.files = self._list(parse_query(query_text), options, max_bytes)

    # -- the listing ------------------------------------------------------------------------------
    def _list(self, query: TextQuery, options: WalkOptions, max_bytes: int | None) -> list[ScannedFile]:
        """Files (in result order) holding the literal of the clause with the longest shortest literal."""
        from sleuth.engine.grep import GrepRequest, run_grep  # the cold scan: walk + every core
        from sleuth.engine.walk import walk

        clause = max(query.clauses, key=lambda c: min(len(t.literal) for t in c))
        walk_options = WalkOptions(hidden=options.hidden, follow=options.follow, no_ignore=options.no_ignore,
                                   no_require_git=options.no_require_git, deny_globs=options.deny_globs,
                                   max_file_size_bytes=max_bytes)
        targets = [Target(r, r.path, True) for r in self.workspace.roots]
        entries = [e for e in walk(self.workspace, targets, walk_options, self.token, SkipCounts(), [])
                   if isinstance(e, FileEntry)]
        listed = {e.display: e for e in entries}
        for path in self.buffers:  # open buffers never saved are searched too, as the index does
            if path not in {e.path for e in entries} and self.workspace.contains(path):
                display = self.workspace.display(path)
                listed.setdefault(display, FileEntry(path, display, len(self.buffers[path]), 0.0))
        request = GrepRequest(tuple(targets), walk_options,
                              MatchOptions(tuple(t.literal for t in clause), fixed_strings=True, case="insensitive"),
                              SearchOptions(max_results=len(listed) + 1, output="files_with_matches",
                                            max_columns=None))
        outcome = run_grep(self.workspace, request, self.token, buffers=self.buffers or None,
                           entries=sorted(listed.values(), key=lambda e: sort_key(e.display)))
        if self.token.should_stop():
            self.complete = False
        found = [listed[item.path] for item in outcome.items if item.path in listed]
        return [ScannedFile(i, e.path, e.display, e.size) for i, e in enumerate(found)]

    # -- what the index would hold ------------------------------------------------------------------
    def _feature(self, fid: int) -> tuple[frozenset[str], list[np.ndarray]] | None:
        """A file's definition keys and its chunks' trigrams, as the build computes them (None: unread)."""
        if fid in self._features:
            return self._features[fid]
        if self.token.should_stop():
            self.complete = False
            return None
        record = self.files[fid]
        text = self.buffers.get(record.path)
        try:
            if text is not None:
                data = text.encode("utf-8", "surrogatepass")
            else:
                with open(record.path, "rb") as handle:
                    data = handle.read()
        except OSError:
            self._features[fid] = None
            return None
        data = transcoded(data)
        feature = (frozenset(definition_keys(data)),
                   [chunk_trigrams(data[start:end]) for start, end in chunks(data)])
        self._features[fid] = feature
        return feature

    def definers(self, key: str, prefix: bool = False) -> set[int]:
        if not key or not key.isalnum():
            return set()
        out: set[int] = set()
        for record in self.files:
            feature = self._feature(record.id)
            if feature is None:
                continue
            keys = feature[0]
            if key in keys or (prefix and any(k.startswith(key) for k in keys)):
                out.add(record.id)
        return out

    def files_matching(self, query: Query) -> set[int]:
        query = simplify(query)
        if query is ALL:
            return set(self.all_ids())
        out: set[int] = set()
        for record in self.files:
            feature = self._feature(record.id)
            if feature is not None and any(_holds(query, grams) for grams in feature[1]):
                out.add(record.id)
        return out

    def all_ids(self) -> list[int]:
        return [r.id for r in self.files]

    def records(self, fids: Iterable[int]) -> list[ScannedFile]:
        return [self.files[f] for f in fids if 0 <= f < len(self.files)]

    def pending_entries(self) -> list[FileEntry]:
        return []  # every file is read from disk (or its open buffer) already

    def buffer_text(self, path: str) -> str | None:
        return self.buffers.get(path)


def _holds(query: Query, grams: np.ndarray) -> bool:
    """Whether one chunk (its sorted distinct trigram numbers) satisfies ``query``, as the index evaluates it."""
    if isinstance(query, Grams):
        return all(bool(np.isin(np.asarray(group, grams.dtype), grams, assume_unique=True).any())
                   for group in query.groups)
    if isinstance(query, And):
        return all(_holds(q, grams) for q in query.items)
    if isinstance(query, Or):
        return any(_holds(q, grams) for q in query.items)
    return query is ALL
