"""rg's way of reading a command line, for ``sleuth grep`` (the flags themselves are the rows of
:mod:`sleuth.cli.grep_flags`).

rg reads its arguments in one pass: an option that takes a value takes the next word whatever it
looks like (``-e -test``), options and paths mix freely (``test --sort path mylink``), short flags
cluster (``-nC1``, ``-ie foo``) and a later flag overrides an earlier one (``-s -i``). argparse
refuses a dash-led value and stops taking positionals after an option, so :func:`split_argv`
reads the words first, the way rg does, and hands argparse only unambiguous ones."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

__all__ = ["split_argv", "SplitArgv"]


@dataclass
class SplitArgv:
    """A grep command line read rg's way: ``options`` for argparse, then the pattern and paths."""

    options: list[str] = field(default_factory=list)
    positionals: list[str] = field(default_factory=list)
    patterns: list[str] = field(default_factory=list)


def _takes_value(action: argparse.Action) -> bool:
    return action.nargs is None or action.nargs == 1


def split_argv(parser: argparse.ArgumentParser, argv: list[str]) -> SplitArgv:
    """Read ``argv`` as rg does (see the module docstring). ``-e``/``--regexp`` patterns are taken out
    in order (argparse's option loop is quadratic: 10,000 of them took it 1.6 s); a value is passed
    on as ``--long=value`` so argparse cannot mistake it for an option; an unknown option is passed
    on as it is, for argparse to report."""
    table = {s: a for a in parser._actions for s in a.option_strings}  # noqa: SLF001 (argparse has no public table)
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
            if action is None or not _takes_value(action) or eq:
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
            if not _takes_value(action):
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


def _put(out: SplitArgv, action: argparse.Action, name: str, value: str) -> None:
    if action.dest == "regexp":
        out.patterns.append(value)
        return
    long = next((s for s in action.option_strings if s.startswith("--")), None)
    if long is not None:
        out.options.append(f"{long}={value}")
    else:
        out.options.extend([name, value])
