"""ripgrep's command line for ``sleuth grep``: the flags that shape output and the walk from the CLI
(issue 19), and rg's way of reading a command line.

rg reads its arguments in one pass: an option that takes a value takes the next word whatever it
looks like (``-e -test``), options and paths mix freely (``test --sort path mylink``), short flags
cluster (``-nC1``, ``-ie foo``) and a later flag overrides an earlier one (``-s -i``). argparse
refuses a dash-led value and stops taking positionals after an option, so :func:`split_argv`
reads the words first, the way rg does, and hands argparse only unambiguous ones.

The flags that change what a match is (``-o``, ``-r``, ``-a``, ``--crlf``, ``-P``, ``-z``, ...) are
``sleuth.grep`` arguments and live with the engine; the ones here only choose what is searched from
the command line or how the answer is printed.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

__all__ = ["add_rg_flags", "split_argv", "SplitArgv", "rg_ignore_args"]


def add_rg_flags(p: argparse.ArgumentParser) -> None:
    """rg 15.2's flags that ``sleuth grep`` takes on top of the original set (see README, *Using it*)."""
    g = p.add_argument_group("ripgrep output and selection")
    g.add_argument("--files", action="store_true", help="print the files that would be searched, not matches")
    g.add_argument("-q", "--quiet", action="store_true", help="print nothing; exit 0 on the first match")
    g.add_argument("-f", "--file", action="append", default=[], metavar="PATTERNFILE",
                   help="patterns from a file, one a line (- for stdin)")
    g.add_argument("-x", "--line-regexp", action="store_true", help="the whole line must match")
    g.add_argument("-I", "--no-filename", dest="with_filename", action="store_false", default=None,
                   help="never print paths")
    g.add_argument("-H", "--with-filename", dest="with_filename", action="store_true",
                   help="print the path with each line (the default for folders)")
    g.add_argument("--column", dest="column", action="store_true", default=None, help="print columns (implies -n)")
    g.add_argument("--no-column", dest="column", action="store_false")
    g.add_argument("--vimgrep", action="store_true", help="path:line:column:text, one line per match")
    g.add_argument("--trim", dest="trim", action="store_true", default=False, help="strip leading whitespace")
    g.add_argument("--no-trim", dest="trim", action="store_false")
    g.add_argument("-p", "--pretty", action="store_true", help="--color always --heading --line-number")
    g.add_argument("-0", "--null", action="store_true", help="a NUL byte after each path")
    g.add_argument("-b", "--byte-offset", dest="byte_offset", action="store_true", default=False,
                   help="print each line's byte offset in its file (with -o, each match's)")
    g.add_argument("--no-byte-offset", dest="byte_offset", action="store_false", help="no byte offsets (the default)")
    g.add_argument("--stats", action="store_true", help="print search statistics at the end")
    g.add_argument("--max-columns-preview", dest="max_columns_preview", action="store_true", default=False,
                   help="with -M, print the start of a long line instead of omitting it")
    g.add_argument("--no-max-columns-preview", dest="max_columns_preview", action="store_false")
    g.add_argument("--context-separator", metavar="SEP", default="--",
                   help="the line between context blocks (default --)")
    g.add_argument("--no-context-separator", dest="context_separator", action="store_const", const=None,
                   help="no line between context blocks")
    g.add_argument("--field-match-separator", metavar="SEP", default=":",
                   help="separator of a match line's path, number and text (default :)")
    g.add_argument("--field-context-separator", metavar="SEP", default="-",
                   help="separator of a context line's path, number and text (default -)")
    g.add_argument("--files-without-match", action="store_true", help="print the files with no match")
    g.add_argument("--passthru", "--passthrough", dest="passthru", action="store_true", default=False,
                   help="print every line of a matching file")
    g.add_argument("--count-matches", action="store_true", help="count matches, not matching lines")
    g.add_argument("--include-zero", dest="include_zero", action="store_true", default=False,
                   help="with -c, also print files with no match")
    g.add_argument("--no-include-zero", dest="include_zero", action="store_false")
    g.add_argument("--colors", action="append", default=[], metavar="SPEC", help="e.g. match:fg:blue")
    g.add_argument("--path-separator", metavar="SEP", help="separator of printed paths (default /)")
    g.add_argument("--no-messages", action="store_true", help="do not report errors on stderr")
    g.add_argument("-u", "--unrestricted", action="count", default=0,
                   help="-u: --no-ignore; -uu: also --hidden; -uuu: also binary files")
    ignores = {"dot": ".ignore and .rgignore files", "vcs": ".gitignore files, .git/info/exclude and the global "
               "excludes", "exclude": ".git/info/exclude", "global": "the global git excludes file",
               "parent": "the ignore files of the folders above", "files": "--ignore-file files"}
    for switch, what in ignores.items():
        g.add_argument(f"--no-ignore-{switch}", dest=f"no_ignore_{switch}", action="store_true", default=False,
                       help=f"do not respect {what}")
        g.add_argument(f"--ignore-{switch}", dest=f"no_ignore_{switch}", action="store_false", help=argparse.SUPPRESS)
    g.add_argument("--ignore-file", action="append", default=[], metavar="PATH",
                   help="extra gitignore-format rules (inside the sandbox)")
    g.add_argument("--ignore-file-case-insensitive", dest="ignore_file_case_insensitive", action="store_true",
                   default=False, help="read the ignore files' globs case-insensitively")
    g.add_argument("--no-ignore-file-case-insensitive", dest="ignore_file_case_insensitive", action="store_false",
                   help="read the ignore files' globs case-sensitively (the default)")
    g.add_argument("-T", "--type-not", action="append", default=[], metavar="TYPE", help="skip files of TYPE")
    g.add_argument("--type-add", action="append", default=[], metavar="NAME:GLOB",
                   help="define a file type (NAME:GLOB, or NAME:include:TYPE,...)")
    g.add_argument("--type-clear", action="append", default=[], metavar="NAME",
                   help="forget a file type's globs")
    g.add_argument("--type-list", action="store_true", help="list the file types and their globs")
    g.add_argument("--multiline-dotall", dest="multiline_dotall", action="store_true", default=False,
                   help="with -U, '.' matches line ends too")
    g.add_argument("--no-multiline-dotall", dest="multiline_dotall", action="store_false")
    g.add_argument("--iglob", action="append", default=[], metavar="GLOB", help="-g, case-insensitively")
    g.add_argument("--glob-case-insensitive", dest="glob_case_insensitive", action="store_true", default=False,
                   help="match every -g glob case-insensitively")
    g.add_argument("--no-glob-case-insensitive", dest="glob_case_insensitive", action="store_false")
    g.add_argument("--sortr", choices=("path", "modified", "accessed", "created", "none"), metavar="SORTBY",
                   help="sort descending: path, modified, accessed, created, none")
    # Accepted for rg's command lines; they tune how rg runs, not what it finds.
    g = p.add_argument_group("accepted for rg's command lines (they tune how rg runs; no effect here)")
    for flag in ("--line-buffered", "--no-line-buffered", "--block-buffered",
                 "--no-block-buffered", "--no-config", "--one-file-system", "--no-one-file-system", "--debug",
                 "--trace", "--no-unicode", "--unicode", "--no-ignore-messages", "--ignore-messages"):
        g.add_argument(flag, action="store_true", dest="_ignored_" + flag.strip("-").replace("-", "_"),
                       help="no effect" if flag.startswith("--no-") else "no effect (rg's tuning)")
    for flag in ("--threads", "--dfa-size-limit", "--regex-size-limit"):
        names = ["-j", flag] if flag == "--threads" else [flag]
        g.add_argument(*names, dest="_ignored_" + flag.strip("-").replace("-", "_"), metavar="NUM",
                       help="no effect (rg's tuning)")
    g.add_argument("-X", "--index", dest="_ignored_index", action="count", default=0,
                   help="no effect: Sleuth always uses its index when one is warm (rg's coming --index)")
    g.add_argument("--hyperlink-format", dest="hyperlink_format", metavar="FORMAT", default=None,
                   help="checked as rg checks it (an alias such as vscode, or a {path} format); no links printed yet")


def rg_ignore_args(ns: argparse.Namespace) -> dict[str, object]:
    """The ignore switches' ``sleuth.grep``/``sleuth.files`` arguments (only those set: a running
    server of an older Sleuth then still answers the command lines that use none)."""
    args: dict[str, object] = {f"no_ignore_{s}": True for s in ("dot", "vcs", "exclude", "global", "parent", "files")
                               if getattr(ns, f"no_ignore_{s}")}
    if ns.ignore_file:
        args["ignore_files"] = list(ns.ignore_file)
    if ns.ignore_file_case_insensitive:
        args["ignore_case_insensitive"] = True
    return args


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
