"""rg's finer ignore switches as command arguments, shared by ``sleuth.grep`` and ``sleuth.files``
(``--no-ignore-dot``, ``--no-ignore-vcs``, ``--no-ignore-exclude``, ``--no-ignore-global``,
``--no-ignore-parent``, ``--no-ignore-files``, ``--ignore-file``, ``--ignore-file-case-insensitive``)."""

from __future__ import annotations

from collections.abc import Sequence

from sleuth.commands.args import Arg
from sleuth.engine.ignore_rules import glob_file
from sleuth.engine.path_rule import PathRule
from sleuth.engine.workspace import Workspace

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["IGNORE_SWITCHES", "ignore_switches"]

IGNORE_SWITCHES: dict[str, Arg] = {
    "no_ignore_dot": Arg("bool", "Ignore .ignore and .rgignore files.", default=False),
    "no_ignore_vcs": Arg("bool", "Ignore .gitignore, .git/info/exclude and the global excludes file.", default=False),
    "no_ignore_exclude": Arg("bool", "Ignore .git/info/exclude files.", default=False),
    "no_ignore_global": Arg("bool", "Ignore the global git excludes file.", default=False),
    "no_ignore_parent": Arg("bool", "Ignore the ignore files of the folders above the workspace folder.",
                            default=False),
    "no_ignore_files": Arg("bool", "Ignore the ignore_files.", default=False),
    "ignore_files": Arg("str_list", "Extra gitignore-format files (inside the workspace), below every other "
                        "ignore file in precedence.", default=[]),
    "ignore_case_insensitive": Arg("bool", "Read the ignore files' globs case-insensitively.", default=False),
}


def ignore_switches(args: dict[str, Any], workspace: Workspace, deny_globs: Sequence[str]) -> dict[str, Any]:
    """The WalkOptions fields the arguments set. An ignore file is read, so it passes the one path rule:
    inside the workspace (``resolve`` refuses it otherwise) and not denied, on the path as named or on
    its real path (a denied one is left out, as a search leaves denied files out)."""
    named = [t.path for name in args["ignore_files"] for t in workspace.resolve(name) if not t.is_dir]
    rule = PathRule(workspace, glob_file(deny_globs, override=False)) if named and deny_globs else None
    files = tuple(path for path in named if rule is None or rule.allows(path))
    return {"no_ignore_dot": args["no_ignore_dot"], "no_ignore_vcs": args["no_ignore_vcs"],
            "no_ignore_exclude": args["no_ignore_exclude"], "no_ignore_global": args["no_ignore_global"],
            "no_ignore_parent": args["no_ignore_parent"], "no_ignore_files": args["no_ignore_files"],
            "ignore_files": files, "ignore_case_insensitive": args["ignore_case_insensitive"]}
