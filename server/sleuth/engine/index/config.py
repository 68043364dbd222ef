"""What an index is configured with: the files it covers and where its store lives.

Built by the commands layer from its settings (:meth:`sleuth.commands.config.Settings.index_config`),
so the engine reads named, typed fields instead of whatever a settings object happens to carry; being
frozen and hashable, it is also what a running index is compared against when settings change.
"""

from __future__ import annotations

from dataclasses import dataclass

from sleuth.engine.types import WalkOptions

__all__ = ["IndexConfig"]


@dataclass(frozen=True, slots=True)
class IndexConfig:
    """The index's inputs. ``max_file_size_bytes``: larger files are not indexed (None: no cap);
    ``index_path``: the folder the store goes under (None: the user cache directory)."""

    follow: bool = False
    respect_gitignore: bool = True
    deny_globs: tuple[str, ...] = ()
    max_file_size_bytes: int | None = None
    index_path: str | None = None

    def walk_options(self) -> WalkOptions:
        """The files the index covers: no hidden files, the ignore files unless ``respect_gitignore``
        is off, the deny globs. A scan that must answer alike (``sleuth.text`` without an index) walks
        with the same options."""
        return WalkOptions(hidden=False, follow=self.follow, no_ignore=not self.respect_gitignore,
                           deny_globs=self.deny_globs)
