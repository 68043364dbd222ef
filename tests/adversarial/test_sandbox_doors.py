"""Adversarial: the sandbox and the deny globs hold at every door that exists today (issue 20 area 1).

Doors: the LSP commands (``sleuth.grep``, ``sleuth.files``, ``sleuth.text``, ``sleuth.tools.call``
for every tool of every profile), the custom requests (``sleuth/grep``, ``sleuth/files``,
``sleuth/text``) and the CLI (``grep``, ``files``, ``text``, ``tools call``, run in-process through
``sleuth.cli.main`` so hundreds of attempts stay fast, and a few as real subprocesses).

The world: a workspace ``ws`` beside a folder ``OUTSIDE_<hex>`` holding a file whose name and text
carry a secret marker; inside ``ws`` denied files (``denied/**``, ``*.key``, ``café/**``) carry the
marker too, and links lead out (a folder, a file, ``/proc/self/root``), into denied places
(``alias -> denied``, ``keylink -> keys/server.key``) and round (``loop -> .``). Open buffers are
sent for denied files and for files outside the workspace, with the marker in their text.

Every attack — a path, a glob or both, from the corpus of issue 20 — goes through every door;
for each answer, everything the server sent meanwhile (the response or error, ``$/progress``
values, ``window/logMessage``, ``window/showMessage``) must not contain the secret marker
(content or name of anything outside or denied), nor the outside folder's name unless the
request itself named it (echoing the caller's own input back is not a leak). A positive control
per door proves the door answers at all. A last test swaps a folder for a link to the outside in
a loop while searches run (the race) and checks the same.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pathlib
import threading
import unicodedata
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import pytest

from tests.adversarial.lsp_sync import RecordingServer, RpcError, start_server
from tests.conftest import HANG_S, run_sleuth

HEX = uuid.uuid4().hex[:12]
SECRET = f"Q{HEX}Z"  # in every secret text and secret name; never in any request
OUT_NAME = f"OUTSIDE_{uuid.uuid4().hex[:10]}"  # the outside folder: may be echoed only if the request named it
PAT = "TOP.ECRET"  # matches every planted line without spelling any marker
ALLOWED_TEXT = "TOPSECRET allowed"
DENY = ["denied/**", "*.key", "café/**"]
NFD_CAFE = unicodedata.normalize("NFD", "café")
CASE_NOTE = "TOPSECRET a different folder on a case-sensitive file system"


@dataclass(frozen=True)
class World:
    base: pathlib.Path
    root: pathlib.Path
    outside: pathlib.Path


def _plant(base: pathlib.Path) -> World:
    root = base / "ws"
    outside = base / OUT_NAME
    files = {
        root / "a.txt": f"{ALLOWED_TEXT}\n",
        root / "sub" / "b.txt": f"{ALLOWED_TEXT} in sub\n",
        root / "denied" / f"d_{SECRET}.txt": f"TOPSECRET denied {SECRET}\n",
        root / "denied" / "inner" / "e.txt": f"TOPSECRET denied deeper {SECRET}\n",
        root / "keys" / "server.key": f"TOPSECRET key {SECRET}\n",
        root / "café" / "c.txt": f"TOPSECRET nfc-denied {SECRET}\n",
        root / NFD_CAFE / "c.txt": f"TOPSECRET nfd spelling of a denied folder {SECRET}\n",
        root / "DENIED" / "case.txt": f"{CASE_NOTE}\n",
        outside / f"out_{SECRET}.txt": f"TOPSECRET outside {SECRET}\n",
        outside / "nested" / "deep.txt": f"TOPSECRET outside nested {SECRET}\n",
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / ".agent").mkdir()
    (root / ".agent" / "config.yml").write_text(
        "sleuth:\n  deny_globs:\n" + "".join(f"    - '{g}'\n" for g in DENY), encoding="utf-8")
    links = {"outdir": str(outside), "outrel": f"../{OUT_NAME}", "outfile": str(outside / f"out_{SECRET}.txt"),
             "proc": "/proc/self/root", "alias": "denied", "keylink": "keys/server.key", "loop": ".",
             "inlink": "a.txt", "dangling": "nowhere/at/all"}
    for name, target in links.items():
        (root / name).symlink_to(target)
    (root / "sub" / "up").symlink_to("..")  # a loop through a sub-folder
    return World(base, root, outside)


def _paths(world: World) -> list[str]:
    out = str(world.outside)
    return [
        # climbing out
        "..", "../..", f"../{OUT_NAME}", f"../{OUT_NAME}/", f"sub/../../{OUT_NAME}", "./../" + OUT_NAME,
        "sub/../..", "../" * 40, "../" * 40 + out.lstrip("/"),
        # absolute paths and URIs
        out, out + "/", out + "/nested", "/etc", "/etc/passwd", "/", "/proc/self/root" + out,
        "/proc/self/root" + str(world.root), "/proc/self/cwd/../" + OUT_NAME,
        "file://" + out, world.outside.as_uri(), "file:///etc/passwd", "file://localhost" + out,
        # percent-encoding, NUL, backslashes
        "%2e%2e/" + OUT_NAME, "..%2f" + OUT_NAME, "%2E%2E%2F" + OUT_NAME, "file://" + out.replace("/", "%2F"),
        "a.txt\x00/../../" + OUT_NAME, "\x00", "denied\x00", "..\\" + OUT_NAME, "..\\..\\" + OUT_NAME,
        "denied\\inner", "sub\\..\\..\\" + OUT_NAME,
        # links out, loops
        "outdir", "outdir/", "outdir/nested", "outrel", "outfile", "proc", "proc" + out, "proc/etc",
        "loop", "loop/loop/loop/outdir", "sub/up/outdir", "sub/up/sub/up/proc" + out, "dangling",
        # deny globs by path, ./ variants, through links, by case variant
        "denied", "denied/", "./denied", "denied/.", "denied/inner", "denied/inner/e.txt", ".//denied//inner",
        "sub/../denied", "alias", "alias/inner", "keys", "keys/server.key", "./keys/server.key", "keylink",
        "DENIED", "Denied/inner", "KEYS/SERVER.KEY", "keys/server.KEY",
        # Unicode: the NFC and NFD spellings of a denied folder, a look-alike of 'denied' (Cyrillic e)
        "café", NFD_CAFE, "caf\u0435", "d\u0435nied", "d\u0435nied/inner",
        # very long
        "a/" * 3000 + "x", "x" * 5000, ("sub/" + "../sub/" * 500) + "b.txt",
    ]


GLOBS = [
    "../**", "../*", f"../{OUT_NAME}/**", "/etc/*", "/etc/**", "/**", "**/../**", "**/..", "..",
    "outdir/**", "outrel/**", "proc/**", "proc/etc/*", "loop/**", "sub/up/**",
    "denied/**", "denied/*", "**/denied/**", "./denied/**", "alias/**", "**/*.key", "keys/*", "keylink",
    "DENIED/**", "café/**", f"{NFD_CAFE}/**", "**/c.txt", "**/e.txt", "**",
    "!a.txt", "!**", "{denied,keys}/**", "[d]enied/**", "**/[!a]*", "\\d*/**", "%2e%2e/**",
]


@dataclass(frozen=True)
class Attack:
    """A path attack (``path`` set), a glob attack (``glob`` set), or the positive control (neither)."""

    path: str | None = None
    glob: str | None = None

    @property
    def label(self) -> str:
        return repr(self.path if self.path is not None else self.glob)[:60]


def _attacks(world: World) -> list[Attack]:
    return [Attack(path=p) for p in _paths(world)] + [Attack(glob=g) for g in GLOBS]


# -- the doors ------------------------------------------------------------------------------------
# Each maps an attack to the argument objects of one door (several where the door has several ways
# to take a path or a glob). ``None`` path and glob: the positive control, which must find a.txt.

Args = dict[str, Any]
LINKS_ON = {"follow": True, "hidden": True, "no_ignore": True}


def _grep_args(a: Attack) -> list[Args]:
    if a.path is not None:
        return [{"pattern": PAT, "path": a.path, **LINKS_ON}]
    if a.glob is not None:
        return [{"pattern": PAT, "include_globs": [a.glob], **LINKS_ON},
                {"pattern": PAT, "exclude_globs": [a.glob], **LINKS_ON}]
    return [{"pattern": PAT, **LINKS_ON}]


def _files_args(a: Attack) -> list[Args]:
    if a.path is not None:
        return [{"patterns": ["**"], "path": a.path, **LINKS_ON}, {"query": "txt", "path": a.path, **LINKS_ON}]
    if a.glob is not None:
        return [{"patterns": [a.glob], **LINKS_ON}, {"patterns": ["**", "!" + a.glob], **LINKS_ON}]
    return [{"patterns": ["**"], **LINKS_ON}]


def _text_args(a: Attack) -> list[Args]:
    spot = a.path if a.path is not None else a.glob
    if spot is None:
        return [{"query": "TOPSECRET"}]
    return [{"query": "TOPSECRET", "include_path": spot}, {"query": "TOPSECRET", "exclude_path": spot}]


def _tool_args(a: Attack) -> dict[str, list[Args]]:
    p, g = a.path, a.glob
    forge_files = {"query": PAT, "mode": "regex", "follow_symlinks": True, "include_hidden": True,
                   "respect_gitignore": False}
    if p is None and g is None:
        return {
            "forge.search_files": [{"path": ".", **forge_files}],
            "forge.Search": [{"pattern": PAT, "follow": True, "hidden": True, "no_ignore": True}],
            "codex.grep_files": [{"pattern": PAT}],
            "kimi.search_files": [{"query": PAT, "regex": True}],
            "acode.search_text": [{"query": "TOPSECRET"}],
            "acode.search_files": [{"pattern": "*.txt"}],
            "acode.grep": [{"pattern": PAT, "regex": True}],
        }
    if p is not None:
        return {
            "forge.search_files": [{"path": p, **forge_files}],
            "forge.Search": [{"pattern": PAT, "path": p, "follow": True, "hidden": True, "no_ignore": True}],
            "codex.grep_files": [{"pattern": PAT, "path": p}],
            "kimi.search_files": [{"query": PAT, "regex": True, "pattern": p}],
            "acode.search_text": [{"query": "TOPSECRET", "include_path": p}],
            "acode.search_files": [{"pattern": "*", "directory": p}],
            "acode.grep": [{"pattern": PAT, "regex": True, "include_path": p}],
        }
    return {
        "forge.search_files": [{"path": ".", **forge_files, "include_globs": [g]},
                               {"path": ".", **forge_files, "exclude_globs": [g]}],
        "forge.Search": [{"pattern": PAT, "glob": [g], "follow": True, "hidden": True, "no_ignore": True},
                         {"pattern": PAT, "include_glob": [g], "follow": True}],
        "codex.grep_files": [{"pattern": PAT, "include": g}],
        "kimi.search_files": [{"query": PAT, "regex": True, "pattern": g}],
        "acode.search_text": [{"query": "TOPSECRET", "include_path": g}],
        "acode.search_files": [{"pattern": g}, {"pattern": "*", "exclude_path": g}],
        "acode.grep": [{"pattern": PAT, "regex": True, "file_pattern": g},
                       {"pattern": PAT, "regex": True, "exclude_path": g}],
    }


TOOLS = ("forge.search_files", "forge.Search", "codex.grep_files", "kimi.search_files", "acode.search_text",
         "acode.search_files", "acode.grep")


@dataclass(frozen=True)
class Door:
    name: str
    transport: str  # exec | request | cli
    target: str  # the command, method, or CLI subcommand (tool name for tools)
    args: Callable[[Attack], list[Args]]


def _tool(name: str) -> Callable[[Attack], list[Args]]:
    return lambda a: [{"name": name, "arguments": arguments} for arguments in _tool_args(a)[name]]


LSP_DOORS = [
    Door("exec sleuth.grep", "exec", "sleuth.grep", _grep_args),
    Door("exec sleuth.files", "exec", "sleuth.files", _files_args),
    Door("exec sleuth.text", "exec", "sleuth.text", _text_args),
    Door("request sleuth/grep", "request", "sleuth/grep", _grep_args),
    Door("request sleuth/files", "request", "sleuth/files", _files_args),
    Door("request sleuth/text", "request", "sleuth/text", _text_args),
    *[Door(f"exec sleuth.tools.call {t}", "exec", "sleuth.tools.call", _tool(t)) for t in TOOLS],
]


def _cli_argv(door: str, args: Args) -> list[str]:
    """The CLI spelling of a door's argument object (flags as ripgrep's)."""
    if door == "grep":
        argv = ["grep", "--result-json", "-L", "--hidden", "--no-ignore"]
        for g in args.get("include_globs", []):
            argv += ["-g", g]
        for g in args.get("exclude_globs", []):
            argv += ["-g", "!" + g]
        return argv + ["--", args["pattern"]] + ([args["path"]] if "path" in args else [])
    if door == "files":
        argv = ["files", "--json", "-L", "--hidden", "--no-ignore"]
        if "path" in args:
            argv += ["--path", args["path"]]
        if "query" in args:
            argv += ["-q", args["query"]]
        return argv + ["--"] + list(args.get("patterns", []))
    if door == "text":
        argv = ["text", "--json"]
        if "include_path" in args:
            argv += ["--include-path", args["include_path"]]
        if "exclude_path" in args:
            argv += ["--exclude-path", args["exclude_path"]]
        return argv + ["--", args["query"]]
    return ["tools", "call", args["name"], "--args", json.dumps(args["arguments"])]


CLI_DOORS = [
    Door("cli grep", "cli", "grep", _grep_args),
    Door("cli files", "cli", "files", _files_args),
    Door("cli text", "cli", "text", _text_args),
    *[Door(f"cli tools call {t}", "cli", "tools", _tool(t)) for t in TOOLS],
]


# -- the checks -----------------------------------------------------------------------------------

def _leaks(sent: str, answer: str) -> list[str]:
    """Markers in ``answer`` the caller did not send: the secret always, the outside folder's name unless sent."""
    found = []
    if SECRET in answer:
        found.append("secret marker")
    if OUT_NAME in answer and OUT_NAME not in sent:
        found.append("outside folder name")
    if "root:x:0:0" in answer:
        found.append("/etc/passwd content")
    return found


def _check_paths(world: World, result: Any) -> None:
    """Every path a native command returns reaches, and really lies at, an allowed place inside the root."""
    if not isinstance(result, dict):
        return
    real_root = os.path.realpath(world.root)
    for key in ("matches", "items", "results", "errors"):
        for entry in result.get(key) or []:
            rel = entry.get("path", "")
            assert not os.path.isabs(rel) and ".." not in rel.split("/"), entry
            reached = os.path.join(world.root, rel)
            # an error names the entry as reached (a link out is reported as the link): its folder is inside
            real = os.path.realpath(reached if key != "errors" else os.path.dirname(reached))
            assert real == real_root or real.startswith(real_root + os.sep), entry
            inside = os.path.relpath(real, real_root).replace(os.sep, "/")
            if key != "errors":
                assert not inside.startswith(("denied/", "keys/", "café/")) and not inside.endswith(".key"), entry


# -- the fixtures ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return _plant(tmp_path_factory.mktemp("doors"))


@pytest.fixture(scope="module")
def server(world: World) -> Iterator[RecordingServer]:
    lsp = start_server([world.root], world.base / "lsp", {"rateLimitEnabled": False, "logLevel": "debug"})
    try:
        assert lsp.execute("sleuth.index.build", {"wait": True}, 120).result["state"] == "ready"
        # Open buffers of denied files and of files outside the workspace (directly and through a link).
        buffers = [world.root / "denied" / f"d_{SECRET}.txt", world.root / "keys" / "server.key",
                   world.root / "denied" / "never_saved.txt", world.root / "alias" / "inner" / "e.txt",
                   world.outside / f"out_{SECRET}.txt", world.root / "outdir" / "nested" / "deep.txt",
                   world.root / "café" / "c.txt", world.root / "keylink"]
        for i, path in enumerate(buffers):
            lsp.notify("textDocument/didOpen", {"textDocument": {
                "uri": path.as_uri(), "languageId": "plaintext", "version": 1,
                "text": f"TOPSECRET unsaved buffer {i} {SECRET}\n"}})
        lsp.settle()
        yield lsp
    finally:
        lsp.close()


@pytest.fixture(scope="module")
def cli_env(world: World) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(world.base / "cli-cache"))
        from sleuth.cli import main

        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            assert main(["index", "build", "--root", str(world.root)]) == 0  # for the ranked tools
        yield


def _lsp_call(lsp: RecordingServer, door: Door, args: Args) -> tuple[str, Any]:
    """(everything the server sent while answering, the result or None for an error)."""
    mark = lsp.mark()
    result = None
    try:
        if door.transport == "exec":
            result = lsp.execute(door.target, args, HANG_S).result
        else:
            result = lsp.request(door.target, args, HANG_S).result
    except RpcError as error:
        assert error.code != -32603 and isinstance(error.data, dict) and error.data.get("code"), error
    lsp.settle()  # the invocation's log line and progress end have been read
    return lsp.since(mark).decode("utf-8", "replace"), result


def _cli_call(door: Door, args: Args, world: World) -> tuple[str, str]:
    """(stdout + stderr of ``sleuth ARGV --root ws`` run in-process, the argv as text)."""
    from sleuth.cli import main

    argv = _cli_argv(door.target, args)
    if argv[0] == "tools":
        argv = argv + ["--root", str(world.root)]
    else:  # before the "--" that ends the options
        argv = argv[:1] + ["--root", str(world.root)] + argv[1:]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit_:  # argparse refusing an argument
            code = exit_.code
    assert code in (0, 1, 2, None), (argv, code, err.getvalue())
    assert "Traceback" not in err.getvalue(), err.getvalue()
    return out.getvalue() + err.getvalue(), json.dumps(argv)


# -- the tests ------------------------------------------------------------------------------------

@pytest.mark.parametrize("door", LSP_DOORS, ids=lambda d: d.name)
def test_no_lsp_door_leaks_outside_or_denied_content_or_names(world: World, server: RecordingServer,
                                                              door: Door) -> None:
    control, result = _lsp_call(server, door, door.args(Attack())[0])
    assert "TOPSECRET allowed" in control or "a.txt" in control, control[:2000]  # the door answers at all
    assert not _leaks("", control), control[:2000]
    attempts, leaks = 0, []
    for attack in _attacks(world):
        for args in door.args(attack):
            attempts += 1
            sent = json.dumps(args, ensure_ascii=False)
            answer, result = _lsp_call(server, door, args)
            found = _leaks(sent, answer)
            if found:
                leaks.append((attack.label, args, found, answer[:600]))
            if door.target in ("sleuth.grep", "sleuth.files", "sleuth.text", "sleuth/grep", "sleuth/files",
                               "sleuth/text"):
                _check_paths(world, result)
    assert server.alive()
    assert attempts > 80 and not leaks, leaks[:5]


@pytest.mark.parametrize("door", CLI_DOORS, ids=lambda d: d.name)
def test_no_cli_door_leaks_outside_or_denied_content_or_names(world: World, cli_env: None, door: Door) -> None:
    control, _ = _cli_call(door, door.args(Attack())[0], world)
    assert "TOPSECRET allowed" in control or "a.txt" in control, control[:2000]
    assert not _leaks("", control), control[:2000]
    attempts, leaks = 0, []
    for attack in _attacks(world):
        for args in door.args(attack):
            attempts += 1
            answer, sent = _cli_call(door, args, world)
            found = _leaks(sent, answer)
            if found:
                leaks.append((attack.label, args, found, answer[:600]))
    assert attempts > 80 and not leaks, leaks[:5]


def test_the_real_cli_process_refuses_the_same_attacks(world: World) -> None:
    """A few attempts through a real ``sleuth`` process (argv, exit code, stderr as a user sees them)."""
    for argv in (["grep", "-L", "--hidden", "--no-ignore", PAT, f"../{OUT_NAME}"],
                 ["grep", "-L", "--hidden", "--no-ignore", PAT, "proc" + str(world.outside)],
                 ["grep", "-L", "--hidden", "--no-ignore", "-g", "../**", PAT],
                 ["files", "-L", "--hidden", "--no-ignore", "alias/**"],
                 ["text", "--include-path", "denied", "TOPSECRET"],
                 ["tools", "call", "forge.Search", "--args", json.dumps({"pattern": PAT, "path": "outfile"})]):
        proc = run_sleuth(world.root, *argv, cache=world.base / "cli-cache")
        assert proc.returncode in (0, 1, 2) and "Traceback" not in proc.stderr, (argv, proc.stderr)
        assert not _leaks(json.dumps(argv), proc.stdout + proc.stderr), (argv, proc.stdout, proc.stderr)
    proc = run_sleuth(world.root, "grep", "-L", "--hidden", "--no-ignore", PAT, cache=world.base / "cli-cache")
    assert "a.txt:TOPSECRET allowed" in proc.stdout and not _leaks("", proc.stdout + proc.stderr)


def test_the_server_logged_and_printed_nothing_secret(world: World, server: RecordingServer) -> None:
    """After every LSP door ran (module order): the whole stream and stderr hold no secret."""
    server.settle()
    assert SECRET not in server.everything().decode("utf-8", "replace")
    assert SECRET not in server.stderr() and "Traceback" not in server.stderr()


# -- the race -------------------------------------------------------------------------------------

def test_a_folder_swapped_for_a_link_out_during_searches_leaks_nothing(tmp_path: pathlib.Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """``swap/`` turns into a link to the outside and back, in a loop, while searches run with and
    without ``follow``: no answer may name or show anything from outside (issue 20's race)."""
    base = tmp_path
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cli-cache"))
    root = base / "ws"
    outside = base / OUT_NAME
    for i in range(600):  # enough files that a scan is still walking while the swap happens
        (root / "bulk" / f"d{i % 20}").mkdir(parents=True, exist_ok=True)
        (root / "bulk" / f"d{i % 20}" / f"f{i}.txt").write_text("filler\n" * 20 + (f"{ALLOWED_TEXT}\n" if i % 97 == 0 else ""))
    (root / "swap").mkdir()
    (root / "swap" / "s.txt").write_text(f"{ALLOWED_TEXT} in swap\n")
    (outside / "sub").mkdir(parents=True)
    (outside / f"o_{SECRET}.txt").write_text(f"TOPSECRET outside {SECRET}\n")
    (outside / "sub" / "p.txt").write_text(f"TOPSECRET outside {SECRET}\n")

    stop = threading.Event()
    swaps = [0]

    def swapper() -> None:
        while not stop.is_set():
            os.rename(root / "swap", root / "swap.away")
            (root / "swap").symlink_to(outside)
            os.unlink(root / "swap")
            os.rename(root / "swap.away", root / "swap")
            swaps[0] += 1

    lsp = start_server([root], base / "lsp", {"rateLimitEnabled": False, "indexEnabled": False})
    racer = threading.Thread(target=swapper, daemon=True)
    racer.start()
    leaks: list[Any] = []
    try:
        for round_ in range(12):
            follow = round_ % 2 == 0
            for command, args in (("sleuth.grep", {"pattern": PAT, "follow": follow}),
                                  ("sleuth.files", {"patterns": ["**"], "follow": follow}),
                                  ("sleuth.tools.call", {"name": "forge.Search",
                                                         "arguments": {"pattern": PAT, "follow": follow}})):
                mark = lsp.mark()
                try:
                    lsp.execute(command, args, HANG_S)
                except RpcError as error:
                    assert error.code != -32603, error
                lsp.settle()
                answer = lsp.since(mark).decode("utf-8", "replace")
                if _leaks("", answer):
                    leaks.append((command, args, answer[:600]))
            from sleuth.cli import main

            out = io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                main(["grep", "--result-json", "--root", str(root)] + (["-L"] if follow else []) + [PAT])
            if _leaks("", out.getvalue()):
                leaks.append(("cli grep", follow, out.getvalue()[:600]))
    finally:
        stop.set()
        racer.join(HANG_S)
        lsp.close()
    assert swaps[0] > 0 and not leaks, leaks[:3]
    assert SECRET not in lsp.stderr()


# -- regressions found by this suite ----------------------------------------------------------------

@pytest.mark.parametrize("on_disk", ["NFC", "NFD"])
@pytest.mark.parametrize("in_glob", ["NFC", "NFD"])
def test_a_deny_glob_covers_both_unicode_spellings_of_a_name(tmp_path: pathlib.Path, on_disk: str,
                                                             in_glob: str) -> None:
    """``café/**`` denied only the spelling it was typed in: a folder named in NFD (as made on macOS)
    was searched and listed on Linux, where the two spellings are different names."""
    from sleuth.commands import get_command
    from sleuth.commands.config import Settings
    from tests.fixtures import context

    folder = unicodedata.normalize(on_disk, "café")
    (tmp_path / folder).mkdir()
    (tmp_path / folder / "x.txt").write_text(f"TOPSECRET {SECRET}\n")
    (tmp_path / "ok.txt").write_text(f"{ALLOWED_TEXT}\n")
    (tmp_path / "naïve.key").write_text(f"TOPSECRET {SECRET}\n")
    deny = (unicodedata.normalize(in_glob, "café/**"), unicodedata.normalize(in_glob, "naïve.key"))
    ctx = context(tmp_path, Settings(deny_globs=deny, rate_limit_enabled=False))
    grep = get_command("sleuth.grep")({"pattern": PAT}, ctx)
    assert [m["path"] for m in grep["matches"]] == ["ok.txt"]  # main: café/x.txt too when the spellings differ
    files = get_command("sleuth.files")({"patterns": ["**"]}, ctx)
    assert [i["path"] for i in files["items"]] == ["ok.txt"]
    named = get_command("sleuth.grep")({"pattern": PAT, "path": f"{folder}/x.txt"}, ctx)
    assert named["matches"] == []


def test_cli_tools_call_answers_a_ranked_tool_from_the_index(tmp_path: pathlib.Path) -> None:
    """``sleuth tools call acode.search_text`` answered ``index_not_ready`` ("run sleuth index build")
    every time, even right after ``sleuth index build``: the CLI never opened the index for it."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text(f"{ALLOWED_TEXT}\n")
    for _ in range(2):  # the first call builds the index, the second opens it
        proc = run_sleuth(root, "tools", "call", "acode.search_text", "--args", '{"query": "TOPSECRET"}',
                          cache=tmp_path / "cache")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert [r["path"] for r in json.loads(proc.stdout)["results"]] == ["a.txt"]
