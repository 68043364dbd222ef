"""rg's way of reading a command line, for ``sleuth grep`` (the flags themselves are the rows of
:mod:`sleuth.cli.grep_flags`).

rg reads its arguments in one pass: an option that takes a value takes the next word whatever it
looks like (``-e -test``), options and paths mix freely (``test --sort path mylink``), short flags
cluster (``-nC1``, ``-ie foo``) and a later flag overrides an earlier one (``-s -i``). argparse
refuses a dash-led value and stops taking positionals after an option, so :func:`split_argv`
reads the words first, the way rg does, and hands argparse only unambiguous ones."""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Mapping

__all__ = ["split_argv", "SplitArgv", "Option"]


class Option:
    """What reading the words needs of one option string: the namespace attribute it sets
    (``dest``), whether it takes a value, and its long spelling (None for a short-only flag)."""

    __slots__ = ("dest", "takes_value", "long")

    def __init__(self, dest: str, takes_value: bool, long: str | None) -> None:
        self.dest, self.takes_value, self.long = dest, takes_value, long


class SplitArgv:
    """A grep command line read rg's way: ``options`` for the flag reader, then the pattern and paths."""

    __slots__ = ("options", "positionals", "patterns")

    def __init__(self) -> None:
        self.options: list[str] = []
        self.positionals: list[str] = []
        self.patterns: list[str] = []


def split_argv(table: Mapping[str, Option], argv: list[str]) -> SplitArgv:
    """Read ``argv`` as rg does (see the module docstring). ``-e``/``--regexp`` patterns are taken out
    in order (argparse's option loop is quadratic: 10,000 of them took it 1.6 s); a value is passed
    on as ``--long=value`` so argparse cannot mistake it for an option; an unknown option is passed
    on as it is, for argparse to report. ``table``: every option string of the command
    (:func:`sleuth.cli.grep_flags.option_table`)."""
    out = SplitArgv()
    i = 0
    while i < len(argv):
        word = argv[i]
        i += 1
        if word == "--":
            out.positionals.extend(argv[i:])
            break
        if not word.startswith("-") or word == "-":
            out.positionals.append(word)
            continue
        if word.startswith("--"):
            name, eq, value = word.partition("=")
            action = table.get(name)
            if action is None or not action.takes_value or eq:
                if action is not None and action.dest == "regexp" and eq:
                    out.patterns.append(value)
                else:
                    out.options.append(word)
                continue
            if i >= len(argv):
                out.options.append(word)  # argparse says the value is missing
                continue
            value = argv[i]
            i += 1
            _put(out, action, name, value)
            continue
        # a cluster of short flags: -nC1, -ie foo, -uuu
        j = 1
        while j < len(word):
            name = "-" + word[j]
            action = table.get(name)
            if action is None:
                out.options.append("-" + word[j:])  # argparse reports it
                break
            j += 1
            if not action.takes_value:
                out.options.append(name)
                continue
            if j < len(word):
                value = word[j:]
            elif i < len(argv):
                value = argv[i]
                i += 1
            else:
                out.options.append(name)
                break
            _put(out, action, name, value)
            break
    return out


def _put(out: SplitArgv, action: Option, name: str, value: str) -> None:
    if action.dest == "regexp":
        out.patterns.append(value)
        return
    if action.long is not None:
        out.options.append(f"{action.long}={value}")
    else:
        out.options.extend([name, value])
