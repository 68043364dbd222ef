"""Every door is made from the one list of the searches (``server/sleuth/searches.py``): each search
has its command, its module and argument table, its custom request, its MCP tool, its CLI subcommand
and, when warm, its place at the warm door and the fork server; and no door offers a search the list
does not have."""

from __future__ import annotations

import importlib

from sleuth.cli import SUBCOMMANDS
from sleuth.cli.fork_client import FORK_COMMANDS
from sleuth.commands import COMMAND_MODULES
from sleuth.core.registry import COMMANDS, STREAM_KEYS
from sleuth.core.warm import WARM_COMMANDS
from sleuth.lsp.features.requests import CUSTOM_REQUESTS
from sleuth.mcp.tools import SEARCH_TOOLS
from sleuth.searches import SEARCHES, by_command


def test_every_door_offers_each_search_as_the_list_says() -> None:
    assert [s.name for s in SEARCHES] == ["grep", "files", "text", "symbols"]
    for search in SEARCHES:
        module = importlib.import_module(COMMAND_MODULES[search.command])
        assert callable(module.run) and getattr(module, search.args_attr)
        assert COMMANDS[search.command].args_spec() is getattr(module, search.args_attr)
        assert STREAM_KEYS[search.command] == search.stream_key
        assert CUSTOM_REQUESTS[search.request] == search.command
        assert search.name in SUBCOMMANDS
        tool = next(t for t in SEARCH_TOOLS if t.command == search.command)
        assert (tool.name, tool.key) == (search.mcp_tool, search.stream_key)
        assert (search.command in WARM_COMMANDS) == search.warm == (search.name in FORK_COMMANDS)
        assert by_command(search.command) is search


def test_no_door_offers_a_search_the_list_lacks() -> None:
    commands = {s.command for s in SEARCHES}
    assert set(CUSTOM_REQUESTS.values()) == commands
    assert {t.command for t in SEARCH_TOOLS} == commands
    assert WARM_COMMANDS <= commands and FORK_COMMANDS <= {s.name for s in SEARCHES}
    assert {name for name, info in COMMANDS.items() if info.stream_key} == commands
