"""What an rg command line names besides the search itself: its patterns (``-e``, ``-f``, ``-x``, blank
ones), its file types (``-t``, ``-T``, ``--type-add``, ``--type-clear``, ``--type-list``) and ``--iglob``'s
caseless globs, read into the namespace :mod:`sleuth.cli.grep_run` turns into ``sleuth.grep`` requests.
A command line rg refuses raises :class:`UsageError`.
"""

from __future__ import annotations

import sys

from sleuth.cli.common import EXIT_FOUND

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:  # (a namespace argparse made, or sleuth.cli.grep_flags.read_flags: the same attributes)
    import argparse

__all__ = ["UsageError", "patterns_of", "read_types", "caseless", "print_type_list"]


class UsageError(Exception):
    """A command line rg refuses: reported on stderr, exit 2."""


def _read_pattern_file(name: str) -> list[str]:
    """``-f FILE``: one pattern a line (rg drops the line ends; an empty line matches every line)."""
    try:
        data = sys.stdin.read() if name == "-" else open(name, "rb").read().decode("utf-8", "surrogateescape")
    except OSError as exc:
        raise UsageError(f"{name}: {exc.strerror}") from None
    lines = data.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def patterns_of(ns: argparse.Namespace) -> list[str]:
    patterns = list(ns.regexp)
    for name in ns.file:
        patterns.extend(_read_pattern_file(name))
    if not ns.regexp and not ns.file:
        if ns.pattern is None:
            raise UsageError("no pattern given\n  hint: sleuth grep PATTERN [PATH...] (or -e PATTERN)")
        patterns = [ns.pattern]
    elif ns.pattern is not None:
        ns.paths.insert(0, ns.pattern)  # with -e/-f, the first positional is a path (as in rg)
        ns.pattern = None
    if not patterns and ns.invert_match:
        patterns = [r"[^\s\S]"]  # -v with no pattern (-f of an empty file) matches every line: rg 15
    for p in patterns:
        if "\0" in p:
            raise UsageError("a pattern may not contain a NUL byte")
    if ns.line_regexp or any(not p.strip() for p in patterns):
        # sleuth.grep refuses a blank pattern (an assistant's slip); rg searches for it: an empty one
        # matches every line, a space finds spaces. As a regex group it is not blank (-F: escaped).
        from sleuth.engine.match.syntax import escape

        patterns = [escape(p) if ns.fixed_strings else p for p in patterns]
        patterns = [f"^(?:{p})$" if ns.line_regexp else (f"(?:{p})" if not p.strip() else p) for p in patterns]
        ns.fixed_strings = False
    if ns.multiline and ns.multiline_dotall and not ns.fixed_strings:
        patterns = [f"(?s:{p})" for p in patterns]
    return patterns


def read_types(ns: argparse.Namespace) -> None:
    """rg's ``-t``/``-T``/``--type-add``/``--type-clear``: names checked, ``all`` expanded; the engine
    takes type names and ``.ext`` forms, and a ``-T`` type's globs become exclude globs."""
    if not (ns.type or ns.type_not or ns.type_add or ns.type_clear):  # no type flag: the table is never read
        ns.type, ns.exclude_type_globs = [], []
        return
    from sleuth.engine.filetypes import TYPES

    table: dict[str, list[str]] = {k: list(v) for k, v in TYPES.items()}
    for name in ns.type_clear:
        table.pop(name, None)
    for spec in ns.type_add:
        name, sep, rest = spec.partition(":")
        if not sep or not name:
            raise UsageError(f"invalid definition {spec!r}: use NAME:GLOB")
        if rest.startswith("include:"):
            for other in rest[len("include:"):].split(","):
                if other not in table:
                    raise UsageError(f"unrecognized file type: {other}")
                table.setdefault(name, []).extend(table[other])
        else:
            table.setdefault(name, []).append(rest)

    def globs(name: str) -> list[str]:
        if name == "all":
            return [g for v in table.values() for g in v]
        if name not in table:
            raise UsageError(f"unrecognized file type: {name}")
        return table[name]

    selected: list[str] = []
    extra_globs: list[str] = []
    for name in ns.type:
        if name == "all" and "all" not in table:
            selected.extend(n for n in TYPES if table.get(n) == list(TYPES[n]))
            continue
        if name in TYPES and table.get(name) == list(TYPES[name]):
            selected.append(name)
            continue
        for glob in globs(name):
            import re  # here: only -t needs it (re with enum is ~3 ms of a cold call: issue 30)

            if re.fullmatch(r"\*\.[A-Za-z0-9_+\-.]+", glob):
                selected.append(glob[1:])
            else:
                extra_globs.append(glob)
    if extra_globs:
        ns.glob = list(ns.glob) + extra_globs
    ns.type = selected
    ns.exclude_type_globs = [g for name in ns.type_not for g in globs(name)]


def caseless(glob: str) -> str:
    """``--iglob``: the glob with each letter as a class of both cases (``*.html`` → ``*.[hH][tT][mM][lL]``)."""
    from sleuth.engine.ignore_rules import caseless_glob

    return caseless_glob(glob)


def print_type_list() -> int:
    from sleuth.engine.filetypes import TYPES

    for name in sorted(TYPES):
        sys.stdout.write(f"{name}: {', '.join(TYPES[name])}\n")
    return EXIT_FOUND
