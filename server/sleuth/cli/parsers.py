"""argparse as the CLI uses it: usage errors as rg gives them (``sleuth grep: error parsing flag -C:
...`` and a one-line usage, not argparse's usage block), and help laid out as rg's ``-h``.

Imported only where a parser is built: a cold ``sleuth grep`` reads its flags without argparse
(:func:`sleuth.cli.grep_flags.read_flags`) unless it has something to say.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Any, NoReturn

from sleuth.cli.terminal import flag_name

__all__ = ["CliParser", "HelpFormatter", "short_usage", "describe_negations", "help_width"]


def short_usage(parser: argparse.ArgumentParser) -> str:
    """``usage: sleuth grep [OPTIONS] PATTERN [PATH ...]``: the positionals, the flags left to ``-h``."""
    words = [parser.prog, "[OPTIONS]"]
    formatter = parser._get_formatter()  # noqa: SLF001 (argparse's own rendering of a positional's nargs)
    for action in parser._actions:  # noqa: SLF001
        if not action.option_strings and action.help is not argparse.SUPPRESS:
            words.append(formatter._format_args(action, action.metavar or action.dest.upper()))  # noqa: SLF001
    return "usage: " + " ".join(w for w in words if w)


_ARGPARSE = [  # argparse's message -> rg's wording
    (re.compile(r"unrecognized arguments: (-\S+).*", re.S), r"unrecognized flag \1"),
    (re.compile(r"unrecognized arguments: (.*)", re.S), r"unexpected arguments: \1"),
    (re.compile(r"argument ([^/:\s]+)(?:/\S+)?: invalid (?:int|parse_size) value: '(.*)'", re.S),
     r"error parsing flag \1: '\2' is not a valid number"),
    (re.compile(r"argument ([^/:\s]+)(?:/\S+)?: invalid choice: '(.*?)' \(choose from (.*)\)", re.S),
     r"error parsing flag \1: choice '\2' is unrecognized (choose from \3)"),
    (re.compile(r"argument ([^/:\s]+)(?:/\S+)?: expected one argument", re.S), r"flag \1 needs a value"),
    (re.compile(r"argument ([^/:\s]+)(?:/\S+)?: (.*)", re.S), r"error parsing flag \1: \2"),
]


def help_width() -> int:
    """The width argparse formats help for (``shutil.get_terminal_size``'s rule: ``$COLUMNS``, else
    the terminal on standard output, else 80; less 2), found without shutil: argparse imports it in
    every formatter it makes (one per flag added), and shutil brings bz2, lzma and zlib (~2 ms of a
    cold call that never prints help)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return (columns or 80) - 2


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, its width from :func:`help_width`."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position, help_width() if width is None else width)


class _OneLineHelp(HelpFormatter):
    """rg's ``-h`` layout: ``-e, --regexp PATTERN  a pattern`` on one line (argparse repeats the
    metavar after each spelling and moves the help under a long one)."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=38)

    def _format_action_invocation(self, action: argparse.Action) -> str:
        if not action.option_strings or action.nargs == 0:
            return super()._format_action_invocation(action)
        metavar = self._format_args(action, self._get_default_metavar_for_optional(action))
        return ", ".join(action.option_strings) + " " + metavar


class CliParser(argparse.ArgumentParser):
    """A subcommand's parser whose usage errors read as rg's: ``sleuth grep: unrecognized flag
    --foo`` and one usage line (argparse printed 30 lines of usage, or the top-level one for an
    unknown flag); its help lists each flag on one line."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _OneLineHelp)
        super().__init__(*args, **kwargs)

    def format_help(self) -> str:
        if self.usage is None:  # the help's usage line is the short one too, the flags follow described
            self.usage = short_usage(self)[len("usage: "):]
        return super().format_help()

    def error(self, message: str) -> NoReturn:
        for pattern, replacement in _ARGPARSE:
            if pattern.fullmatch(message):
                message = pattern.sub(replacement, message)
                break
        sys.stderr.write(f"{self.prog}: {message}\n{short_usage(self)} (flags: {self.prog} --help)\n")
        raise SystemExit(2)


def describe_negations(parser: argparse.ArgumentParser) -> None:
    """Give each undescribed ``--no-X`` (or ``--X`` beside a ``--no-X``) the one-line help "undo the
    other": rg's -h describes every flag, and a negation only restores the default."""
    by_name = {s: a for a in parser._actions for s in a.option_strings}  # noqa: SLF001
    for action in parser._actions:  # noqa: SLF001
        if action.help:
            continue
        for name in action.option_strings:
            other = "--" + name[5:] if name.startswith("--no-") else "--no-" + name[2:]
            partner = by_name.get(other)
            if partner is not None and partner is not action and partner.dest == action.dest:
                action.help = f"undo {flag_name(partner)}"
                break
