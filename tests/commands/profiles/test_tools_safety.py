"""The safety and observability around tools: the tools.call envelope and its errors, per-tool
sliding-window rate limits (seed 004 AC-048..056, scenario 5), redaction and query sanitisation
(threats 4, 5), logging (AC-071, 072) and metrics (AC-073..076)."""

from __future__ import annotations

import json
import logging
import threading

import pytest

from sleuth.commands.config import Settings, load_agent_config
from sleuth.commands.settings_schema import merge_settings
from sleuth.commands.tools_call import run as tools_call
from sleuth.engine.errors import BadArgs, UnknownTool
from sleuth.engine.metrics import Metrics
from sleuth.engine.ratelimit import RateLimiter
from sleuth.engine.redact import PLACEHOLDER, contains_secret, redact, sanitize_query

TREE = {"a.txt": "test content\n"}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# -- envelope ---------------------------------------------------------------------------------------

def test_envelope_has_content_and_is_error_only(workspace):
    envelope = workspace(TREE).call("forge.Search", {"pattern": "test"})
    assert set(envelope) == {"content", "is_error"} and isinstance(envelope["content"], str)


@pytest.mark.parametrize("payload", [
    None, [], "forge.Search", {"arguments": {}}, {"name": ""}, {"name": "forge.Search", "arguments": [1]},
    {"name": "forge.Search", "extra": 1}, {"name": "forge.Search", "arguments": "{not json"},
])
def test_malformed_calls_raise_bad_args(workspace, payload):
    with pytest.raises(BadArgs):
        tools_call(payload, workspace(TREE).ctx())


def test_arguments_may_arrive_as_json_text(workspace):
    caller = workspace(TREE)
    envelope = tools_call({"name": "forge.Search", "arguments": json.dumps({"pattern": "test"})}, caller.ctx())
    assert json.loads(envelope["content"])["count"] == 1


@pytest.mark.parametrize("name", ["nope", "forge.nope", "search_files", "zzz.Search"])
def test_unknown_or_ambiguous_tools_raise(workspace, name):
    with pytest.raises(UnknownTool) as info:
        tools_call({"name": name, "arguments": {}}, workspace(TREE).ctx())
    assert info.value.hint


def test_bare_name_resolves_in_configured_profile(workspace):
    envelope = workspace(TREE, tools_profile="kimi").call("search_files", {"query": "test"})
    assert envelope["content"] == "a.txt:1: test content"


# -- rate limiting ------------------------------------------------------------------------------------

def test_limiter_window_remaining_and_retry_after():
    clock = Clock()
    limiter = RateLimiter(clock=clock)
    decisions = [limiter.acquire("search_text", 3) for _ in range(3)]
    assert [d.remaining for d in decisions] == [2, 1, 0] and all(d.allowed for d in decisions)
    clock.now += 10
    refused = limiter.acquire("search_text", 3)
    assert not refused.allowed and refused.retry_after_seconds == pytest.approx(50)
    assert refused.retry_after_whole_seconds == 50
    assert limiter.acquire("grep", 3).allowed  # per tool
    clock.now += 50.001  # AC-055: the window slides
    assert limiter.acquire("search_text", 3).allowed


def test_limiter_under_limit_reports_remaining_like_the_seed():  # RateLimitingTests.Should_Allow_Under_Limit
    assert RateLimiter().acquire("search_text", 10).remaining == 9


def test_limiter_is_thread_safe():  # AC-056
    limiter = RateLimiter()
    results: list[bool] = []
    lock = threading.Lock()

    def worker() -> None:
        for _ in range(25):
            allowed = limiter.acquire("grep", 100).allowed
            with lock:
                results.append(allowed)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(True) == 100 and results.count(False) == 100


def test_near_limit_is_announced():
    limiter = RateLimiter()
    flags = [limiter.acquire("x", 10).near_limit for _ in range(10)]
    assert flags == [False] * 7 + [True] * 3


def test_scenario_5_rate_limit_from_agent_config(workspace):
    caller = workspace({**TREE, ".agent/config.yml": "tools:\n  search:\n    rate_limit:\n      searches_per_minute: 3\n"})
    settings, problems = merge_settings(Settings(), load_agent_config(str(caller.root)), ".agent/config.yml")
    assert problems == [] and settings.rate_limit_per_minute == 3  # AC-050
    caller.settings = settings
    for _ in range(3):  # AC-051
        assert caller.call("acode.grep", {"pattern": "test"})["is_error"] is False
    envelope = caller.call("acode.grep", {"pattern": "test"})
    err = json.loads(envelope["content"])
    assert envelope["is_error"] and err["error"] == "rate_limit_exceeded" and err["code"] == "ACODE-SRC-003"  # AC-052
    assert 0 < err["retry_after_seconds"] <= 60 and "3/min" in err["message"]  # AC-053, 054
    assert envelope["rate_limit"]["remaining"] == 0
    assert caller.call("acode.search_files", {"pattern": "*.txt"})["is_error"] is False  # AC-048 per tool


def test_default_limit_is_30_and_announced_in_acode_content(workspace):  # AC-049, FR-015b-30
    caller = workspace(TREE)
    results = [caller.call("acode.grep", {"pattern": "test"}) for _ in range(31)]
    assert [r["is_error"] for r in results] == [False] * 30 + [True]
    assert "rate_limit" not in json.loads(results[0]["content"])
    near = json.loads(results[29]["content"])
    assert near["rate_limit"]["remaining"] == 0 and near["rate_limit"]["limit"] == 30
    assert results[29]["rate_limit"]["remaining"] == 0


def test_rate_limit_errors_in_each_profiles_words(workspace):
    caller = workspace(TREE, rate_limit_per_minute=1)
    caller.call("forge.Search", {"pattern": "t"})
    forge = json.loads(caller.call("forge.Search", {"pattern": "t"})["content"])["error"]
    assert forge["kind"] == "ExecutionFailed" and forge["retry_after_seconds"] >= 1
    caller.call("codex.grep_files", {"pattern": "t"})
    assert "retry after" in caller.error("codex.grep_files", {"pattern": "t"})


def test_rate_limit_can_be_disabled(workspace):
    caller = workspace(TREE, rate_limit_per_minute=1, rate_limit_enabled=False)
    assert not any(caller.call("acode.grep", {"pattern": "t"})["is_error"] for _ in range(5))


# -- redaction and sanitising -------------------------------------------------------------------------

@pytest.mark.parametrize("line, secret", [
    ('api_key = "abcdefghijklmnopqrstuvwxyz"', "abcdefghijklmnopqrstuvwxyz"),
    ("API-KEY: sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("password: 'hunter2hunter2'", "hunter2hunter2"),
    ("DB_PASSWORD=s3cr3tP@ssw0rd", "s3cr3tP@ssw0rd"),
    ("token = ghp_" + "A" * 36, "ghp_" + "A" * 36),
    ("-----BEGIN RSA PRIVATE KEY-----", "BEGIN RSA PRIVATE KEY"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----", "OPENSSH PRIVATE KEY"),
    ("Authorization: Bearer eyJhbGciOi.abc.def-123456", "eyJhbGciOi.abc.def-123456"),
    ("aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG"),
    ('key: "AIzaSyA-1234567890abcdefghijklmnopqrstu"', "AIzaSyA-1234567890abcdefghijklmnopqrstu"),
    ("DefaultEndpointsProtocol=https;AccountName=x;AccountKey=abcdEFGH1234abcdEFGH1234abcd==;",
     "abcdEFGH1234abcdEFGH1234abcd"),
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     "dozjgNryP4J3jVmNHl0w5N"),
    ("OPENAI=sk-" + "b" * 48, "sk-" + "b" * 48),
    ("slack xoxb-123456789012-abcdefghij", "xoxb-123456789012"),
])
def test_redaction_patterns(line, secret):
    out = redact(line)
    assert secret not in out and PLACEHOLDER in out and contains_secret(line)


@pytest.mark.parametrize("line", ["password = None", "def get_token(self):", "token: str", "user = 'alice'",
                                  "return self.api_key", "x = compute(secret_sauce)"])
def test_ordinary_code_is_not_redacted(line):
    assert redact(line) == line


def test_redaction_keeps_the_key_name():
    assert redact('api_key = "abcdefghijklmnopqrstuvwxyz"') == 'api_key = "[REDACTED]"'


def test_sanitize_query_for_logs():
    assert sanitize_query("a\nb\rc\x1b[31m") == "a b c [31m"
    assert sanitize_query("") == "[empty]"
    assert sanitize_query("x" * 500).endswith("...") and len(sanitize_query("x" * 500)) == 203
    assert "hunter2hunter2" not in sanitize_query("password=hunter2hunter2")


# -- logging and metrics -----------------------------------------------------------------------------

def test_ac_071_072_invocations_logged_sanitised(workspace, caplog):
    caller = workspace({"a.txt": "password=hunter2hunter2\n"})
    with caplog.at_level(logging.INFO, logger="sleuth.tools"):
        caller.call("acode.grep", {"pattern": "password=hunter2hunter2"})
        caller.call("acode.grep", {"pattern": "x\nFAKE LOG LINE"})
    first, second = [r.getMessage() for r in caplog.records if r.name == "sleuth.tools"]
    assert "tool=acode.grep" in first and "results=1" in first and "duration_ms=" in first
    assert "hunter2hunter2" not in first and "[REDACTED]" in first
    assert "\n" not in second and 'query="x\\nFAKE LOG LINE"' in second  # a JSON string: the newline escaped


def test_ac_073_076_metrics(workspace):
    caller = workspace(TREE, rate_limit_per_minute=3)
    for _ in range(3):
        caller.call("acode.grep", {"pattern": "test"})
    caller.call("acode.grep", {"pattern": "test"})  # rate limited
    caller.call("acode.search_files", {"pattern": ""})  # invalid
    snap = caller.command("sleuth.metrics", {})
    grep = snap["by_name"]["acode.grep"]
    assert grep["invocations"] == 4 and grep["rate_limited"] == 1  # AC-076
    assert set(grep["latency_ms"]) >= {"p50", "p95", "p99"}  # AC-073
    assert grep["result_counts"] == {"1": 3}  # AC-074
    assert snap["by_name"]["acode.search_files"]["errors_by_code"] == {"bad_args": 1}  # AC-075
    assert snap["totals"]["errors_by_code"] == {"bad_args": 1, "rate_limited": 1}
    only = caller.command("sleuth.metrics", {"name": "acode.search"})
    assert list(only["by_name"]) == ["acode.search_files"]
    with pytest.raises(BadArgs):
        caller.command("sleuth.metrics", {"bogus": 1})


def test_metrics_percentiles_and_buckets():
    metrics = Metrics()
    for i in range(1, 101):
        metrics.record("sleuth.grep", i / 1000, result_count=i, error_code=None)
    series = metrics.snapshot()["by_name"]["sleuth.grep"]
    assert series["latency_ms"]["p50"] == 50 and series["latency_ms"]["p95"] == 95 and series["latency_ms"]["p99"] == 99
    assert sum(series["result_counts"].values()) == 100 and series["result_counts"]["1"] == 1


def test_metrics_thread_safe():
    metrics = Metrics()
    threads = [threading.Thread(target=lambda: [metrics.record("t", 0.001, 1) for _ in range(500)]) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert metrics.snapshot()["by_name"]["t"]["invocations"] == 4000


def test_tools_list_filters(workspace):
    ctx = workspace(TREE).ctx()
    from sleuth.commands.tools_list import run as tools_list

    everything = tools_list({}, ctx)
    assert everything["count"] == 8 and everything["profiles"] == ["forge", "codex", "kimi", "acode", "sleuth"]
    assert [t["name"] for t in tools_list({"capability": "symbols"}, ctx)["tools"]] == ["sleuth.find_symbols"]
    assert [t["name"] for t in tools_list({"profile": "forge"}, ctx)["tools"]] == ["forge.search_files", "forge.Search"]
    assert all("fuzzy" in t["capabilities"] for t in tools_list({"capability": "fuzzy"}, ctx)["tools"])
    for bad in ({"profile": "nope"}, {"bogus": 1}, {"profile": 3}):
        with pytest.raises(BadArgs):
            tools_list(bad, ctx)


@pytest.mark.parametrize("yaml_text, per_minute, enabled", [
    ("tools:\n  search:\n    rate_limit_per_minute: 60\n", 60, True),      # troubleshooting issue 4, step 2
    ("tools:\n  search:\n    rate_limit_enabled: false\n", 30, False),     # step 5
    ("tools:\n  search:\n    rate_limit:\n      searches_per_minute: 3\n", 3, True),
])
def test_agent_config_rate_limit_keys(tmp_path, yaml_text, per_minute, enabled):
    (tmp_path / ".agent").mkdir()
    (tmp_path / ".agent" / "config.yml").write_text(yaml_text)
    settings, problems = merge_settings(Settings(), load_agent_config(str(tmp_path)), ".agent/config.yml")
    assert problems == [] and settings.rate_limit_per_minute == per_minute and settings.rate_limit_enabled is enabled


def test_tools_never_stream_native_items(workspace):  # AC-080: a streaming caller still gets whole answers
    caller = workspace({"a.txt": "test\n" * 3})
    sent: list = []
    ctx = caller.ctx()
    ctx.partial = sent.extend
    for name, args in (("forge.Search", {"pattern": "test"}), ("acode.grep", {"pattern": "test"}),
                       ("kimi.search_files", {"query": "test"}), ("acode.search_files", {"pattern": "*.txt"})):
        envelope = tools_call({"name": name, "arguments": args}, ctx)
        assert envelope["is_error"] is False and "a.txt" in envelope["content"]
    assert sent == []


def test_unexpected_failures_become_error_results(workspace, monkeypatch):  # NFR-015b-06
    from sleuth.commands.profiles import _common

    def boom(*_args, **_kwargs):
        raise OSError("disk on fire")

    monkeypatch.setattr(_common, "get_command", boom)
    caller = workspace(TREE)
    err = json.loads(caller.error("acode.grep", {"pattern": "test"}))
    assert err["code"] == "ACODE-SRC-002" and "disk on fire" in err["message"]
    assert json.loads(caller.error("forge.Search", {"pattern": "test"}))["error"]["kind"] == "ExecutionFailed"
    assert caller.command("sleuth.metrics", {})["by_name"]["acode.grep"]["errors_by_code"] == {"internal": 1}


def test_per_tool_limits_when_settings_carry_them(workspace):  # AC-085 (Settings field requested from the lead)
    import dataclasses

    @dataclasses.dataclass(frozen=True)
    class WithPerTool(Settings):
        rate_limit_per_tool: tuple[tuple[str, int], ...] = (("acode.grep", 1),)

    caller = workspace(TREE)
    caller.settings = WithPerTool()
    assert caller.call("acode.grep", {"pattern": "t"})["is_error"] is False
    assert caller.call("acode.grep", {"pattern": "t"})["is_error"] is True
    assert caller.call("acode.search_files", {"pattern": "*"})["is_error"] is False
