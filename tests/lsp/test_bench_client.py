"""The LSP benchmark's own client (``bench/lsp_client.py``, ``bench/lsp_bench.py``) against the real server.

The benchmark's figures are only worth quoting if its client speaks LSP correctly: frames split
right, server requests answered (else the server waits on them), the index's progress end seen,
answers equal to rg's. Checked here on a small temporary tree; nothing is timed.
"""

from __future__ import annotations

import os
import pathlib
import sys

import pytest

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from lsp_bench import PROBE_TOKEN, Server, bench_change, rg_lines  # noqa: E402
from lsp_client import RpcError, descendants, peak_rss_mb  # noqa: E402
from tests.conftest import HANG_S

RG = os.path.join(os.path.dirname(sys.executable), "rg")


@pytest.fixture
def tree(tmp_path: pathlib.Path) -> pathlib.Path:
    root = tmp_path / "ws"
    (root / "drivers" / "pm").mkdir(parents=True)
    (root / "drivers" / "pm" / "core.c").write_text(
        "#define PM_RESUME 1\nint pm_resume(void) { return PM_RESUME; }\n" + "filler line\n" * 2000)
    (root / "drivers" / "pm" / "héllo wörld.h").write_text("/* PM_RESUME in a non-ASCII path: ü */\n")
    (root / "README").write_text("nothing here\n")
    (root / ".gitignore").write_text("ignored/\n")
    (root / "ignored").mkdir()
    (root / "ignored" / "x.c").write_text("PM_RESUME\n")
    return root


@pytest.mark.skipif(not os.path.exists(RG), reason="rg is not next to the interpreter")
def test_bench_client_round_trips_match_rg_and_see_changes(tree: pathlib.Path, tmp_path: pathlib.Path) -> None:
    server = Server(str(tree), str(tmp_path / "cache"), str(tmp_path / "stderr"))
    try:
        assert server.indexing_ended(timeout=HANG_S) is not None  # the server's "Sleuth: indexing" progress ended
        assert server.wait(idle=True, timeout=HANG_S)["state"] == "ready"
        # The server treated the client as VS Code: it pulled the configuration, asked for progress tokens
        # and registered its file watchers (the client answers each like VS Code does).
        assert server.lsp.server_requests.get("workspace/configuration", 0) >= 1
        assert server.lsp.server_requests.get("window/workDoneProgress/create", 0) >= 1
        assert server.lsp.server_requests.get("client/registerCapability", 0) == 1

        for flags, pattern in (([], "PM_RESUME"), (["-i"], "pm_resume"), (["-w"], "PM_RESUME")):
            expected, _ = rg_lines(str(tree), flags, pattern)
            response = server.lsp.execute("sleuth.grep", {"pattern": pattern, "max_results": 10_000, "max_columns": 0,
                                                          "case": "insensitive" if "-i" in flags else "sensitive",
                                                          "word": "-w" in flags})
            got = {(m["path"], m["line"]) for m in response.result["matches"] if m["type"] == "match"}
            assert got == expected and expected, pattern
            assert response.seconds > 0 and response.size > 0

        with pytest.raises(RpcError) as error:  # an error answer reaches the caller as RpcError
            server.lsp.execute("sleuth.grep", {"pattern": "(", "max_results": 0})
        assert error.value.code is not None

        change = bench_change(server, str(tree))
        assert change["change_visible_to_grep_ms"] is not None
        assert not (tree / "sleuth_lsp_bench_probe.c").exists()
        assert server.grep({"pattern": PROBE_TOKEN})[0]["count"] == 0  # the deletion was seen too

        assert (peak_rss_mb(server.lsp.pid) or 0) > 10
        assert all(pid != server.lsp.pid for pid in descendants(server.lsp.pid))
    finally:
        server.close()
    assert server.lsp.proc.returncode == 0  # shutdown + exit: a clean exit
