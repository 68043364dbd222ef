"""Adversarial: random argument objects at every door of one long-lived server (issue 20 area 2).

For every LSP command, every custom request and every tool of every profile, hypothesis draws
argument objects: any JSON value in place of the object, or the door's own keys with values of the
right type, the wrong type, huge and negative numbers, nested objects and lists, unknown keys, and
strings with NUL, control characters, regex metacharacters or a megabyte of text. All go to ONE
``sleuth serve`` process started once for the module. Every answer must be a result or an error
whose ``data.code`` names it — never ``-32603`` (internal), never a hang (each request is bounded),
never a traceback on stderr — and the server must be alive and answering at the end.

Profiles: the default is seeded (``derandomize``) and small enough for CI; with
``SLEUTH_HYPOTHESIS_PROFILE=hunt`` every door gets 10,000 random examples.

Three defects this found are tested on their own below too: a lone surrogate in a string (issue
22.10: ``-32603``), ``executeCommand`` with ``arguments`` that is not a list (22.9: no answer at
all), and an object with a ``"jsonrpc"`` key anywhere in the params (pygls structured it as a
message of its own: no answer). The random strategies draw all three.
"""

from __future__ import annotations

import json
import os
import pathlib
from typing import Any, Iterator

import pytest
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

from sleuth.commands.args import Arg
from sleuth.commands.files import FILES_ARGS
from sleuth.commands.grep import GREP_ARGS
from sleuth.commands.index_build import BUILD_ARGS
from sleuth.commands.metrics import METRICS_ARGS
from sleuth.commands.profiles import all_tools
from sleuth.commands.text import TEXT_ARGS
from sleuth.commands.tools_list import TOOLS_LIST_ARGS
from tests.adversarial.lsp_sync import RecordingServer, RpcError, start_server
from tests.conftest import HANG_S

HUNT = os.environ.get("SLEUTH_HYPOTHESIS_PROFILE") == "hunt"
EXAMPLES = 10_000 if HUNT else 120
# A hang, not slowness (the tree is tiny): the suite's bound, which a busy machine never reaches; the hunt, which
# shrinks (each step of a hang waits this long), may set it lower.
REQUEST_TIMEOUT_S = float(os.environ.get("SLEUTH_RANDOM_ARGS_TIMEOUT_S", str(HANG_S)))

# -- values ---------------------------------------------------------------------------------------

# Every character, lone surrogates included (issue 22.10): NUL, controls, RTL marks.
chars = st.characters()
INTERESTING = ["", " ", ".", "..", "../..", "/", "/etc/passwd", "file:///etc", "*", "**", "!**", "{a,b}", "[",
               "\\", "(", "(a+)+$", "(?=a)", "\\1", "a{99999}", "(?i)", "\x00", "\x1b[31m", "\u202e", "\r\n",
               "%2e%2e/", "x" * 10_000, "é" * 3000, "a|" * 2000 + "b"]
HUGE = ["x" * 1_000_000, "(" * 200_000]
# a megabyte now and then (about one string in 60), not in every third example: CI time is bounded
strings = st.one_of(st.text(chars, max_size=30), st.text(chars, max_size=30), st.sampled_from(INTERESTING),
                    st.sampled_from(INTERESTING + HUGE))
numbers = st.one_of(st.integers(-5, 200), st.integers(-(2 ** 70), 2 ** 70),
                    st.sampled_from([0, -1, 2 ** 31, 2 ** 63, -(2 ** 63), 10 ** 30, 4, 5]),
                    st.floats(allow_nan=False, allow_infinity=False), st.sampled_from([0.5, -0.0, 1e300, 2.0]))
scalars = st.one_of(st.none(), st.booleans(), numbers, strings)
# An object key "jsonrpc" anywhere in the params once lost the request (pygls structured every nested
# object holding one as a JSON-RPC message): drawn often, and tested on its own below.
object_keys = st.text(chars, max_size=8) | st.just("jsonrpc")
json_values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                            st.dictionaries(object_keys, inner, max_size=4)),
                           max_leaves=12)


def _typed(kind: str, choices: tuple[Any, ...] = ()) -> st.SearchStrategy[Any]:
    """Mostly well-typed values for one argument (so the command runs with odd combinations), else anything."""
    if choices:
        right: st.SearchStrategy[Any] = st.sampled_from(list(choices))
    elif kind in ("str", "string"):
        right = strings
    elif kind in ("int", "integer", "number"):
        right = numbers
    elif kind in ("bool", "boolean"):
        right = st.booleans()
    elif kind in ("str_list", "array"):
        right = st.lists(strings, max_size=4)
    else:  # str_or_list and schema entries without one type
        right = st.one_of(strings, st.lists(strings, max_size=4))
    return st.one_of(right, right, right, json_values)


def _objects(keys: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    """An argument object over ``keys`` (some of them, maybe an unknown key too), or any JSON value."""
    known = st.fixed_dictionaries({}, optional=keys)
    with_unknown = st.builds(lambda d, k, v: {**d, k: v}, known, object_keys.filter(bool), json_values)
    return st.one_of(known, known, known, with_unknown, json_values)


def _from_spec(spec: dict[str, Arg]) -> st.SearchStrategy[Any]:
    return _objects({name: _typed(arg.kind, arg.choices) for name, arg in spec.items()})


def _from_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    props = schema.get("properties", {})
    return _objects({name: _typed(str(p.get("type", "")), tuple(p.get("enum", ()))) for name, p in props.items()})


TOOLS = {tool.qualified_name: tool for tool in all_tools()}
COMMAND_SPECS: dict[str, dict[str, Arg]] = {
    "sleuth.grep": GREP_ARGS, "sleuth.files": FILES_ARGS, "sleuth.text": TEXT_ARGS, "sleuth.index.status": {},
    "sleuth.index.build": BUILD_ARGS, "sleuth.tools.list": TOOLS_LIST_ARGS, "sleuth.metrics": METRICS_ARGS,
}
# door id -> (transport, target, strategy of what is sent)
DOORS: dict[str, tuple[str, str, st.SearchStrategy[Any]]] = {
    **{f"exec {name}": ("exec", name, _from_spec(spec)) for name, spec in COMMAND_SPECS.items()},
    **{f"request {name.replace('.', '/')}": ("request", name.replace(".", "/"), _from_spec(COMMAND_SPECS[name]))
       for name in ("sleuth.grep", "sleuth.files", "sleuth.text")},
    "exec sleuth.tools.call": ("exec", "sleuth.tools.call",
                               _objects({"name": st.one_of(st.sampled_from(sorted(TOOLS)), strings, json_values),
                                         "arguments": json_values})),
    **{f"tool {name}": ("tool", name, _from_schema(tool.input_schema)) for name, tool in TOOLS.items()},
}


# -- the server -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RecordingServer]:
    base = tmp_path_factory.mktemp("random-args")
    root = base / "ws"
    for rel, text in {"a.txt": "alpha beta\nTODO fix\n", "src/main.py": "def main():\n    return 42\n",
                      "src/util.rs": "fn util() -> u8 { 7 }\n", "denied/secret.txt": "secret\n",
                      ".hidden/h.txt": "hidden alpha\n", "docs/readme.md": "# Readme\nalpha\n"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "link").symlink_to("src")
    lsp = start_server([root], base, {"rateLimitEnabled": False, "denyGlobs": ["denied/**"]})
    lsp.execute("sleuth.index.build", {"wait": True}, 120)
    yield lsp
    try:
        assert lsp.alive(), "the server died"
        assert lsp.execute("sleuth.index.status", {}, HANG_S).result["state"] in ("ready", "stale", "building")
    finally:
        lsp.close()


def _send(lsp: RecordingServer, transport: str, target: str, payload: Any) -> Any:
    if transport == "exec":
        return lsp.request("workspace/executeCommand", {"command": target, "arguments": [payload]},
                           REQUEST_TIMEOUT_S).result
    if transport == "tool":
        return lsp.execute("sleuth.tools.call", {"name": target, "arguments": payload}, REQUEST_TIMEOUT_S).result
    return lsp.request(target, payload, REQUEST_TIMEOUT_S).result


def _answer_is_clean(lsp: RecordingServer, transport: str, target: str, payload: Any) -> None:
    """A result, or an error with ``data.code`` that is not internal; nothing on stderr but logs."""
    try:
        result = _send(lsp, transport, target, payload)
    except RpcError as error:
        assert error.code != -32603, (target, payload, error.data)
        assert isinstance(error.data, dict) and isinstance(error.data.get("code"), str), (target, payload, error)
        assert error.data["code"] != "internal", (target, payload, error.data)
    else:
        if transport == "tool":
            assert isinstance(result, dict) and isinstance(result.get("content"), str), result
        else:
            assert isinstance(result, dict), result


# -- the property ---------------------------------------------------------------------------------

@pytest.mark.parametrize("door", sorted(DOORS))
# CI does not shrink (each shrinking step of a hang would wait REQUEST_TIMEOUT_S); the hunt does.
@settings(max_examples=EXAMPLES, derandomize=not HUNT, deadline=None,
          phases=list(Phase) if HUNT else [Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])
@given(data=st.data())
def test_every_random_argument_object_gets_a_clean_answer(server: RecordingServer, door: str,
                                                          data: st.DataObject) -> None:
    transport, target, strategy = DOORS[door]
    payload = data.draw(strategy, label="arguments")
    _answer_is_clean(server, transport, target, payload)
    assert server.alive()


def test_the_server_survived_every_door_without_a_traceback(server: RecordingServer) -> None:
    """Runs after the property (module order): alive, answering, stderr free of tracebacks."""
    server.wait_idle()
    assert server.alive()
    assert "Traceback" not in server.stderr(), server.stderr()[-4000:]


# -- defects found here and fixed (issue 22.9, 22.10; a nested "jsonrpc" key) ------------------------

@pytest.mark.parametrize("door", ["exec sleuth.grep", "exec sleuth.files",
                                  "exec sleuth.text", "tool forge.Search"])
def test_a_lone_surrogate_gets_a_clean_answer(server: RecordingServer, door: str) -> None:
    transport, target, _ = DOORS[door]
    key = {"exec sleuth.grep": "pattern", "exec sleuth.files": "query", "exec sleuth.text": "query",
           "tool forge.Search": "pattern"}[door]
    _answer_is_clean(server, transport, target, {key: "a\ud800b"})


@pytest.mark.parametrize("arguments", [5, {"pattern": "a"}])
def test_execute_command_with_arguments_that_are_not_a_list_is_answered(server: RecordingServer,
                                                                        arguments: Any) -> None:
    try:
        server.request("workspace/executeCommand", {"command": "sleuth.grep", "arguments": arguments}, HANG_S)
    except RpcError as error:
        assert error.code != -32603 and error.code in (-32602, -32600), error
    assert server.alive()


@pytest.mark.parametrize("door", ["exec sleuth.grep", "request sleuth/grep"])
def test_an_argument_object_with_a_jsonrpc_key_is_answered(server: RecordingServer, door: str) -> None:
    transport, target, _ = DOORS[door]
    try:
        if transport == "exec":
            server.request("workspace/executeCommand", {"command": target, "arguments": [{"jsonrpc": "x"}]}, HANG_S)
        else:
            server.request(target, {"pattern": "a", "include_globs": [{"jsonrpc": "2.0", "method": "x"}]}, HANG_S)
    except RpcError as error:
        assert error.code != -32603, error
    assert server.alive()
