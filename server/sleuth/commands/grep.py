"""``sleuth.grep`` (SPEC §4): lines matching a pattern, as match and context events.

Parse -> freeze into engine options -> run (index-narrowed when the index can, else a scan)
-> shape. The result's ``matches`` leave out what already went to the partial-result sink.
"""

from __future__ import annotations

import time
from typing import Any

from sleuth.commands.args import Arg, parse_args
from sleuth.commands.budget import fit_to_budget
from sleuth.commands.context import CommandContext
from sleuth.commands.ignore_args import IGNORE_SWITCHES, ignore_switches
from sleuth.engine.cancel import CancelToken
from sleuth.engine.errors import BadArgs
from sleuth.engine.grep import GrepOutcome, GrepRequest, prepare, run_grep
from sleuth.engine.types import MatchOptions, SearchOptions, WalkOptions

__all__ = ["GREP_ARGS", "run", "build_request"]

GREP_ARGS: dict[str, Arg] = {
    "pattern": Arg("str_or_list", "Regex (ripgrep syntax) or literal text to find; a list ORs several patterns.",
                   required=True, non_blank=True),
    "path": Arg("str", "File or folder to search, relative to the first workspace folder; default: all folders."),
    "root": Arg("str", "Name of the workspace folder that a relative path resolves against."),
    "fixed_strings": Arg("bool", "Treat the pattern as literal text, not a regex.", default=False),
    "word": Arg("bool", "Only match whole words.", default=False),
    "case": Arg("str", "smart: case-insensitive unless the pattern has an uppercase letter.",
                choices=("smart", "sensitive", "insensitive"), default_from="case"),
    "fuzzy": Arg("int", "Approximate matching: maximum edits per match (1-4).", minimum=1, maximum=4),
    "invert": Arg("bool", "Report lines that do NOT match.", default=False),
    "multiline": Arg("bool", "Let matches span lines (\\n and \\s may match newlines).", default=False),
    "include_globs": Arg("str_list", "Only search files matching these gitignore-style globs ('**' allowed).",
                         default=[]),
    "exclude_globs": Arg("str_list", "Skip files matching these gitignore-style globs.", default=[]),
    "file_types": Arg("str_list", "Only search these file types (ripgrep type names like 'py' or extensions like '.cs').",
                      default=[]),
    "hidden": Arg("bool", "Search hidden files and folders too.", default_from="hidden"),
    "follow": Arg("bool", "Follow symbolic links (only to targets inside the workspace).", default_from="follow"),
    "no_ignore": Arg("bool", "Ignore .gitignore/.ignore rules.", default=False),
    "no_require_git": Arg("bool", "Apply .gitignore files outside git repositories too.", default=False),
    **IGNORE_SWITCHES,
    "recursive": Arg("bool", "Descend into sub-folders.", default=True),
    "max_depth": Arg("int", "Maximum folder depth below the path (0 = the path itself).", minimum=0, cap="max_depth"),
    "context": Arg("int", "Lines of context before and after each match.", minimum=0, maximum=100),
    "before": Arg("int", "Lines of context before each match.", minimum=0, maximum=100),
    "after": Arg("int", "Lines of context after each match.", minimum=0, maximum=100),
    "passthru": Arg("bool", "Every line of a matching file: the others as context lines (rg --passthru).",
                    default=False),
    "max_results": Arg("int", "Stop after this many events (matches and context lines).", minimum=1,
                       cap="max_results", default_from="default_max_results"),
    "max_matches_per_file": Arg("int", "Stop searching a file after this many matching lines.", minimum=1,
                                cap="max_matches_per_file"),
    "max_files": Arg("int", "Search at most this many files.", minimum=1, cap="max_files"),
    "max_file_size_bytes": Arg("int", "Skip files larger than this.", minimum=1, cap="max_file_size_bytes",
                               default_from="max_file_size_bytes"),
    "timeout_ms": Arg("int", "Return what was found after this many milliseconds, with timed_out: true.",
                      minimum=1, cap="max_timeout_ms", default_from="timeout_ms"),
    "output": Arg("str", "content: events; files_with_matches: one item per file; count: matching lines per file.",
                  choices=("content", "files_with_matches", "count"), default="content"),
    "sort": Arg("str", "path (default) or modified (newest first).", choices=("path", "modified"), default="path"),
    "use_open_buffers": Arg("bool", "Search open editor buffers as their unsaved text.", default=True),
    "max_columns": Arg("int", "Cut lines longer than this many bytes around the match.", minimum=0,
                       default_from="max_columns"),
    "max_output_bytes": Arg("int", "Shrink matches so the JSON result stays within this many bytes.", minimum=256),
}


_EVERY_LINE = 1 << 62  # --passthru: context that reaches every line of the file


def build_request(args: dict[str, Any], ctx: CommandContext) -> GrepRequest:
    """Freeze validated arguments into engine options (the one place flags become behaviour)."""
    settings = ctx.settings
    patterns = tuple(args["pattern"]) if isinstance(args["pattern"], list) else (args["pattern"],)
    if len(patterns) > settings.max_patterns:
        raise BadArgs(f"sleuth.grep: {len(patterns)} patterns were given; the limit is {settings.max_patterns} "
                      "(setting max_patterns).", hint="Search for fewer patterns at a time, or raise max_patterns.",
                      argument="pattern")
    for p in patterns:
        if len(p) > settings.max_pattern_length:
            raise BadArgs(f"sleuth.grep: the pattern is {len(p)} characters long; the limit is "
                          f"{settings.max_pattern_length}.", hint="Search for a shorter, more specific pattern.",
                          argument="pattern")
    if args["fuzzy"] is not None and (args["invert"] or args["multiline"]):
        raise BadArgs("sleuth.grep: 'fuzzy' cannot be combined with 'invert' or 'multiline'.",
                      hint="Drop one of them.", argument="fuzzy")
    context = args["context"] or 0
    before = args["before"] if args["before"] is not None else context
    after = args["after"] if args["after"] is not None else context
    if args["passthru"]:
        before = after = _EVERY_LINE
    targets = ctx.workspace.resolve(args["path"], args["root"])
    walk = WalkOptions(
        hidden=args["hidden"], follow=args["follow"],
        no_ignore=args["no_ignore"] or not settings.respect_gitignore, no_require_git=args["no_require_git"],
        include_globs=tuple(args["include_globs"]), exclude_globs=tuple(args["exclude_globs"]),
        file_types=tuple(args["file_types"]), recursive=args["recursive"], max_depth=args["max_depth"],
        max_file_size_bytes=args["max_file_size_bytes"], max_files=args["max_files"],
        deny_globs=settings.deny_globs, **ignore_switches(args, ctx.workspace),
    )
    match = MatchOptions(patterns=patterns, fixed_strings=args["fixed_strings"], word=args["word"],
                         case=args["case"], fuzzy=args["fuzzy"], multiline=args["multiline"])
    search = SearchOptions(invert=args["invert"], before=before, after=after, max_results=args["max_results"],
                           max_matches_per_file=args["max_matches_per_file"],
                           max_columns=args["max_columns"] or None, output=args["output"], sort=args["sort"])
    return GrepRequest(tuple(targets), walk, match, search)


def _candidates(request: GrepRequest, ctx: CommandContext) -> Any:
    """File entries the index says may match, or None to scan (no index, not ready, no usable literal)."""
    index = ctx.services.index
    if index is None:
        return None
    return index.candidate_entries(ctx.workspace, request)


def shape(outcome: GrepOutcome, elapsed_ms: float, streamed: bool) -> dict[str, Any]:
    """The SPEC §4 result object."""
    return {
        "matches": outcome.items[outcome.streamed:] if streamed else outcome.items,
        "count": outcome.match_events,
        "truncated": outcome.truncated,
        "truncated_reason": outcome.truncated_reason,
        "timed_out": outcome.timed_out,
        "files_scanned": outcome.files_scanned,
        "files_matched": outcome.files_matched,
        "skipped": outcome.skipped.to_dict(),
        "errors": [e.to_dict() for e in outcome.errors],
        "elapsed_ms": round(elapsed_ms, 1),
    }


def run(raw: Any, ctx: CommandContext) -> dict[str, Any]:
    """Validate, search, shape."""
    started = time.perf_counter()
    args = parse_args("sleuth.grep", raw, GREP_ARGS, ctx.settings)
    request = build_request(args, ctx)
    token: CancelToken = ctx.token.with_deadline(args["timeout_ms"] or None)
    buffers = ctx.services.open_buffers if args["use_open_buffers"] else None
    # Compiled first, under the deadline: the index's candidates use the same literal query.
    outcome = prepare(request, token) or run_grep(ctx.workspace, request, token, ctx.progress, ctx.partial,
                                                  buffers, entries=_candidates(request, ctx))
    result = shape(outcome, (time.perf_counter() - started) * 1000, ctx.partial is not None)
    if args["max_output_bytes"]:
        result = fit_to_budget(result, "matches", args["max_output_bytes"])
    return result
