"""Running ``rg`` and ``ugrep`` for a ``sleuth.grep`` request and parsing their output back (seed 001 §3.4-3.7).

Arguments are validated and the path sandbox-checked by the native command's own code
(:func:`sleuth.commands.grep.build_request`), so every backend refuses exactly what the native
one refuses. The process runs without a shell; a watchdog kills it on cancel or timeout (then
``timed_out``). Events are parsed, filtered to the sandbox, sorted into the native order (path
bytes, line) and cut at ``max_results`` with one more observed for ``truncated``.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import threading
import time
from typing import Any, Iterable

from sleuth.commands.args import parse_args
from sleuth.commands.context import CommandContext
from sleuth.commands.grep import GREP_ARGS, build_request
from sleuth.engine.errors import BadArgs, BackendUnavailable, Cancelled
from sleuth.engine.workspace import sort_key

__all__ = ["run"]


def _decode(field: dict[str, Any] | None) -> bytes:
    """rg's ``{"text": ...}`` or ``{"bytes": base64}`` as raw bytes."""
    if not field:
        return b""
    if "text" in field:
        return field["text"].encode("utf-8", "surrogatepass")
    return base64.b64decode(field.get("bytes", ""))


def _line_text(line: bytes) -> str:
    if line.endswith(b"\n"):
        line = line[:-1]
    if line.endswith(b"\r"):
        line = line[:-1]
    return line.decode("utf-8", "replace")


def _case_flag(patterns: Iterable[str], case: str, fixed: bool) -> str | None:
    """ASCII smart case, decided here so every backend agrees: any A-Z means sensitive."""
    if case == "smart":
        case = "sensitive" if any(any("A" <= ch <= "Z" for ch in p) for p in patterns) else "insensitive"
    return "-i" if case == "insensitive" else None


class _Proc:
    """A backend process watched by a thread that kills it on cancel or deadline."""

    def __init__(self, cmd: list[str], cwd: str | None, token: Any) -> None:
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


def _walk_flags(backend: str, request: Any) -> list[str]:
    walk = request.walk
    flags: list[str] = []
    depth = walk.max_depth
    if not walk.recursive:
        depth = 1 if depth is None else min(depth, 1)
    if backend == "rg":
        flags.append("--no-config")
        if walk.hidden:
            flags += ["--hidden", "-g", "!.git"]  # the walk never enters .git, hidden or not
        if walk.follow:
            flags.append("-L")
        if walk.no_ignore:
            flags.append("--no-ignore")
        if walk.no_require_git:
            flags.append("--no-require-git")
        if depth is not None:
            flags += ["--max-depth", str(depth)]
        if walk.max_file_size_bytes:
            flags += ["--max-filesize", str(walk.max_file_size_bytes)]
        for glob in walk.include_globs:
            flags += ["-g", glob]
        for glob in (*walk.exclude_globs, *walk.deny_globs):
            flags += ["-g", "!" + glob]
        for i, ftype in enumerate(walk.file_types):
            if ftype.startswith("."):
                flags += ["--type-add", f"sleuthx:*{ftype}"]
            else:
                flags += ["-t", ftype]
        if any(t.startswith(".") for t in walk.file_types):
            flags += ["-t", "sleuthx"]
        return flags
    flags.append("-R" if walk.follow else "-r")
    if walk.hidden:
        flags += ["--hidden", "--exclude-dir=.git"]
    if not walk.no_ignore:
        flags += ["--ignore-files=.gitignore", "--ignore-files=.ignore"]
    if depth is not None:
        flags.append(f"--max-depth={max(depth, 1)}")
    for glob in walk.include_globs:
        flags.append(f"--include={glob}")
    for glob in (*walk.exclude_globs, *walk.deny_globs):
        flags += [f"--exclude={glob}", f"--exclude-dir={glob}"]
    for ftype in walk.file_types:
        flags.append(f"--include=*{ftype}" if ftype.startswith(".") else f"--file-type={ftype}")
    return flags


def _match_flags(backend: str, request: Any) -> list[str]:
    match, search = request.match, request.search
    flags: list[str] = []
    if match.fixed_strings:
        flags.append("-F")
    if match.word:
        flags.append("-w")
    case = _case_flag(match.patterns, match.case, match.fixed_strings)
    if case:
        flags.append(case)
    elif backend == "rg":
        flags.append("-s")
    if match.fuzzy is not None:
        flags.append(f"-Z{match.fuzzy}")
    if search.invert:
        flags.append("-v")
    if match.multiline:
        flags += ["-U", "--multiline-dotall"] if backend == "rg" else []
    if search.max_matches_per_file:
        flags += ["-m", str(search.max_matches_per_file)]
    for pattern in match.patterns:
        flags += ["-e", pattern]
    return flags


def _rg_list(path: str, request: Any, targets: list[str], cwd: str, token: Any, ctx: CommandContext) -> list[str]:
    """The files rg would search (absolute), in display order (for ``max_files``)."""
    proc = _Proc([path, "--files", *_walk_flags("rg", request), "--", *targets], cwd, token)
    files = [os.path.normpath(os.path.join(cwd, os.fsdecode(line.rstrip(b"\n")))) for line in proc.lines()]
    proc.finish()
    return sorted(files, key=lambda f: sort_key(ctx.workspace.display(f)))


def _inside(ctx: CommandContext, path: str, cache: dict[str, bool]) -> bool:
    if path not in cache:
        cache[path] = ctx.workspace.contains(os.path.realpath(path))
    return cache[path]


def _parse_rg(proc: _Proc, ctx: CommandContext, state: dict[str, Any], cwd: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    inside: dict[str, bool] = {}
    for raw in proc.lines():
        try:
            msg = json.loads(raw)
        except ValueError as exc:
            state["parse_error"] = f"unparseable rg output: {exc}"
            continue
        kind, data = msg.get("type"), msg.get("data", {})
        if kind not in ("match", "context"):
            continue
        path = os.path.normpath(os.path.join(cwd, os.fsdecode(_decode(data.get("path")))))
        if not _inside(ctx, path, inside):
            state["outside"].add(path)
            continue
        display = ctx.workspace.display(path)
        line = _decode(data.get("lines"))
        text = _line_text(line)
        event: dict[str, Any] = {"type": kind, "path": display, "line": data.get("line_number") or 0}
        if kind == "context":
            event["text"] = text
        else:
            subs = data.get("submatches") or []
            spans = [(s["start"], s["end"]) for s in subs] or [(0, 0)]
            s0, e0 = spans[0]
            event.update(column=s0 + 1, end_column=e0 + 1, text=text,
                         match_text=line[s0:e0].decode("utf-8", "replace"))
            if len(spans) > 1:
                event["submatches"] = [{"column": s + 1, "end_column": e + 1,
                                        "match_text": line[s:e].decode("utf-8", "replace")} for s, e in spans]
        events.append(event)
    return events


_UG_SEARCHED = re.compile(rb"^Searched ([\d,]+) files? ")
_UG_FORMAT = '{"f":%h,"n":%n,"k":%k,"o":%j,"O":%J}%~'


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _byte_column(line: str, line_bytes: bytes, char_column: int, found: bytes) -> int:
    """0-based byte offset of a ugrep match: its column counts characters, so convert, then confirm
    the bytes are there (tabs or odd encodings move it) and otherwise take the nearest occurrence."""
    guess = len(line[: max(char_column - 1, 0)].encode("utf-8", "surrogatepass"))
    if not found or line_bytes[guess:guess + len(found)] == found:
        return guess
    spots = [i for i in range(len(line_bytes)) if line_bytes.startswith(found, i)]
    return min(spots, key=lambda i: abs(i - guess)) if spots else guess


def _parse_ugrep(proc: _Proc, ctx: CommandContext, state: dict[str, Any], cwd: str, before: int,
                 after: int, max_size: int | None = None) -> list[dict[str, Any]]:
    by_line: dict[tuple[str, int], dict[str, Any]] = {}
    files: dict[str, str] = {}
    too_large: set[str] = set()
    inside: dict[str, bool] = {}
    for raw in proc.lines():
        stats = _UG_SEARCHED.match(raw)
        if stats:
            state["files_scanned"] += int(stats.group(1).replace(b",", b""))
            continue
        if not raw.startswith(b"{"):
            continue
        try:
            msg = json.loads(raw.decode("utf-8", "replace"))
        except ValueError as exc:
            state["parse_error"] = f"unparseable ugrep output: {exc}"
            continue
        path = os.path.normpath(os.path.join(cwd, msg["f"]))
        if not _inside(ctx, path, inside):
            state["outside"].add(path)
            continue
        if path not in files:
            if max_size is not None and _size(path) > max_size:
                too_large.add(path)
            files[path] = ctx.workspace.display(path)
        if path in too_large:
            continue
        display = files[path]
        line_bytes = msg["O"].encode("utf-8", "surrogatepass")
        found = msg["o"].encode("utf-8", "surrogatepass")
        start, size = _byte_column(msg["O"], line_bytes, msg["k"], found), len(found)
        key = (path, msg["n"])
        sub = {"column": start + 1, "end_column": start + size + 1,
               "match_text": line_bytes[start:start + size].decode("utf-8", "replace")}
        if key in by_line:
            by_line[key].setdefault("submatches", [dict(by_line[key]["_first"])]).append(sub)
            continue
        by_line[key] = {"type": "match", "path": display, "line": msg["n"], "column": sub["column"],
                        "end_column": sub["end_column"], "text": _line_text(line_bytes),
                        "match_text": sub["match_text"], "_first": sub}
    for path in too_large:
        files.pop(path, None)
    events = []
    for event in by_line.values():
        event.pop("_first")
        events.append(event)
    if before or after:
        events = _with_context(events, files, before, after, state)
    return events


def _with_context(events: list[dict[str, Any]], files: dict[str, str], before: int, after: int,
                  state: dict[str, Any]) -> list[dict[str, Any]]:
    """Context lines for backends whose machine-readable mode has none (ugrep): read from the file."""
    display_to_path = {d: p for p, d in files.items()}
    matched = {(e["path"], e["line"]) for e in events}
    out = list(events)
    for display in {e["path"] for e in events}:
        try:
            with open(display_to_path[display], "rb") as handle:
                lines = handle.read().split(b"\n")
        except OSError as exc:
            state["errors"].append({"path": display, "error": str(exc.strerror or exc)})
            continue
        wanted: set[int] = set()
        for e in events:
            if e["path"] == display:
                wanted.update(range(max(1, e["line"] - before), e["line"]))
                wanted.update(range(e["line"] + 1, min(len(lines), e["line"] + after) + 1))
        for n in sorted(wanted):
            if (display, n) not in matched and n <= len(lines) and not (n == len(lines) and lines[-1] == b""):
                out.append({"type": "context", "path": display, "line": n, "text": _line_text(lines[n - 1])})
    return out


def _stderr_errors(stderr: str, backend: str, ctx: CommandContext) -> tuple[list[dict[str, str]], list[str]]:
    """Per-file complaints (``rg: PATH: message``) as ``errors``; the rest stays stderr."""
    errors: list[dict[str, str]] = []
    rest: list[str] = []
    for line in stderr.splitlines():
        body = line.split(": ", 1)[1] if line.startswith(f"{backend}: ") else line
        if body.startswith("warning: "):
            body = body[len("warning: "):]
        path, sep, message = body.partition(": ")
        if sep and os.path.isabs(path) and ctx.workspace.contains(path):
            errors.append({"path": ctx.workspace.display(path), "error": message})
        else:
            rest.append(line)
    return errors, rest


def run(backend: str, binary: str, raw: dict[str, Any], ctx: CommandContext) -> dict[str, Any]:
    """``sleuth.grep`` semantics executed by ``rg`` or ``ugrep``."""
    started = time.perf_counter()
    args = parse_args("sleuth.grep", raw, GREP_ARGS, ctx.settings)
    if args["output"] != "content":
        raise BadArgs(f"The '{backend}' backend only produces content output.", argument="output")
    request = build_request(args, ctx)
    token = ctx.token.with_deadline(args["timeout_ms"] or None)
    state: dict[str, Any] = {"files_scanned": 0, "outside": set(), "errors": [], "listed": []}
    groups: dict[str, list[str]] = {}
    for target in request.targets:  # globs are relative to the process's cwd: one run per folder
        groups.setdefault(target.root.path, []).append(target.path)
    events: list[dict[str, Any]] = []
    codes: list[int] = []
    stderr_parts: list[str] = []
    killed = False
    for cwd, paths in groups.items():
        found, code, stderr, was_killed = _run_group(backend, binary, request, cwd, paths, token, ctx, state)
        events += found
        codes.append(code)
        stderr_parts.append(stderr)
        killed = killed or was_killed
    code = 0 if 0 in codes else (1 if all(c == 1 for c in codes) else max(codes))
    stderr = "".join(stderr_parts)
    if token.cancelled:
        raise Cancelled("The search was cancelled.")
    if classify(code) == "backend_error" and not events and not killed:
        message = stderr.strip() or f"{backend} exited with status {code}"
        if "regex parse error" in message or "error:" in message and "regex" in message.lower():
            raise BadArgs(f"Invalid regular expression: {message}", argument="pattern")
        raise BackendUnavailable(f"{backend} failed (exit status {code}): {message}", backend=backend)
    if state.get("parse_error") and not events:
        raise BackendUnavailable(f"{backend} output could not be parsed: {state['parse_error']}", backend=backend)
    return _shape(events, state, code, stderr, token, request, started, backend, ctx, killed)


def _run_group(backend: str, binary: str, request: Any, cwd: str, paths: list[str], token: Any,
               ctx: CommandContext, state: dict[str, Any]) -> tuple[list[dict[str, Any]], int, str, bool]:
    """One backend run over the targets inside one workspace folder, with that folder as cwd."""
    rel = [os.path.relpath(p, cwd) for p in paths]
    walk_flags = _walk_flags(backend, request)
    before, after = request.search.before, request.search.after
    counter: _Counter | None = None
    if backend == "rg" and request.walk.max_files:
        listed = _rg_list(binary, request, rel, cwd, token, ctx)[: request.walk.max_files]
        state["files_scanned"] += len(listed)
        if not listed:
            return [], 1, "", False
        rel = [os.path.relpath(p, cwd) for p in listed]
        walk_flags = _strip_globs(walk_flags)  # explicit files: the listing already applied the globs
    elif backend == "rg":
        # rg's JSON stats count only files with matches; the eligible set comes from a parallel listing
        counter = _Counter([binary, "--files", *_without_size_cap(walk_flags), "--", *rel], cwd, token)
    if backend == "rg":
        cmd = [binary, "--json", *walk_flags, *_match_flags("rg", request)]
        if before:
            cmd += ["-B", str(before)]
        if after:
            cmd += ["-A", str(after)]
        proc = _Proc([*cmd, "--", *rel], cwd, token)
        events = _parse_rg(proc, ctx, state, cwd)
    else:
        cmd = [binary, "-n", "-k", "--stats", f"--format={_UG_FORMAT}", "-I", *walk_flags,
               *_match_flags("ugrep", request)]
        proc = _Proc([*cmd, "--", *rel], cwd, token)
        events = _parse_ugrep(proc, ctx, state, cwd, before, after, request.walk.max_file_size_bytes)
    code = proc.finish()
    if counter is not None:
        listed_paths = counter.result()
        state["files_scanned"] += len(listed_paths)
        state["listed"] += [ctx.workspace.display(os.path.normpath(os.path.join(cwd, p))) for p in listed_paths]
    return events, code, proc.stderr.decode("utf-8", "replace"), proc.killed


class _Counter:
    """Collects the paths a listing process prints, on its own thread."""

    def __init__(self, cmd: list[str], cwd: str, token: Any) -> None:
        self._proc = _Proc(cmd, cwd, token)
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


def _without_size_cap(flags: list[str]) -> list[str]:
    """Walk flags minus ``--max-filesize``: files skipped for size still count as scanned (FR-LS-05e)."""
    out: list[str] = []
    skip = False
    for flag in flags:
        if skip:
            skip = False
        elif flag == "--max-filesize":
            skip = True
        else:
            out.append(flag)
    return out


def _strip_globs(flags: list[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for flag in flags:
        if skip:
            skip = False
            continue
        if flag in ("-g", "--type-add", "-t"):
            skip = True
            continue
        out.append(flag)
    return out


def classify(code: int) -> str:
    from sleuth.commands.profiles.backends import classify_exit

    return classify_exit(code)


def _shape(events: list[dict[str, Any]], state: dict[str, Any], code: int, stderr: str, token: Any, request: Any,
           started: float, backend: str = "rg", ctx: CommandContext | None = None,
           killed: bool = False) -> dict[str, Any]:
    events.sort(key=lambda e: (sort_key(e["path"]), e["line"], e["type"] != "context"))
    limit = request.search.max_results
    truncated = len(events) > limit or (killed and token.timed_out)
    kept = events[:limit]
    scanned = state["files_scanned"]
    if len(events) > limit and state["listed"]:
        # the native scan stops once it has seen max_results + 1 events: count the files up to that one
        stop = sort_key(events[limit]["path"])
        scanned = sum(1 for p in state["listed"] if sort_key(p) <= stop)
    errors = list(state["errors"])
    rest: list[str] = []
    if ctx is not None:
        file_errors, rest = _stderr_errors(stderr, backend, ctx)
        errors += file_errors
    errors += [{"path": ctx.workspace.display(p) if ctx else p,
                "error": "symbolic link target is outside the workspace; skipped"} for p in sorted(state["outside"])]
    result: dict[str, Any] = {
        "matches": kept,
        "count": sum(1 for e in kept if e["type"] == "match"),
        "truncated": truncated,
        "truncated_reason": ("max_results" if len(events) > limit else "timeout") if truncated else None,
        "timed_out": bool(token.timed_out),
        "files_scanned": scanned,
        "files_matched": len({e["path"] for e in events if e["type"] == "match"}),
        "skipped": {"ignored": 0, "hidden": 0, "binary": 0, "too_large": 0},
        "errors": errors,
        "elapsed_ms": round((time.perf_counter() - started) * 1000, 1),
        "exit_code": code,
    }
    if rest:
        result["stderr"] = "\n".join(rest)
    return result
