"""Fixtures for the tool-profile conformance suites: a real temp workspace and a caller that goes
through ``sleuth.tools.call`` exactly as the LSP server and CLI do (fresh rate limiter and metrics
per test, so tests never share windows)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable, Mapping

import pytest

from sleuth.commands import get_command
from sleuth.commands.config import Settings
from sleuth.commands.context import CommandContext, Services
from sleuth.engine.metrics import Metrics
from sleuth.engine.ratelimit import RateLimiter
from tests.fixtures import context, write_tree



class Caller:
    """Calls tools and commands in one workspace with one set of long-lived services."""

    def __init__(self, root: Path, settings: Settings | None = None) -> None:
        self.root = root
        self.settings = settings or Settings()
        self.services = Services(rate_limiter=RateLimiter(), metrics=Metrics())

    def ctx(self, **changes: Any) -> CommandContext:
        settings = self.settings.replace(**changes) if changes else self.settings
        return context(self.root, settings, services=self.services)

    def command(self, name: str, args: Any, **settings: Any) -> dict[str, Any]:
        return get_command(name)(args, self.ctx(**settings))

    def call(self, name: str, arguments: Any = None, **settings: Any) -> dict[str, Any]:
        """The ``sleuth.tools.call`` envelope."""
        payload = {"name": name, "arguments": {} if arguments is None else arguments}
        return self.command("sleuth.tools.call", payload, **settings)

    def json(self, name: str, arguments: Any = None, **settings: Any) -> Any:
        """Parsed content of a successful JSON tool call."""
        envelope = self.call(name, arguments, **settings)
        assert envelope["is_error"] is False, envelope["content"]
        return json.loads(envelope["content"])

    def error(self, name: str, arguments: Any = None, **settings: Any) -> str:
        """Content of a failed call (asserting it failed)."""
        envelope = self.call(name, arguments, **settings)
        assert envelope["is_error"] is True, envelope["content"]
        return envelope["content"]

    def touch(self, rel: str, mtime: float) -> None:
        os.utime(self.root / rel, (mtime, mtime))


@pytest.fixture
def workspace(tmp_path: Path) -> Callable[..., Caller]:
    def make(files: Mapping[str, str | bytes], name: str = "ws", **settings: Any) -> Caller:
        root = write_tree(tmp_path / name, files)
        return Caller(root, Settings().replace(**settings) if settings else None)

    return make
