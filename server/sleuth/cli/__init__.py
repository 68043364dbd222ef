"""The ``sleuth`` command line: one subcommand per search command, ripgrep's flag names.

Starting the CLI imports argparse and the subcommand's own module only: ``sleuth grep`` never
loads pygls (``sleuth serve`` imports the LSP stack when it runs). Subcommand modules expose
``add_parser(subparsers)`` and set ``func(namespace) -> exit code`` on their parser.

The console script first offers the call to a running server's CLI fork server
(:mod:`sleuth.cli.fork_client`), before argparse is even imported: when one answers, a process that
has imported all of this already runs :func:`main` on this process's arguments and streams.
"""

from __future__ import annotations

import sys
TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~3 ms of every warm call)

if TYPE_CHECKING:
    import argparse

__all__ = ["main", "SUBCOMMANDS", "prebuild_parser"]

# subcommand -> module; each module's add_parser registers the subcommand and its flags.
SUBCOMMANDS: dict[str, str] = {
    "grep": "sleuth.cli.grep",
    "files": "sleuth.cli.files",
    "text": "sleuth.cli.text",
    "symbols": "sleuth.cli.symbols",
    "index": "sleuth.cli.index",
    "tools": "sleuth.cli.tools",
    "serve": "sleuth.cli.serve",
    "mcp": "sleuth.cli.mcp",
}


_PREBUILT: dict[str | None, argparse.ArgumentParser] = {}  # filled only in the fork server (parse_args leaves a parser as it was)


def prebuild_parser(only: str | None) -> None:
    """Build the parser :func:`main` needs for subcommand ``only`` now: the fork server does, so that
    each forked call starts with it built. For ``grep`` also the flag table its own reader uses
    (:func:`~sleuth.cli.grep_flags.read_flags`, argparse only for what it cannot read), which a forked
    call otherwise made on its first read: ~0.5 ms of each warm ``sleuth grep`` before it asks the server
    (a fork's first call, CPU, medians of 5: 3.2 -> 2.7 ms)."""
    _PREBUILT[only] = _parser(only)
    if only == "grep":
        from sleuth.cli.grep_flags import option_table

        option_table()


def _parser(only: str | None) -> argparse.ArgumentParser:
    import argparse
    import importlib

    from sleuth import __version__
    from sleuth.cli.parsers import CliParser, HelpFormatter

    parser = argparse.ArgumentParser(prog="sleuth", formatter_class=HelpFormatter,
                                     description="Workspace search: grep, file search and ranked text search.")
    parser.add_argument("--version", action="version", version=f"sleuth {__version__}")

    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CliParser)
    for name, module in SUBCOMMANDS.items():
        if only is not None and name != only:
            continue
        try:
            importlib.import_module(module).add_parser(sub)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
    return parser


def _subparser(parser: argparse.ArgumentParser, command: str | None) -> argparse.ArgumentParser | None:
    import argparse

    for action in parser._actions:  # noqa: SLF001 (argparse keeps its subparsers here only)
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            return action.choices.get(command) if command else None
    return None


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns grep's exit codes (0 found, 1 none, 2 error).

    Called without ``argv`` (the console script, ``python -m sleuth``), a running server's fork
    server may run the call instead (:func:`sleuth.cli.fork_client.run`), and the console script's process
    ends at once when the call is over (:func:`_ended`)."""
    if argv is None:
        if _first_word(sys.argv[1:]) not in LONG_LIVED:  # (the servers' stdout is their protocol's)
            from sleuth.cli.std_streams import buffer_stdout
            from sleuth.engine import heap

            heap.tune(heap.ONE_SHOT_THRESHOLD)
            buffer_stdout()
        if "--no-server" not in sys.argv:  # (fork_client.run's first answer, before its imports: ~0.4 ms)
            from sleuth.cli.fork_client import leave, run

            forked = run(sys.argv)
            if forked is not None:
                leave(forked)
        return _ended(_command(sys.argv[1:], own_process=True))
    return _command(argv)


def _command(argv: list[str], own_process: bool = False) -> int:
    """The call itself, in this process: its flags read, its subcommand run; its exit status.
    ``own_process``: the console script's call, which may end its process (:func:`_ended`)."""
    first = _first_word(argv)
    only = first if first in SUBCOMMANDS else None
    namespace = None
    split = None
    if first == "grep":  # rg reads its command line its own way (see sleuth.cli.rg_argv.split_argv)
        from sleuth.cli.grep import read_argv, read_namespace

        at = argv.index("grep") + 1
        split = read_argv(argv[at:])
        if at == 1:  # read without argparse when it has nothing to say (sleuth.cli.grep_flags.read_flags)
            namespace = read_namespace(split)
        argv = argv[:at] + split.options + ["--"] + split.positionals
    if namespace is None:
        parser = _PREBUILT.get(only) or _parser(only)
        namespace, unknown = parser.parse_known_args(argv)
        subparser = _subparser(parser, getattr(namespace, "command", None))
        if unknown:  # reported by the subcommand, as rg reports its own (not with the top-level usage)
            (subparser or parser).error("unrecognized arguments: " + " ".join(unknown))
        if split is not None:
            from sleuth.cli.grep import settle_mode

            namespace.regexp = split.patterns
            settle_mode(namespace, split)
        if not getattr(namespace, "func", None):
            parser.print_help(sys.stderr)
            return 2
    command = namespace.command
    argument_dests = getattr(sys.modules.get(SUBCOMMANDS.get(command, "")), "ARGUMENT_DESTS", None)
    if argument_dests is not None:
        from sleuth.cli.terminal import speak_for

        # its messages name its flags (sleuth.cli.terminal); its parser is made only to reword one
        speak_for(f"sleuth {command}", lambda: _subparser(_PREBUILT.get(command) or _parser(command), command),
                  argument_dests)
    try:
        status = int(namespace.func(namespace))
        if sys.stdout is not None and not sys.stdout.closed:  # (`serve` closes it: its protocol's)
            sys.stdout.flush()  # a write error in what is still buffered is this call's error too
        if own_process and getattr(namespace, "leave_at_once", False):
            _ended(status, closed=True)
        return status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader stopped early (`| head`): rg exits 0 in silence
        _discard_stdout()
        return 0
    except OSError as exc:  # stdout cannot be written (a full disk, /dev/full): rg's message and status
        if exc.errno is None or exc.filename is not None:
            raise
        _discard_stdout()
        sys.stderr.write(f"sleuth: {exc.strerror} (os error {exc.errno})\n")
        return 2


LONG_LIVED = ("serve", "mcp")  # the servers keep Python's collector as it is


def _ended(status: int, closed: bool = False) -> int:
    """End the console script's process here, without the interpreter's teardown, as a forked call's
    client does (:func:`sleuth.cli.fork_client.leave`): its modules and objects freed one by one cost
    ~6 ms of a ~50 ms cold ``sleuth grep`` in a small folder (issue 30) and ~17 ms of CPU after a cold
    ``sleuth text`` printed its answer (numpy, SQLite, the catalogue). :func:`_command` flushed what it
    printed. A scan (``sleuth grep``, ``files``) leaves no file to close, so it ends here unless a worker
    pool or another process was started (their atexit hooks end them) or a thread that is not a daemon
    still runs. A search answered from the index (``text``, ``symbols``: a cold one may build it) ends
    only when it says it closed what it opened (``closed``: ``leave_at_once`` on its namespace,
    :func:`sleuth.cli.index.run_on_index`), its search pool, if a scan started one, stopped first.
    Otherwise the call returns as before."""
    if closed:
        pool = sys.modules.get("sleuth.engine.grep.pool")
        if pool is not None:
            pool.shutdown_pool(wait=True)  # no worker may keep the standard streams open
    else:
        from sleuth.searches import SEARCHES  # (loaded by every call already, as the fork client below)

        command = _first_word(sys.argv[1:])
        if not any(s.name == command and not s.index_only for s in SEARCHES) or "multiprocessing" in sys.modules:
            return status
        threading = sys.modules.get("threading")
        if threading is not None and any(not t.daemon for t in threading.enumerate()
                                         if t is not threading.main_thread()):
            return status
    from sleuth.cli.std_streams import leave  # (loaded by every one-shot call already)

    leave(status)


def _first_word(argv: list[str]) -> str | None:
    """The subcommand's place on the command line: its first word that is not a flag."""
    return next((a for a in argv if not a.startswith("-")), None)


def _discard_stdout() -> None:
    """Point descriptor 1 at the null device: what Python still holds for stdout is flushed there at
    exit, instead of failing again with a second message and exit status 120."""
    import os

    try:
        null = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    os.dup2(null, 1)
    os.close(null)
