"""The CLI's words for a person at a terminal: the commands' messages with their argument names
turned into the flags that set them (the usage errors, argparse's, are :mod:`sleuth.cli.parsers`').

The commands speak in argument names (``fixed_strings``, ``{"patterns": ["**/*.py"]}``) because
their callers, assistants and editors, send those; a person typed ``-F`` and a GLOB. So the CLI door
rewords what it prints (never ``--json``'s error object, which scripts read as the other doors do)
through one table per subcommand: argument name -> flag, derived from the subcommand's parser (a
flag's ``dest`` is the argument it sets, unless the subcommand's ``ARGUMENT_DESTS`` says which dest
sets an argument of another name).

argparse is not imported here: a cold ``sleuth grep`` that reads its flags without it
(:func:`sleuth.cli.grep_flags.read_flags`) says which subcommand speaks and builds the parser only
when a message is reworded.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sleuth.engine.errors import BadArgs, NotFound, SandboxViolation, SleuthError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import Any
    import re
    import argparse

__all__ = ["speak_for", "reword", "flag_table", "flag_name"]


def flag_name(action: argparse.Action) -> str:
    """The name a message uses for a flag: its short form when it has one, else its first long form;
    a positional by its metavar (``PATTERN``, ``GLOB``)."""
    if not action.option_strings:
        return str(action.metavar or action.dest.upper())
    short = [s for s in action.option_strings if not s.startswith("--")]
    return (short or action.option_strings)[0]


def flag_table(parser: argparse.ArgumentParser, argument_dests: Mapping[str, str]) -> dict[str, str]:
    """Argument name -> the flag that sets it (see the module docstring); the first flag of a dest
    wins (``-F`` over ``--no-fixed-strings``)."""
    import argparse  # (loaded already: the parser is made)

    by_dest: dict[str, argparse.Action] = {}
    for action in parser._actions:  # noqa: SLF001
        if action.dest not in by_dest and action.help is not argparse.SUPPRESS and action.dest != "help":
            by_dest[action.dest] = action
    table = {dest: flag_name(action) for dest, action in by_dest.items()}
    for argument, dest in argument_dests.items():
        if dest in by_dest:
            table[argument] = flag_name(by_dest[dest])
    return table


class _Vocabulary:
    """The subcommand this process speaks for; its parser, and the table made from it, are made only
    when a message is reworded (a cold ``sleuth grep`` that reads its flags without argparse never
    builds the parser unless it has something to say)."""

    command = ""
    make_parser: Callable[[], argparse.ArgumentParser] | None = None
    argument_dests: Mapping[str, str] = {}
    table: dict[str, str] = {}
    positional: set[str] = set()

    def learn(self) -> None:
        if self.make_parser is not None and not self.table:
            parser = self.make_parser()
            self.table = flag_table(parser, self.argument_dests)
            self.positional = {flag_name(a) for a in parser._actions if not a.option_strings}  # noqa: SLF001


_SPOKEN = _Vocabulary()


def speak_for(command: str, make_parser: Callable[[], argparse.ArgumentParser],
              argument_dests: Mapping[str, str]) -> None:
    """Reword this process's messages for the subcommand ``command`` (``sleuth grep``) whose parser
    ``make_parser`` gives (set by :func:`sleuth.cli.main`)."""
    _SPOKEN.command, _SPOKEN.make_parser, _SPOKEN.argument_dests, _SPOKEN.table = (
        command, make_parser, argument_dests, {})


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
    import re  # here: a call that reports no error needs no ``re`` (~3 ms with enum: issue 30)

    message = re.sub(r"^sleuth\.[a-z.]+: ", "", error.message)
    hint = error.hint
    if hint in _TERMINAL_HINTS:
        argument = error.data.get("argument") or ("pattern" if "position" in error.data else None)
        flag = _SPOKEN.table.get(argument or "")
        hint = f"Fix {flag} and run again." if flag else _TERMINAL_HINTS[hint].format(command=_SPOKEN.command)
    return _flags(message), _flags(hint)


def _flags(text: str) -> str:
    import re

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
