"""``sleuth grep --pre COMMAND [--pre-glob GLOB]`` (rg's preprocessor, issue 30), byte for byte rg
15.2's, and only ever a command-line flag: no door's ``sleuth.grep`` call can name a program to run.
"""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

import pytest

from sleuth.commands.args import parse_args
from sleuth.commands.config import Settings
from sleuth.commands.grep import GREP_ARGS
from sleuth.engine.errors import BadArgs
from tests.conftest import SLEUTH, write_tree
from tests.diff.rg import RG, needs_rg
from tests.diff.test_rg_suite import _json_lines

FILES: dict[str, str | bytes] = {
    "a.txt": "shout here\nquiet\n",
    "b.up": "shout again\nnothing\nshout\n",
    "sub/c.up": "no match\n",
    "sub/d.txt": "SHOUT already\n",
}

# A preprocessor that upper-cases the file it is given (from its argument, not only its input).
UPPER = "#!/bin/sh\ntr a-z A-Z < \"$1\"\n"
FAILS = "#!/bin/sh\necho \"cannot read $1\" >&2\nexit 3\n"


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_tree(tmp_path_factory.mktemp("pre"), FILES)
    for name, body in (("upper.sh", UPPER), ("fails.sh", FAILS)):
        script = root.parent / f"{root.name}-{name}"
        script.write_text(body)
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return root


def _script(tree: Path, name: str) -> str:
    return str(tree.parent / f"{tree.name}-{name}")


def _run(cwd: Path, command: list[str]) -> tuple[int, bytes]:
    proc = subprocess.run(command, cwd=cwd, capture_output=True, stdin=subprocess.DEVNULL, timeout=120)
    return proc.returncode, proc.stdout


CASES: list[list[str]] = [
    ["--pre", "{upper}", "SHOUT", "--sort", "path"],
    ["--pre", "{upper}", "--pre-glob", "*.up", "SHOUT", "--sort", "path"],
    ["--pre", "{upper}", "--pre-glob", "!*.up", "-c", "SHOUT", "--sort", "path"],
    ["--pre", "{upper}", "--json", "SHOUT", "b.up"],
    ["--pre", "{upper}", "-n", "SHOUT", "a.txt", "sub", "--sort", "path"],
    ["--pre", "{upper}", "--no-pre", "-n", "SHOUT", "--sort", "path"],
    ["--pre", "{fails}", "SHOUT", "--sort", "path"],
    ["--pre", "{fails}", "--pre-glob", "*.txt", "shout", "--sort", "path"],
]


@needs_rg
@pytest.mark.rg
@pytest.mark.parametrize("argv", CASES, ids=" ".join)
def test_pre_prints_what_rg_prints(tree: Path, argv: list[str]) -> None:
    argv = [a.format(upper=_script(tree, "upper.sh"), fails=_script(tree, "fails.sh")) for a in argv]
    want = _run(tree, [RG, "--no-config", *argv])
    have = _run(tree, [SLEUTH, "grep", "--no-server", *argv])
    if "--json" in argv:
        want, have = (want[0], _json_lines(want[1])), (have[0], _json_lines(have[1]))
    assert have == want


def test_a_failing_preprocessor_is_named_and_the_other_files_searched(tree: Path) -> None:
    proc = subprocess.run([SLEUTH, "grep", "--no-server", "--pre", _script(tree, "fails.sh"), "--pre-glob", "*.up",
                           "-l", "shout", "--sort", "path"], cwd=tree, capture_output=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stdout == b"a.txt\n"
    assert b"b.up: preprocessor command failed" in proc.stderr and b"cannot read b.up" in proc.stderr


def test_no_door_can_name_a_preprocessor() -> None:
    """``--pre`` is no ``sleuth.grep`` argument: an LSP, MCP or warm caller naming one is refused."""
    assert not {"pre", "pre_glob", "preprocessor"} & set(GREP_ARGS)
    for key in ("pre", "pre_glob"):
        with pytest.raises(BadArgs, match=repr(key)):
            parse_args("sleuth.grep", {"pattern": "x", key: "touch /tmp/owned"}, GREP_ARGS, Settings())

