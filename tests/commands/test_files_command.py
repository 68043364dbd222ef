"""sleuth.files' own helpers (the command end to end is covered in tests/lsp and tests/engine/index)."""

from __future__ import annotations

from sleuth.commands.files import _displays
from sleuth.engine.types import FileEntry


def test_display_paths_are_reused_only_for_the_same_entries() -> None:
    a = [FileEntry("/w/a.c", "a.c", 1, 0.0), FileEntry("/w/b.c", "b.c", 1, 0.0)]
    first = _displays(a)
    assert first == ["a.c", "b.c"]
    assert _displays(list(a)) is first  # the same catalogue again: no rebuild
    a.append(FileEntry("/w/c.c", "c.c", 1, 0.0))  # the caller's list changed after the call
    assert _displays(a) == ["a.c", "b.c", "c.c"]
    renamed = [FileEntry("/w/a.c", "x/a.c", 1, 0.0), a[1], a[2]]
    assert _displays(renamed) == ["x/a.c", "b.c", "c.c"]
