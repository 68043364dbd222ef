"""Argument validation: every malformed input is a BadArgs naming the argument, never a crash."""

from __future__ import annotations

from hypothesis import given, strategies as st

import pytest

from sleuth.commands.args import json_schema, parse_args
from sleuth.commands.config import Settings
from sleuth.commands.files import FILES_ARGS
from sleuth.commands.grep import GREP_ARGS
from sleuth.engine.errors import BadArgs

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@given(st.dictionaries(st.sampled_from(sorted(GREP_ARGS) + ["bogus"]), json_values, max_size=6))
def test_grep_arguments_parse_or_raise_bad_args(raw):
    try:
        parsed = parse_args("sleuth.grep", raw, GREP_ARGS, Settings())
    except BadArgs as error:
        assert error.code == "bad_args" and error.hint
    else:
        assert set(parsed) == set(GREP_ARGS)


@given(json_values)
def test_any_json_value_as_arguments_is_handled(raw):
    try:
        parse_args("sleuth.files", raw, FILES_ARGS, Settings())
    except BadArgs:
        pass


def test_unknown_argument_is_named():
    with pytest.raises(BadArgs, match="'patern'"):
        parse_args("sleuth.grep", {"patern": "x"}, GREP_ARGS, Settings())


def test_value_above_the_hard_cap_is_refused_not_clamped():
    with pytest.raises(BadArgs, match="above the limit"):
        parse_args("sleuth.grep", {"pattern": "x", "max_results": 10**9}, GREP_ARGS, Settings())


def test_blank_pattern_is_refused():
    with pytest.raises(BadArgs, match="empty or blank"):
        parse_args("sleuth.grep", {"pattern": "   "}, GREP_ARGS, Settings())


def test_execute_command_argument_list_is_unwrapped():
    assert parse_args("sleuth.grep", [{"pattern": "x"}], GREP_ARGS, Settings())["pattern"] == ["x"]


def test_schema_lists_required_and_forbids_extra_keys():
    schema = json_schema(GREP_ARGS)
    assert schema["required"] == ["pattern"] and schema["additionalProperties"] is False
    assert schema["properties"]["max_results"]["maximum"] == Settings().max_results
