"""The extension's language-model tools match the server's tool surface (SPEC §5, §11).

VS Code reads ``contributes.languageModelTools`` from ``vscode-client/package.json`` before the
server runs, so the names, descriptions and schemas there are a copy of ``sleuth tools list``
(made by ``npm run sync-tools``). This test fails when the copy drifts from the server.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parents[2] / "vscode-client" / "package.json"


def _server_tools() -> dict[str, dict[str, Any]]:
    out = subprocess.run([sys.executable, "-m", "sleuth", "tools", "list", "--json"], capture_output=True,
                         text=True, check=True, timeout=120).stdout
    data = json.loads(out)
    tools = data["tools"] if isinstance(data, dict) else data
    return {tool["name"]: tool for tool in tools}


def _lm_name(name: str) -> str:
    return "sleuth_" + re.sub(r"[^A-Za-z0-9_-]", "_", name.replace(".", "_", 1))


def test_every_server_tool_is_contributed_with_its_schema_and_description() -> None:
    contributed = {t["name"]: t for t in json.loads(PACKAGE.read_text(encoding="utf-8"))["contributes"]["languageModelTools"]}
    server = _server_tools()
    assert set(contributed) == {_lm_name(n) for n in server}, "run `npm run sync-tools` in vscode-client/"
    for name, tool in server.items():
        mine = contributed[_lm_name(name)]
        assert mine["inputSchema"] == tool["input_schema"], f"{name}: schema differs; run `npm run sync-tools`"
        assert mine["modelDescription"] == tool["description"], f"{name}: description differs; run `npm run sync-tools`"


def test_contributed_names_are_valid_vscode_tool_names() -> None:
    for tool in json.loads(PACKAGE.read_text(encoding="utf-8"))["contributes"]["languageModelTools"]:
        assert re.fullmatch(r"[A-Za-z0-9_-]+", tool["name"]), tool["name"]
        assert tool["inputSchema"].get("type") == "object", tool["name"]
