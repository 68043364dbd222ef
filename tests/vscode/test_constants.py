"""``vscode-client/src/constants.ts`` is the one generated from the list of the searches
(``server/sleuth/searches.py``): a search added or renamed on the server reaches the client."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[2] / "vscode-client" / "scripts" / "constants.py"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("vscode_constants", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_checked_in_constants_are_the_generated_ones() -> None:
    generator = _generator()
    assert generator.TARGET.read_text(encoding="utf-8") == generator.render(), \
        "run: python vscode-client/scripts/constants.py"


def test_every_search_has_its_request_and_partial_key() -> None:
    from sleuth.searches import SEARCHES

    text = _generator().render()
    for search in SEARCHES:
        assert f"    {search.name}: '{search.request}'," in text
        assert f"    {search.name}: '{search.stream_key}'," in text
