"""The decoding limits both doors share (:mod:`sleuth.core.message_limits`) and the framing's size limit."""

from __future__ import annotations

import asyncio

import pytest

from sleuth.commands.args import exceeds_depth
from sleuth.core import message_limits
from sleuth.lsp import framing


@pytest.mark.parametrize("body,expected", [
    (b'{"jsonrpc": "2.0", "id": 7, "params": [[[[', 7),
    (b'{"params": {"id": 1, "x": [[[["id"]]]]}, "id" : "s-1"', "s-1"),  # a nested "id" is not the message's
    (b'{"params": [{"id": 3}]', None),
    (b'[{"id": 4}]', None),  # a batch has no id of its own
    (b'{"id": true, "x": [[', None),  # not a JSON-RPC id
    (b'{"a": "\\"id\\": 9", "id": 5', 5),  # an escaped quote inside a string
])
def test_the_id_is_recovered_from_the_top_level_only(body: bytes, expected: object) -> None:
    assert message_limits.recover_id(body) == expected


def test_decode_refuses_what_recursion_cannot_parse_and_what_is_merely_deep() -> None:
    with pytest.raises(message_limits.Refusal) as deep:
        message_limits.decode('{"id": 1, "p": ' + "[" * 10_000 + "]" * 10_000 + "}")
    assert deep.value.code == -32600 and deep.value.id == 1
    with pytest.raises(message_limits.Refusal) as shallow_enough_to_parse:
        message_limits.decode('{"id": 2, "p": ' + "[" * 100 + "]" * 100 + "}")
    assert shallow_enough_to_parse.value.id == 2
    assert message_limits.decode('{"id": 3, "p": ' + "[" * 60 + "]" * 60 + "}")["id"] == 3


def test_depth_is_counted_without_recursing() -> None:
    value: list = []
    for _ in range(100_000):
        value = [value]
    assert exceeds_depth(value, 64) and not exceeds_depth([[1], {"a": [2]}], 3) and exceeds_depth([[[[]]]], 3)


def test_a_body_over_the_limit_is_read_past_and_the_next_one_read() -> None:
    async def read_two() -> tuple[framing.TooLarge, bytes | None]:
        reader = asyncio.StreamReader()
        big = b'{"id": 8, "pad": "' + b"x" * 5000 + b'"}'
        reader.feed_data(b"Content-Length: %d\r\n\r\n%s" % (len(big), big) + b"Content-Length: 2\r\n\r\n{}")
        reader.feed_eof()
        with pytest.raises(framing.TooLarge) as large:
            await framing.read_body(reader, max_bytes=1000)
        return large.value, await framing.read_body(reader, max_bytes=1000)

    large, following = asyncio.run(read_two())
    assert large.size == 5020 and message_limits.recover_id(large.head) == 8 and following == b"{}"
