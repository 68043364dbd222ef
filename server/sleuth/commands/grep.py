"""``sleuth.grep`` (docs/SPEC.md §4): lines matching a pattern, as match and context events.

Parse -> freeze into engine options -> run (index-narrowed when the index can, else a scan)
-> shape. The engine gives typed events (:mod:`sleuth.engine.events`); here they become the result
object's items, streamed or returned (:func:`~sleuth.engine.events.to_items`, the one writer of that
form). The result's ``matches`` leave out what already went to the partial-result sink.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from sleuth.commands.args import Arg, parse_args
from sleuth.commands.budget import fit_to_budget
from sleuth.commands.context import CommandContext, EventStream, PartialSink
from sleuth.commands.ignore_args import IGNORE_SWITCHES, ignore_switches
from sleuth.engine.cancel import CancelToken
from sleuth.engine.collect import EventBatches
from sleuth.engine.errors import BadArgs
from sleuth.engine.events import Context, GrepEvent, to_items
from sleuth.engine.grep import STDIN_DISPLAY, GrepOutcome, GrepRequest, grep_buffer, prepare, run_grep
from sleuth.engine.index.candidates import CandidateList
from sleuth.engine.workspace import Target
from sleuth.engine.types import EVERY_LINE, BinaryMode, MatchOptions, Replacement, SearchOptions, WalkOptions

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["GREP_ARGS", "run", "run_buffer", "build_request", "native_only"]

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
    "output": Arg("str", "content: events; files_with_matches: one item per file; files_without_match: one item per "
                  "file with no match (rg --files-without-match: a binary file a folder's search stops at is "
                  "neither); count: matching lines per file.",
                  choices=("content", "files_with_matches", "files_without_match", "count"), default="content"),
    "sort": Arg("str", "path (default) or modified (newest first).", choices=("path", "modified"), default="path"),
    "use_open_buffers": Arg("bool", "Search open editor buffers as their unsaved text.", default=True),
    "max_columns": Arg("int", "Cut lines longer than this many bytes around the match.", minimum=0,
                       default_from="max_columns"),
    "max_output_bytes": Arg("int", "Shrink matches so the JSON result stays within this many bytes.", minimum=256),
    # ripgrep's search semantics (rg 14.1), each as its flag does
    "only_matching": Arg("bool", "One match event per match (rg -o): its text is the match, its column the match's; "
                         "count output counts matches.", default=False),
    "replace": Arg("str", "Show each match replaced by this text (rg -r; nothing is written): $1, ${name}, $$ as rg. "
                   "Every match event then has 'replacement': its line with each match replaced (with "
                   "only_matching: the match replaced), and 'match_replacements': each match replaced, in order."),
    "binary": Arg("str", "Files with a NUL byte, as rg: auto (a file named by path is searched whole, events from its "
                  "first NUL's 64 KiB block on carry binary_offset; in folders such a file stops at that block and "
                  "is skipped when the NUL is in its first 64 KiB), search (rg --binary: the former everywhere), "
                  "text (rg -a: no binary detection).", choices=("auto", "search", "text"), default="auto"),
    "search_zip": Arg("bool", "Search gzip, bzip2, xz and lzma files (by their names' endings) decompressed (rg -z).",
                      default=False),
    "engine": Arg("str", "Regex engine (rg --engine): default (ripgrep's syntax, with look-around and back-references "
                  "run by a backtracking engine, which is what auto does), auto (the same), pcre2 (rg -P: PCRE syntax "
                  "such as atomic groups, possessive repetition, \\K, \\Q..\\E).",
                  choices=("default", "auto", "pcre2"), default="default"),
    "crlf": Arg("bool", "Treat CRLF as a line end (rg --crlf): $ matches before \\r\\n and . never matches \\r.",
                default=False),
    "byte_offsets": Arg("bool", "Byte counts as rg --json gives them: each match and context event's 'offset' (its "
                        "line's first byte in the file), on a file's last event 'bytes_searched', and the "
                        "result's 'bytes_searched' (rg --stats).",
                        default=False),
    "stop_on_nonmatch": Arg("bool", "Stop reading a file at the first line that does not match after one that "
                            "did (rg --stop-on-nonmatch; for sorted files).", default=False),
    "memory_map": Arg("bool", "Binary files as rg finds them in a memory map (rg --mmap): past the first 64 KiB, a "
                      "NUL byte counts only on a line that is reported (a file whose reported lines hold none is "
                      "text).", default=False),
    "encoding": Arg("str", "Text encoding of the files (rg -E): auto (UTF-8; a UTF-16 BOM is transcoded), none (raw "
                    "bytes, no BOM sniffing), or a label such as utf-16le, utf-16be, latin1, windows-1252, "
                    "shift_jis (a UTF-16 BOM still wins).", default="auto"),
}


NATIVE_ONLY = ("only_matching", "replace", "binary", "search_zip", "engine", "crlf", "encoding", "byte_offsets")  # rg semantics only the native engine implements


def native_only(args: dict[str, Any]) -> str | None:
    """The first argument set away from its default that only the native engine implements (an
    external backend must refuse it rather than answer as if it had not been asked)."""
    return next((name for name in NATIVE_ONLY if args[name] != GREP_ARGS[name].default), None)


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
        before = after = EVERY_LINE
    targets = ctx.workspace.resolve(args["path"], args["root"])
    walk = WalkOptions(
        hidden=args["hidden"], follow=args["follow"],
        no_ignore=args["no_ignore"] or not settings.respect_gitignore, no_require_git=args["no_require_git"],
        include_globs=tuple(args["include_globs"]), exclude_globs=tuple(args["exclude_globs"]),
        file_types=tuple(args["file_types"]), recursive=args["recursive"], max_depth=args["max_depth"],
        max_file_size_bytes=args["max_file_size_bytes"], max_files=args["max_files"],
        deny_globs=settings.deny_globs, **ignore_switches(args, ctx.workspace, settings.deny_globs),
    )
    match = MatchOptions(patterns=patterns, fixed_strings=args["fixed_strings"], word=args["word"],
                         case=args["case"], fuzzy=args["fuzzy"], multiline=args["multiline"], crlf=args["crlf"],
                         engine="pcre2" if args["engine"] == "pcre2" else "default")
    replace = Replacement(args["replace"], match) if args["replace"] is not None else None
    search = SearchOptions(invert=args["invert"], before=before, after=after, max_results=args["max_results"],
                           max_matches_per_file=_lines_needed(args["output"], args["max_matches_per_file"]),
                           max_columns=args["max_columns"] or None, output=args["output"], sort=args["sort"],
                           only_matching=args["only_matching"], replace=replace,
                           binary=_binary_mode(args["binary"], targets), encoding=codec_for(args["encoding"]),
                           search_zip=args["search_zip"], byte_offsets=args["byte_offsets"],
                           memory_map=args["memory_map"], stop_on_nonmatch=args["stop_on_nonmatch"],
                           spans_lines=args["multiline"] and _spans_lines(match))
    return GrepRequest(tuple(targets), walk, match, search)


def _lines_needed(output: str, asked: int | None) -> int | None:
    """The matching lines a file is searched for: one when only whether it matches is asked (``-l``,
    ``-q``, ``--files-without-match``), so its search stops at its first match, as rg's does."""
    return 1 if output in ("files_with_matches", "files_without_match") else asked


def _spans_lines(match: MatchOptions) -> bool:
    from sleuth.engine.match.line_ends import spans_lines  # (only a -U search asks)

    return spans_lines(match)


# WHATWG's labels where Python's codec of the same name differs (rg takes the WHATWG Encoding
# Standard's labels: "latin1" and "ascii" mean windows-1252 there, "utf-16" means little-endian).
_WHATWG = {"latin1": "cp1252", "latin-1": "cp1252", "iso-8859-1": "cp1252", "iso8859-1": "cp1252", "l1": "cp1252",
           "ascii": "cp1252", "us-ascii": "cp1252", "utf-16": "utf-16-le", "unicode": "utf-16-le",
           "ucs-2": "utf-16-le", "utf8": "utf-8", "unicode-1-1-utf-8": "utf-8"}


def codec_for(label: str) -> str | None:
    """The engine's encoding for an ``encoding`` argument: None for auto, "none", or a Python text codec's
    name; :class:`BadArgs` for a label that names no text encoding (rg: "unknown encoding")."""
    key = label.strip().lower()
    if key == "auto":
        return None
    if key == "none":
        return "none"
    import codecs

    try:
        info = codecs.lookup(_WHATWG.get(key, key))
    except LookupError:
        info = None
    if info is None or not getattr(info, "_is_text_encoding", True):  # rot13, base64...: not a text encoding
        raise BadArgs(f"sleuth.grep: unknown encoding: {label}", argument="encoding",
                      hint="Use auto, none, or an encoding label such as utf-8, utf-16le, utf-16be, latin1, shift_jis.")
    name = info.name.replace("_", "-")
    return "utf-8" if name == "utf-8" else info.name


def _binary_mode(choice: str, targets: list[Target]) -> BinaryMode:
    """rg's rule: files named on the command line are searched whole ("convert"); files found in
    folders stop at their first NUL ("quit"), unless ``--binary``."""
    if choice == "text":
        return "text"
    if choice == "search" or (targets and not any(t.is_dir for t in targets)):
        return "convert"
    return "quit"


def _candidates(request: GrepRequest, ctx: CommandContext, token: CancelToken,
                buffers: Mapping[str, str] | None) -> CandidateList | None:
    """File entries the index says may match, or None to scan (no index, not ready, no usable literal);
    the index's evaluation keeps the search's deadline (``token``). The request's open ``buffers`` are
    candidates whatever the index holds: a guest door's (:mod:`sleuth.core.engine_guest`) are not the index's."""
    index = ctx.services.index
    if index is None or request.search.encoding is not None or request.search.search_zip \
            or request.match.engine == "pcre2" or request.search.output == "files_without_match" \
            or request.search.passthru:
        return None  # the index holds the bytes as auto reads them: another encoding's or a compressed file's
        # text is not what it indexed; and its literals are read in ripgrep's syntax, not PCRE's. Files
        # without a match are the ones it rules out, but whether each is binary (then listed by none) takes a read;
        # --passthru shows every file's lines, matched or not
    return index.candidate_entries(ctx.workspace, request, token, buffers)


def shape(outcome: GrepOutcome, output: str, elapsed_ms: float, streamed: bool,
          files_in_workspace: int | None = None, byte_offsets: bool = False) -> dict[str, Any]:
    """The docs/SPEC.md §4 result object; ``files_in_workspace`` (the index's file count, None before it is
    built) puts ``files_scanned`` in proportion: with the index, only its candidates are read.
    ``byte_offsets`` (rg's byte counts asked for): with ``bytes_searched``, the bytes the files searched
    held as rg's ``--stats`` counts them (with the index, those of the files it read)."""
    result = {
        "matches": to_items(_unsent(outcome, streamed), output),
        "count": outcome.match_events,
        "truncated": outcome.truncated,
        "truncated_reason": outcome.truncated_reason,
        "timed_out": outcome.timed_out,
        "files_scanned": outcome.files_scanned,
        "files_matched": outcome.files_matched,
        "files_in_workspace": files_in_workspace,
        "skipped": outcome.skipped.to_dict(),
        "errors": [e.to_dict() for e in outcome.errors],
        "elapsed_ms": round(elapsed_ms, 1),
    }
    if byte_offsets and outcome.bytes_searched is not None:
        result["bytes_searched"] = outcome.bytes_searched
    return result


def _unsent(outcome: GrepOutcome, streamed: bool) -> list[GrepEvent]:
    return outcome.items[outcome.streamed:] if streamed else outcome.items


def _wire(partial: PartialSink | None, output: str) -> EventBatches | None:
    """The engine's event batches for the partial-result sink: as they are for a door that takes
    events (:class:`EventStream`), else written as items."""
    if partial is None:
        return None
    if isinstance(partial, EventStream):
        return partial.events
    return lambda events: partial(to_items(events, output))


def run(raw: Any, ctx: CommandContext) -> dict[str, Any]:
    """Validate, search, shape."""
    started = time.perf_counter()
    args = parse_args("sleuth.grep", raw, GREP_ARGS, ctx.settings)
    request = build_request(args, ctx)
    token: CancelToken = ctx.token.with_deadline(args["timeout_ms"] or None)
    buffers = ctx.services.open_buffers if args["use_open_buffers"] else None
    output = args["output"]
    # Compiled first, under the deadline: the index's candidates use the same literal query.
    outcome = prepare(request, token) or run_grep(ctx.workspace, request, token, ctx.progress,
                                                  _wire(ctx.partial, output), buffers,
                                                  entries=_candidates(request, ctx, token, buffers))
    index = ctx.services.index
    result = shape(outcome, output, (time.perf_counter() - started) * 1000, ctx.partial is not None,
                   index.file_count() if index is not None else None, args["byte_offsets"])
    if args["max_output_bytes"]:
        fitted = fit_to_budget(result, "matches", args["max_output_bytes"])
        if fitted is not result:  # the match events among the items kept
            fitted["count"] = sum(1 for event in _unsent(outcome, ctx.partial is not None)[:len(fitted["matches"])]
                                  if not isinstance(event, Context))
        result = fitted
    return result


def run_buffer(raw: Any, data: bytes, ctx: CommandContext, display: str = STDIN_DISPLAY) -> dict[str, Any]:
    """``sleuth.grep`` over ``data`` (standard input) instead of files: the same arguments and result;
    ``path`` must not be given. Not a transport command: the CLI calls it for ``-`` or piped input,
    and for a file's preprocessed text (``--pre``; ``display``: the file's path)."""
    started = time.perf_counter()
    args = parse_args("sleuth.grep", raw, GREP_ARGS, ctx.settings)
    if args["path"] is not None:
        raise BadArgs("sleuth.grep: standard input is searched without a path.", argument="path")
    request = build_request(args, ctx)
    token: CancelToken = ctx.token.with_deadline(args["timeout_ms"] or None)
    outcome = prepare(request, token) or grep_buffer(request, data, token, display)
    return shape(outcome, args["output"], (time.perf_counter() - started) * 1000, False, None, args["byte_offsets"])
