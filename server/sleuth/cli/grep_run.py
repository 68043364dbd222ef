"""What ``sleuth grep`` does with an rg command line (its patterns and file types read by
:mod:`sleuth.cli.grep_inputs`): the modes (``--files``, ``-l``, ``--files-without-match``, ``-c``, ``--count-matches``, ``-q``,
``--json``), one ``sleuth.grep`` per path argument (a path that fails is reported and the others
are still searched, as rg does), and the printing.

Searching goes through :func:`sleuth.cli.common.run_search`, so a running server may answer. Each
mode prints through one sink of typed events (:mod:`sleuth.cli.grep_sinks`): a search run here
streams its items to it as files are searched (the engine's partial batches, in final order), a
server's answer is replayed through the same sink, so both print the same bytes. A sink that wants
no more (``-q`` found a match; standard output's reader went away, ``| head -1``) cancels the search,
pool and all; a write error is then reported as rg does (a broken pipe: quietly, status 0).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import SimpleNamespace

from sleuth.cli.common import (EXIT_ERROR, EXIT_FOUND, EXIT_INTERRUPTED, EXIT_NONE, ProgressBar, cli_path, cli_settings,
                               cli_workspace, make_context, print_json, run_search, workspace_settings)
from sleuth.cli.grep_inputs import UsageError, caseless, patterns_of, print_type_list, read_types
from sleuth.cli.grep_print import Colours, PrintOptions, print_paths
from sleuth.cli.grep_stats import Counted, print_stats
from sleuth.cli.grep_stdin import STDIN_PATH, is_stream, read_input, search_input, stdin_is_readable
from sleuth.cli.grep_sinks import Counts, Paths, Quiet, Reversed, Standard, Tally, Tee, Without
from sleuth.cli.grep_flags import files_args
from sleuth.engine.errors import SleuthError
from sleuth.engine.events import Decoder, GrepEvent, Sink, Summary

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:  # (a namespace argparse made, or sleuth.cli.grep_flags.read_flags: the same attributes)
    from typing import Any
    import argparse

__all__ = ["run_grep_cli", "merge_results"]


def merge_results(results: list[dict[str, Any]]) -> dict[str, Any]:
    """One result for several path arguments, in the order they were given."""
    if len(results) == 1:
        return results[0]
    merged = dict(results[0])
    merged["matches"] = [m for r in results for m in r["matches"]]
    for key in ("count", "files_scanned", "files_matched", "elapsed_ms"):
        merged[key] = sum(r[key] for r in results)
    if all("bytes_searched" in r for r in results):
        merged["bytes_searched"] = sum(r["bytes_searched"] for r in results)
    for key in ("truncated", "timed_out"):
        merged[key] = any(r[key] for r in results)
    # The first path's reason only if it was cut; a later path's when only that one was.
    merged["truncated_reason"] = next((r["truncated_reason"] for r in results if r["truncated_reason"]), None)
    merged["errors"] = [e for r in results for e in r["errors"]]
    merged["skipped"] = {k: sum(r["skipped"][k] for r in results) for k in results[0]["skipped"]}
    return merged


def _display(workspace: Any, where: str | None, typed: str, separator: str | None) -> Callable[[str], str]:
    """Result paths shown as rg shows them: under the path argument as it was typed (``./dir/x``,
    ``link/x`` for a linked folder, ``/abs/x``, ``../x`` from a sub-folder), with ``--path-separator``;
    ``where`` is the argument as the commands take it (:func:`sleuth.cli.common.cli_path`)."""
    prefixes: list[tuple[str, str]] = []
    if where is not None:
        try:
            prefixes = [(workspace.display(t.path, t.root), typed) for t in workspace.resolve(where)]
        except SleuthError:
            pass

    def show(path: str) -> str:
        out = path
        for shown, typed in prefixes:
            if path == shown:
                out = typed
                break
            if shown == "" or path.startswith(shown + "/"):
                rest = path[len(shown) + 1:] if shown else path
                out = (typed if typed.endswith("/") or not typed else typed + "/") + rest  # "": no path typed
                break
        if separator is not None and separator != "/":
            out = out.replace("/", separator)
        return out

    return show


def _sort(ns: argparse.Namespace) -> None:
    """rg's ``--sort``/``--sortr``: ascending by path or time (the engine sorts by path, or newest first)."""
    key, descending = (ns.sortr, True) if ns.sortr else (ns.sort or "path", False)
    if key == "none":
        key = "path"
    ns.engine_sort = "path" if key == "path" else "modified"
    # the engine's modified is newest first: rg's ascending order is its reverse, as is --sortr path
    ns.reverse_groups = (key == "path") == descending


def run_grep_cli(ns: argparse.Namespace, to_args: Callable[[argparse.Namespace, str | None], dict[str, Any]]) -> int:
    """Run ``sleuth grep``; ``to_args`` turns the prepared namespace and one path into ``sleuth.grep`` arguments."""
    try:
        if ns.type_list:
            return print_type_list()
        colours = _prepare(ns)
        if (not ns.regexp and not ns.files and not ns.invert_match) or ns.max_count == 0:
            return EXIT_NONE  # -f with an empty file (no pattern matches nothing), -m0: as rg
        # rg counts the bytes its standard printer writes; its summary printers (-c, -l...) count none
        counted = Counted(sys.stdout) if ns.stats and not ns.json and _mode(ns) == "content" else None
        if counted is not None:
            sys.stdout = counted  # type: ignore[assignment]  # (the printers write to sys.stdout)
        try:
            run = _Run(ns, to_args, colours)
            try:
                return run.run()
            finally:
                run.close()
        finally:
            if counted is not None:
                sys.stdout = counted.stream
    except UsageError as exc:
        sys.stderr.write(f"sleuth grep: {exc}\n")
        return EXIT_ERROR


def _check_globs(globs: list[str]) -> None:
    """``-g``/``--iglob`` globs that rg refuses are a usage error here too (exit 2, rg's words)."""
    from sleuth.engine.ignore_rules import glob_error

    for glob in globs:
        error = glob_error(glob[1:] if glob.startswith("!") else glob)
        if error is not None:
            raise UsageError(f"error parsing glob '{glob}': {error}")


def _prepare(ns: argparse.Namespace) -> Colours | None:
    """The namespace as the searches take it: patterns, types, -u, sort, globs; the colours to print with."""
    if ns.files and ns.pattern is not None and not ns.regexp and not ns.file:
        ns.paths.insert(0, ns.pattern)  # --files takes no pattern: every positional is a path
        ns.pattern = None
    ns.regexp = patterns_of(ns) if not ns.files else []
    read_types(ns)
    if ns.pretty:
        ns.color, ns.heading = "always", True
        ns.line_number = True if ns.line_number is None else ns.line_number
    if ns.unrestricted >= 1:
        ns.no_ignore = True
    if ns.unrestricted >= 2:
        ns.hidden = True
    if ns.unrestricted >= 3 and ns.binary is None:
        ns.binary = "search"  # -uuu: rg's --binary
    _sort(ns)
    _check_globs([*ns.glob, *ns.iglob])
    if ns.hyperlink_format is not None:
        from sleuth.cli.hyperlink import parse_hyperlink_format

        try:
            parse_hyperlink_format(ns.hyperlink_format)
        except ValueError as exc:
            raise UsageError(f"error parsing flag --hyperlink-format: invalid hyperlink format: {exc}") from None
    ns.glob = ([caseless(g) for g in ns.glob] if ns.glob_case_insensitive else list(ns.glob)) + [
        caseless(g) for g in ns.iglob]
    try:
        colours: Colours | None = Colours(ns.colors)  # checked even when not used, as rg does
    except ValueError as exc:
        raise UsageError(f"error parsing flag --colors: {exc}") from None
    if not (ns.color in ("always", "ansi") or (ns.color == "auto" and sys.stdout.isatty())):
        return None
    return colours


def _mode(ns: argparse.Namespace) -> str:
    return ("files" if ns.files else "without" if ns.files_without_match else "quiet" if ns.quiet
            else "with" if ns.files_with_matches else "count_matches" if ns.count_matches
            else "count" if ns.count else "content")


class _Stream:
    """The cold search's partial-result sink (:class:`sleuth.core.session.StreamSink`): batches to the
    printer, counted for the log line (the result then holds only what was not streamed). A grep's
    batches come as its events themselves (:class:`sleuth.commands.context.EventStream`)."""

    def __init__(self, feed: Callable[[list[Any], bool], None]) -> None:
        self.feed = feed  # (batch, whether it holds events rather than items)
        self.sent = 0

    def __call__(self, batch: list[dict[str, Any]]) -> None:
        self.sent += len(batch)
        self.feed(batch, False)

    def events(self, batch: list[GrepEvent]) -> None:
        self.sent += len(batch)
        self.feed(batch, True)

    def trim(self, result: dict[str, Any]) -> dict[str, Any]:
        return result  # sleuth.grep leaves the streamed items out itself


class _Run:
    """One ``sleuth grep``: a ``sleuth.grep`` (and, where the mode needs the file list, a
    ``sleuth.files``) per path argument, its events through the mode's sink as they come."""

    def __init__(self, ns: argparse.Namespace, to_args: Callable[[argparse.Namespace, str | None], dict[str, Any]],
                 colours: Colours | None) -> None:
        self.ns, self.to_args, self.colours = ns, to_args, colours
        self.mode = _mode(ns)
        if ns.pre:
            ns.no_server = True  # --pre runs a program: in this process only (sleuth.cli.grep_pre)
        # A file's item for the modes that print per file; --stats counts every match (rg's -c, -l and -q keep
        # searching for it) and -q --json prints its summary from the lines: then the lines come, the mode's
        # printer makes its counts and paths from them
        per_file = {"with": "files_with_matches", "without": "files_without_match", "quiet": "files_with_matches",
                    "count": "count"}.get(self.mode)
        ns.output = "content" if per_file is None or ns.stats or (self.mode == "quiet" and ns.json) else per_file
        ns.engine_max_columns = ns.max_columns if ns.result_json else 0  # rg's -M is the printer's
        if ns.json:
            ns.only_matching = False  # rg's JSON printer prints whole lines with their submatches, -o or not
        if self.mode in ("count", "count_matches", "with", "without", "quiet"):
            # (no context printed; but rg's -c counts the matching lines of -m's last after-context too)
            after = ns.after_context if ns.after_context is not None else ns.context
            ns.context = ns.before_context = None
            ns.after_context = after if ns.max_count is not None and self.mode in ("count", "count_matches") else None
        self.workspace = cli_workspace(ns.root)
        ns.ignore_file = [cli_path(self.workspace, name) for name in ns.ignore_file]  # rg reads them from here too
        self._made: list[Any] = []  # the cold path's context, made once when a search runs here
        self._settings: list[Any] = []  # the call's settings, read once (the server's question, the cold context)
        self._store_asked = False  # whether the cold context looked for a current index store yet
        self.catalogued = False  # a current store's catalogue held files when it answered a search
        self.results: list[dict[str, Any]] = []
        self.listings: list[dict[str, Any]] = []
        self.unmatched: list[dict[str, Any]] = []  # the files_without_match searches' results (see run)
        self.failures = 0
        self.stopped = False  # the sink wanted no more: the searches left are not run
        self.refused = False  # the arguments were refused (a bad pattern): rg stops before any output
        self.interrupted = False  # Ctrl-C stopped a search: the run ends at once with EXIT_INTERRUPTED
        self.write_error: OSError | None = None  # standard output failed while streaming (raised at the end)
        self.gone = False  # standard output's reader went away (seen by the watcher, before any write failed)
        self._watching = False  # whether the reader's watcher was started
        self.stream: str | None = None  # the stream path argument being searched (is_stream), None for stdin
        self._inputs: dict[str | None, bytes] = {}  # standard input's bytes (key None) and each stream's, once read
        # rg searches standard input when no path is given and it is a file, a pipe or a socket
        self.paths: list[str | None] = list(ns.paths) or [
            STDIN_PATH if stdin_is_readable() and "-" not in ns.file else None]  # -f- took the input already
        self.tally = Tally(no_inverted_matches=bool(ns.invert_match) and self.mode == "content")
        self.printer: Sink | None = None
        self.sink: Sink = self.tally
        if self.mode != "files" and not ns.result_json:
            self.printer = self.mode_sink(self.options())
            self.sink = Tee(self.tally, Reversed(self.printer) if ns.reverse_groups else self.printer)

    def mode_sink(self, options: PrintOptions) -> Sink:
        """The printer of the mode (``--json`` first, as rg)."""
        ns, mode = self.ns, self.mode
        if ns.json:
            from sleuth.cli.rg_json import Json

            return Json(quiet=bool(ns.quiet), inverted=ns.invert_match,  # -q: the summary alone
                        multiline=bool(ns.multiline), line_numbers=ns.line_number is not False)
        if mode == "with":
            return Paths(options)
        if mode == "without":  # (with -q: nothing printed, found when such a file exists, as rg 15)
            return Without(options, quiet=bool(ns.quiet), at_end=bool(ns.stats))
        if mode in ("count", "count_matches"):
            return Counts(options, matches=mode == "count_matches", listed=[] if ns.include_zero else None)
        if mode == "quiet":
            return Quiet(stop=not ns.stats)  # --stats counts everything
        return Standard(options)

    def where(self, path: str | None) -> str | None:
        """The ``path`` argument the commands get for a path argument (or none) typed here; a stream
        (:func:`~sleuth.cli.grep_stdin.is_stream`) is searched as standard input is (see :meth:`take_path`)."""
        return STDIN_PATH if is_stream(path) else cli_path(self.workspace, path, here_by_default=True)

    def take_path(self, path: str | None) -> str | None:
        """:meth:`where` for the path argument searched next, which ``self.stream`` then names if it is a stream."""
        where = self.where(path)
        self.stream = path if where == STDIN_PATH and path != STDIN_PATH else None
        return where

    def settings(self) -> Any:
        """The person's and the repositories' settings (:func:`workspace_settings`), read once per call."""
        if not self._settings:
            self._settings.append(workspace_settings(self.ns.root))
        return self._settings[0]

    def cold(self) -> Any:
        if not self._made:
            self._made.append(make_context(self.ns.root, ProgressBar(), settings=cli_settings(self.settings())))
        return self._made[0]

    def indexed(self) -> Any:
        """The cold context with the folders' current index store, when there is one to trust
        (:func:`sleuth.core.index.current_store`: read-only, changes since its build read from
        disk), opened once; without one, the plain scan's context."""
        ctx = self.cold()
        if not self._store_asked:
            self._store_asked = True
            from sleuth.core.cold_store import current_store

            ctx.services.index = current_store(ctx.workspace, self.settings())
        return ctx

    def close(self) -> None:
        """Let go of the index store (its generation may then be removed by a server's next publish)."""
        if self._made and self._made[0].services.index is not None:
            self._made[0].services.index.stop()
            self._made[0].services.index = None

    def feed(self, decoder: Decoder, items: list[Any], token: Any = None, typed: bool = False) -> None:
        """Items (a partial batch, or what a result still holds; ``typed``: the search's events
        themselves) through the sink, and out at once; a sink that wants no more, or standard output
        that fails, cancels ``token``'s search."""
        if decoder.stopped or self.gone:
            return
        try:
            if self._made and isinstance(self._made[0].progress, ProgressBar):
                self._made[0].progress.clear()  # no progress line among the output's lines
            going = decoder.events(items) if typed else decoder.items(items)
            sys.stdout.flush()
        except OSError as exc:  # EPIPE (`| head -1`), a full disk: reported once the search has stopped
            self.write_error = exc
            decoder.stopped, going = True, False
        if not going and token is not None:
            token.cancel()

    def streaming(self, decoder: Decoder) -> Any:
        """The cold context, with its partial batches going to ``decoder``; the search is cancelled as
        soon as standard output's reader goes away (:mod:`sleuth.cli.reader_gone`), not at the next
        match's write, which may be many files later."""
        ctx = self.indexed()
        ctx.partial = _Stream(lambda batch, typed: self.feed(decoder, batch, ctx.token, typed))
        if not self._watching and not self.ns.quiet:  # (-q writes nothing: its reader's absence is no news)
            self._watching = True
            from sleuth.cli.reader_gone import watch_reader

            watch_reader(1, lambda: self.reader_gone(ctx.token))
        return ctx

    def reader_gone(self, token: Any) -> None:
        """Standard output's pipe lost its reader (called from the watcher's thread): the write that
        would fail is reported as if it had (a broken pipe ends quietly, status 0, as rg), and the
        search stops at its next poll."""
        import errno
        import os

        if self.write_error is None:
            self.write_error = BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))
        self.gone = True
        token.cancel()

    def search(self, name: str, args: dict[str, Any], into: list[dict[str, Any]], as_json: bool = False,
               decoder: Decoder | None = None) -> bool:
        def take(result: dict[str, Any]) -> int:
            # A cold scan counts no workspace: the result object is the same with or without a store
            # (a server's answer says None too, sleuth.core.warm_listener).
            if "files_in_workspace" in result:
                if result["files_in_workspace"]:
                    self.catalogued = True  # (a current store answered: see any_file)
                result["files_in_workspace"] = None
            into.append(result)
            if decoder is not None:  # what was not streamed: a server's whole answer, standard input's
                self.feed(decoder, result["matches"])
                if not decoder.stopped:
                    decoder.end_file()
            return EXIT_FOUND

        if args.get("path") == STDIN_PATH:  # standard input (or a stream) is searched here, never by a server
            code = self.search_input(args, as_json, take)
        elif name == "sleuth.grep" and self.ns.pre:  # a program per file: here, never by a server
            code = self.preprocessed(args, take, decoder)
        else:
            plain = self.indexed if name == "sleuth.grep" else self.cold  # (a listing reads no file)
            cold = plain if decoder is None else (lambda: self.streaming(decoder))
            warm = None if decoder is None else (lambda batch: self.feed(decoder, batch) or not decoder.stopped)
            try:
                code = run_search(name, args, self.workspace, cold, as_json, take, no_server=self.ns.no_server,
                                  settings=None if self.ns.no_server else self.settings(), partial=warm,
                                  seen=self.seen)
            finally:
                if self._made:
                    self._made[0].partial = None
        if decoder is not None and (decoder.stopped or self.gone):
            self.stopped = True  # (cancelled by the sink, or its reader went away: not a failure)
            return True
        if code == EXIT_FOUND:
            return True
        if code == EXIT_INTERRUPTED:  # Ctrl-C: nothing more runs or prints, the status is rg's (not a failure's 2)
            self.interrupted = self.stopped = True
            return False
        self.failures += 1  # reported by run_search; rg goes on with the other paths
        return False

    def search_input(self, args: dict[str, Any], as_json: bool, take: Callable[[dict[str, Any]], int]) -> int:
        """Standard input, or the stream the path argument being searched names (``self.stream``): read once
        (``--files-without-match --stats`` searches it twice), searched here."""
        source = self.stream
        if source not in self._inputs:
            try:
                self._inputs[source] = read_input(source)
            except OSError as exc:
                from sleuth.engine.errors import describe_os_error

                if not self.ns.no_messages:
                    sys.stderr.write(f"sleuth: {source}: {describe_os_error(exc)}\n")
                return EXIT_ERROR
        return search_input(args, self._inputs[source], source, self.cold, as_json, take)

    def seen(self, error: SleuthError) -> None:
        """A search failed: a refused argument (a bad regex or glob) is the same for every path, so, as rg,
        it is said once and nothing else runs or prints (``--json`` printed a summary after it)."""
        if error.code == "bad_args":
            self.refused = self.stopped = True

    def preprocessed(self, args: dict[str, Any], take: Callable[[dict[str, Any]], int],
                     decoder: Decoder | None) -> int:
        """``--pre``: the files of this path argument, each searched as what the command prints
        (:mod:`sleuth.cli.grep_pre`); a file that fails is reported and the others searched, as rg."""
        from sleuth.cli.grep_pre import preprocessed

        listed: list[dict[str, Any]] = []
        if not self.search("sleuth.files", _files_args(self.ns, args.get("path")), listed):
            return EXIT_ERROR
        show = decoder.display if decoder is not None and decoder.display is not None else (lambda p: p)
        failed = preprocessed(self.ns.pre, self.ns.pre_glob, listed[0]["items"], self.workspace, show, args,
                              self.cold(), take)
        for message in failed:
            if not self.ns.no_messages:
                sys.stderr.write(f"sleuth: {message}\n")
        self.failures += len(failed)
        return EXIT_FOUND

    def run(self) -> int:
        ns, mode = self.ns, self.mode
        if ns.result_json:
            return self.run_result_json()
        listing = mode == "files" or (mode in ("count", "count_matches") and ns.include_zero)
        # The files without a match, asked apart: --stats' search reads every match; --include-zero's counts them
        unmatched = (mode == "without" and ns.stats) or (mode in ("count", "count_matches") and ns.include_zero)
        for path in self.paths:
            if self.stopped:
                break
            where = self.take_path(path)
            show = _display(self.workspace, where, "" if path is None else path, ns.path_separator)
            if mode != "files":
                if not self.search("sleuth.grep", self.to_args(ns, where), self.results, decoder=Decoder(self.sink, show)):
                    continue
            if listing and where != STDIN_PATH and self.search("sleuth.files", _files_args(ns, where), self.listings):
                for item in self.listings[-1]["items"]:
                    item["path"] = show(item["path"])
            if unmatched and self.search("sleuth.grep", dict(self.to_args(ns, where), output="files_without_match"),
                                         self.unmatched):
                self.unmatched[-1]["matches"] = [show(item["path"]) for item in self.unmatched[-1]["matches"]]
        if self.write_error is not None:
            raise self.write_error  # (sleuth.cli.main: a broken pipe ends quietly, as rg)
        if self.refused:
            return EXIT_ERROR
        if self.interrupted:
            return EXIT_INTERRUPTED
        found, errors = self.finish()
        if ns.quiet and found:  # (with --files-without-match: a file without a match was found, as rg 15)
            return EXIT_FOUND
        nothing_searched = False
        if mode != "files" and self.paths == [None] and self.results and not found and not self.failures \
                and not errors:  # rg says it only when no path was given (rg 15: explicit paths are meant)
            # An index (a running server's) reads no file when none can match: only a listing of the
            # files the search would take tells that nothing was there to search, warm or cold alike.
            nothing_searched = sum(r["files_scanned"] for r in self.results) == 0 and not self.any_file()
        if not ns.no_messages:
            if nothing_searched:
                sys.stderr.write("sleuth: No files were searched, which means Sleuth probably applied a filter you "
                                 "didn't expect.\n  hint: check the ignore files, --hidden, -g and -t; --no-ignore "
                                 "-uu searches everything.\n")
            for error in errors:
                sys.stderr.write(f"sleuth: {error['path']}: {error['error']}\n")
        if self.failures or errors or nothing_searched:
            return EXIT_ERROR  # rg 14.1: nothing searched is an error too
        return EXIT_FOUND if found else EXIT_NONE

    def run_result_json(self) -> int:
        """``--result-json``: the ``sleuth.grep`` result object (merged over the paths), or the first error's."""
        for path in self.paths:
            if not self.search("sleuth.grep", self.to_args(self.ns, self.take_path(path)), self.results,
                               as_json=True):
                return EXIT_INTERRUPTED if self.interrupted else EXIT_ERROR
        result = merge_results(self.results)
        print_json(result)
        if result["errors"]:
            return EXIT_ERROR
        return EXIT_FOUND if result["count"] or result["files_matched"] else EXIT_NONE

    def options(self) -> PrintOptions:
        ns = self.ns
        tty = sys.stdout.isatty()
        single_file = len(self.paths) == 1 and (self.paths[0] == STDIN_PATH or (
            self.paths[0] is not None and not _is_dir(self.workspace, self.where(self.paths[0]))))
        line_number = ns.line_number if ns.line_number is not None else (tty or bool(ns.column) or ns.vimgrep)
        return PrintOptions(
            with_path=ns.with_filename if ns.with_filename is not None else (ns.vimgrep or not single_file),
            line_number=line_number, heading=(ns.heading if ns.heading is not None else tty) and not ns.vimgrep,
            colours=self.colours, column=ns.column if ns.column is not None else ns.vimgrep, vimgrep=ns.vimgrep,
            null=ns.null, trim=ns.trim, max_columns=ns.max_columns or None, preview=ns.max_columns_preview,
            context=bool(ns.context or ns.before_context or ns.after_context),
            context_separator=ns.context_separator, match_separator=ns.field_match_separator,
            context_field_separator=ns.field_context_separator, only_matching=bool(ns.only_matching),
            crlf=bool(ns.crlf), byte_offset=bool(ns.byte_offset))

    def finish(self) -> tuple[bool, list[dict[str, Any]]]:
        """The end of the output (what needs every file: listings, reversed order, the summary);
        whether anything was found, and the files that could not be read."""
        ns, mode = self.ns, self.mode
        listed = [item["path"] for listing in self.listings for item in listing["items"]]
        if mode == "files":
            paths = list(reversed(listed)) if ns.reverse_groups else listed
            if not ns.quiet:
                print_paths(paths, self.options())
            return bool(paths), [e for listing in self.listings for e in listing["errors"]]
        result = merge_results(self.results) if self.results else None
        printer = self.printer
        unmatched = [path for result in self.unmatched for path in result["matches"]]
        if isinstance(printer, Without):
            printer.listed = unmatched[::-1] if ns.reverse_groups else unmatched
        elif isinstance(printer, Counts) and printer.listed is not None:
            printer.listed = listed[::-1] if ns.reverse_groups else listed
            printer.zero = set(unmatched)
        self.sink.finish(Summary(files_scanned=result["files_scanned"] if result else 0,
                                 files_matched=result["files_matched"] if result else 0,
                                 elapsed_ms=result["elapsed_ms"] if result else 0.0,
                                 truncated=bool(result and result["truncated"]),
                                 errors=result["errors"] if result else None))
        if isinstance(printer, Without):
            # rg's status counts a binary file its search quit on as a file without a match, though it lists none
            passed_over = sum(r["skipped"]["binary"] for r in (self.unmatched if ns.stats else self.results))
            found = printer.printed > 0 or passed_over > 0
        elif isinstance(printer, (Paths, Counts, Quiet)):  # rg's summary printers: a binary file quit on matched none
            found = printer.found > 0
        else:
            found = self.tally.files_matched > 0
        if ns.stats and result is not None and not ns.json:
            print_stats(result, self.tally)  # (with -q too, as rg)
        return found, result["errors"] if result else []

    def any_file(self) -> bool:
        """Whether the search had any file to take (a listing of one, per path). A current store
        that answered a search of the whole sandbox, with the walk a server's index covers (no
        filter, no ignore switch), already knows: its catalogue is that listing, and the walk of the
        Linux tree it saves costs more than the store's answer."""
        if self.catalogued and self.paths == [None] and self.where(None) is None \
                and _files_args(self.ns, None) == _files_args(_UNFILTERED, None) | {"sort": self.ns.engine_sort}:
            return True
        listed: list[dict[str, Any]] = []
        for path in self.paths:
            if path == STDIN_PATH:
                return True
            if not self.search("sleuth.files", dict(_files_args(self.ns, self.where(path)), max_results=1), listed):
                return True
        return any(r["items"] for r in listed)


def _is_dir(workspace: Any, path: str) -> bool:
    try:
        return any(t.is_dir for t in workspace.resolve(path))
    except SleuthError:
        return False


# The selection of a plain ``sleuth grep PATTERN``: the files a server's index covers.
_UNFILTERED = SimpleNamespace(glob=[], exclude_type_globs=[], hidden=False, no_ignore=False, no_require_git=False,
                                 follow=False, max_filesize=None, type=[], max_depth=None, engine_sort="path",
                                 ignore_file=[], ignore_file_case_insensitive=False,
                                 **{f"no_ignore_{s}": False for s in ("dot", "vcs", "exclude", "global", "parent",
                                                                     "files")})


def _files_args(ns: argparse.Namespace, path: str | None) -> dict[str, Any]:
    """``sleuth.files`` arguments for the files ``--files`` lists (the grep's own selection)."""
    globs = list(ns.glob) + ["!" + g for g in ns.exclude_type_globs]
    if globs and all(g.startswith("!") for g in globs):
        globs.insert(0, "**")
    args: dict[str, Any] = {"patterns": globs or None, "path": path, "sort": ns.engine_sort, **files_args(ns)}
    return {k: v for k, v in args.items() if v is not None}
