"""``sleuth grep PATTERN [PATH...]``: ripgrep's flags in, ripgrep-like lines (or ``--json``) out."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from sleuth.cli.grep_semantics import (STDIN_PATH, add_semantic_flags, printable_events, search_stdin, semantic_args,
                                      stdin_is_readable)
from sleuth.cli.common import (EXIT_ERROR, EXIT_FOUND, EXIT_NONE, ProgressBar, add_server_flag, cli_workspace,
                               make_context, parse_size, print_json, run_search)

__all__ = ["add_parser", "render_human", "hoist_patterns"]

_COLOURS = {"path": "\x1b[35m", "line": "\x1b[32m", "match": "\x1b[1;31m", "reset": "\x1b[0m"}


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("grep", help="search file contents (ripgrep flags)",
                       description="Search for PATTERN in PATH (default: the current folder).")
    p.add_argument("pattern", nargs="?", help="regex (ripgrep syntax); omit when using -e")
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or folders inside the sandbox")
    p.add_argument("-e", "--regexp", action="append", default=[], metavar="PATTERN", help="a pattern (repeatable)")
    p.add_argument("-F", "--fixed-strings", action="store_true", help="literal text, not a regex")
    p.add_argument("-w", "--word-regexp", action="store_true", help="whole words only")
    case = p.add_mutually_exclusive_group()
    case.add_argument("-i", "--ignore-case", dest="case", action="store_const", const="insensitive")
    case.add_argument("-s", "--case-sensitive", dest="case", action="store_const", const="sensitive")
    case.add_argument("-S", "--smart-case", dest="case", action="store_const", const="smart")
    p.add_argument("-v", "--invert-match", action="store_true", help="lines that do not match")
    p.add_argument("-U", "--multiline", action="store_true", help="matches may span lines")
    p.add_argument("--fuzzy", type=int, metavar="N", help="approximate matching with up to N edits (1-4)")
    p.add_argument("-g", "--glob", action="append", default=[], metavar="GLOB",
                   help="include files matching GLOB; !GLOB excludes (repeatable)")
    p.add_argument("-t", "--type", action="append", default=[], metavar="TYPE", help="only files of TYPE")
    p.add_argument("-C", "--context", type=int, metavar="NUM")
    p.add_argument("-A", "--after-context", type=int, metavar="NUM")
    p.add_argument("-B", "--before-context", type=int, metavar="NUM")
    p.add_argument("-m", "--max-count", type=int, metavar="NUM", help="at most NUM matching lines per file")
    out = p.add_mutually_exclusive_group()
    out.add_argument("-l", "--files-with-matches", action="store_true")
    out.add_argument("-c", "--count", action="store_true")
    p.add_argument("--hidden", action="store_true", help="search hidden files and folders")
    p.add_argument("-L", "--follow", action="store_true", help="follow symbolic links inside the sandbox")
    p.add_argument("--no-ignore", action="store_true", help="do not respect .gitignore/.ignore")
    p.add_argument("--no-require-git", action="store_true", help="respect .gitignore outside git repositories")
    p.add_argument("--max-depth", type=int, metavar="NUM")
    p.add_argument("--max-filesize", type=parse_size, metavar="NUM+SUFFIX?")
    p.add_argument("--max-columns", type=int, metavar="NUM", help="cut lines longer than NUM bytes")
    p.add_argument("--sort", choices=("path", "modified"), default="path")
    p.add_argument("--max-results", type=int, metavar="N", help="stop after N events (matches and context)")
    p.add_argument("--timeout-ms", type=int, metavar="MS", help="return partial results after MS milliseconds")
    p.add_argument("-n", "--line-number", dest="line_number", action="store_true", default=None)
    p.add_argument("-N", "--no-line-number", dest="line_number", action="store_false")
    p.add_argument("--heading", dest="heading", action="store_true", default=None)
    p.add_argument("--no-heading", dest="heading", action="store_false")
    p.add_argument("--color", "--colour", choices=("never", "auto", "always"), default="auto")
    p.add_argument("--json", action="store_true", help="print the sleuth.grep result object")
    p.add_argument("--root", action="append", metavar="DIR", help="sandbox folder (repeatable; default: .)")
    add_server_flag(p)
    add_semantic_flags(p)
    p.set_defaults(func=_run)


def hoist_patterns(argv: list[str]) -> tuple[list[str], list[str]]:
    """``argv`` without its ``-e``/``--regexp`` patterns, and those patterns in order.

    argparse's option loop is quadratic in the number of options: 10,000 ``-e`` patterns took it
    1.6 s before Sleuth saw one. Taking them out first is what argparse would do with them (it
    refuses an option-like value after ``-e`` anyway); a ``--`` ends the options, as there."""
    rest: list[str] = []
    patterns: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            rest.extend(argv[i:])
            break
        if arg in ("-e", "--regexp") and i + 1 < len(argv):
            patterns.append(argv[i + 1])
            i += 2
            continue
        if arg.startswith("--regexp="):
            patterns.append(arg[len("--regexp="):])
        elif arg.startswith("-e") and len(arg) > 2:
            patterns.append(arg[2:])
        else:
            rest.append(arg)
        i += 1
    return rest, patterns


def to_args(ns: argparse.Namespace, path: str | None) -> dict[str, Any]:
    """The ``sleuth.grep`` arguments a command line means."""
    patterns = list(ns.regexp) or ([ns.pattern] if ns.pattern is not None else [])
    args: dict[str, Any] = {
        "pattern": patterns if len(patterns) > 1 else (patterns[0] if patterns else None),
        "path": path, "fixed_strings": ns.fixed_strings, "word": ns.word_regexp, "case": ns.case or "sensitive",
        "fuzzy": ns.fuzzy, "invert": ns.invert_match, "multiline": ns.multiline,
        "include_globs": [g for g in ns.glob if not g.startswith("!")],
        "exclude_globs": [g[1:] for g in ns.glob if g.startswith("!")],
        "file_types": ns.type, "hidden": ns.hidden, "follow": ns.follow, "no_ignore": ns.no_ignore,
        "no_require_git": ns.no_require_git, "max_depth": ns.max_depth, "context": ns.context,
        "before": ns.before_context, "after": ns.after_context, "max_matches_per_file": ns.max_count,
        "max_file_size_bytes": ns.max_filesize, "max_results": ns.max_results, "timeout_ms": ns.timeout_ms,
        "output": "files_with_matches" if ns.files_with_matches else "count" if ns.count else "content",
        "sort": ns.sort, "max_columns": ns.max_columns, "use_open_buffers": False,
    }
    args.update(semantic_args(ns))
    return {k: v for k, v in args.items() if v is not None}


def render_human(result: dict[str, Any], *, with_path: bool, line_number: bool, heading: bool,
                 colour: bool, only_matching: bool = False, context: bool = False) -> None:
    """Print events the way ``rg`` does: headings on a terminal, ``path:line:text`` in a pipe, and with
    ``context`` lines asked for, ``--`` between groups."""
    c = _COLOURS if colour else {k: "" for k in _COLOURS}
    write = sys.stdout.write
    current: str | None = None
    last_line = 0
    for event in printable_events(result["matches"]):
        kind = event["type"]
        path = event["path"]
        if kind == "file":
            write(f"{c['path']}{path}{c['reset']}\n")
            continue
        if kind == "count":
            write((f"{c['path']}{path}{c['reset']}:" if with_path else "") + f"{event['count']}\n")
            continue
        if path != current:
            if heading and current is not None:
                write("\n")
            elif current is not None and context:
                write("--\n")
            if heading and with_path and kind != "notice":  # rg names the file on the notice line itself
                write(f"{c['path']}{path}{c['reset']}\n")
            current, last_line = path, 0
        elif kind == "notice":
            pass
        elif last_line and event["line"] > last_line + 1 and context:
            write("--\n")
        if kind == "notice":  # rg's binary-file lines
            write((f"{c['path']}{path}{c['reset']}: " if with_path else "") + event["text"] + "\n")
            continue
        last_line = event["line"]
        sep = ":" if kind == "match" else "-"
        prefix = ""
        if with_path and not heading:
            prefix += f"{c['path']}{path}{c['reset']}{sep}"
        if line_number:
            prefix += f"{c['line']}{event['line']}{c['reset']}{sep}"
        text = event["text"]
        if colour and kind == "match" and only_matching and "replacement" not in event:
            text = c["match"] + text + c["reset"]
        elif colour and kind == "match" and event.get("match_text") and "replacement" not in event:
            text = _highlight(event, c)
        write(prefix + text + "\n")


def _highlight(event: dict[str, Any], c: dict[str, str]) -> str:
    text = event["text"]
    spans = event.get("submatches") or [event]
    raw = text.encode("utf-8")
    if text.startswith("…"):  # cut lines: columns no longer index the shown text
        return text
    out, pos = [], 0
    for s in spans:
        a, b = s["column"] - 1, s["end_column"] - 1
        if a < pos or b > len(raw):
            continue
        out.append(raw[pos:a].decode("utf-8", "replace"))
        out.append(c["match"] + raw[a:b].decode("utf-8", "replace") + c["reset"])
        pos = b
    out.append(raw[pos:].decode("utf-8", "replace"))
    return "".join(out)


def _merge(results: list[dict[str, Any]]) -> dict[str, Any]:
    if len(results) == 1:
        return results[0]
    merged = dict(results[0])
    merged["matches"] = [m for r in results for m in r["matches"]]
    for key in ("count", "files_scanned", "files_matched", "elapsed_ms"):
        merged[key] = sum(r[key] for r in results)
    for key in ("truncated", "timed_out"):
        merged[key] = any(r[key] for r in results)
    # The first path's reason only if it was cut; a later path's when only that one was.
    merged["truncated_reason"] = next((r["truncated_reason"] for r in results if r["truncated_reason"]), None)
    merged["errors"] = [e for r in results for e in r["errors"]]
    merged["skipped"] = {k: sum(r["skipped"][k] for r in results) for k in results[0]["skipped"]}
    return merged


def _run(ns: argparse.Namespace) -> int:
    if ns.pattern is not None and ns.regexp:
        ns.paths.insert(0, ns.pattern)  # with -e, the first positional is a path (as in rg)
        ns.pattern = None
    if ns.pattern is None and not ns.regexp:
        sys.stderr.write("sleuth grep: no pattern given\n  hint: sleuth grep PATTERN [PATH...] (or -e PATTERN)\n")
        return EXIT_ERROR
    tty = sys.stdout.isatty()
    workspace = cli_workspace(ns.root)
    made: list[Any] = []  # the cold path's context, made once when a search runs here

    def cold() -> Any:
        if not made:
            made.append(make_context(ns.root, ProgressBar()))
        return made[0]

    results: list[dict[str, Any]] = []

    def keep(result: dict[str, Any]) -> int:
        results.append(result)
        return EXIT_FOUND

    paths = ns.paths or [STDIN_PATH if stdin_is_readable() else None]  # rg searches piped input
    for path in paths:
        if path == STDIN_PATH:
            code = search_stdin(to_args(ns, None), cold, ns.json, keep)
        else:
            code = run_search("sleuth.grep", to_args(ns, path), workspace, cold, ns.json, keep,
                              no_server=ns.no_server)
        if code != EXIT_FOUND:
            return code
    result = _merge(results)
    if ns.json:
        print_json(result)
    else:
        single_file = len(paths) == 1 and (paths[0] == STDIN_PATH or not workspace.resolve(paths[0])[0].is_dir)
        render_human(result, with_path=not single_file,
                     line_number=ns.line_number if ns.line_number is not None else tty,
                     heading=ns.heading if ns.heading is not None else tty,
                     colour=ns.color == "always" or (ns.color == "auto" and tty), only_matching=ns.only_matching,
                     context=bool(ns.context or ns.before_context or ns.after_context))
        for error in result["errors"]:
            sys.stderr.write(f"sleuth: {error['path']}: {error['error']}\n")
    if result["errors"]:
        return EXIT_ERROR
    return EXIT_FOUND if result["count"] or result["files_matched"] else EXIT_NONE
