"""Regression: the server took only ``tools.search`` (and ``sleuth``) from seed 004's shared
``.agent/config.yml``, while the CLI fed the whole file to the settings merge: other tools' keys
were reported as unknown Sleuth settings on every CLI call, and a top-level key meant for
another tool could change Sleuth's settings on the command line but not in the editor.

Guarded: one reader (:func:`sleuth.commands.config.load_agent_config`) decides which part of the
file is Sleuth's, so both transports end up with the same settings and the same problems.
"""

from __future__ import annotations

from pathlib import Path

from sleuth.cli.common import workspace_settings
from sleuth.core.settings import SettingsLayers

CONFIG = """\
model: big
timeout_seconds: 1
tools:
  shell:
    timeout: 5
  search:
    max_results: 77
    deny_globs: [secrets.txt]
"""


def test_cli_and_server_read_the_same_settings_from_the_shared_agent_config(tmp_path: Path, capsys) -> None:
    (tmp_path / ".agent").mkdir()
    (tmp_path / ".agent" / "config.yml").write_text(CONFIG)
    layers = SettingsLayers()
    layers.load_agent(str(tmp_path))
    server, server_problems = layers.settings()
    cli = workspace_settings([str(tmp_path)])
    assert server_problems == [] and capsys.readouterr().err == ""
    assert cli == server
    assert cli.max_results == 77 and cli.deny_globs == ("secrets.txt",) and cli.timeout_ms != 1000
