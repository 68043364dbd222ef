"""Running ``rg`` and ``ugrep`` for a ``sleuth.grep`` request and parsing their output back (seed 001 §3.4-3.7).

Arguments are validated and the path sandbox-checked by the native command's own code
(:func:`sleuth.commands.grep.build_request`), so every backend refuses exactly what the native
one refuses. The process runs without a shell; a watchdog kills it on cancel or timeout (then
``timed_out``). Events are parsed, filtered to the sandbox, sorted into the native order (path
bytes, line) and cut at ``max_results`` with one more observed for ``truncated``.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any, Iterable

from sleuth.commands.args import parse_args
from sleuth.commands.context import CommandContext
from sleuth.commands.grep import GREP_ARGS, build_request
from sleuth.commands.profiles._proc import Counter, Proc, decode_field, inside, line_text
from sleuth.commands.profiles._ugrep import UG_FORMAT, parse_ugrep
from sleuth.engine.errors import BadArgs, BackendUnavailable, Cancelled
from sleuth.engine.filetypes import type_globs
from sleuth.engine.ignore import Filter
from sleuth.engine.workspace import sort_key

__all__ = ["run", "ascii_case"]


def ascii_case(patterns: Iterable[str], case: str) -> str:
    """Seed 001's smart case, the same for every backend: any ASCII A-Z in a pattern means
    ``sensitive``, else ``insensitive``; explicit modes pass through."""
    if case == "smart":
        return "sensitive" if any(any("A" <= ch <= "Z" for ch in p) for p in patterns) else "insensitive"
    return case


def _case_flag(patterns: Iterable[str], case: str) -> str | None:
    return "-i" if ascii_case(patterns, case) == "insensitive" else None


def _walk_flags(backend: str, request: Any) -> list[str]:
    walk = request.walk
    flags: list[str] = []
    depth = walk.depth_limit
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
        globs = _type_globs(walk.file_types)
        for glob in globs:
            flags += ["--type-add", f"sleuthx:{glob}"]
        if globs:
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
    if not walk.include_globs:  # as in rg, include globs decide before types: with them, types change nothing
        flags += [f"--include={glob}" for glob in _type_globs(walk.file_types)]
    return flags


def _type_globs(file_types: Iterable[str]) -> list[str]:
    """The base-name globs of ``file_types`` from Sleuth's own type table: the binaries' type
    names differ from it (and from each other), so they get globs, never names."""
    globs: list[str] = []
    for item in file_types:
        globs += [glob for glob in type_globs(item) if glob not in globs]
    return globs


def _match_flags(backend: str, request: Any) -> list[str]:
    match, search = request.match, request.search
    flags: list[str] = []
    if match.fixed_strings:
        flags.append("-F")
    if match.word:
        flags.append("-w")
    case = _case_flag(match.patterns, match.case)
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
    proc = Proc([path, "--files", *_walk_flags("rg", request), "--", *targets], cwd, token)
    files = [os.path.normpath(os.path.join(cwd, os.fsdecode(line.rstrip(b"\n")))) for line in proc.lines()]
    proc.finish()
    return sorted(files, key=lambda f: sort_key(ctx.workspace.display(f)))


def _parse_rg(proc: Proc, ctx: CommandContext, state: dict[str, Any], cwd: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    seen: dict[str, bool] = {}
    for raw in proc.lines():
        try:
            msg = json.loads(raw)
        except ValueError as exc:
            state["parse_error"] = f"unparseable rg output: {exc}"
            continue
        kind, data = msg.get("type"), msg.get("data", {})
        if kind not in ("match", "context"):
            continue
        path = os.path.normpath(os.path.join(cwd, os.fsdecode(decode_field(data.get("path")))))
        if not inside(ctx, path, seen):
            state["outside"].add(path)
            continue
        display = ctx.workspace.display(path)
        line = decode_field(data.get("lines"))
        text = line_text(line)
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
    deny = Filter(ctx.workspace, request.walk) if request.walk.deny_globs else None
    for target in request.targets:  # globs are relative to the process's cwd: one run per folder
        if deny is not None and deny.path_denied(target.root, target.path, target.is_dir):
            continue  # a binary searches a file it is named whatever its globs say: never name a denied one
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
    counter: Counter | None = None
    if backend == "rg" and request.walk.max_files:
        listed = _rg_list(binary, request, rel, cwd, token, ctx)[: request.walk.max_files]
        state["files_scanned"] += len(listed)
        if not listed:
            return [], 1, "", False
        rel = [os.path.relpath(p, cwd) for p in listed]
        walk_flags = _strip_globs(walk_flags)  # explicit files: the listing already applied the globs
    elif backend == "rg":
        # rg's JSON stats count only files with matches; the eligible set comes from a parallel listing
        counter = Counter([binary, "--files", *_without_size_cap(walk_flags), "--", *rel], cwd, token)
    if backend == "rg":
        cmd = [binary, "--json", *walk_flags, *_match_flags("rg", request)]
        if before:
            cmd += ["-B", str(before)]
        if after:
            cmd += ["-A", str(after)]
        proc = Proc([*cmd, "--", *rel], cwd, token)
        events = _parse_rg(proc, ctx, state, cwd)
    else:
        cmd = [binary, "-n", "-k", "--stats", f"--format={UG_FORMAT}", "-I", *walk_flags,
               *_ancestor_ignores(request, cwd, rel), *_match_flags("ugrep", request)]
        proc = Proc([*cmd, "--", *rel], cwd, token)
        events = parse_ugrep(proc, ctx, state, cwd, before, after, request.walk.max_file_size_bytes)
    code = proc.finish()
    if counter is not None:
        listed_paths = counter.result()
        state["files_scanned"] += len(listed_paths)
        state["listed"] += [ctx.workspace.display(os.path.normpath(os.path.join(cwd, p))) for p in listed_paths]
    return events, code, proc.stderr.decode("utf-8", "replace"), proc.killed


def _ancestor_ignores(request: Any, cwd: str, rel: list[str]) -> list[str]:
    """ugrep reads ignore files only inside the trees it searches; when a sub-folder is searched, the
    folder root's own .gitignore/.ignore still apply (their anchored globs are relative to cwd = root)."""
    if request.walk.no_ignore or all(r == "." for r in rel):
        return []
    return [f"--exclude-from={name}" for name in (".gitignore", ".ignore") if os.path.isfile(os.path.join(cwd, name))]


def _without(flags: list[str], *names: str) -> list[str]:
    """``flags`` minus every flag in ``names`` and the value that follows it."""
    out: list[str] = []
    skip = False
    for flag in flags:
        if skip:
            skip = False
        elif flag in names:
            skip = True
        else:
            out.append(flag)
    return out


def _without_size_cap(flags: list[str]) -> list[str]:
    """Walk flags minus ``--max-filesize``: files skipped for size still count as scanned (FR-LS-05e)."""
    return _without(flags, "--max-filesize")


def _strip_globs(flags: list[str]) -> list[str]:
    return _without(flags, "-g", "--type-add", "-t")


def classify(code: int) -> str:
    """Seed 001 §3.7: 0 ok_with_matches, 1 ok_no_matches, anything else backend_error."""
    return "ok_with_matches" if code == 0 else "ok_no_matches" if code == 1 else "backend_error"


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
