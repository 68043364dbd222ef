"""Adversarial: load — 8 concurrent searches, 30% cancelled, files edited meanwhile (issue 20 area 6).

Eight client threads send searches (``sleuth.grep``, ``sleuth.files``, ``sleuth.text``, their
custom-request forms and a tool) to one server for a bounded number of rounds; about 30% are
cancelled right after they are sent; meanwhile a ninth thread edits files on disk (and tells the
server, as an editor's watcher would) and types into an open buffer. Every request must get exactly
one answer: a result, or for a cancelled one RequestCancelled (or its result, if it finished
first), never an internal error; ``sleuth.index.status`` keeps answering; nothing is left running
at the end. The timing figures (status p95, RSS growth) are a benchmark, not a test:
``bench/load.py``.
"""

from __future__ import annotations

import pathlib
import random
import threading
from typing import Any

from tests.adversarial.lsp_sync import start_server
from tests.conftest import HANG_S

THREADS = 8
ROUNDS = 12  # per thread: 96 searches
CANCEL_SHARE = 0.3
BOUND_S = 120.0

SEARCHES: list[tuple[str, Any]] = [
    ("workspace/executeCommand", {"command": "sleuth.grep", "arguments": [{"pattern": "needle_[0-9]+"}]}),
    ("workspace/executeCommand", {"command": "sleuth.grep", "arguments": [{"pattern": "alpha", "case": "insensitive"}]}),
    ("workspace/executeCommand", {"command": "sleuth.grep", "arguments": [{"pattern": r"\w{5}\s+\w{5}"}]}),
    ("workspace/executeCommand", {"command": "sleuth.files", "arguments": [{"patterns": ["**/*.py"]}]}),
    ("workspace/executeCommand", {"command": "sleuth.files", "arguments": [{"query": "mdl12"}]}),
    ("workspace/executeCommand", {"command": "sleuth.text", "arguments": [{"query": "needle alpha"}]}),
    ("workspace/executeCommand", {"command": "sleuth.tools.call",
                                  "arguments": [{"name": "forge.Search", "arguments": {"pattern": "beta"}}]}),
    ("sleuth/grep", {"pattern": "needle", "partialResultToken": "p", "workDoneToken": "w"}),
    ("sleuth/files", {"patterns": ["**"]}),
    ("sleuth/text", {"query": "gamma"}),
]


def _tree(root: pathlib.Path) -> None:
    rnd = random.Random(6)
    words = ["alpha", "beta", "gamma", "delta", "needle", "haystack", "module", "value"]
    for i in range(400):  # above the 256 files from which a scan uses the process pool
        text = "\n".join(" ".join(rnd.choice(words) for _ in range(8)) + (f" needle_{i}" if j == 3 else "")
                         for j in range(40))
        path = root / f"pkg{i % 20}" / (f"mdl{i}.py" if i % 2 else f"mdl{i}.txt")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n")


def test_every_request_under_load_gets_exactly_one_answer(tmp_path: pathlib.Path) -> None:
    root = tmp_path / "ws"
    _tree(root)
    lsp = start_server([root], tmp_path, {"rateLimitEnabled": False})
    failures: list[Any] = []
    sent: list[int] = []
    sent_lock = threading.Lock()
    stop_editing = threading.Event()
    try:
        assert lsp.execute("sleuth.index.build", {"wait": True}, BOUND_S).result["state"] == "ready"
        buffer_uri = (root / "pkg0" / "mdl0.txt").as_uri()
        lsp.notify("textDocument/didOpen", {"textDocument": {"uri": buffer_uri, "languageId": "plaintext",
                                                              "version": 1, "text": "needle typed\n"}})

        def client(seed: int) -> None:
            rnd = random.Random(seed)
            try:
                for _ in range(ROUNDS):
                    method, params = rnd.choice(SEARCHES)
                    msg_id = lsp.send(method, params)
                    with sent_lock:
                        sent.append(msg_id)
                    cancelled = rnd.random() < CANCEL_SHARE
                    if cancelled:
                        lsp.cancel(msg_id)
                    answer = lsp.answer(msg_id, BOUND_S)
                    error = answer.get("error")
                    if error is not None:
                        ok = error["code"] == -32800 if cancelled else False
                        ok = ok or (error["code"] not in (-32603, -32800)
                                    and isinstance(error.get("data"), dict) and error["data"].get("code"))
                        if not ok:
                            failures.append((method, params, cancelled, error))
                    elif not isinstance(answer.get("result"), dict):
                        failures.append((method, params, cancelled, answer))
            except Exception as exc:  # a lost answer (TimeoutError) or a dead server (EOFError)
                failures.append(("client", seed, repr(exc)))

        def editor() -> None:
            version = 1
            rnd = random.Random(99)
            while not stop_editing.is_set():
                version += 1
                i = rnd.randrange(400)
                path = root / f"pkg{i % 20}" / (f"mdl{i}.py" if i % 2 else f"mdl{i}.txt")
                path.write_text(f"edited needle_{version} alpha\n" * rnd.randint(1, 50))
                lsp.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": path.as_uri(), "type": 2}]})
                lsp.notify("textDocument/didChange", {
                    "textDocument": {"uri": buffer_uri, "version": version},
                    "contentChanges": [{"text": f"needle typed {version}\n"}]})
                lsp.settle()  # one edit per round trip: a steady stream, not a flood

        clients = [threading.Thread(target=client, args=(seed,), daemon=True) for seed in range(THREADS)]
        editing = threading.Thread(target=editor, daemon=True)
        editing.start()
        for thread in clients:
            thread.start()
        statuses = 0
        while any(t.is_alive() for t in clients):  # status keeps being answered under load
            assert lsp.execute("sleuth.index.status", {}, HANG_S).result["state"] in ("ready", "stale")
            statuses += 1
            clients[0].join(0.05)
        for thread in clients:
            thread.join(BOUND_S)
        stop_editing.set()
        editing.join(HANG_S)
        assert not failures, failures[:5]
        assert len(sent) == THREADS * ROUNDS and statuses >= 1
        lsp.wait_idle()
        answers = lsp.response_ids()
        for msg_id in sent:
            assert answers.count(msg_id) == 1, (msg_id, answers.count(msg_id))
        assert lsp.alive() and "Traceback" not in lsp.stderr(), lsp.stderr()[-3000:]
    finally:
        stop_editing.set()
        lsp.close()
