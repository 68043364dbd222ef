"""The backend process plumbing shared by the rg and ugrep runners: spawning without a shell, a
watchdog that kills on cancel or deadline, stderr drained on its own thread, decoding helpers."""

from __future__ import annotations

import base64
import os
import subprocess
import threading
import time
from typing import Any, Iterable

from sleuth.engine.cancel import CancelToken
from sleuth.engine.errors import BackendUnavailable
from sleuth.engine.path_rule import PathRule

__all__ = ["Proc", "Counter", "decode_field", "line_text", "admit"]


def decode_field(field: dict[str, Any] | None) -> bytes:
    """rg's ``{"text": ...}`` or ``{"bytes": base64}`` as raw bytes."""
    if not field:
        return b""
    if "text" in field:
        return field["text"].encode("utf-8", "surrogatepass")
    return base64.b64decode(field.get("bytes", ""))


def line_text(line: bytes) -> str:
    if line.endswith(b"\n"):
        line = line[:-1]
    if line.endswith(b"\r"):
        line = line[:-1]
    return line.decode("utf-8", "replace")


class Proc:
    """A backend process watched by a thread that kills it on cancel or deadline."""

    def __init__(self, cmd: list[str], cwd: str | None, token: CancelToken) -> None:
        try:
            self.proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE)
        except OSError as exc:
            raise BackendUnavailable(f"Could not start '{cmd[0]}': {exc}.", backend=cmd[0]) from exc
        self.token = token
        self.killed = False
        self.stderr = b""
        self._err_thread = threading.Thread(target=self._read_err, daemon=True)
        self._err_thread.start()
        self._watch = threading.Thread(target=self._watchdog, daemon=True)
        self._watch.start()

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()

    def _watchdog(self) -> None:
        while self.proc.poll() is None:
            if self.token.should_stop():
                self.killed = True
                self.proc.kill()
                return
            time.sleep(0.02)

    def lines(self) -> Iterable[bytes]:
        assert self.proc.stdout is not None
        yield from self.proc.stdout

    def finish(self) -> int:
        code = self.proc.wait()
        self._err_thread.join(timeout=5)
        return code


class Counter:
    """Collects the paths a listing process prints, on its own thread."""

    def __init__(self, cmd: list[str], cwd: str, token: CancelToken) -> None:
        self._proc = Proc(cmd, cwd, token)
        self._paths: list[str] = []
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        for line in self._proc.lines():
            self._paths.append(os.fsdecode(line.rstrip(b"\n")))
        self._proc.finish()

    def result(self) -> list[str]:
        self._thread.join()
        return self._paths


def admit(rule: PathRule, path: str, cache: dict[str, bool]) -> bool:
    """The path rule for a path a backend printed (absolute, as reached). Sleuth's own walk decided
    what the backend reads, so a path failing it is dropped unnamed: a defence, not a filter."""
    if path not in cache:
        cache[path] = rule.allows(path)
    return cache[path]
