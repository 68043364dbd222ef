"""Any JSON a model sends to any tool gives an envelope (or BadArgs for a malformed call), never a
crash: the seeds' argument validation holds for arbitrary input."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings, strategies as st

from sleuth.commands.config import Settings
from sleuth.commands.profiles import all_tools
from sleuth.engine.errors import BadArgs, SleuthError

TOOLS = [t.qualified_name for t in all_tools() if t.name != "search_text"]
KEYS = sorted({key for t in all_tools() for key in t.input_schema.get("properties", {})} | {"bogus"})

scalars = st.none() | st.booleans() | st.integers(-3, 5000) | st.floats(allow_nan=False, width=16) | \
    st.sampled_from(["", " ", "*", "**", "a.txt", "needle", "(", "[x", "../x", "/etc", "src/*", "*.txt", "\x00"])
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3), max_leaves=4)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(TOOLS), arguments=st.dictionaries(st.sampled_from(KEYS), values, max_size=5))
def test_any_arguments_give_an_envelope(workspace, name, arguments):
    caller = workspace({"a.txt": "needle\n", "src/b.py": "x = 'needle'\n"}, name="fuzz")
    caller.settings = Settings(rate_limit_enabled=False, timeout_ms=5000)
    try:
        envelope = caller.call(name, arguments)
    except SleuthError as error:  # only a malformed call may raise
        assert isinstance(error, BadArgs), error
        return
    assert set(envelope) <= {"content", "is_error", "rate_limit"} and isinstance(envelope["content"], str)
    envelope["content"].encode("utf-8")
    if name.startswith(("forge.", "acode.")):
        json.loads(envelope["content"])
