"""Shared builders for the in-process tests: a temp tree, a command context, an index service.

Each was written inline dozens of times (``CommandContext(Workspace([root]), settings=Settings(...),
services=Services(index=service))``, ``IndexService(Workspace([root]), cache_dir=str(cache))`` then
start/wait): a change to how a context or a service is made now lands here once. Everything is real: real
temp folders, a real :class:`IndexService` over a real SQLite store, no fakes. ``tests/conftest.py``
re-exports these and adds the pytest fixtures (``make_tree``)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable, Mapping, Sequence, Union

from sleuth.commands.config import Settings
from sleuth.commands.context import CommandContext, PartialSink, Services
from sleuth.engine.cancel import CancelToken, NullProgress, ProgressSink
from sleuth.engine.index import IndexService
from sleuth.engine.index.config import IndexConfig
from sleuth.engine.workspace import Workspace

__all__ = ["poll_until", "Where", "write_tree", "workspace", "context", "indexed_and_plain", "index_service",
           "started_index", "with_test_commands"]

CHECKOUT = Path(__file__).resolve().parents[1]
"""The checkout's root: on a server's ``PYTHONPATH``, its ``tests.*`` modules import by name."""

#: Where a search runs: a workspace already made, one root, or several roots.
Where = Union[Workspace, Path, str, Sequence[Union[Path, str]]]


def write_tree(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """Create ``files`` ({relative path: content}) under ``root``; str content is written as UTF-8."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def workspace(where: Where) -> Workspace:
    """``where`` as a :class:`Workspace` (a root or a list of roots; a workspace is kept as it is)."""
    if isinstance(where, Workspace):
        return where
    if isinstance(where, (str, Path)):
        return Workspace([where])
    return Workspace(list(where))


def context(where: Where, settings: Settings | None = None, *, index: IndexService | None = None,
            services: Services | None = None, token: CancelToken | None = None,
            partial: PartialSink | None = None, progress: ProgressSink = NullProgress) -> CommandContext:
    """One invocation's context over ``where``, as a door builds it: default :class:`Settings` unless
    given; ``index`` is the service it may narrow with (none: every search scans); ``services`` replaces
    the whole set (then ``index`` must be None)."""
    if services is not None and index is not None:
        raise ValueError("give index= or services=, not both")
    return CommandContext(workspace(where), settings=settings or Settings(),
                          token=token or CancelToken(), partial=partial, progress=progress,
                          services=services if services is not None else Services(index=index))


def indexed_and_plain(service: IndexService, settings: Settings | None = None,
                      ) -> tuple[CommandContext, CommandContext]:
    """Two contexts over the service's workspace, one narrowing with the index and one scanning: the
    pair every "the index never changes an answer" test compares."""
    return (context(service.workspace, settings, index=service), context(service.workspace, settings))


def index_service(where: Where, cache: Path | str | None = None,
                  config: IndexConfig | None = None) -> IndexService:
    """An index service over ``where`` (not started) with its store under ``cache``; without a cache
    folder the store goes where ``config.index_path`` says."""
    return IndexService(workspace(where), config or IndexConfig(),
                        cache_dir=None if cache is None else str(cache))


def started_index(where: Where, cache: Path | str, config: IndexConfig | None = None,
                  wait_s: float = 120.0) -> IndexService:
    """:func:`index_service`, started, built and idle (the watcher's first catch-up done): what a test
    that queries the index needs before its first query. ``wait_s`` bounds a hang, it is no speed
    expectation."""
    service = index_service(where, cache, config)
    service.start()
    assert service.wait_ready(wait_s), service.status()
    assert service.wait_idle(wait_s / 2)
    return service


def with_test_commands(env: Mapping[str, str], module: str) -> dict[str, str]:
    """``env`` for a server that loads the plumbing commands of ``module`` (``tests.lsp.plumbing_commands``)
    through its one test hook (:mod:`sleuth.core.test_commands`, a module name only): the checkout's
    root goes first on ``PYTHONPATH`` so that the name imports."""
    path = os.pathsep.join(p for p in (str(CHECKOUT), env.get("PYTHONPATH", "")) if p)
    return {**env, "SLEUTH_TEST_COMMANDS": module, "PYTHONPATH": path}


def poll_until(condition: Callable[[], bool], bound: float = 120.0) -> bool:
    """Whether ``condition()`` came true, looked at every 10 ms; ``bound`` (seconds) only ends a hang
    (``tests.conftest.HANG_S``), it is no speed expectation."""
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()
