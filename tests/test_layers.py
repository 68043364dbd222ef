"""Imports point down the layers only (docs/ARCHITECTURE.md): ``engine`` <- ``commands`` <- ``core`` <-
the doors (``lsp``, ``mcp``, ``cli``); ``sleuth.searches`` lies below them all. Read from the source,
every import counted (module level, inside functions, under ``TYPE_CHECKING``)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "server" / "sleuth"
RANK = {"searches": 0, "engine": 1, "commands": 2, "core": 3, "lsp": 4, "mcp": 4, "cli": 5}


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "sleuth" and parts[1] in RANK else None


def _imports(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
            names.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_no_import_runs_back_up_a_layer() -> None:
    upward = []
    for path in PACKAGE.rglob("*.py"):
        here = _layer("sleuth." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts))
        if here is None:
            continue
        for name in _imports(path):
            there = _layer(name)
            if there is not None and RANK[there] > RANK[here]:
                upward.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert not upward, upward


def _runtime_imports(path: Path) -> list[str]:
    """The imports that run: those under ``if TYPE_CHECKING:`` are left out (type-only)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    type_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                 and getattr(node.test, "id", getattr(node.test, "attr", None)) == "TYPE_CHECKING"
                 for n in ast.walk(node)}
    names: list[str] = []
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def test_the_engines_parts_import_each_other_in_no_cycle_but_for_types() -> None:
    """``engine/``'s packages and modules (grep/, text/, symbols/, files/, index/, definitions/, match/,
    walk.py...) form no import cycle once type-only imports are left out."""
    engine = PACKAGE / "engine"
    graph: dict[str, set[str]] = {}
    for path in engine.rglob("*.py"):
        part = path.relative_to(engine).parts[0].removesuffix(".py")
        for name in _runtime_imports(path):
            bits = name.split(".")
            if bits[:2] == ["sleuth", "engine"] and len(bits) > 2 and bits[2] != part:
                graph.setdefault(part, set()).add(bits[2])
    seen: dict[str, int] = {}  # 1 on the current path, 2 done

    def cycle_from(node: str, path: list[str]) -> list[str] | None:
        seen[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if seen.get(nxt) == 1:
                return path + [node, nxt]
            if nxt not in seen and (found := cycle_from(nxt, path + [node])):
                return found
        seen[node] = 2
        return None

    for start in sorted(graph):
        if start not in seen:
            found = cycle_from(start, [])
            assert found is None, " -> ".join(found)
