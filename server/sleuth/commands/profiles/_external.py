"""Running ``rg`` and ``ugrep`` for a ``sleuth.grep`` request and parsing their output back (seed 001 §3.4-3.7).

Arguments are validated and the path sandbox-checked by the native command's own code
(:func:`sleuth.commands.grep.build_request`), so every backend refuses exactly what the native
one refuses. The process runs without a shell; a watchdog kills it on cancel or timeout (then
``timed_out``). Events are parsed, sorted into the native order (path bytes, line) and cut at
``max_results`` with one more observed for ``truncated``.

A backend never follows a link (issue 23): given ``-L``/``-R`` it walked wherever a repository's
links pointed (``procroot -> /proc/self/root``: the whole file system) and only its output was
filtered. Without ``follow`` it walks the targets itself with no follow flag, which cannot leave
them. With ``follow``, Sleuth's own walk (ignore rules, globs, links, sandbox, deny globs) lists the
files and the backend searches exactly those, named as reached, in batches that fit the argument
limit. Either way every path it prints — results and the per-file complaints on stderr — passes
the path rule (:mod:`sleuth.engine.path_rule`) before it leaves the server.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any, Iterable

from sleuth.commands.args import parse_args
from sleuth.commands.context import CommandContext
from sleuth.commands.grep import GREP_ARGS, build_request, native_only
from sleuth.commands.profiles._proc import Counter, Proc, admit, decode_field, line_text
from sleuth.commands.profiles._ugrep import UG_FORMAT, parse_ugrep
from sleuth.engine.cancel import CancelToken
from sleuth.engine.errors import BadArgs, BackendUnavailable, Cancelled
from sleuth.engine.events import Context, LineEvent, Match, Submatch, to_items
from sleuth.engine.grep.request import GrepRequest
from sleuth.engine.filetypes import type_globs
from sleuth.engine.ignore_rules import glob_file
from sleuth.engine.path_rule import PathRule
from sleuth.engine.types import FileError, SkipCounts
from sleuth.engine.walk import walk
from sleuth.engine.workspace import Target, sort_key

__all__ = ["run", "ascii_case"]


def ascii_case(patterns: Iterable[str], case: str) -> str:
    """Seed 001's smart case, the same for every backend: any ASCII A-Z in a pattern means
    ``sensitive``, else ``insensitive``; explicit modes pass through."""
    if case == "smart":
        return "sensitive" if any(any("A" <= ch <= "Z" for ch in p) for p in patterns) else "insensitive"
    return case


def _case_flag(patterns: Iterable[str], case: str) -> str | None:
    return "-i" if ascii_case(patterns, case) == "insensitive" else None


def _walk_flags(backend: str, request: GrepRequest) -> list[str]:
    walk = request.walk
    flags: list[str] = []
    depth = walk.depth_limit
    if backend == "rg":
        flags.append("--no-config")
        if walk.hidden:
            flags += ["--hidden", "-g", "!.git"]  # the walk never enters .git, hidden or not
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
    flags.append("-r")  # links on the command line only: the targets are canonical, so none
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


def _match_flags(backend: str, request: GrepRequest) -> list[str]:
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
    if match.multiline:  # rg's -U alone: "." still stops at a newline, as on the native engine
        flags += ["-U"] if backend == "rg" else []
    if search.max_matches_per_file:
        flags += ["-m", str(search.max_matches_per_file)]
    for pattern in match.patterns:
        flags += ["-e", pattern]
    return flags


def _rg_list(path: str, request: GrepRequest, targets: list[str], cwd: str, token: CancelToken, ctx: CommandContext) -> list[str]:
    """The files rg would search (absolute), in display order (for ``max_files``)."""
    proc = Proc([path, "--files", *_walk_flags("rg", request), "--", *targets], cwd, token)
    files = [os.path.normpath(os.path.join(cwd, os.fsdecode(line.rstrip(b"\n")))) for line in proc.lines()]
    proc.finish()
    return sorted(files, key=lambda f: sort_key(ctx.workspace.display(f)))


def _parse_rg(proc: Proc, ctx: CommandContext, state: dict[str, Any], cwd: str, rule: PathRule,
              explicit: bool = False) -> list[LineEvent]:
    """Events of ``rg --json``. ``explicit``: the files were named on the command line, which rg
    searches even when binary (it only reports ``binary_offset`` at the file's end); those files'
    events are dropped, as the native search and rg's own walk skip binary files."""
    events: list[LineEvent] = []
    seen: dict[str, bool] = {}
    start = 0  # where the current file's events begin
    for raw in proc.lines():
        try:
            msg = json.loads(raw)
        except ValueError as exc:
            state["parse_error"] = f"unparseable rg output: {exc}"
            continue
        kind, data = msg.get("type"), msg.get("data", {})
        if kind == "begin":
            start = len(events)
        elif kind == "end" and explicit and data.get("binary_offset") is not None:
            del events[start:]
        if kind not in ("match", "context"):
            continue
        path = os.path.normpath(os.path.join(cwd, os.fsdecode(decode_field(data.get("path")))))
        if not admit(rule, path, seen):
            continue
        display = ctx.workspace.display(path)
        line = decode_field(data.get("lines"))
        text = line_text(line)
        number = data.get("line_number") or 0
        if kind == "context":
            events.append(Context(display, number, text))
            continue
        subs = data.get("submatches") or []
        spans = [(s["start"], s["end"]) for s in subs] or [(0, 0)]
        s0, e0 = spans[0]
        event = Match(display, number, text, s0 + 1, e0 + 1, line[s0:e0].decode("utf-8", "replace"))
        if len(spans) > 1:
            event.submatches = [Submatch(s + 1, e + 1, line[s:e].decode("utf-8", "replace")) for s, e in spans]
        events.append(event)
    return events


_UG_PATH_LEAD = ("cannot open directory ", "cannot open file ", "cannot open ", "cannot read ")


def _stderr_errors(stderr: str, backend: str, cwd: str, rule: PathRule,
                   ctx: CommandContext) -> tuple[list[dict[str, str]], list[str]]:
    """Per-file complaints (``rg: PATH: message``, ``ugrep: warning: cannot read PATH: message``)
    as ``errors`` when PATH passes the path rule, dropped when it does not; the rest stays stderr."""
    errors: list[dict[str, str]] = []
    rest: list[str] = []
    seen: dict[str, bool] = {}
    for line in stderr.splitlines():
        body = line.split(": ", 1)[1] if line.startswith(f"{backend}: ") else line
        if body.startswith("warning: "):
            body = body[len("warning: "):]
        for lead in _UG_PATH_LEAD:
            if backend == "ugrep" and body.startswith(lead):
                body = body[len(lead):]
                break
        path, sep, message = body.rpartition(": ") if backend == "ugrep" else body.partition(": ")
        full = os.path.normpath(os.path.join(cwd, path)) if sep and path else ""
        if not full or not os.path.lexists(full):
            rest.append(line)  # not about a file (a bad pattern, a usage error)
        elif admit(rule, full, seen) or os.path.isdir(full) and rule.folder(rule.realpath(full)) is not None:
            errors.append({"path": ctx.workspace.display(full), "error": message})
    return errors, rest


def _target_ok(rule: PathRule, target: Target) -> bool:
    """A named target passes the rule: a binary searches a file it is named whatever its globs say."""
    if target.named is not None and rule.reached_view(target.named, target.is_dir)[0]:
        return False
    return rule.folder(target.path) is not None if target.is_dir else rule.real_file_ok(target.path)


def run(backend: str, binary: str, raw: dict[str, Any], ctx: CommandContext) -> dict[str, Any]:
    """``sleuth.grep`` semantics executed by ``rg`` or ``ugrep``."""
    started = time.perf_counter()
    args = parse_args("sleuth.grep", raw, GREP_ARGS, ctx.settings)
    if args["output"] != "content":
        raise BadArgs(f"The '{backend}' backend only produces content output.", argument="output")
    unsupported = native_only(args)
    if unsupported is not None:
        raise BadArgs(f"'{unsupported}' is not supported by the '{backend}' backend.", argument=unsupported,
                      hint="Use the native backend (setting backend: native) for it.")
    request = build_request(args, ctx)
    token = ctx.token.with_deadline(args["timeout_ms"] or None)
    state: dict[str, Any] = {"files_scanned": 0, "errors": [], "listed": []}
    rule = PathRule(ctx.workspace, glob_file(request.walk.deny_globs, override=False))
    groups: dict[str, list[Target]] = {}
    for target in request.targets:  # globs are relative to the process's cwd: one run per folder
        if _target_ok(rule, target):
            groups.setdefault(target.root.path, []).append(target)
    events: list[LineEvent] = []
    codes: list[int] = []
    stderr_parts: list[str] = []
    killed = False
    for cwd, targets in groups.items():
        found, code, stderr, was_killed = _run_group(backend, binary, request, cwd, targets, token, ctx, state, rule)
        events += found
        codes.append(code)
        stderr_parts += stderr
        killed = killed or was_killed
    code = 0 if 0 in codes else (1 if all(c == 1 for c in codes) else max(codes))
    stderr = "\n".join(stderr_parts)
    if token.cancelled:
        raise Cancelled("The search was cancelled.")
    if classify(code) == "backend_error" and not events and not killed:
        message = stderr.strip() or f"{backend} exited with status {code}"
        if "regex parse error" in message or "error:" in message and "regex" in message.lower():
            raise BadArgs(f"Invalid regular expression: {message}", argument="pattern")
        raise BackendUnavailable(f"{backend} failed (exit status {code}): {message}", backend=backend)
    if state.get("parse_error") and not events:
        raise BackendUnavailable(f"{backend} output could not be parsed: {state['parse_error']}", backend=backend)
    return _shape(events, state, code, stderr, token, request, started, killed)


_ARG_BYTES = 1 << 20  # of the 2 MiB Linux allows for arguments and environment together


def _batches(paths: list[str]) -> list[list[str]]:
    """``paths`` cut into command lines that fit the kernel's argument limit (each argument costs
    its bytes, a NUL and a pointer)."""
    out: list[list[str]] = [[]]
    used = 0
    for path in paths:
        cost = len(os.fsencode(path)) + 9
        if out[-1] and used + cost > _ARG_BYTES:
            out.append([])
            used = 0
        out[-1].append(path)
        used += cost
    return out


def _walked(request: GrepRequest, targets: list[Target], cwd: str, token: CancelToken, ctx: CommandContext,
            state: dict[str, Any]) -> list[str]:
    """The files Sleuth's own walk takes under ``targets`` (relative to ``cwd``, as reached), in
    result order, at most ``max_files``; the walk's per-entry problems join ``errors``. Sizes are
    not checked here: a file over the cap is skipped by the backend yet counts as scanned."""
    errors: list[FileError] = []
    entries = list(walk(ctx.workspace, targets, request.walk, token, SkipCounts(), errors, stat=False))
    state["errors"] += [e.to_dict() for e in errors]
    state["files_scanned"] += len(entries)
    state["listed"] += [e.display for e in entries]
    return [os.path.relpath(e.path, cwd) for e in entries]


def _run_group(backend: str, binary: str, request: GrepRequest, cwd: str, targets: list[Target], token: CancelToken,
               ctx: CommandContext, state: dict[str, Any],
               rule: PathRule) -> tuple[list[dict[str, Any]], int, list[str], bool]:
    """The backend over the targets inside one workspace folder, with that folder as cwd: its
    events, exit status, stderr lines that name no file, and whether it was killed."""
    rel = [os.path.relpath(t.path, cwd) for t in targets]
    walk_flags = _walk_flags(backend, request)
    before, after = request.search.before, request.search.after
    counter: Counter | None = None
    explicit = False
    if request.walk.follow:  # links are followed by Sleuth's walk, never by the backend
        rel = _walked(request, targets, cwd, token, ctx, state)
        walk_flags = _explicit_flags(backend, request)
        explicit = True
    elif backend == "rg" and request.walk.max_files:
        listed = _rg_list(binary, request, rel, cwd, token, ctx)[: request.walk.max_files]
        state["files_scanned"] += len(listed)
        rel = [os.path.relpath(p, cwd) for p in listed]
        walk_flags = _strip_globs(walk_flags)  # explicit files: the listing already applied the globs
        explicit = True
    elif backend == "rg":
        # rg's JSON stats count only files with matches; the eligible set comes from a parallel listing
        counter = Counter([binary, "--files", *_without_size_cap(walk_flags), "--", *rel], cwd, token)
    if not rel:
        return [], 1, [], False
    events: list[LineEvent] = []
    codes: list[int] = []
    stderr_lines: list[str] = []
    killed = False
    for batch in _batches(rel) if explicit else [rel]:
        if token.should_stop():
            break
        if backend == "rg":
            cmd = [binary, "--json", *walk_flags, *_match_flags("rg", request)]
            if before:
                cmd += ["-B", str(before)]
            if after:
                cmd += ["-A", str(after)]
            proc = Proc([*cmd, "--", *batch], cwd, token)
            events += _parse_rg(proc, ctx, state, cwd, rule, explicit)
        else:
            ignores = [] if explicit else _ancestor_ignores(request, cwd, batch)
            cmd = [binary, "-n", "-k", "-H", "--stats", f"--format={UG_FORMAT}", "-I", *walk_flags, *ignores,
                   *_match_flags("ugrep", request)]
            proc = Proc([*cmd, "--", *batch], cwd, token)
            scanned = state["files_scanned"]
            events += parse_ugrep(proc, ctx, state, cwd, before, after, request.walk.max_file_size_bytes, rule)
            if explicit:
                state["files_scanned"] = scanned  # counted from the walk's list
        codes.append(proc.finish())
        killed = killed or proc.killed
        file_errors, rest = _stderr_errors(proc.stderr.decode("utf-8", "replace"), backend, cwd, rule, ctx)
        state["errors"] += file_errors
        stderr_lines += rest
    if counter is not None:
        listed_paths = counter.result()
        seen: dict[str, bool] = {}
        kept = [p for p in (os.path.normpath(os.path.join(cwd, q)) for q in listed_paths) if admit(rule, p, seen)]
        state["files_scanned"] += len(kept)
        state["listed"] += [ctx.workspace.display(p) for p in kept]
    code = 0 if 0 in codes else (1 if all(c == 1 for c in codes) else max(codes))
    return events, code, stderr_lines, killed


def _explicit_flags(backend: str, request: GrepRequest) -> list[str]:
    """Flags for a backend handed the exact files: nothing that walks or filters names, only the
    size cap (a file over it is still counted as scanned, so the backend skips it)."""
    if backend == "rg":
        cap = request.walk.max_file_size_bytes
        return ["--no-config", *(["--max-filesize", str(cap)] if cap else [])]
    return []


def _ancestor_ignores(request: GrepRequest, cwd: str, rel: list[str]) -> list[str]:
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


def _shape(events: list[LineEvent], state: dict[str, Any], code: int, stderr: str, token: CancelToken, request: GrepRequest,
           started: float, killed: bool = False) -> dict[str, Any]:
    events.sort(key=lambda e: (sort_key(e.path), e.line, not isinstance(e, Context)))
    limit = request.search.max_results
    truncated = len(events) > limit or (killed and token.timed_out)
    kept = events[:limit]
    scanned = state["files_scanned"]
    if len(events) > limit and state["listed"]:
        # the native scan stops once it has seen max_results + 1 events: count the files up to that one
        stop = sort_key(events[limit].path)
        scanned = sum(1 for p in state["listed"] if sort_key(p) <= stop)
    errors = list(state["errors"])
    result: dict[str, Any] = {
        "matches": to_items(kept),
        "count": sum(1 for e in kept if isinstance(e, Match)),
        "truncated": truncated,
        "truncated_reason": ("max_results" if len(events) > limit else "timeout") if truncated else None,
        "timed_out": bool(token.timed_out),
        "files_scanned": scanned,
        "files_matched": len({e.path for e in events if isinstance(e, Match)}),
        "skipped": {"ignored": 0, "hidden": 0, "binary": 0, "too_large": 0},
        "errors": errors,
        "elapsed_ms": round((time.perf_counter() - started) * 1000, 1),
        "exit_code": code,
    }
    if stderr:
        result["stderr"] = stderr
    return result
