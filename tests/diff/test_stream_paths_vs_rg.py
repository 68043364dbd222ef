"""Path arguments that name the process's own files are read as rg reads them (issue 30): a shell's
``<(command)`` (``/dev/fd/63``, a pipe) and ``/dev/null`` (the idiom that makes a single file's name
print). Sleuth refused both as outside the workspace folders; they are now searched in the CLI's
process, as standard input is, and shown as typed. Each case runs through bash (for ``<(...)``), rg
15.2 against the installed command. (A named pipe in the folder stays a per-file error, unlike rg:
a search never waits on a pipe nobody writes to, tests/adversarial/test_hostile_trees.py.)
"""

from __future__ import annotations

import asyncio
import pathlib
import subprocess
import sys

import pytest

from tests.conftest import HANG_S, SLEUTH, needs_fork_server, write_tree
from tests.diff.rg import RG, needs_rg

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "cli"))
from test_warm_cli import runtime_dir, started_fork_server  # noqa: E402,F401  (runtime_dir: a fixture)
from test_warm_equals_cold import start_server, stop_server  # noqa: E402

pytestmark = [pytest.mark.rg, needs_rg]

CASES = [
    '-n hello a.txt <(printf "hello pipe\\nno\\n")',
    'hello <(printf "hello pipe\\n") /dev/null',
    '-l hello <(printf "hello\\n") /dev/null a.txt',
    '-c hello <(printf "hello\\nhello\\n")',
    '--files-without-match hello <(printf "nothing\\n") /dev/null',
    '--files-without-match --stats zzz <(printf "nothing\\n")',
    '--json hello <(printf "a hello\\n")',
    'hello --path-separator "\\\\" <(printf "hello\\n") a.txt',
    'zzz <(printf "hello\\n")',
    '-o "h[a-z]+" <(printf "hi hello\\n") a.txt',
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return write_tree(tmp_path_factory.mktemp("streams"), {"a.txt": "hello file\n"})


def _bash(command: str, cwd: pathlib.Path) -> tuple[int, list[str]]:
    proc = subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True, timeout=HANG_S,
                          stdin=subprocess.DEVNULL)
    lines = [line for line in proc.stdout.splitlines() if "seconds" not in line and '"elapsed' not in line]
    return proc.returncode, sorted(lines)  # (rg's threads print the paths in any order)


@pytest.mark.parametrize("args", CASES)
def test_a_stream_is_searched_as_rg_searches_it(folder: pathlib.Path, args: str) -> None:
    want = _bash(f"{RG} --no-config {args}", folder)
    got = _bash(f"{SLEUTH} grep --no-server {args}", folder)
    if "--json" in args:  # (Sleuth's summary counts the files with output: see the README's --json)
        want, got = (want[0], want[1][:-1]), (got[0], got[1][:-1])
    assert got == want


@needs_fork_server
async def test_a_shells_stream_is_read_here_when_a_server_runs(tmp_path: pathlib.Path,
                                                               runtime_dir: pathlib.Path) -> None:
    """With a server and its CLI fork server running, ``<(command)`` is this process's descriptor: the
    call stays here (a forked child has no ``/dev/fd/63``), and prints what the cold call prints."""
    root = write_tree(tmp_path / "ws", {"a.txt": "hello file\n", "b.py": "x = 1\n"})
    session = await start_server([root], tmp_path / "server-cache")
    try:
        await started_fork_server(root)
        command = 'grep -n hello a.txt <(printf "hello pipe\\n") /dev/null'
        cold, warm = [await asyncio.to_thread(_bash, f"{SLEUTH} {command}{flag}", root) for flag in (" --no-server", "")]
        assert warm == cold == (0, ["/dev/fd/63:1:hello pipe", "a.txt:1:hello file"])
    finally:
        await stop_server(session)
