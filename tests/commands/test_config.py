"""Settings merging (docs/SPEC.md §10): every source may be wrong, none may crash the server or lose a default."""

from __future__ import annotations

from hypothesis import given, strategies as st

from sleuth.commands.config import Settings, load_agent_config
from sleuth.commands.settings_schema import merge_settings

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=3),
    max_leaves=8,
)


@given(st.dictionaries(st.sampled_from(["case", "maxResults", "index", "tools", "rate_limit", "deny_globs",
                                        "timeout_ms", "hidden", "bogus"]), json_values, max_size=5))
def test_merge_never_raises_and_reports_each_rejected_key(source):
    settings, problems = merge_settings(Settings(), source, "test")
    assert isinstance(settings, Settings)
    assert all(p.startswith("test: ") for p in problems)


def test_seed_004_agent_config_keys(tmp_path):
    (tmp_path / ".agent").mkdir()
    (tmp_path / ".agent" / "config.yml").write_text(
        "tools:\n  search:\n    default_max_results: 20\n    rate_limit:\n      searches_per_minute: 45\n"
        "      per_tool:\n        acode.grep: 5\n    timeout_seconds: 10\n    default_context_lines: 3\n")
    settings, problems = merge_settings(Settings(), load_agent_config(str(tmp_path)), ".agent/config.yml")
    assert problems == []
    assert (settings.default_max_results, settings.rate_limit_per_minute, settings.timeout_ms,
            settings.context_lines, settings.rate_limit_per_tool) == (20, 45, 10_000, 3, (("acode.grep", 5),))


def test_bad_value_keeps_the_previous_one_and_says_so():
    base = Settings(case="insensitive")
    settings, problems = merge_settings(base, {"case": "loud", "maxResults": -3}, "initializationOptions")
    assert settings.case == "insensitive" and settings.max_results == base.max_results
    assert len(problems) == 2 and "keeping" in problems[0]


def test_camel_case_and_nested_keys_from_vscode():
    settings, problems = merge_settings(Settings(), {"index": {"enabled": False}, "logLevel": "debug"}, "sleuth")
    assert (settings.index_enabled, settings.log_level, problems) == (False, "debug", [])
