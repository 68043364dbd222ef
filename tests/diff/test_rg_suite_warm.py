"""The port of ripgrep's integration tests, warm (issue 30 item 7: "byte-identical warm and cold").

Every case tree of :mod:`tests.diff.rg_cases` is built under one folder, which one ``sleuth serve``
serves (its index built first, as an editor's server has it). Each case's command line then runs
from the case's folder with ``--root`` naming the served folder, twice: through the warm door (the
server answers) and cold (``--no-server``); stdout, stderr and exit status must be the same bytes
(``--stats``/``--json`` times aside, as in :mod:`tests.diff.test_rg_suite`). How many warm answers
are also rg 15.2's is printed (``pytest -s``); the cold suite holds the cases to rg one by one.
Cases that pipe standard input or set variables (stdin is never searched by a server; the warm door
declines another environment) and pending ones are left out.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import subprocess
import sys
from typing import Any

import pytest

from tests.conftest import HANG_S, SLEUTH
from tests.diff.rg import needs_rg
from tests.diff.rg_cases import ALL_CASES
from tests.diff.test_rg_suite import PENDING_CASES, _argv, _comparable, _pending, build, run_rg

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "cli"))
from test_warm_cli import runtime_dir  # noqa: E402,F401  (a fixture)

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "lsp"))
from harness import start_session  # noqa: E402

from sleuth.core import warm  # noqa: E402

pytestmark = [pytest.mark.rg, needs_rg]

_WARM = "import sys\nfrom sleuth.cli import main\nsys.exit(main(sys.argv[1:]))"  # a fresh process, warm door


def _cases() -> list[dict[str, Any]]:
    """The cases run warm; ``SLEUTH_RG_WARM_ONLY=name,name`` runs only those (a whole run takes minutes)."""
    only = {n for n in os.environ.get("SLEUTH_RG_WARM_ONLY", "").split(",") if n}
    return [c for c in ALL_CASES if c.get("stdin") is None and not c.get("env") and not _pending(c)
            and c["name"] not in PENDING_CASES and (not only or c["name"] in only)]


def _run(cmd: list[str], cwd: pathlib.Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, stdin=subprocess.DEVNULL, timeout=HANG_S,
                          env=dict(os.environ))


async def _served(session: Any) -> int:
    metrics = await session.execute("sleuth.metrics", {})
    return int(metrics["by_name"].get("sleuth.grep", {}).get("invocations", 0))


async def test_every_ported_case_prints_the_same_warm_and_cold(tmp_path: pathlib.Path,
                                                               runtime_dir: pathlib.Path) -> None:  # noqa: F811
    root = tmp_path / "all"
    cases = _cases()
    for i, case in enumerate(cases):
        build(root / f"c{i:03d}", case["ops"])
    session = await start_session("vscode", [root], init_options={"cacheDir": str(tmp_path / "server-cache")})
    try:
        assert (await session.execute("sleuth.index.build", {"wait": True}))["state"] == "ready"
        for _ in range(400):  # the warm socket appears once the server listens: bounded poll
            if os.path.exists(warm.socket_path([os.path.realpath(root)]) or ""):
                break
            await asyncio.sleep(0.05)
        differ: list[str] = []
        like_rg = served = 0
        for i, case in enumerate(cases):
            here = root / f"c{i:03d}"
            cwd = here / case.get("cwd", "")
            argv = ["grep", "--root", str(root), *[os.fsdecode(a) for a in _argv(case, here)]]
            before = await _served(session)
            hot = await asyncio.to_thread(_run, [sys.executable, "-c", _WARM, *argv], cwd)
            served += await _served(session) > before
            cold = await asyncio.to_thread(_run, [SLEUTH, argv[0], "--no-server", *argv[1:]], cwd)
            if (_comparable(case, hot.stdout), hot.stderr, hot.returncode) != (
                    _comparable(case, cold.stdout), cold.stderr, cold.returncode):
                differ.append(case["name"])
            rg = await asyncio.to_thread(run_rg, case, here)
            like_rg += (_comparable(case, hot.stdout), hot.returncode) == (_comparable(case, rg.stdout), rg.returncode)
        print(f"\nwarm: {len(cases)} cases, {served} answered by the server, {like_rg} print rg 15.2's bytes "
              f"(with --root naming the served folder)")
        assert not differ, f"warm and cold differ: {differ}"
        assert served >= len(cases) / 2, f"the server answered only {served} of {len(cases)} cases"
    finally:
        await asyncio.wait_for(session.client.shutdown_session(), 30)
        await session.client.stop()
