"""Hostile trees (issue 20, area 3): every search completes, with per-file errors, and finds what rg finds.

The trees hold what a cloned repository or a build directory may hold: FIFOs and sockets (a read
would block or fail), links to devices, a 200 MB file that is one line, a 1 GB sparse file, UTF-16
with and without a byte-order mark, names that are not UTF-8, a folder chain far deeper than
PATH_MAX, many thousands of empty files, files that vanish while a search runs, and files and
folders a user cannot read. Each is searched through the CLI (a cold scan) and through the language
server (the index), and the answers are compared with ripgrep 15.2's where rg is the oracle.
"""

from __future__ import annotations

import asyncio
import codecs
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import threading
from typing import Any, Iterator

import pytest

from tests.conftest import HANG_S, RG, SLEUTH

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="FIFOs, sockets and /dev links as on Linux")

NEEDLE = "NEEDLE"


def _sleuth(cwd: pathlib.Path, *argv: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, XDG_CACHE_HOME=str(cwd.parent / "cache"))
    return subprocess.run([SLEUTH, *argv], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env)


def _sleuth_json(cwd: pathlib.Path, *argv: str) -> dict[str, Any]:
    proc = _sleuth(cwd, "grep", "--result-json", *argv)
    assert proc.returncode in (0, 1, 2), proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout)


def _rg_lines(cwd: pathlib.Path, *argv: str) -> set[tuple[str, int]]:
    proc = subprocess.run([RG, "--json", *argv], cwd=cwd, capture_output=True, timeout=300)
    found = set()
    for raw in proc.stdout.splitlines():
        message = json.loads(raw)
        if message["type"] == "match":
            data = message["data"]["path"]
            path = data.get("text") if "text" in data else codecs.decode(
                __import__("base64").b64decode(data["bytes"]), "utf-8", "replace")
            found.add((path[2:] if path.startswith("./") else path, message["data"]["line_number"]))
    return found


def _lines(result: dict[str, Any]) -> set[tuple[str, int]]:
    return {(m["path"], m["line"]) for m in result["matches"] if m.get("type", "match") == "match"}


def _make_deep(root: pathlib.Path, depth: int) -> None:
    """A chain of ``depth`` one-letter folders, made through descriptors (its path is far past PATH_MAX)."""
    os.mkdir(root / "deep")
    fd = os.open(root / "deep", os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            nxt = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nxt
        out = os.open("x.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, f"{NEEDLE} at the bottom\n".encode())
        os.close(out)
    finally:
        os.close(fd)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[pathlib.Path]:
    root = tmp_path_factory.mktemp("hostile") / "ws"
    root.mkdir()
    (root / "plain.txt").write_text(f"{NEEDLE} plain\n")
    os.mkfifo(root / "fifo")
    os.symlink("fifo", root / "fifo-link")  # a link inside the workspace to a FIFO: reading it would block
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(root / "sock"))
    sock.close()
    os.symlink("/dev/zero", root / "zero")
    os.symlink("/dev/urandom", root / "random")
    with open(root / "sparse.bin", "wb") as fh:  # 1 GB of holes: binary from its first byte
        fh.truncate(1 << 30)
    with open(root / "one-line.txt", "wb") as fh:  # 200 MB and a single line
        fh.write(b"a" * (200 << 20) + f" {NEEDLE}\n".encode())
    (root / "u16le-bom.txt").write_bytes(codecs.BOM_UTF16_LE + f"{NEEDLE} le\n".encode("utf-16-le"))
    (root / "u16be-bom.txt").write_bytes(codecs.BOM_UTF16_BE + f"{NEEDLE} be\n".encode("utf-16-be"))
    (root / "u16le-nobom.txt").write_bytes(f"{NEEDLE} no bom\n".encode("utf-16-le"))
    with open(os.path.join(os.fsencode(root), b"bad\xff\xfename.txt"), "wb") as fh:
        fh.write(f"{NEEDLE} in a name that is not UTF-8\n".encode())
    (root / "latin1.txt").write_bytes(f"caf\xe9 {NEEDLE}\n".encode("latin-1"))
    _make_deep(root, 5000)
    yield root
    # GNU rm walks any depth; Python 3.11's shutil.rmtree (pytest's clean-up of old runs) recurses
    # and would fail on this chain.
    subprocess.run(["rm", "-rf", str(root / "deep")], check=False, timeout=300)


def test_the_cli_completes_on_a_hostile_tree_and_finds_what_rg_finds(hostile: pathlib.Path) -> None:
    result = _sleuth_json(hostile, NEEDLE)
    found = _lines(result)
    assert ("plain.txt", 1) in found and ("one-line.txt", 1) in found
    assert ("u16le-bom.txt", 1) in found and ("u16be-bom.txt", 1) in found
    assert ("bad\ufffd\ufffdname.txt", 1) in found and ("latin1.txt", 1) in found
    if RG:
        assert found == _rg_lines(hostile, NEEDLE)
    # The chain past PATH_MAX is reported as a per-entry error, never a crash.
    assert any(e["path"].startswith("deep/d/d/") for e in result["errors"]), result["errors"]


def test_following_links_in_a_hostile_tree_never_reads_devices_or_blocks_on_fifos(hostile: pathlib.Path) -> None:
    proc = _sleuth(hostile, "grep", "--result-json", "-L", NEEDLE, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode in (0, 2), proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    paths = {m["path"] for m in result["matches"]}
    assert {"plain.txt", "one-line.txt"} <= paths
    assert not paths & {"zero", "random", "fifo", "fifo-link", "sock"}
    errors = {e["path"]: e["error"] for e in result["errors"]}
    assert "outside the workspace" in errors.get("zero", "") and "outside the workspace" in errors.get("random", "")


def test_named_special_files_are_per_file_errors(hostile: pathlib.Path) -> None:
    result = _sleuth_json(hostile, NEEDLE, "fifo", "sock", "plain.txt")
    assert _lines(result) == {("plain.txt", 1)}
    assert {e["path"] for e in result["errors"]} >= {"fifo", "sock"}


def test_file_search_lists_a_hostile_tree(hostile: pathlib.Path) -> None:
    proc = _sleuth(hostile, "files", "**")
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    listed = set(proc.stdout.splitlines())
    assert {"plain.txt", "sparse.bin", "one-line.txt", "bad\ufffd\ufffdname.txt"} <= listed
    assert not listed & {"fifo", "sock", "zero", "random", "fifo-link"}


def test_many_empty_files(tmp_path: pathlib.Path) -> None:
    """200,000 empty files in 400 folders: grep and file search complete and count every one."""
    root = tmp_path / "ws"
    for d in range(400):
        folder = root / f"d{d:03}"
        folder.mkdir(parents=True)
        fd = os.open(folder, os.O_RDONLY)
        try:
            for i in range(500):
                os.close(os.open(f"f{i:03}", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
        finally:
            os.close(fd)
    (root / "d123" / "f456").write_text(f"{NEEDLE}\n")
    result = _sleuth_json(root, NEEDLE, "--max-results", "5")
    assert _lines(result) == {("d123/f456", 1)} and result["files_scanned"] == 200_000
    listed = _sleuth(root, "files", "**/f4*")
    assert listed.returncode == 0 and len(listed.stdout.splitlines()) == 400 * 100


def test_files_vanishing_and_appearing_during_a_scan(tmp_path: pathlib.Path) -> None:
    """A writer deletes and recreates files while grep scans: the scan completes, every reported line
    is a line the file held, and the files nobody touched are all found."""
    root = tmp_path / "ws"
    for d in range(20):
        (root / f"stable{d:02}").mkdir(parents=True)
        (root / f"churn{d:02}").mkdir(parents=True)
        for i in range(100):
            (root / f"stable{d:02}" / f"{i:03}.txt").write_text(f"{NEEDLE} stable\n")
            (root / f"churn{d:02}" / f"{i:03}.txt").write_text(f"{NEEDLE} churn\n")
    stop = threading.Event()

    def churn() -> None:
        n = 0
        while not stop.is_set() and n < 200_000:
            d, i = n % 20, (n // 20) % 100
            path = root / f"churn{d:02}" / f"{i:03}.txt"
            try:
                path.unlink()
                path.write_text(f"{NEEDLE} churn\n")
            except OSError:
                pass
            n += 1

    writer = threading.Thread(target=churn)
    writer.start()
    try:
        runs = [_sleuth_json(root, NEEDLE) for _ in range(3)]
    finally:
        stop.set()
        writer.join()
    for result in runs:
        stable = {m["path"] for m in result["matches"] if m["path"].startswith("stable")}
        assert len(stable) == 2000
        assert all(m["text"].rstrip("\n") in (f"{NEEDLE} stable", f"{NEEDLE} churn") for m in result["matches"])


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="needs root to run the search as an unprivileged user (setpriv)")
def test_unreadable_files_and_folders_are_reported_to_an_unprivileged_user(tmp_path: pathlib.Path) -> None:
    """As a user who cannot read them (root reads everything), a mode-000 file and folder are errors
    in the answer, as rg reports them, and the rest is searched."""
    import tempfile

    base = pathlib.Path(tempfile.mkdtemp(prefix="sleuth-perm-"))
    try:
        os.chmod(base, 0o755)
        root = base / "ws"
        (root / "zero_dir").mkdir(parents=True)
        (root / "zero_dir" / "in.txt").write_text(f"{NEEDLE}\n")
        (root / "ok.txt").write_text(f"{NEEDLE}\n")
        (root / "closed.txt").write_text(f"{NEEDLE}\n")
        os.chmod(root, 0o755)
        os.chmod(root / "zero_dir", 0)
        os.chmod(root / "closed.txt", 0)
        cache = base / "cache"
        cache.mkdir()
        os.chmod(cache, 0o777)
        env = dict(os.environ, XDG_CACHE_HOME=str(cache), HOME=str(cache))
        proc = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                               SLEUTH, "grep", "--result-json", NEEDLE],
                              cwd=root, capture_output=True, text=True, timeout=120, env=env)
        assert "Traceback" not in proc.stderr, proc.stderr
        result = json.loads(proc.stdout)
        assert _lines(result) == {("ok.txt", 1)}
        errors = {e["path"]: e["error"].lower() for e in result["errors"]}
        assert "permission denied" in errors.get("zero_dir", "") and "permission denied" in errors.get("closed.txt", "")
        assert proc.returncode == 2
    finally:
        for dirpath, dirnames, _ in os.walk(base):
            for name in dirnames:
                os.chmod(os.path.join(dirpath, name), 0o755)
        shutil.rmtree(base, ignore_errors=True)


async def test_the_language_server_answers_on_a_hostile_tree(hostile: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """The same tree through the server, cold and then indexed: the same lines as the CLI, per-file
    errors for the chain past PATH_MAX, and status answered throughout."""
    from harness import start_session  # the LSP tests' harness (on the path: tests/adversarial/conftest.py)

    session = await start_session("minimal", [hostile], init_options={"cacheDir": str(tmp_path / "cache")})
    try:
        # The server caps file size (max_file_size_bytes, 100 MiB by default); the CLI, as rg, does not.
        cli = _lines(_sleuth_json(hostile, NEEDLE, "--max-filesize", str(100 << 20)))
        assert ("one-line.txt", 1) not in cli
        cold = await session.execute("sleuth.grep", {"pattern": NEEDLE, "max_results": 1000})
        # Python 3.11's os.walk recurses, so the file watcher cannot watch a chain 5,000 folders deep:
        # it says so and the index falls back to rescans (after one, the index is ready).
        await asyncio.wait_for(session.execute("sleuth.index.build", {"wait": True}), 600)

        async def ready() -> dict[str, Any]:
            while (status := await session.execute("sleuth.index.status", {}))["state"] != "ready":
                await asyncio.sleep(0.1)
            return status

        await asyncio.wait_for(ready(), 120)
        warm = await session.execute("sleuth.grep", {"pattern": NEEDLE, "max_results": 1000})
        for result in (cold, warm):
            assert _lines(result) == cli
        for result in (cold, warm):
            assert any(e["path"].startswith("deep/d/d/") for e in result["errors"])
        files = await session.execute("sleuth.files", {"patterns": ["**"]})
        listed = {item["path"] for item in files["items"]}
        assert not listed & {"fifo", "sock", "zero", "random", "fifo-link"}
    finally:
        await asyncio.wait_for(session.client.shutdown_session(), HANG_S)
        await session.client.stop()
