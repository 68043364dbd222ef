"""``sleuth grep --files-without-match`` lists the files rg 15.2 lists (issue 30): a binary file that a
folder's search quits on is neither with nor without a match, so rg lists none, whatever its NUL's
place (the first 64 KiB, or after a match, or with no match at all). Sleuth listed every file of the
walk that had no match line, binary ones included, because the list came from ``sleuth.files``;
``sleuth.grep`` now lists them itself (``output: files_without_match``), cold and through a server.

Named files are searched whole (rg's "convert"): a binary one without a match is listed. A UTF-16
file with a BOM is text once transcoded. ``-a`` searches everything as text.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

from tests.conftest import HANG_S, SLEUTH, write_tree
from tests.diff.rg import RG, needs_rg

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "cli"))
from test_warm_cli import runtime_dir  # noqa: E402,F401  (a fixture: the server's and the CLI's own runtime folder)
from test_warm_equals_cold import pair, start_server, stop_server  # noqa: E402

pytestmark = [pytest.mark.rg, needs_rg]

BLOCK = 65536  # rg's read buffer: a NUL past it is seen only when the search gets there
FILLER = (b"y" * 99 + b"\n") * (BLOCK // 100 + 10)  # short lines past the first block (a line longer than
# the buffer grows it, and rg then sees the NUL of the line after at once)

FILES: dict[str, str | bytes] = {
    "text/hit.txt": "a foo here\n",
    "text/miss.txt": "nothing here\n",
    "text/empty.txt": "",
    "bin/early_hit.dat": b"foo\x00\n",  # NUL in the first block: passed over at once
    "bin/early_miss.dat": b"bar\x00\n",
    "bin/late_hit.dat": b"foo before\n" + FILLER + b"after\x00\n",  # a match, then the NUL's block
    "bin/late_miss.dat": b"bar\n" + FILLER + b"after\x00\n",  # no match: read up to its NUL
    "utf16/bom_miss.txt": "\ufeffno match in here\n".encode("utf-16-le"),  # NULs that transcoding removes
    "utf16/bom_hit.txt": "\ufeffa foo in here\n".encode("utf-16-le"),
}

CASES: list[list[str]] = [
    ["foo"],
    ["foo", "bin"],
    ["foo", "bin/early_miss.dat", "bin/late_miss.dat", "bin/early_hit.dat", "text/miss.txt"],  # named: convert
    ["-a", "foo"],
    ["--binary", "foo"],
    ["-v", "foo", "text", "bin"],
    ["zzz"],
    ["-q", "foo", "bin"],
    ["-q", "foo", "text/hit.txt"],
    ["--count", "--files-without-match", "foo"],  # (the last mode flag wins: this is --files-without-match)
    ["-0", "foo", "text"],
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    root = write_tree(tmp_path_factory.mktemp("without"), FILES)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _run(command: list[str], cwd: pathlib.Path, argv: list[str], stdin: bytes | None = None) -> tuple[int, list[bytes]]:
    proc = subprocess.run([*command, "--files-without-match", *argv], cwd=cwd, capture_output=True, input=stdin,
                          stdin=None if stdin is not None else subprocess.DEVNULL, timeout=HANG_S)
    separator = b"\0" if "-0" in argv else b"\n"
    return proc.returncode, sorted(proc.stdout.split(separator))  # (rg's threads list in any order)


@pytest.mark.parametrize("argv", CASES, ids=" ".join)
def test_the_files_without_a_match_are_rgs(corpus: pathlib.Path, argv: list[str]) -> None:
    want = _run([RG, "--no-config"], corpus, argv)
    assert _run([SLEUTH, "grep", "--no-server"], corpus, argv) == want


@pytest.mark.parametrize("argv", [
    ["--files-without-match", "--sortr", "path", "zzz"], ["--files-without-match", "--sortr", "path", "--stats", "zzz"],
    ["--files-without-match", "--sort", "path", "foo"],
    ["-c", "--include-zero", "--sort", "path", "foo"], ["-c", "--include-zero", "--sortr", "path", "foo"],
    ["--count-matches", "--include-zero", "--sort", "path", "foo", "text", "bin"],
    ["-c", "--include-zero", "--sort", "path", "foo", "bin/early_miss.dat", "bin/late_miss.dat", "text/miss.txt"],
], ids=" ".join)
def test_in_rgs_order_and_include_zero_lists_no_binary_file(corpus: pathlib.Path, argv: list[str]) -> None:
    """In ``--sort``/``--sortr`` order (the list was printed forward with ``--sortr path --stats``), and
    ``-c --include-zero`` prints a zero for the files without a match, not for a binary file a folder's
    search quits on (it printed ``bin/early_miss.dat:0`` and the others)."""
    def run(command: list[str]) -> tuple[int, bytes]:
        proc = subprocess.run([*command, *argv], cwd=corpus, capture_output=True, stdin=subprocess.DEVNULL,
                              timeout=HANG_S)
        return proc.returncode, b"\n".join(line for line in proc.stdout.split(b"\n") if b"seconds" not in line)

    want = run([RG, "--no-config"])
    assert run([SLEUTH, "grep", "--no-server"]) == want


@pytest.mark.parametrize("argv", [["-l", "--stats"], ["-q", "--stats"], ["-c"], ["-c", "--stats"], ["--count-matches"],
                                  ["--count-matches", "--stats"], ["-c", "--include-zero", "--stats"], ["-l"], ["-q"],
                                  []], ids=" ".join)
def test_a_binary_file_quit_on_after_its_matches_matched_none_for_the_summary_modes(corpus: pathlib.Path,
                                                                                    argv: list[str]) -> None:
    """``bin/late_hit.dat`` matches before the block holding its NUL: rg's summary printers (``-l``,
    ``-q``, ``-c``, ``--count-matches``) squash those matches once the search reaches the NUL (``-l``
    and ``-q`` stop at the first match before it, unless ``--stats`` reads on): no path, no count, exit
    1 (Sleuth exited 0 with ``--count-matches`` and with ``--stats``); the standard printer shows them."""
    def run(command: list[str]) -> tuple[int, list[bytes]]:
        proc = subprocess.run([*command, *argv, "--sort", "path", "foo", "bin"], cwd=corpus, capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=HANG_S)
        return proc.returncode, [line for line in proc.stdout.split(b"\n") if b"seconds" not in line]

    want = run([RG, "--no-config"])
    assert run([SLEUTH, "grep", "--no-server"]) == want


@pytest.mark.parametrize("stdin", [b"nothing\n", b"foo\n", b"bar\x00\n"], ids=["miss", "hit", "binary"])
def test_standard_input_is_listed_as_rg_lists_it(corpus: pathlib.Path, stdin: bytes) -> None:
    want = _run([RG, "--no-config"], corpus, ["foo"], stdin)
    assert _run([SLEUTH, "grep", "--no-server"], corpus, ["foo"], stdin) == want


def test_stats_count_every_match_and_list_what_rg_lists(corpus: pathlib.Path) -> None:
    """``--stats`` reads every match (its own search) and lists the files without one (another)."""
    def run(command: list[str]) -> tuple[list[bytes], list[bytes]]:
        proc = subprocess.run([*command, "--files-without-match", "--stats", "foo"], cwd=corpus, capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=HANG_S)
        lines = proc.stdout.split(b"\n")
        listed, stats = lines[:lines.index(b"")], lines[lines.index(b"") + 1:]
        counted = [line for line in stats if line.endswith((b"matches", b"matched lines", b"files searched"))]
        return sorted(listed), counted

    want = run([RG, "--no-config"])
    assert len(want[1]) == 4 and run([SLEUTH, "grep", "--no-server"]) == want


async def test_a_server_lists_what_the_cold_search_lists(corpus: pathlib.Path, tmp_path: pathlib.Path,
                                                         runtime_dir: pathlib.Path) -> None:
    """Through a running server (its index built: the list is not the index's to narrow, since only a
    read tells a binary file) the answer is the cold one, and rg's."""
    session = await start_server([corpus], tmp_path / "server-cache")
    try:
        for argv in (["foo"], ["foo", "bin"], ["-v", "foo"], ["-q", "foo", "bin"]):
            cold, warm = await pair(corpus, "grep", "--files-without-match", "--sort", "path", *argv)
            assert warm == cold
            want = subprocess.run([RG, "--no-config", "--files-without-match", "--sort", "path", *argv], cwd=corpus,
                                  capture_output=True, text=True, timeout=HANG_S)
            assert cold[:2] == (want.returncode, want.stdout)
    finally:
        await stop_server(session)
