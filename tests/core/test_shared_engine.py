"""One engine per workspace (issue 29): a second and third ``sleuth serve`` on the same folders use the
engine (index, watcher, worker pool) of the first instead of their own, answer as a lone door would,
and take the engine over when its process dies mid-request.

Real processes (the installed ``sleuth``), a real temp tree and store; what runs where is read from
``/proc`` (inotify instances, child processes) and from each door's ``sleuth.index.status``
(``engine.pid``). The search gate (``SLEUTH_TEST_SEARCH_GATE``) holds a grep after its first batch, so
"mid-request" is an event, never a clock.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import shutil
import signal
import sys
import tempfile
import time
from typing import Any, AsyncIterator, Iterator

import pytest
import pytest_asyncio

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "lsp"))
from harness import Session, start_session  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench"))
from lsp_client import descendants, inotify_instances  # noqa: E402  (the benchmarks' /proc readers)

from sleuth.engine.platform import observer_kind  # noqa: E402
from tests.conftest import HANG_S, SLEUTH  # noqa: E402

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts processes and inotify in /proc")

FILES = {f"src/mod{n:02}.py": f"def handler_{n}(request):\n    return 'shared engine {n}'\n\nclass Door{n}:\n    pass\n"
         for n in range(300)}  # more than a server searches in-process unnarrowed: the pool starts
FILES["docs/guide.md"] = "# Guide\n\nOne shared engine per workspace.\n"
GREPS = [{"pattern": "shared engine"}, {"pattern": r"def handler_\d+", "max_results": 7},
         {"pattern": r"\w{6} \w{6} \d+"}]  # no literal: the index narrows nothing, the pool searches


@pytest.fixture
def runtime_dir(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[pathlib.Path]:
    """A private XDG_RUNTIME_DIR (the doors' sockets and lock) and cache, shared by this test's servers."""
    run = pathlib.Path(tempfile.mkdtemp(prefix="sleuth-run-"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("SLEUTH_OWN_ENGINE", raising=False)
    yield run
    shutil.rmtree(run, ignore_errors=True)


@pytest.fixture
def tree(tmp_path: pathlib.Path) -> pathlib.Path:
    root = tmp_path / "ws"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


@pytest_asyncio.fixture
async def doors(runtime_dir: pathlib.Path, tmp_path: pathlib.Path) -> AsyncIterator[list[Session]]:
    started: list[Session] = []
    yield started
    for door in started:
        try:
            await asyncio.wait_for(door.client.shutdown_session(), 30)
        except Exception:
            pass
        try:
            await door.client.stop()
        except Exception:
            pass


async def open_door(doors: list[Session], tree: pathlib.Path, tmp_path: pathlib.Path, **options: Any) -> Session:
    """``sleuth serve`` on ``tree`` with the store in the test's cache folder (every door the same)."""
    door = await start_session("vscode", [tree], init_options={"cacheDir": str(tmp_path / "store"), **options})
    doors.append(door)
    status = await door.execute("sleuth.index.build", {"wait": True})
    assert status["state"] == "ready"
    return door


def pid(door: Session) -> int:
    return door.client._server.pid  # type: ignore[union-attr]


async def engine_of(door: Session) -> dict[str, Any]:
    return (await door.execute("sleuth.index.status", {}))["engine"]


async def answers(door: Session) -> list[Any]:
    found = [await door.execute("sleuth.grep", args) for args in GREPS]
    found.append(await door.execute("sleuth.text", {"query": "handler request"}))
    found.append(await door.execute("sleuth.symbols", {"query": "Door17"}))
    found.append(await door.execute("sleuth.files", {"query": "mod17"}))
    return [_stable(result) for result in found]


def _stable(result: dict[str, Any]) -> dict[str, Any]:
    """The answer without its timings; a search cut at ``max_results`` without how many files it had
    read by then (in-process or by the pool's read-ahead: a lone door's own runs differ in it too)."""
    varying = ("elapsed_ms", "stats", "timings") + (("files_scanned", "files_matched") if result.get("truncated")
                                                   else ())
    return {k: v for k, v in result.items() if k not in varying}


async def test_three_doors_share_one_engine_and_answer_as_a_lone_door(
        doors: list[Session], tree: pathlib.Path, tmp_path: pathlib.Path) -> None:
    lone = await answers(await open_door(doors, tree, tmp_path))
    host = doors[0]
    guests = [await open_door(doors, tree, tmp_path) for _ in range(2)]
    for door in (host, *guests):
        assert await answers(door) == lone
    assert await engine_of(host) == {"pid": pid(host), "role": "host", "guests": 2}
    for guest in guests:
        engine = await engine_of(guest)
        assert engine["pid"] == pid(host) and engine["role"] == "guest"
        assert descendants(pid(guest)) == []  # no worker pool of its own
        if observer_kind() == "native":
            assert inotify_instances(pid(guest)) == 0  # no watcher of its own
    assert descendants(pid(host))  # the one pool ran every door's greps
    if observer_kind() == "native":
        assert inotify_instances(pid(host), *descendants(pid(host))) >= 1


async def test_differing_settings_keep_their_own_engine_and_say_why(
        doors: list[Session], tree: pathlib.Path, tmp_path: pathlib.Path, capfd: pytest.CaptureFixture[str]) -> None:
    host = await open_door(doors, tree, tmp_path)
    other = await open_door(doors, tree, tmp_path, denyGlobs=["docs/**"])
    assert await engine_of(other) == {"pid": pid(other), "role": "own", "guests": 0}
    assert (await engine_of(host))["guests"] == 0
    assert "guide.md" not in str(await other.execute("sleuth.grep", {"pattern": "shared engine"}))
    assert "guide.md" in str(await host.execute("sleuth.grep", {"pattern": "shared engine"}))
    said: list[str] = []

    def logged() -> bool:  # the server's stderr, forwarded by the client as it comes
        said.append(capfd.readouterr().err)
        return "own engine" in "".join(said)

    await other.eventually(logged)
    lines = [line for line in "".join(said).splitlines() if "own engine" in line]
    assert len(lines) == 1 and "other settings: deny_globs" in lines[0]


@pytest.mark.parametrize("how", ["kill", "cancel"])
async def test_a_held_search_on_a_guest(doors: list[Session], tree: pathlib.Path, tmp_path: pathlib.Path,
                                        monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """``kill``: the host dies (kill -9) while it holds the guest's grep: the guest takes the engine over
    and answers the request in full from its own engine. ``cancel``: the guest's client cancels the
    request: the host's search stops (its activity counts the cancel)."""
    gate = tmp_path / "search-gate"
    monkeypatch.setenv("SLEUTH_TEST_SEARCH_GATE", str(gate))
    host = await open_door(doors, tree, tmp_path)
    guest = await open_door(doors, tree, tmp_path)
    whole = await guest.execute("sleuth.grep", {"pattern": "shared engine"})
    assert (await engine_of(guest))["pid"] == pid(host)
    gate.write_text("held\n")
    msg_id = guest.next_id()
    pending = guest.send("sleuth/grep", {"pattern": "shared engine", "partialResultToken": "p"}, msg_id)
    await guest.first_progress("p")  # the host streamed its first batch and holds the rest
    if how == "cancel":
        guest.cancel(msg_id)
        with pytest.raises(Exception, match="[Cc]ancel"):
            await asyncio.wait_for(pending, HANG_S)
        state = await host.until_idle()
        assert state["cancelled"] >= 1 and (await guest.workers())["started"] >= 1
        return
    os.kill(pid(host), signal.SIGKILL)
    await asyncio.wait_for(host.client._server.wait(), HANG_S)  # type: ignore[union-attr]
    doors.remove(host)
    engine = await asyncio.wait_for(engine_of(guest), HANG_S)  # answered while the grep is held again
    assert engine["pid"] == pid(guest) and engine["role"] in ("own", "host")
    gate.unlink()
    answer = await asyncio.wait_for(pending, HANG_S)
    streamed = [item for value in guest.progress["p"] for item in value["matches"]]
    assert streamed + answer["matches"] == whole["matches"]


def mcp_processes() -> list[int]:
    """The ``sleuth mcp`` processes this test started (children of the MCP client, under this process)."""
    found = []
    for process in descendants(os.getpid()):
        try:
            with open(f"/proc/{process}/cmdline", "rb") as handle:
                argv = handle.read().split(b"\0")
        except OSError:
            continue
        if b"mcp" in argv and any(arg.endswith(b"sleuth") for arg in argv):
            found.append(process)
    return found


async def mcp_answers(tree: pathlib.Path, tmp_path: pathlib.Path, env: dict[str, str]) -> tuple[list[Any], int, int]:
    """The MCP door's answers to the searches, and its own inotify instances and child processes."""
    mcp = pytest.importorskip("mcp")
    before = set(mcp_processes())  # an earlier MCP door of this test may still be on its way out
    params = mcp.StdioServerParameters(command=SLEUTH, args=["mcp", "--root", str(tree), "--cache-dir",
                                                             str(tmp_path / "store")], cwd=str(tree), env=env)
    async with mcp.Client(params, read_timeout_seconds=HANG_S) as client:
        found = []
        # search_text first: an MCP door waits for its index there, so the greps after it are answered
        # from a ready index by both doors (a lone door's grep before that is a scan, which carries no
        # files_in_workspace: the answers differed when the opted-out door's index was slower, as forced
        # fallbacks make it)
        for tool, args in [("search_text", {"query": "handler request"}), *(("grep", g) for g in GREPS),
                           ("find_symbols", {"query": "Door17"}), ("find_files", {"query": "mod17"})]:
            result = await client.call_tool(tool, args)
            found.append(_stable(result.structured_content or {}))
        (process,) = set(mcp_processes()) - before
        return found, inotify_instances(process), len(descendants(process))


async def test_an_mcp_door_uses_the_editor_door_engine(doors: list[Session], tree: pathlib.Path,
                                                       tmp_path: pathlib.Path) -> None:
    """``sleuth mcp`` beside ``sleuth serve`` on the same folder: no index, watcher or pool of its own,
    the answers of an MCP door with its own engine (``SLEUTH_OWN_ENGINE=1``, the opt-out)."""
    host = await open_door(doors, tree, tmp_path)
    own, own_inotify, _ = await mcp_answers(tree, tmp_path, {**os.environ, "SLEUTH_OWN_ENGINE": "1"})
    shared, shared_inotify, shared_children = await mcp_answers(tree, tmp_path, dict(os.environ))
    assert shared == own
    assert shared_children == 0
    if observer_kind() == "native":
        assert own_inotify >= 1 and shared_inotify == 0
    while (await engine_of(host))["guests"]:  # the MCP door left: the host sees its hello connection end
        await asyncio.sleep(0.02)


async def test_a_guest_editor_unsaved_text_is_searched(doors: list[Session], tree: pathlib.Path,
                                                       tmp_path: pathlib.Path) -> None:
    """The guest's open buffers go with its request: its grep, text and symbols read its unsaved text
    (as a lone door's do), the host's own searches read the file on disk."""
    host = await open_door(doors, tree, tmp_path)
    guest = await open_door(doors, tree, tmp_path)
    guest.open(tree / "src" / "mod03.py", "def unsaved_only_here():\n    pass\n")
    found = await guest.execute("sleuth.grep", {"pattern": "unsaved_only_here"})
    assert found["count"] == 1 and "mod03.py" in str(found["matches"])
    assert (await engine_of(guest))["pid"] == pid(host)
    assert "mod03.py" not in str((await host.execute("sleuth.grep", {"pattern": "unsaved_only_here"}))["matches"])
    text = await guest.execute("sleuth.text", {"query": "unsaved_only_here"})
    assert text["source"] == "index" and "mod03.py" in str(text["results"])
    symbols = await guest.execute("sleuth.symbols", {"query": "unsaved_only_here"})
    assert [r["name"] for r in symbols["results"]] == ["unsaved_only_here"]
    assert "mod03.py" not in str(await host.execute("sleuth.symbols", {"query": "unsaved_only_here"}))
    assert "mod03.py" not in str((await host.execute("sleuth.text", {"query": "unsaved_only_here"}))["results"])


async def test_one_guest_takes_over_and_the_other_becomes_its_guest(
        doors: list[Session], tree: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """kill -9 of the host with two guests: both see it gone; the one that takes the lock binds the door
    and starts an engine, the other becomes its guest (one engine again, not two)."""
    host = await open_door(doors, tree, tmp_path)
    guests = [await open_door(doors, tree, tmp_path) for _ in range(2)]
    os.kill(pid(host), signal.SIGKILL)
    await asyncio.wait_for(host.client._server.wait(), HANG_S)  # type: ignore[union-attr]
    doors.remove(host)
    engines = [await asyncio.wait_for(engine_of(guest), HANG_S) for guest in guests]
    deadline = time.monotonic() + HANG_S
    # Until both settle: a call that reached the dead host runs again, and the winner, asked before the
    # other guest's door reached it, still says ``own`` (it counts a guest once it has one: a CI flake).
    while ((any(engine["pid"] == pid(host) for engine in engines)
            or sorted(engine["role"] for engine in engines) != ["guest", "host"]) and time.monotonic() < deadline):
        await asyncio.sleep(0.02)
        engines = [await asyncio.wait_for(engine_of(guest), HANG_S) for guest in guests]
    winner = [guest for guest, engine in zip(guests, engines) if engine["pid"] == pid(guest)]
    assert len(winner) == 1
    assert [engine["pid"] for engine in engines] == [pid(winner[0])] * 2
    assert sorted(engine["role"] for engine in engines) == ["guest", "host"]
    assert (await winner[0].execute("sleuth.index.build", {"wait": True}))["state"] == "ready"
    lone = [_stable(await guests[0].execute("sleuth.grep", args)) for args in GREPS]
    assert [_stable(await guests[1].execute("sleuth.grep", args)) for args in GREPS] == lone
