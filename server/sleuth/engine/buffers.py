"""Open editor buffers under the path rule: which ones a search may read, including never-saved ones.

A buffer's text is searched in place of its file, so it must pass exactly the rule the file on
disk would (deny globs, sandbox, and for paths not named by the request the ignore and hidden
rules): an editor that opens ``secrets.key`` must not make it searchable. A buffer with no file
on disk yet (a new file, never saved) is searched when its path passes the same rule.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from sleuth.engine.ignore import IgnoreOracle
from sleuth.engine.types import FileEntry, WalkOptions
from sleuth.engine.workspace import Target, Workspace, sort_key

__all__ = ["unsaved_entries"]


def unsaved_entries(workspace: Workspace, targets: Sequence[Target] | None, options: WalkOptions,
                    buffers: Mapping[str, str], oracle: IgnoreOracle | None = None) -> list[FileEntry]:
    """Buffers whose file does not exist on disk that a walk of ``targets`` with ``options`` would
    take if it did, as walk entries in result order (size: the text's UTF-8 bytes)."""
    unsaved = [p for p in buffers if not os.path.lexists(p) and workspace.contains(p)]
    if not unsaved:
        return []
    oracle = oracle or IgnoreOracle(workspace, options, list(targets) if targets else None)
    found = [FileEntry(p, workspace.display(p), len(buffers[p].encode("utf-8", "surrogatepass")), 0.0)
             for p in unsaved if oracle.rules_allow(p)]
    return sorted(found, key=lambda e: sort_key(e.display))
