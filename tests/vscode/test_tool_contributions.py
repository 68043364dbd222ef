"""The extension's language-model tools match the server's tool surface (docs/SPEC.md §5, §11).

VS Code reads ``contributes.languageModelTools`` from ``vscode-client/package.json`` before the
server runs, so the names and schemas there are a copy of ``sleuth tools list`` (made by
``npm run sync-tools``), and the model descriptions come from ``vscode-client/tool-descriptions.json``:
a chat model picks among dozens of tools by these words alone, so each must say what the tool finds,
when to use it, what it returns and its limits (the seed products' one-liners, such as forge's
"Search file contents", stay the MCP profiles' wording). These tests fail when the copy drifts.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from tests.conftest import SLEUTH  # the installed command, as users start it

PACKAGE = Path(__file__).resolve().parents[2] / "vscode-client" / "package.json"
DESCRIPTIONS = PACKAGE.with_name("tool-descriptions.json")
#: Words that show a description states the tool's limits (a cap on results, what it skips or refuses).
LIMIT_WORDS = re.compile(r"\b(limits?|at most|max_results|limit|truncated|refused|skipped)\b", re.IGNORECASE)


def _server_tools() -> dict[str, dict[str, Any]]:
    out = subprocess.run([SLEUTH, "tools", "list", "--json"], capture_output=True,
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
        written = json.loads(DESCRIPTIONS.read_text(encoding="utf-8")).get(name)
        assert written, f"{name}: no description in tool-descriptions.json"
        assert mine["modelDescription"] == written, f"{name}: description differs; run `npm run sync-tools`"


def test_every_tool_description_is_written_for_a_model_and_states_its_limits() -> None:
    """What it finds, when to use it, what it returns and its limits: not a 20-character label."""
    for tool in json.loads(PACKAGE.read_text(encoding="utf-8"))["contributes"]["languageModelTools"]:
        text = tool["modelDescription"]
        assert len(text) >= 400, f"{tool['name']}: {len(text)} characters: {text!r}"
        assert re.search(r"\bUse (it|this)\b", text), f"{tool['name']}: does not say when to use it"
        assert "Returns" in text, f"{tool['name']}: does not say what it returns"
        assert "Limits:" in text and LIMIT_WORDS.search(text.split("Limits:", 1)[1]), \
            f"{tool['name']}: does not state its limits"
        others = re.findall(r"\bsleuth_[A-Za-z0-9_]+", text)
        names = {t["name"] for t in json.loads(PACKAGE.read_text(encoding="utf-8"))["contributes"]["languageModelTools"]}
        assert set(others) <= names, f"{tool['name']}: refers to tools that do not exist: {set(others) - names}"


def test_contributed_names_are_valid_vscode_tool_names() -> None:
    for tool in json.loads(PACKAGE.read_text(encoding="utf-8"))["contributes"]["languageModelTools"]:
        assert re.fullmatch(r"[A-Za-z0-9_-]+", tool["name"]), tool["name"]
        assert tool["inputSchema"].get("type") == "object", tool["name"]
