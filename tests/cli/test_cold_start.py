"""A cold ``sleuth grep`` pays only for what it uses (issue 30 item 1): the modules a plain grep needs,
no worker pool for a tree one process searches first, the settings files read once.

Each case runs the installed ``sleuth`` script in a real process, as a person runs it, under a small
harness that runs the script as ``__main__`` and, when the call is over, writes what the process
holds (``sys.modules``, whether the pool started, the settings files opened: Python's audit hook
sees every ``open``). Speed itself is measured in ``bench/cold_start.py``, never here.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
from typing import Any

from sleuth.engine.heap import ONE_SHOT_THRESHOLD
from sleuth.engine.grep.loop import POOL_START_FILES
from sleuth.engine.platform import pool_start_method
from tests.conftest import HANG_S, SLEUTH, write_tree

# Modules a plain cold grep must not import: the servers' stacks (asyncio, ssl, pydantic, mcp, pygls,
# lsprotocol), the index (numpy, SQLite), the worker pool and threads (multiprocessing,
# concurrent.futures), the session the long-lived doors keep, logging, the settings schema (only a
# settings file needs it), YAML (no settings file here), the decompressors (no compressed file),
# argparse (the flags are read from the flag table: sleuth.cli.grep_flags.read_flags),
# dataclasses with the inspect module it imports (the types on the path are sleuth.engine.values
# Records: each dataclass cost ~0.3-1 ms to build, and dataclasses + inspect ~5 ms to import),
# signal (its Python layer builds three enums at import; Ctrl-C is wired through _signal), Hyperscan
# (its import, with the typing module its package imports, ~10 ms: a few literals are scanned by RE2
# until a search has checked HYPERSCAN_AFTER files, sleuth.engine.match.prefilter) and typing (~4 ms:
# annotations' names are imported under TYPE_CHECKING, bases from sleuth.engine.plain_typing), the
# modules of flags not given: the file-type table (-t), the replacement's (-r); and (issue 30, ~7 ms
# together) re with enum (ignore-file globs compile when a name is first tested against one:
# sleuth.engine.ignore_rules.Glob), RE2 (one case-sensitive literal is found by bytes.find:
# sleuth.engine.match.engines.LiteralProgram), threading (_thread's locks and locals), contextlib,
# importlib with warnings, and the standard modules of rare paths (heapq, bisect, array, unicodedata).
HEAVY = ("asyncio", "ssl", "pydantic", "mcp", "pygls", "lsprotocol", "numpy", "sqlite3", "yaml", "multiprocessing",
         "concurrent.futures", "logging", "subprocess", "gzip", "sleuth.core.session", "sleuth.core.index",
         "sleuth.engine.index.service", "sleuth.engine.grep.pool", "sleuth.commands.settings_schema",
         "sleuth.commands.settings_trust", "sleuth.lsp", "sleuth.mcp", "argparse", "gettext", "sleuth.cli.parsers",
         "dataclasses", "inspect", "signal", "hyperscan", "typing", "sleuth.engine.filetypes",
         "sleuth.engine.replace", "sleuth.engine.multiline_replace",
         "re", "enum", "re2", "threading", "contextlib", "importlib", "warnings", "heapq", "bisect", "array",
         "unicodedata")
# ... and with --no-server, the fork client, its socket paths and the socket module (nothing asks a server)
NO_SERVER_HEAVY = ("sleuth.cli.fork_client", "sleuth.core.warm_paths", "_socket")

# runs the script as Python runs it (not through runpy, whose pkgutil import loads typing); a search's
# process ends by os._exit (sleuth.cli._ended), which here raises SystemExit so that the report is written
_HARNESS = """
import os, sys
out, script = sys.argv[1], sys.argv[2]
def _exit(status):
    sys.stdout.flush()
    raise SystemExit(status)
os._exit = _exit
opened = []
sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == "open" and "config.yml" in str(args[0])
                 else None)
sys.argv = sys.argv[2:]
status = None
try:
    exec(compile(open(script).read(), script, "exec"), {"__name__": "__main__", "__file__": script})
except SystemExit as exc:
    status = exc.code
pool = sys.modules.get("sleuth.engine.grep.pool")
dataclasses = sorted(f"{name}.{attr}" for name, module in list(sys.modules.items()) if name.startswith("sleuth")
                     for attr, value in vars(module).items()
                     if isinstance(value, type) and value.__module__ == name and "__dataclass_fields__" in vars(value))
modules = sorted(sys.modules)
import json  # (json imports re: only once the call's modules are listed)
with open(out, "w") as handle:
    json.dump({"status": status, "modules": modules, "pool": bool(pool and pool.running()),
               "pool_method": getattr(pool, "_METHOD", None),
               "opened": opened, "dataclasses": dataclasses, "gc_threshold": __import__("gc").get_threshold()[0]},
              handle)
"""


def _cold_call(cwd: pathlib.Path, out: pathlib.Path, *argv: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """``sleuth ARGV`` run in ``cwd`` by the installed script; what the process held at its end."""
    done = subprocess.run([sys.executable, "-c", _HARNESS, str(out), SLEUTH, *argv], cwd=cwd, capture_output=True,
                          text=True, timeout=HANG_S, env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(out.read_text())
    report["stdout"] = done.stdout
    return report


def test_a_plain_cold_grep_imports_none_of_the_heavy_modules(tmp_path: pathlib.Path) -> None:
    # a repository whose .gitignore holds the usual kinds of lines: names, *suffix globs, prefix* globs
    root = write_tree(tmp_path / "ws", {".git/HEAD": "ref: refs/heads/main\n", "a.py": "def needle():\n    pass\n",
                                        "pkg/sub/deep/b.txt": "needle\n", "a.pyc": "needle\n", "build/c.txt": "needle\n",
                                        "tmp-d.txt": "needle\n", "x.egg-info/e.txt": "needle\n",
                                        ".gitignore": "__pycache__/\n*.pyc\n/build\ntmp-*\n*.egg-info/\n"})
    report = _cold_call(root, tmp_path / "report.json", "grep", "-n", "needle", "--no-server")
    assert report["status"] == 0 and report["stdout"].count("needle") == 2, report["stdout"]
    imported = set(report["modules"])
    assert not [name for name in (*HEAVY, *NO_SERVER_HEAVY) if name in imported]
    assert report["dataclasses"] == []
    # a one-shot call collects cycles in larger batches (sleuth.engine.heap.tune): 21 young
    # collections of the start-up's long-lived objects freed nothing and cost ~4 ms of its CPU
    assert report["gc_threshold"] == ONE_SHOT_THRESHOLD


def test_a_cold_grep_as_people_type_it_loads_no_server_client_when_none_runs(tmp_path: pathlib.Path) -> None:
    """Without ``--no-server`` (how a person, a script or an assistant types it) and no server for the
    folder, the call looks for the door's file and runs cold: the door's client and its handshake's
    modules (``hmac``, ``secrets``, ``logging``, ``dataclasses``: ~20 ms) were loaded by every such call."""
    root = write_tree(tmp_path / "ws", {"a.py": "def needle():\n    pass\n"})
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    report = _cold_call(root, tmp_path / "report.json", "grep", "-n", "needle", env={"XDG_RUNTIME_DIR": str(runtime)})
    assert report["status"] == 0 and "needle" in report["stdout"]
    imported = set(report["modules"])
    assert not [name for name in (*HEAVY, "hmac", "secrets", "sleuth.cli.warm", "sleuth.core.warm") if name in imported]
    # nor the socket module: no door's file, so neither the fork client nor the warm door asks it anything
    assert "_socket" not in imported


def test_a_small_deep_tree_is_searched_without_the_pool_a_big_one_starts_it(tmp_path: pathlib.Path) -> None:
    """Folders two levels deep used to start the pool whatever the file count; now the number of files
    decides (``POOL_START_FILES``): the files walked up to it are searched here, and the folders the
    walk reaches after them go to the pool."""
    small = write_tree(tmp_path / "small", {f"p{i}/s/t/f{j}.txt": "needle\n" for i in range(4) for j in range(5)})
    report = _cold_call(small, tmp_path / "small.json", "grep", "-c", "needle", "--no-server")
    assert report["status"] == 0 and len(report["stdout"].splitlines()) == 20
    assert not report["pool"] and "multiprocessing" not in report["modules"]
    each = POOL_START_FILES // 4 + 10
    big = write_tree(tmp_path / "big", {f"p{i}/s/f{j}.txt": "needle\n" for i in range(5) for j in range(each)})
    report = _cold_call(big, tmp_path / "big.json", "grep", "-c", "needle", "--no-server")
    assert report["status"] == 0 and len(report["stdout"].splitlines()) == 5 * each
    assert report["pool"]
    # started as a single-threaded process starts it (fork, where there is one), though standard
    # output is a pipe here and its reader is watched (sleuth.cli.reader_gone: not a counted thread)
    assert report["pool_method"] == pool_start_method(1)


def test_a_cold_call_reads_each_settings_file_once(tmp_path: pathlib.Path) -> None:
    """The CLI reads the person's ``config.yml`` and the repository's ``.agent/config.yml`` once and
    passes that one settings object down: to the question to a server (none runs here), the cold
    context and the log line (before: once more each for the server's question and the session)."""
    config = write_tree(tmp_path / "config", {"sleuth/config.yml": f"log_file: {tmp_path / 'sleuth.log'}\n"})
    root = write_tree(tmp_path / "ws", {".git/HEAD": "ref: refs/heads/main\n", "a.txt": "needle\n",
                                        ".agent/config.yml": "sleuth:\n  deny_globs: ['secret/**']\n",
                                        "secret/b.txt": "needle\n"})
    report = _cold_call(root, tmp_path / "report.json", "grep", "-l", "needle",
                        env={"XDG_CONFIG_HOME": str(config), "XDG_RUNTIME_DIR": str(tmp_path / "run")})
    assert report["status"] == 0 and report["stdout"].splitlines() == ["a.txt"]
    opened = [pathlib.Path(p).resolve() for p in report["opened"]]
    assert sorted(map(str, opened)) == sorted([str((config / "sleuth" / "config.yml").resolve()),
                                               str((root / ".agent" / "config.yml").resolve())])
    assert "cli sleuth.grep" in (tmp_path / "sleuth.log").read_text()  # the log line, by the same settings


_WITH_HOOK = ("import atexit, sys; atexit.register(lambda: sys.stderr.write('TEARDOWN\\n')); script = sys.argv[1]; "
              "sys.argv = sys.argv[1:]; exec(compile(open(script).read(), script, 'exec'), "
              "{'__name__': '__main__', '__file__': script})")


def test_a_search_ends_without_the_interpreters_teardown(tmp_path: pathlib.Path) -> None:
    """A search's process ends by ``os._exit`` once its output is flushed (``sleuth.cli._ended``): the
    teardown of its modules was ~6 ms of a ~50 ms cold grep. Seen from outside: an atexit hook set
    before the call never runs, while the output, its order and the exit status are the call's."""
    root = write_tree(tmp_path / "ws", {"a.py": "def needle():\n    pass\n", "b.txt": "x\nneedle\n"})
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    for argv, status, out in [(["grep", "-n", "needle", "--no-server", "--sort", "path"], 0,
                               "a.py:1:def needle():\nb.txt:2:needle\n"),
                              (["grep", "nothing-here", "--no-server"], 1, ""),
                              (["files", "--no-server"], 0, "a.py\nb.txt\n")]:
        done = subprocess.run([sys.executable, "-c", _WITH_HOOK, SLEUTH, *argv], cwd=root, capture_output=True,
                              text=True, timeout=HANG_S, env=env)
        assert (done.returncode, done.stdout) == (status, out), (argv, done.stderr)
        assert "TEARDOWN" not in done.stderr, argv
    # a command that is not a search ends as before
    done = subprocess.run([sys.executable, "-c", _WITH_HOOK, SLEUTH, "--version"], cwd=root, capture_output=True,
                          text=True, timeout=HANG_S, env=env)
    assert done.returncode == 0 and "TEARDOWN" in done.stderr
