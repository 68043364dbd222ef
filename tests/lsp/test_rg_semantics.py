"""rg's search-semantics arguments of ``sleuth.grep`` over LSP: ``only_matching``, ``replace``, ``binary``.

The argument table renders the command's JSON schema, so a client sees them; these check what a
client gets back (the CLI's output of the same flags is compared with rg in ``tests/diff``).
"""

from __future__ import annotations

import pathlib

from harness import make_tree


async def test_only_matching_gives_one_event_per_match(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {"a.txt": "foo bar foo\nnone\nqux foo\n"})
    session = await start([root])
    result = await session.execute("sleuth.grep", {"pattern": "foo", "only_matching": True})
    assert [(m["line"], m["column"], m["end_column"], m["text"]) for m in result["matches"]] == [
        (1, 1, 4, "foo"), (1, 9, 12, "foo"), (3, 5, 8, "foo")]
    assert result["count"] == 3
    counted = await session.execute("sleuth.grep", {"pattern": "foo", "only_matching": True, "output": "count"})
    assert counted["matches"] == [{"type": "count", "path": "a.txt", "count": 3}]


async def test_replace_gives_each_match_events_replacement(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {"a.txt": "user=alice id=42\nplain\n"})
    session = await start([root])
    args = {"pattern": r"user=(?P<name>\w+) id=(\d+)", "replace": "${name}#$2$$"}
    [event] = (await session.execute("sleuth.grep", args))["matches"]
    assert event["text"] == "user=alice id=42" and event["replacement"] == "alice#42$"
    [only] = (await session.execute("sleuth.grep", {**args, "pattern": r"id=(\d+)", "replace": "<$1>",
                                                    "only_matching": True}))["matches"]
    assert (only["text"], only["replacement"]) == ("id=42", "<42>")
    assert (root / "a.txt").read_text() == "user=alice id=42\nplain\n"  # output only: nothing written


async def test_binary_argument_and_its_schema(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {"t.txt": "hello text\n"})
    (root / "b.dat").write_bytes(b"hello one\x00two\n")
    session = await start([root])
    found = await session.execute("sleuth.grep", {"pattern": "hello"})
    assert [m["path"] for m in found["matches"]] == ["t.txt"] and found["skipped"]["binary"] == 1
    named = await session.execute("sleuth.grep", {"pattern": "hello", "path": "b.dat"})
    assert [(m["path"], m["binary_offset"]) for m in named["matches"]] == [("b.dat", 9)]
    searched = await session.execute("sleuth.grep", {"pattern": "hello", "binary": "search"})
    assert [(m["path"], m.get("binary_offset")) for m in searched["matches"]] == [("b.dat", 9), ("t.txt", None)]
    text = await session.execute("sleuth.grep", {"pattern": "hello", "binary": "text"})
    assert [(m["path"], "binary_offset" in m) for m in text["matches"]] == [("b.dat", False), ("t.txt", False)]
    tools = await session.execute("sleuth.tools.list", {})
    assert "grep" in str(tools)  # the profiles' schemas come from the same table


async def test_crlf_and_encoding(start, tmp_path: pathlib.Path) -> None:
    root = make_tree(tmp_path / "ws", {"readme.md": "nothing here\n"})
    (root / "crlf.txt").write_bytes(b"foo\r\nbar\r\n")
    (root / "u16.txt").write_bytes("caf\u00e9 foo\n".encode("utf-16-le"))
    session = await start([root])
    assert (await session.execute("sleuth.grep", {"pattern": "foo$"}))["matches"] == []
    [crlf] = (await session.execute("sleuth.grep", {"pattern": "foo$", "crlf": True}))["matches"]
    assert (crlf["path"], crlf["line"], crlf["text"]) == ("crlf.txt", 1, "foo")
    [u16] = (await session.execute("sleuth.grep", {"pattern": "café", "encoding": "utf-16le"}))["matches"]
    assert (u16["path"], u16["text"]) == ("u16.txt", "café foo")
    try:
        await session.execute("sleuth.grep", {"pattern": "x", "encoding": "rot13"})
    except Exception as error:  # noqa: BLE001 - the harness raises the JSON-RPC error
        assert "unknown encoding" in str(error)
    else:
        raise AssertionError("rot13 is no text encoding")


async def test_pcre2_engine_and_search_zip(start, tmp_path: pathlib.Path) -> None:
    import gzip

    root = make_tree(tmp_path / "ws", {"a.txt": "foobar foobaz\n"})
    (root / "z.txt.gz").write_bytes(gzip.compress(b"zipped foobar\n"))
    session = await start([root])
    found = await session.execute("sleuth.grep", {"pattern": r"foo\Kba(?>r|z)", "engine": "pcre2",
                                                  "only_matching": True})
    assert [(m["path"], m["column"], m["text"]) for m in found["matches"]] == [("a.txt", 4, "bar"), ("a.txt", 11, "baz")]
    zipped = await session.execute("sleuth.grep", {"pattern": "zipped", "search_zip": True})
    assert [(m["path"], m["text"]) for m in zipped["matches"]] == [("z.txt.gz", "zipped foobar")]
    assert (await session.execute("sleuth.grep", {"pattern": "zipped"}))["matches"] == []
