"""The installed ``sleuth`` with no server answers from a current index store, as a scan would (issue 34).

A tree above :data:`sleuth.core.cold_store.SMALL_STORE_FILES` files is indexed by ``sleuth index build``;
then ``sleuth grep`` and ``sleuth text`` run cold (``--no-server``, no server anywhere). Each answer
is compared with the same command run against an empty cache (no store: the scan), byte for byte;
``files_scanned`` (``--result-json``) tells whether the index narrowed the search. Files created,
changed and deleted after the build are found as the scan finds them; a store that is damaged or
was built under other settings is not used.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from sleuth.core.cold_store import SMALL_STORE_FILES
from tests.conftest import HANG_S, SLEUTH

FILES = SMALL_STORE_FILES + 100


def _tree(root: Path) -> None:
    for i in range(FILES):
        folder = root / f"d{i % 25}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i}.c").write_text(f"int value_{i};\n" + ("NEEDLE_COLD here\n" if i % 100 == 0 else "hay\n"),
                                        encoding="utf-8")


def _run(root: Path, cache: Path, *argv: str, config: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SLEUTH_NO_SERVER"}
    env["XDG_CACHE_HOME"] = str(cache)
    if config is not None:
        env["XDG_CONFIG_HOME"] = str(config)
    cold = [] if argv[0] == "index" else ["--no-server"]
    return subprocess.run([SLEUTH, *argv, *cold], cwd=root, capture_output=True, text=True, timeout=120,
                          env=env)


def _scanned(root: Path, cache: Path, config: Path | None = None) -> int:
    out = _run(root, cache, "grep", "--result-json", "NEEDLE_COLD", config=config)
    return int(json.loads(out.stdout)["files_scanned"])


def _same_as_scan(root: Path, cache: Path, empty: Path) -> None:
    for argv in (["grep", "-n", "NEEDLE_COLD"], ["grep", "-c", "-i", "needle_cold"], ["grep", "-l", "value_7"],
                 ["grep", "ZZ_NOT_THERE"], ["grep", "-g", "nomatch*", "NEEDLE_COLD"], ["text", "needle cold"],
                 ["symbols", "value_7"]):
        indexed, scanned = _run(root, cache, *argv), _run(root, empty, *argv)
        assert (indexed.stdout, indexed.stderr, indexed.returncode) == \
            (scanned.stdout, scanned.stderr, scanned.returncode), argv


def test_cold_cli_reads_a_current_store_and_sees_every_change(tmp_path: Path) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    _tree(root)
    built = _run(root, cache, "index", "build")
    assert built.returncode == 0, built.stderr
    time.sleep(2.1)  # past the stamps' racy window (freshness.RACY_NS): the folders' times are trusted
    assert _scanned(root, cache) == FILES // 100  # the candidates only
    assert _scanned(root, tmp_path / "empty") == FILES  # (the scan reads every file)
    _same_as_scan(root, cache, tmp_path / "empty")
    (root / "d3" / "new.c").write_text("NEEDLE_COLD new\n", encoding="utf-8")
    with open(root / "d4" / "f4.c", "a", encoding="utf-8") as handle:
        handle.write("NEEDLE_COLD appended\n")
    (root / "d0" / "f0.c").unlink()
    (root / "d9" / "f9.c").write_text("hay only\n", encoding="utf-8")
    _same_as_scan(root, cache, tmp_path / "empty2")
    assert _scanned(root, cache) < FILES // 10  # still narrowed: only the changed files read besides


def test_cold_cli_scans_past_a_damaged_or_foreign_store(tmp_path: Path) -> None:
    root, cache = tmp_path / "ws", tmp_path / "cache"
    _tree(root)
    assert _run(root, cache, "index", "build").returncode == 0
    config = tmp_path / "config"
    (config / "sleuth").mkdir(parents=True)
    (config / "sleuth" / "config.yml").write_text("deny_globs: ['d1/**']\n", encoding="utf-8")
    assert _scanned(root, cache, config) == FILES - FILES // 25  # other settings: every file not denied is read
    (post,) = cache.glob("sleuth/*/gen-*/shard-0.post")
    post.write_bytes(b"\x7f" * post.stat().st_size)  # a flipped disk: the lists no longer add up
    _same_as_scan(root, cache, tmp_path / "empty")


def test_cold_text_passes_over_a_named_pipe_put_in_a_files_place(tmp_path: Path) -> None:
    """A candidate of the store replaced by a named pipe since the build is passed over, not waited on:
    a plain ``open`` waits for a writer that never comes, and ``sleuth text`` read the index's candidates
    so even once the check had found the file gone (the call hung), as it now also does while the check
    runs (it ranks on the store as built meanwhile). The answer shown is the scan's."""
    root, cache = tmp_path / "ws", tmp_path / "cache"
    _tree(root)
    assert _run(root, cache, "index", "build").returncode == 0
    time.sleep(2.1)  # past the stamps' racy window (freshness.RACY_NS)
    (root / "d0" / "f0.c").unlink()
    os.mkfifo(root / "d0" / "f0.c")  # held NEEDLE_COLD at the build: a candidate
    indexed, scanned = _run(root, cache, "text", "needle cold"), _run(root, tmp_path / "empty", "text", "needle cold")
    assert indexed.returncode == 0 and "d0/f100.c" in indexed.stdout and "d0/f0.c" not in indexed.stdout
    assert (indexed.stdout, indexed.stderr, indexed.returncode) == (scanned.stdout, scanned.stderr, scanned.returncode)


def test_cold_text_imports_no_masked_arrays(tmp_path: Path) -> None:
    """The index's file sets are made without ``np.unique``, which in numpy 2 imports ``numpy.ma`` at its
    first call: ~20 ms of a cold ``sleuth text`` on the Linux tree's store, for nothing it uses."""
    root, cache = tmp_path / "ws", tmp_path / "cache"
    _tree(root)
    assert _run(root, cache, "index", "build").returncode == 0
    probe = ("import sys\nfrom sleuth.cli import main\nmain(sys.argv[2:])\n"  # (in-process: it returns)
             "sys.stderr.write(repr(sorted(m for m in sys.modules if m.startswith('numpy'))))")
    env = {k: v for k, v in os.environ.items() if k != "SLEUTH_NO_SERVER"}
    env["XDG_CACHE_HOME"] = str(cache)
    done = subprocess.run([sys.executable, "-c", probe, SLEUTH, "text", "needle cold", "--no-server"], cwd=root,
                          capture_output=True, text=True, timeout=HANG_S, env=env)
    assert "d0/f100.c" in done.stdout
    modules = done.stderr[done.stderr.rindex("["):]
    assert "'numpy'" in modules and "'numpy.ma'" not in modules  # (the store answered: numpy is the index's)


def test_cold_text_and_symbols_end_without_the_interpreters_teardown(tmp_path: Path) -> None:
    """A cold ``sleuth text``/``symbols`` closes what it opened and then leaves at once (``os._exit``:
    tearing the index stack down cost ~17 ms of CPU after the answer): no exit hook runs in it, its
    output and status are the scan's. ``sleuth --version`` ends as before (the hook runs: the control)."""
    root, cache = tmp_path / "ws", tmp_path / "cache"
    _tree(root)
    assert _run(root, cache, "index", "build").returncode == 0
    hooks, marks = tmp_path / "hooks", tmp_path / "marks"
    hooks.mkdir()
    marks.mkdir()
    (hooks / "sitecustomize.py").write_text(
        "import atexit, os\natexit.register(lambda: open(os.path.join(os.environ['SLEUTH_TEST_EXIT_MARKS'],"
        " str(os.getpid())), 'w').close())\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "SLEUTH_NO_SERVER"}
    env.update(PYTHONPATH=str(hooks), SLEUTH_TEST_EXIT_MARKS=str(marks))

    def run(cache_dir: Path, *argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([SLEUTH, *argv, "--no-server"], cwd=root, capture_output=True, text=True,
                              timeout=HANG_S, env={**env, "XDG_CACHE_HOME": str(cache_dir)})

    version = subprocess.run([SLEUTH, "--version"], capture_output=True, timeout=HANG_S, env=env)
    assert version.returncode == 0 and len(list(marks.iterdir())) == 1  # (the hook runs in a call that tears down)
    calls = [(["text", "needle cold"], 0), (["text", "zzqq nowhere"], 1), (["symbols", "value_7"], 0)]
    stored = [run(cache, *argv) for argv, _ in calls]
    assert [s.returncode for s in stored] == [status for _, status in calls]
    assert len(list(marks.iterdir())) == 1  # they left: no teardown
    for (argv, status), answer in zip(calls, stored):  # (a build's workers run the hook: after the count)
        scanned = run(tmp_path / f"empty-{argv[1]}", *argv)
        assert (answer.stdout, answer.stderr) == (scanned.stdout, scanned.stderr) and scanned.returncode == status
