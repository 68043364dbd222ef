"""The CLI's words for a person at a terminal: usage errors as rg gives them, and the commands'
messages with their argument names turned into the flags that set them.

The commands speak in argument names (``fixed_strings``, ``{"patterns": ["**/*.py"]}``) because
their callers, assistants and editors, send those; a person typed ``-F`` and a GLOB. So the CLI door
rewords what it prints (never ``--json``'s error object, which scripts read as the other doors do)
through one table per subcommand: argument name -> flag, derived from the subcommand's parser (a
flag's ``dest`` is the argument it sets, unless the subcommand's ``ARGUMENT_DESTS`` says which dest
sets an argument of another name). A usage error prints rg's one line (``rg: error parsing flag -C:
...``) and a one-line usage, not argparse's usage block.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Any, Mapping, NoReturn

from sleuth.engine.errors import BadArgs, NotFound, SandboxViolation, SleuthError

__all__ = ["CliParser", "HelpFormatter", "speak_for", "reword", "flag_table", "short_usage", "describe_negations"]


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
                action.help = f"undo {_flag(partner)}"
                break


def _flag(action: argparse.Action) -> str:
    """The name a message uses for a flag: its short form when it has one, else its first long form;
    a positional by its metavar (``PATTERN``, ``GLOB``)."""
    if not action.option_strings:
        return str(action.metavar or action.dest.upper())
    short = [s for s in action.option_strings if not s.startswith("--")]
    return (short or action.option_strings)[0]


def flag_table(parser: argparse.ArgumentParser, argument_dests: Mapping[str, str]) -> dict[str, str]:
    """Argument name -> the flag that sets it (see the module docstring); the first flag of a dest
    wins (``-F`` over ``--no-fixed-strings``)."""
    by_dest: dict[str, argparse.Action] = {}
    for action in parser._actions:  # noqa: SLF001
        if action.dest not in by_dest and action.help is not argparse.SUPPRESS and action.dest != "help":
            by_dest[action.dest] = action
    table = {dest: _flag(action) for dest, action in by_dest.items()}
    for argument, dest in argument_dests.items():
        if dest in by_dest:
            table[argument] = _flag(by_dest[dest])
    return table


class _Vocabulary:
    """The subcommand this process speaks for; its table is made only when a message is reworded."""

    parser: argparse.ArgumentParser | None = None
    argument_dests: Mapping[str, str] = {}
    table: dict[str, str] = {}
    positional: set[str] = set()

    @property
    def command(self) -> str:
        return self.parser.prog if self.parser is not None else ""

    def learn(self) -> None:
        if self.parser is not None and not self.table:
            self.table = flag_table(self.parser, self.argument_dests)
            self.positional = {_flag(a) for a in self.parser._actions if not a.option_strings}  # noqa: SLF001


_SPOKEN = _Vocabulary()


def speak_for(parser: argparse.ArgumentParser, argument_dests: Mapping[str, str]) -> None:
    """Reword this process's messages for ``parser``'s subcommand (set by :func:`sleuth.cli.main`)."""
    _SPOKEN.parser, _SPOKEN.argument_dests, _SPOKEN.table = parser, argument_dests, {}


_TERMINAL_HINTS = {  # the default hints that describe another door's world
    BadArgs.default_hint: "Fix the command line and run again ({command} --help lists the flags).",
    SandboxViolation.default_hint: "The sandbox is the current folder (or the --root folders): pass a path inside "
                                   "it, or widen it with --root DIR.",
    NotFound.default_hint: "Check the path (a relative path is read from the current folder).",
}


def reword(error: SleuthError) -> tuple[str, str]:
    """``error``'s message and hint for a terminal: argument names become flags, a JSON example a
    command line, ``sleuth.index.build`` ``sleuth index build``. Unchanged when no subcommand spoke."""
    if not _SPOKEN.command:
        return error.message, error.hint
    _SPOKEN.learn()
    message = re.sub(r"^sleuth\.[a-z.]+: ", "", error.message)
    hint = error.hint
    if hint in _TERMINAL_HINTS:
        argument = error.data.get("argument") or ("pattern" if "position" in error.data else None)
        flag = _SPOKEN.table.get(argument or "")
        hint = f"Fix {flag} and run again." if flag else _TERMINAL_HINTS[hint].format(command=_SPOKEN.command)
    return _flags(message), _flags(hint)


def _flags(text: str) -> str:
    table = _SPOKEN.table
    text = re.sub(r"\{[^{}]*\}", _command_line, text)
    names = "|".join(sorted((re.escape(n) for n in table), key=len, reverse=True))
    if not names:
        return text
    text = re.sub(rf"\b(?:set|pass) '?({names})'?(?= to\b| for\b)", lambda m: f"use {table[m.group(1)]}", text)
    text = re.sub(rf"'({names})'", lambda m: table[m.group(1)], text)
    text = re.sub(rf"(?<![\w.-])({names})(?![\w-])", lambda m: table[m.group(1)] if "_" in m.group(1) else m.group(1),
                  text)
    return re.sub(r"\bsleuth\.([a-z]+)(?:\.([a-z]+))?\b", lambda m: " ".join(["sleuth", *filter(None, m.groups())]),
                  text)


def _command_line(found: re.Match[str]) -> str:
    """A JSON arguments example (``{"query": "usrctl"}``) as the command line that sends it (json and
    shlex imported here: only a message that has such an example needs them)."""
    import json
    import shlex

    try:
        value: Any = json.loads(found.group(0))
    except ValueError:
        return found.group(0)
    if not isinstance(value, dict) or not all(k in _SPOKEN.table for k in value):
        return found.group(0)
    words = [_SPOKEN.command]
    for key, item in value.items():
        flag = _SPOKEN.table[key]
        for one in item if isinstance(item, list) else [item]:
            if isinstance(one, bool):
                words.extend([flag] if one else [])
            else:
                words.extend(([] if flag in _SPOKEN.positional else [flag]) + [shlex.quote(str(one))])
    return " ".join(words)
