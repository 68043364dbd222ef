"""Differential: ``forge.Search`` gives the same answer with ``backend=rg`` as with ``backend=native``.

Both run through the profile; only the backend differs. Compared: every event, ``count``,
``truncated``, ``timed_out``, ``files_scanned`` and ``content`` (``exit_code``/``stderr`` exist only
for the external backend). Fixture trees cover ignore rules, hidden files, globs, Unicode, CRLF,
BOMs, binary files, context merging, several matches per line and the limits.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from sleuth.commands.profiles.backends import find_backend
from sleuth.engine.errors import BackendUnavailable

pytestmark = pytest.mark.rg

try:
    find_backend("rg")
except BackendUnavailable:  # pragma: no cover
    pytest.skip("rg is not installed", allow_module_level=True)

TOOL = "forge.Search"
FIXTURE = {
    ".git/HEAD": "ref: refs/heads/main\n",
    ".gitignore": "build/\n*.log\n",
    ".ignore": "vendor/\n",
    ".hidden/secret.txt": "needle hidden\n",
    ".env": "NEEDLE=1\n",
    "build/out.txt": "needle ignored\n",
    "app.log": "needle log\n",
    "vendor/lib.py": "needle vendored\n",
    "src/main.py": "import os\n\ndef needle():\n    return 'needle needle'\n\nclass Needle:\n    pass\n",
    "src/util.py": "x = 1\ny = 2\nneedle = x + y\nz = 3\nw = 4\nneedle2 = 5\n",
    "src/deep/a/b/c.txt": "deep needle\n",
    "src/crlf.txt": "first\r\nneedle crlf\r\nlast\r\n",
    "src/bom.txt": "\ufeffneedle after bom\n",
    "src/unicodé/naïve.txt": "naïve needle ünïcödé\nÄrger mit NEEDLE\n",
    "src/a-b.txt": "needle dash\n",
    "src/a/b.txt": "needle slash\n",
    "bin/blob.bin": b"needle\x00\x01\x02binary",
    "docs/readme.md": "Some docs.\nThe needle is here.\nMore docs.\n" * 3,
    "words.txt": "needles needle needled\nneedle\n",
    "empty.txt": "",
}

QUERIES = [
    {"pattern": "needle"},
    {"pattern": "NEEDLE"},
    {"pattern": "needle", "case": "insensitive"},
    {"pattern": "needle", "case": "sensitive"},
    {"pattern": "needle", "word_regexp": True},
    {"pattern": "needle", "context": 1},
    {"pattern": "needle", "context": 3, "max_results": 7},
    {"pattern": "needle", "max_results": 3},
    {"pattern": "needle", "max_results": 1000},
    {"pattern": "needle", "hidden": True},
    {"pattern": "needle", "no_ignore": True},
    {"pattern": "needle", "no_ignore": True, "hidden": True},
    {"pattern": "needle", "include_glob": ["*.py"]},
    {"pattern": "needle", "include_glob": ["src/**"], "exclude_glob": ["*.txt"]},
    {"pattern": "needle", "glob": ["*.md"]},
    {"pattern": "needle", "recursive": False},
    {"pattern": "needle", "path": "src"},
    {"pattern": "needle", "path": "src/util.py", "context": 2},
    {"pattern": "needle", "max_matches_per_file": 1},
    {"pattern": "needle", "max_file_size_bytes": 20},
    {"pattern": r"need\w+", "case": "sensitive"},
    {"pattern": r"^needle"},
    {"pattern": r"needle$"},
    {"pattern": "needle|docs"},
    {"pattern": "a.b", "fixed_strings": True},
    {"pattern": "ünïcödé"},
    {"pattern": r"\bclass\s+\w+"},
    {"pattern": "zzz_no_such_thing"},
]


@pytest.fixture(scope="module")
def fixture_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("diff") / "ws"
    for rel, content in FIXTURE.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return root


def comparable(out: dict) -> dict:
    """Everything but the backend-only fields. ``files_scanned`` of a truncated search depends on how
    far each engine read ahead before stopping (the native scan works in parallel chunks), so it is
    compared only when the search ran to the end."""
    out = dict(out)
    out.pop("exit_code", None)
    out.pop("stderr", None)
    if out["truncated"]:
        out.pop("files_scanned")
    return out


@pytest.mark.parametrize("query", QUERIES, ids=[json.dumps(q, ensure_ascii=False) for q in QUERIES])
def test_rg_and_native_agree(fixture_root, query):
    from tests.commands.profiles.conftest import Caller

    native = Caller(fixture_root).json(TOOL, query, backend="native", rate_limit_enabled=False)
    rg = Caller(fixture_root).json(TOOL, query, backend="rg", rate_limit_enabled=False)
    assert rg["exit_code"] in (0, 1)
    assert comparable(rg) == comparable(native)


@pytest.mark.skipif(shutil.which("ugrep") is None, reason="ugrep not installed")
@pytest.mark.parametrize("query", QUERIES, ids=[json.dumps(q, ensure_ascii=False) for q in QUERIES])
def test_ugrep_and_native_agree(fixture_root, query):
    """ugrep reads .gitignore/.ignore files only inside the searched tree; the fixture keeps them at
    the root, where both engines apply them."""
    from tests.commands.profiles.conftest import Caller

    native = Caller(fixture_root).json(TOOL, query, backend="native", rate_limit_enabled=False)
    ugrep = Caller(fixture_root).json(TOOL, query, backend="ugrep", rate_limit_enabled=False)
    assert comparable(ugrep) == comparable(native)


LINUX = Path(os.environ.get("SLEUTH_BENCH_LINUX", "/root/.cache/sleuth-bench/linux"))


@pytest.mark.skipif(not (LINUX / "lib").is_dir(), reason="benchmark corpus not present")
@pytest.mark.parametrize("query", [
    {"pattern": "EXPORT_SYMBOL_GPL", "path": "lib", "max_results": 50},
    {"pattern": r"static\s+inline\s+\w+", "path": "lib/math", "max_results": 30, "context": 1},
    {"pattern": "kfree", "path": "lib", "word_regexp": True, "max_results": 40, "include_glob": ["*.c"]},
])
def test_rg_and_native_agree_on_the_kernel(query):
    from tests.commands.profiles.conftest import Caller

    native = Caller(LINUX).json(TOOL, query, backend="native", rate_limit_enabled=False)
    rg = Caller(LINUX).json(TOOL, query, backend="rg", rate_limit_enabled=False)
    assert comparable(rg) == comparable(native)


def test_rg_and_native_agree_across_several_folders(tmp_path):
    from sleuth.commands.tools_call import run as tools_call
    from sleuth.commands.config import Settings
    from tests.fixtures import context

    roots = []
    for name, files in (("api", {"x.py": "needle\n", "sub/y.txt": "a needle\n"}), ("web", {"z.ts": "needle()\n"})):
        root = tmp_path / name
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        roots.append(root)
    answers = []
    for backend in ("native", "rg"):
        ctx = context(roots, Settings(backend=backend, rate_limit_enabled=False))
        out = json.loads(tools_call({"name": TOOL, "arguments": {"pattern": "needle", "include_glob": ["*.py", "*.ts",
                                                                                                   "*.txt"]}}, ctx)["content"])
        answers.append(comparable(out))
    assert answers[0] == answers[1]
    assert [e["data"]["path"]["text"] for e in answers[0]["matches"]] == ["api/sub/y.txt", "api/x.py", "web/z.ts"]


@pytest.mark.skipif(not (LINUX / "lib").is_dir() or shutil.which("ugrep") is None,
                    reason="benchmark corpus or ugrep not present")
@pytest.mark.parametrize("query", [
    {"pattern": "EXPORT_SYMBOL_GPL", "path": "lib", "max_results": 5000},
    {"pattern": "kfree", "path": "mm", "word_regexp": True, "max_results": 5000},
])
def test_ugrep_and_native_agree_on_the_kernel(query):
    from tests.commands.profiles.conftest import Caller

    native = Caller(LINUX).json(TOOL, query, backend="native", rate_limit_enabled=False)
    ugrep = Caller(LINUX).json(TOOL, query, backend="ugrep", rate_limit_enabled=False)
    assert comparable(ugrep) == comparable(native)
