"""The one test hook that adds commands to a server (``core/test_commands.py``, issue 32 item 7).

It used to execute any ``.py`` file named in ``SLEUTH_TEST_COMMANDS``: a user's environment could make a
server run a file. Now it imports a module name only. Both checked on the installed ``sleuth mcp``, the
door whose tool list shows the extra commands."""

from __future__ import annotations

import pathlib

import pytest

pytest.importorskip("mcp")

from tests.conftest import write_tree  # noqa: E402
from tests.fixtures import with_test_commands  # noqa: E402
from tests.mcp.test_mcp_server import PLUMBING, _env, connect  # noqa: E402

PLANTED = '''
import pathlib
pathlib.Path({marker!r}).write_text("executed")
COMMANDS = {{"sleuth.test.planted": lambda args, ctx: {{}}}}
'''


async def _tools(tmp_path: pathlib.Path, env: dict[str, str]) -> set[str]:
    ws = write_tree(tmp_path / "ws", {"a.txt": "x\n"})
    async with connect(tmp_path, "legacy", [ws], env=env) as client:
        return {tool.name for tool in (await client.list_tools()).tools}


async def test_a_file_path_in_the_environment_is_never_executed(tmp_path: pathlib.Path) -> None:
    marker = tmp_path / "marker"
    planted = tmp_path / "planted.py"
    planted.write_text(PLANTED.format(marker=str(marker)))
    tools = await _tools(tmp_path, _env(tmp_path, SLEUTH_TEST_COMMANDS=str(planted)))
    assert not marker.exists()
    assert "grep" in tools and "sleuth_test_planted" not in tools and "debug_workers" not in tools


async def test_a_module_name_on_the_path_adds_its_commands(tmp_path: pathlib.Path) -> None:
    tools = await _tools(tmp_path, with_test_commands(_env(tmp_path), PLUMBING))
    assert {"sleuth_test_endless", "debug_workers"} <= tools
