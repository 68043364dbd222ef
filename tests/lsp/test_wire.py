"""Outgoing JSON: the fast encoder says what the standard one says, and hands back what it cannot say."""

from __future__ import annotations

import json

from hypothesis import given, strategies as st

from sleuth.lsp import wire

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(1 << 63), (1 << 63) - 1) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
)


@given(JSON)
def test_fast_encoding_decodes_to_the_same_value(value) -> None:
    body = wire.dumps(value)
    assert body is None or json.loads(body.decode("utf-8")) == json.loads(json.dumps(value))


def test_what_the_fast_encoder_refuses_is_left_to_json() -> None:
    assert wire.dumps({"n": 1 << 70}) is None  # json.dumps can: pygls' own path then sends it


def test_objects_go_through_default() -> None:
    class Point:
        def __init__(self) -> None:
            self.x = 1

    body = wire.dumps({"p": Point()}, default=lambda obj: obj.__dict__)
    assert body is None or json.loads(body) == {"p": {"x": 1}}


def test_the_frame_counts_bytes() -> None:
    body = '{"t":"é🙂"}'.encode("utf-8")
    framed = wire.frame(body, "application/vscode-jsonrpc", "utf-8")
    header, _, rest = framed.partition(b"\r\n\r\n")
    assert rest == body and f"Content-Length: {len(body)}".encode() in header
