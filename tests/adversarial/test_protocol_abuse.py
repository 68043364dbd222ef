"""A hostile client over stdio: broken framing, undecodable params, a lone surrogate, shutdown abuse.

Raw bytes are written to the real server process's stdin; responses are read from its stdout by
a reader thread and waited for with bounded polls. Every case is one the landed server got wrong
(issue 22 items 9-12): it answered nothing (and stayed silently deaf), answered ``-32603`` or
exited with the wrong status.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from tests.conftest import HANG_S, SLEUTH, write_tree

WAIT_S = HANG_S  # a bound for "the answer never comes", never a speed expectation


def frame(message: Any, header: str = "Content-Length: {n}\r\n\r\n") -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return header.format(n=len(body)).encode() + body


def request(msg_id: int, method: str, params: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def status_request(msg_id: int) -> dict[str, Any]:
    return request(msg_id, "workspace/executeCommand", {"command": "sleuth.index.status"})


class RawServer:
    """The installed ``sleuth serve`` with raw pipes: bytes in, parsed frames out (a thread reads them)."""

    def __init__(self, folder: Path, cache: Path) -> None:
        env = dict(os.environ, XDG_CACHE_HOME=str(cache))
        self.folder = folder
        self.proc = subprocess.Popen(self.argv(folder), cwd=folder, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.messages: "queue.Queue[dict[str, Any]]" = queue.Queue()
        self.stderr = b""
        self.readers = [threading.Thread(target=self._read_stdout, daemon=True),
                        threading.Thread(target=self._read_stderr, daemon=True)]
        for reader in self.readers:
            reader.start()

    def argv(self, folder: Path) -> list[str]:
        """The command line (a subclass starts another door over the same pipes)."""
        return [str(SLEUTH), "serve"]

    def _read_stdout(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            self.before_frame()
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line == b"\r\n":
                    break
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            assert length is not None, "the server sent a frame without Content-Length"
            self.messages.put(json.loads(out.read(length)))

    def before_frame(self) -> None:
        """Called before each frame is read: a client that stops reading waits here."""

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for chunk in iter(lambda: self.proc.stderr.read1(65536), b""):  # type: ignore[union-attr]
            self.stderr += chunk

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
        """The first message from the server that satisfies ``predicate`` (others are skipped), or
        None once ``WAIT_S`` passed without one."""
        try:
            while True:
                message = self.messages.get(timeout=WAIT_S)
                if predicate(message):
                    return message
        except queue.Empty:
            return None

    def response(self, msg_id: Any) -> dict[str, Any] | None:
        return self.wait_for(lambda m: "method" not in m and m.get("id") == msg_id)

    def initialize(self) -> None:
        self.send(frame(request(1, "initialize", {"capabilities": {}, "processId": None,
                                                  "rootUri": self.folder.as_uri()})))
        assert self.response(1) is not None
        self.send(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))

    def exit_status(self) -> int | None:
        """The process's exit status (its stderr read to the end), or None if it is still running
        after ``WAIT_S``."""
        try:
            status = self.proc.wait(WAIT_S)
        except subprocess.TimeoutExpired:
            return None
        for reader in self.readers:
            reader.join(WAIT_S)
        return status

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for reader in self.readers:
            reader.join(WAIT_S)
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                pipe.close()  # type: ignore[union-attr]
            except OSError:
                pass


@contextlib.contextmanager
def started(kind: "type[RawServer]", tmp_path: Path) -> Iterator[RawServer]:
    """A raw door of ``kind`` on a one-file folder, initialized, closed afterwards."""
    raw = kind(write_tree(tmp_path / "ws", {"a.txt": "needle\n"}), tmp_path / "cache")
    try:
        raw.initialize()
        yield raw
    finally:
        raw.close()


@pytest.fixture
def server(tmp_path: Path):
    with started(RawServer, tmp_path) as raw:
        yield raw


# -- framing the server reads leniently (RFC 7230 header names; LF-only line ends) ---------------

@pytest.mark.parametrize("header", [
    "content-length: {n}\r\n\r\n",  # header names are case-insensitive
    "Content-Length: {n}\n\n",  # LF-only line ends
    "CONTENT-LENGTH:{n}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n",
], ids=["lower-case-name", "lf-only", "no-space-and-content-type"])
def test_lenient_framing_is_answered(server: RawServer, header: str) -> None:
    server.send(frame(status_request(2), header))
    answer = server.response(2)
    assert answer is not None and "result" in answer, "the server went deaf on a legitimate header"
    server.send(frame(status_request(3)))  # and the stream is still in step
    assert server.response(3) is not None


# -- framing it cannot resynchronise from: say so on stderr and exit non-zero ------------------

def _broken(name: str) -> bytes:
    good = json.dumps(status_request(2)).encode()
    follow = frame(status_request(3))
    return {
        "too-small": f"Content-Length: {len(good) - 7}\r\n\r\n".encode() + good + follow,
        "too-large-then-more": f"Content-Length: {len(good) + 30}\r\n\r\n".encode() + good + follow,
        "non-numeric": b"Content-Length: twelve\r\n\r\n" + good + follow,
        "negative": f"Content-Length: -{len(good)}\r\n\r\n".encode() + good + follow,
        "missing": b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + good + follow,
        "not-a-header": b"hello there\r\n\r\n" + follow,
    }[name]


@pytest.mark.parametrize("case", ["too-small", "too-large-then-more", "non-numeric", "negative", "missing",
                                  "not-a-header"])
def test_unrecoverable_framing_exits_with_an_error(server: RawServer, case: str) -> None:
    server.send(_broken(case))
    status = server.exit_status()
    assert status is not None, "the server stayed alive and deaf"
    assert status != 0
    assert b"cannot resynchronise" in server.stderr


def test_a_body_cut_short_by_the_end_of_input_exits_with_an_error(server: RawServer) -> None:
    """A Content-Length too large: the server waits for the bytes, and when the input ends it says so."""
    good = json.dumps(status_request(2)).encode()
    server.send(f"Content-Length: {len(good) + 30}\r\n\r\n".encode() + good)
    server.proc.stdin.close()  # type: ignore[union-attr]
    assert server.exit_status() == 1
    assert b"bytes into a" in server.stderr


# -- messages that are framed well but cannot be decoded ----------------------------------------

def test_params_of_the_wrong_type_are_answered_invalid_params(server: RawServer) -> None:
    server.send(frame(request(7, "workspace/executeCommand", {"command": "sleuth.grep", "arguments": 5})))
    answer = server.response(7)
    assert answer is not None, "a request with undecodable params was never answered"
    assert answer["error"]["code"] == -32602
    assert "arguments" in answer["error"]["message"]


def test_a_body_that_is_not_json_is_answered_parse_error(server: RawServer) -> None:
    server.send(frame(b'{"jsonrpc": "2.0", "id": 8, "method":'))
    answer = server.response(None)
    assert answer is not None and answer["error"]["code"] == -32700
    server.send(frame(status_request(9)))  # the stream stays in step
    assert server.response(9) is not None


def test_a_message_that_is_not_json_rpc_is_answered_invalid_request(server: RawServer) -> None:
    server.send(frame({"id": 10, "method": "workspace/executeCommand"}))  # no "jsonrpc"
    answer = server.response(10)
    assert answer is not None and answer["error"]["code"] == -32600


# -- a lone surrogate escape: valid JSON, not valid text -----------------------------------------

SURROGATE_GREP = (b'{"jsonrpc": "2.0", "id": 11, "method": "workspace/executeCommand", "params": '
                  b'{"command": "sleuth.grep", "arguments": [{"pattern": "\\ud800needle"}]}}')


def test_a_lone_surrogate_in_a_pattern_is_bad_args(server: RawServer) -> None:
    server.send(frame(SURROGATE_GREP))
    answer = server.response(11)
    assert answer is not None
    assert answer["error"]["code"] == -32602 and answer["error"]["data"]["code"] == "bad_args"
    assert "surrogate" in answer["error"]["message"]


@pytest.mark.parametrize("tool,field", [("forge.Search", "pattern"), ("codex.grep_files", "pattern"),
                                        ("kimi.search_files", "query"), ("acode.grep", "pattern")])
def test_a_lone_surrogate_in_a_tool_call_is_bad_args(server: RawServer, tool: str, field: str) -> None:
    body = ('{"jsonrpc": "2.0", "id": 12, "method": "workspace/executeCommand", "params": {"command": '
            '"sleuth.tools.call", "arguments": [{"name": "%s", "arguments": {"%s": "\\ud800needle"}}]}}'
            % (tool, field)).encode()
    server.send(frame(body))
    answer = server.response(12)
    assert answer is not None and answer["result"]["is_error"]
    content = answer["result"]["content"]  # in the profile's own wording (the old answer: an internal error)
    assert "lone surrogate" in content and "internal" not in content.lower(), content


# -- shutdown and exit (LSP: requests after shutdown are InvalidRequest; exit's status) ----------

def test_a_request_after_shutdown_is_answered_invalid_request(server: RawServer) -> None:
    server.send(frame(request(20, "shutdown")))
    assert server.response(20) is not None
    server.send(frame(status_request(21)))
    answer = server.response(21)
    assert answer is not None, "a request after shutdown was never answered"
    assert answer["error"]["code"] == -32600
    server.send(frame({"jsonrpc": "2.0", "method": "exit"}))
    assert server.exit_status() == 0


def test_exit_without_shutdown_exits_with_status_1(server: RawServer) -> None:
    server.send(frame({"jsonrpc": "2.0", "method": "exit"}))
    assert server.exit_status() == 1


# -- requests out of order, unknown methods, a huge message, a client that stops reading -----------

def test_a_request_before_initialize_is_answered_with_an_error(tmp_path: Path) -> None:
    """LSP: before ``initialize`` a request gets an error (ServerNotInitialized), never a search of
    an unknown sandbox and never silence; the server then initializes normally."""
    folder = write_tree(tmp_path / "ws", {"a.txt": "needle\n"})
    raw = RawServer(folder, tmp_path / "cache")
    try:
        raw.send(frame(request(7, "workspace/executeCommand", {"command": "sleuth.grep", "arguments": [{"pattern": "needle"}]})))
        answer = raw.response(7)
        assert answer is not None and "error" in answer, answer
        raw.initialize()
        raw.send(frame(status_request(8)))
        assert (raw.response(8) or {}).get("result") is not None
    finally:
        raw.close()


def test_an_unknown_method_is_answered_method_not_found(server: RawServer) -> None:
    server.send(frame(request(20, "sleuth/noSuchMethod", {})))
    answer = server.response(20)
    assert answer is not None and answer["error"]["code"] == -32601, answer
    server.send(frame(status_request(21)))
    assert (server.response(21) or {}).get("result") is not None


def test_a_50_mb_message_is_refused_and_the_request_behind_it_answered(server: RawServer) -> None:
    huge = request(30, "workspace/executeCommand", {"command": "sleuth.grep", "arguments": [{"pattern": "x" * (50 << 20)}]})
    server.send(frame(huge) + frame(status_request(31)))
    answer = server.response(30)
    assert answer is not None and answer["error"]["data"]["code"] == "bad_args", str(answer)[:300]
    assert (server.response(31) or {}).get("result") is not None


def _rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:"))


class PausingServer(RawServer):
    """A client whose reading can be stopped (``gate`` cleared) and resumed (set)."""

    def __init__(self, folder: Path, cache: Path) -> None:
        self.gate = threading.Event()
        self.gate.set()
        super().__init__(folder, cache)

    def before_frame(self) -> None:
        self.gate.wait(WAIT_S * 4)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads the server's RSS from /proc")
def test_a_client_that_stops_reading_does_not_make_the_server_grow(tmp_path: Path) -> None:
    """300 searches of ~150 KB answers each (45 MB) while the client reads nothing: the server waits
    on the full pipe instead of queueing every answer in memory, and once the client reads again
    every request is answered exactly once."""
    line = "needle " + "y" * 60 + "\n"
    folder = write_tree(tmp_path / "ws", {f"f{i}.txt": line * 100 for i in range(20)})
    raw = PausingServer(folder, tmp_path / "cache")
    try:
        raw.initialize()
        raw.send(frame(status_request(2)))
        assert raw.response(2) is not None
        raw.gate.clear()
        before = _rss_kib(raw.proc.pid)
        ids = set(range(100, 400))
        for msg_id in sorted(ids):
            raw.send(frame(request(msg_id, "workspace/executeCommand",
                                   {"command": "sleuth.grep", "arguments": [{"pattern": "needle", "max_results": 2000}]})))
        # Give the server the time to answer them all into memory if it would (bounded sampling; what
        # is asserted is the growth, not a time): 45 MB of answers queued would show here.
        grown = 0
        for _ in range(50):
            time.sleep(0.2)
            grown = max(grown, _rss_kib(raw.proc.pid) - before)
        raw.gate.set()
        answered: list[Any] = []
        while set(answered) != ids:
            message = raw.wait_for(lambda m: "method" not in m)
            assert message is not None, f"{len(ids - set(answered))} requests never answered"
            answered.append(message.get("id"))
        assert len(answered) == len(ids)  # each exactly once
        assert grown < 40 * 1024, f"the server grew by {grown // 1024} MiB while its client read nothing"
    finally:
        raw.gate.set()
        raw.close()
