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


def _runtime_imports(path: Path, modules: dict[str, Path] | None = None) -> list[str]:
    """The imports that run: those under ``if TYPE_CHECKING:`` are left out (type-only). With
    ``modules``, ``from pkg import a, b`` gives ``pkg.a`` and ``pkg.b`` when they are all modules."""
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
            inner = [f"{node.module}.{a.name}" for a in node.names] if modules is not None else []
            names.extend([name for name in inner if name in modules] if inner and all(
                name in modules for name in inner) else [node.module])
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
    found = _cycle(graph)
    assert found is None, " -> ".join(found)


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__.py``)."""
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(("sleuth",) + parts)] = path
    return modules


def test_no_two_modules_import_each_other_at_run_time() -> None:
    """Across the whole package, module by module, no cycle of imports that run (issue 32: the
    settings and their schema imported each other). ``from pkg import mod`` counts as ``pkg.mod``."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for target in _runtime_imports(path, modules):
            bits = target.split(".")
            while bits and ".".join(bits) not in modules:
                bits.pop()
            if bits and ".".join(bits) not in (name, "sleuth"):
                targets.add(".".join(bits))
        graph[name] = targets
    found = _cycle(graph)
    assert found is None, " -> ".join(found)


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` (a depth-first walk), or None."""
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
            if found is not None:
                return found
    return None


def test_no_module_is_over_600_lines() -> None:
    """A module over 600 lines holds more than one job (issue 32: ``engine/search.py`` read files and
    searched buffers, ``engine/files/rank.py`` scored one path and ranked a catalogue): split it by job."""
    long = {str(path.relative_to(PACKAGE)): n for path in PACKAGE.rglob("*.py")
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > 600}
    assert not long, long
