"""A cold ``sleuth grep`` in a small folder against Python's own start-up and rg (issue 30 item 1).

Usage (run it alone; the figures are medians of whole processes, alternating, in one run)::

    python bench/cold_start.py [--folder DIR] [--runs 10] [--pattern PAT] [--against SERVER_DIR]
    python bench/cold_start.py --pool-sizes [--runs 7]

The folder defaults to this checkout's ``server/`` (about 160 files, the issue's case). Each round runs
``python -I -c pass`` (the floor any Python tool pays, the issue's bar), ``python -c pass`` (the start
the installed script pays: its shebang has no ``-I``), ``rg -n PAT`` and the installed
``sleuth grep -n PAT --no-server`` (no warm server: what a script, a CI job or an assistant that shells
out pays on every call) and the same without ``--no-server`` (as people type it: the call first looks
for a running server's door; none runs during the bench), and reads each one's wall time and CPU time (user + system, from the
children's rusage). Prints medians and the ratios the issue sets its bar in (sleuth / python -I, at
most 3x), and the modules the call imported. ``--against`` adds, in the same rounds, the same call
run from another checkout's ``server/`` folder (``git archive COMMIT server | tar -x -C DIR``): the
before and after of a change on one loaded machine, with and without ``--no-server``.

``--pool-sizes`` chooses ``POOL_START_FILES`` (:mod:`sleuth.engine.grep.loop`): for trees of N files
(this checkout's sources copied into folders two levels deep, which the walk would hand to the pool
as subtrees), a cold ``sleuth grep`` with the pool forced (threshold 0) against one forced to stay in
one process (threshold above N), alternating, with rg in the same round. The threshold belongs where
the pool starts to pay for its start.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsp_client import SLEUTH  # the installed command (bench/ is the script's folder, on sys.path)

RG = shutil.which("rg") or str(Path(sys.executable).with_name("rg"))


def _timed(argv: list[str], cwd: str) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


_FORCED = ("import sys; from sleuth.engine.grep import loop; "
           "loop.IN_PROCESS_FILES = loop.POOL_START_FILES = int(sys.argv[1]); "
           "from sleuth.cli import main; sys.exit(main(sys.argv[2:]))")
_IMPORTED = ("import os, sys; sys.argv = sys.argv[1:]\ndef _exit(status): raise SystemExit(status)\nos._exit = _exit\n"
             "try: exec(compile(open(sys.argv[0]).read(), sys.argv[0], 'exec'), "
             "{'__name__': '__main__', '__file__': sys.argv[0]})\n"
             "except SystemExit: pass\nsys.stderr.write(f'\\nmodules={len(sys.modules)}\\n')")


def _tree(root: Path, files: int) -> Path:
    """``files`` of this checkout's own sources, copied into ``d*/s/`` folders (subtrees to the walk)."""
    sources = sorted((Path(__file__).resolve().parents[1] / "server" / "sleuth").rglob("*.py"))
    for i in range(files):
        target = root / f"d{i // 16:03d}" / "s" / f"f{i % 16}.py"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(sources[i % len(sources)].read_bytes())
    return root


def pool_sizes(runs: int, pattern: str, sizes: list[int]) -> None:
    interpreter = Path(SLEUTH).read_text().split("\n", 1)[0][2:].strip() or sys.executable
    print(f"cold sleuth grep -n {pattern!r} --no-server, pool forced vs one process; {runs} rounds, "
          f"load {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    for files in sizes:
        with tempfile.TemporaryDirectory() as folder:
            root = _tree(Path(folder), files)
            size = sum(p.stat().st_size for p in root.rglob("*.py"))
            argv = ["grep", "-n", pattern, "--no-server"]
            commands = {"pool": [interpreter, "-c", _FORCED, "0", *argv],
                        "one process": [interpreter, "-c", _FORCED, str(1 << 30), *argv],
                        "rg": [RG, "-n", pattern]}
            _timed(commands["pool"], folder)
            walls: dict[str, list[float]] = {name: [] for name in commands}
            for _ in range(runs):
                for name, command in commands.items():
                    walls[name].append(_timed(command, folder)[0])
            medians = {name: statistics.median(w) * 1000 for name, w in walls.items()}
            print(f"  {files:5d} files {size >> 10:6d} KiB: pool {medians['pool']:6.1f} ms  one process "
                  f"{medians['one process']:6.1f} ms  (one process / pool {medians['one process'] / medians['pool']:.2f}; "
                  f"rg {medians['rg']:.1f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", default=str(Path(__file__).resolve().parents[1] / "server"))
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--pattern", default="def run")
    parser.add_argument("--against", metavar="SERVER_DIR", help="also time the call from this checkout's server/")
    parser.add_argument("--pool-sizes", action="store_true", help="time the pool against one process by tree size")
    parser.add_argument("--sizes", default="256,1024,4096,16384", help="--pool-sizes: the trees' file counts")
    args = parser.parse_args()
    if args.pool_sizes:
        pool_sizes(args.runs, args.pattern, [int(n) for n in args.sizes.split(",")])
        return
    env_note = "PYTHONDONTWRITEBYTECODE is set: modules without a .pyc are compiled on every call" \
        if os.environ.get("PYTHONDONTWRITEBYTECODE") else ""
    commands = {
        "python -I -c pass": [sys.executable, "-I", "-c", "pass"],
        # What the installed script's own start pays before main: its shebang runs the interpreter
        # without -I, so with the user's site folder and PYTHON* variables (the bar is set against -I)
        "python -c pass": [sys.executable, "-c", "pass"],
        "rg -n": [RG, "-n", args.pattern],
        "sleuth grep -n --no-server": [SLEUTH, "grep", "-n", args.pattern, "--no-server"],
        # As people type it: no flag, so the call first looks for a running server's door (none runs here)
        "sleuth grep -n": [SLEUTH, "grep", "-n", args.pattern],
    }
    if args.against:
        interpreter = Path(SLEUTH).read_text().split("\n", 1)[0][2:].strip() or sys.executable
        against = [interpreter, "-c", f"import sys; sys.path.insert(0, {os.path.abspath(args.against)!r}); "
                   "from sleuth.cli import main; sys.exit(main())", "grep", "-n", args.pattern]
        commands["the same, --against"] = [*against, "--no-server"]
        commands["the same typed, --against"] = against
        _timed(commands["the same, --against"], args.folder)
    _timed(commands["sleuth grep -n --no-server"], args.folder)  # .pyc files written, page cache warm
    walls: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, argv in commands.items():
            wall, cpu = _timed(argv, args.folder)
            walls[name].append(wall)
            cpus[name].append(cpu)
    print(f"folder {args.folder}, {args.runs} rounds, load {os.getloadavg()[0]:.2f} {env_note}")
    for name in commands:
        print(f"  {name:30s} wall {statistics.median(walls[name]) * 1000:7.1f} ms   "
              f"cpu {statistics.median(cpus[name]) * 1000:7.1f} ms")
    floor = statistics.median(walls["python -I -c pass"])
    sleuth = statistics.median(walls["sleuth grep -n --no-server"])
    typed = statistics.median(walls["sleuth grep -n"])
    print(f"sleuth / python -I: {sleuth / floor:.1f}x wall, {typed / floor:.1f}x typed without --no-server "
          f"({statistics.median(cpus['sleuth grep -n --no-server']) / max(statistics.median(cpus['python -I -c pass']), 1e-6):.1f}x cpu); "
          f"sleuth / rg: {sleuth / statistics.median(walls['rg -n']):.0f}x wall; "
          f"issue 30's bar (<= 3x python -I): {'met' if sleuth <= 3 * floor else 'not met'}")
    interpreter = Path(SLEUTH).read_text().split("\n", 1)[0][2:].strip() or sys.executable
    counted = subprocess.run([interpreter, "-c", _IMPORTED, SLEUTH, *commands["sleuth grep -n --no-server"][1:]],
                             cwd=args.folder, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if args.against:
        for form, mine in (("the same, --against", "sleuth grep -n --no-server"), ("the same typed, --against", "sleuth grep -n")):
            print(f"{form} / this checkout's {mine}: {statistics.median(walls[form]) / statistics.median(walls[mine]):.2f}x wall, "
                  f"{statistics.median(cpus[form]) / statistics.median(cpus[mine]):.2f}x cpu")
    modules = [line[8:] for line in counted.stderr.splitlines() if line.startswith("modules=")]
    print(f"modules in sys.modules at the end of the call: {modules[-1] if modules else '?'}")


if __name__ == "__main__":
    main()
