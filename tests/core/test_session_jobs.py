"""``core/session.py`` split into its two jobs (issue 32 item 4): the session keeps the lifecycle of
roots, settings, index and warm door; the invocation policy (argument shape, rate limit, pools,
cancellation, metrics, the log line) is :mod:`sleuth.core.policy`, which runs a call with no
lifecycle at all."""

from __future__ import annotations

import ast
import gc
from pathlib import Path

from sleuth.commands.config import Settings
from sleuth.commands.context import Services
from sleuth.core import policy as policy_module
from sleuth.core.policy import Invocation, InvocationPolicy
from sleuth.core.session import Session
from sleuth.engine import heap
from sleuth.engine.errors import RateLimited
from sleuth.engine.ratelimit import RateLimiter
from sleuth.engine.workspace import Workspace
from tests.engine.test_heap import default_collector  # noqa: F401 (a fixture)

LIFECYCLE = ("sleuth.core.session", "sleuth.core.index", "sleuth.core.settings", "sleuth.core.warm",
             "sleuth.core.warm_listener", "sleuth.core.engine_guest", "sleuth.core.engine_host")


class _Bare(InvocationPolicy):
    """The policy over one fixed folder and settings: no roots to follow, no index, no warm door."""

    def __init__(self, root: str, settings: Settings) -> None:
        self.settings, self.workspace = settings, Workspace([root])
        self.services = Services(rate_limiter=RateLimiter())
        self._start_policy(1, 1, {}, "")


def test_the_policy_runs_a_call_without_a_lifecycle(make_tree) -> None:
    root = make_tree({"a.txt": "needle\n", "b.txt": "hay\n"})
    bare = _Bare(str(root), Settings(native_rate_limit_per_minute=1))
    try:
        result = bare.run(Invocation("sleuth.grep", {"pattern": "needle"}))
        assert [m["path"] for m in result["matches"]] == ["a.txt"]
        assert bare.activity.as_dict()["finished"] == 1
        try:
            bare.run(Invocation("sleuth.grep", {"pattern": "needle"}))
            raise AssertionError("the rate limit let a second call through")
        except RateLimited:
            pass
    finally:
        bare._stop_policy()


def test_the_policy_imports_nothing_of_the_lifecycle() -> None:
    tree = ast.parse(Path(policy_module.__file__).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not imported & set(LIFECYCLE)


def test_the_session_keeps_the_lifecycle_and_takes_the_policy() -> None:
    assert issubclass(Session, InvocationPolicy)
    for call in ("invoke", "run", "prepare", "call", "record", "context", "rate_limit"):
        assert call not in Session.__dict__, call  # one place: the policy's
    for job in ("set_roots", "apply_settings", "refresh_index", "open_warm_door", "routed"):
        assert job in Session.__dict__, job


def test_a_server_session_raises_the_collectors_young_threshold(default_collector: None) -> None:
    """Big answers are many short-lived objects (engine/heap.py): a session tunes its process once."""
    session = Session()
    try:
        assert gc.get_threshold() == (heap.YOUNG_THRESHOLD, 10, 10)
    finally:
        session.close()
