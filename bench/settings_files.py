"""What a hostile ``.agent/config.yml`` costs (issue 28): medians, against an empty file.

Figures per shape: reading the settings in-process (:func:`sleuth.cli.common.workspace_settings`,
what every CLI call and every server start does), and a whole ``sleuth grep --no-server needle`` run by
the installed script, as the CPU time it used (user + system: steadier than wall time on a shared
machine) and as wall time. Rounds are interleaved (each round runs every shape once), so a change of
load hits every shape alike. The issue's bound: any shape costs at most 50 ms more than an empty file.

    python bench/settings_files.py [--runs N]
"""

from __future__ import annotations

import argparse
import io
import os
import pathlib
import resource
import statistics
import subprocess
import tempfile
import time
from contextlib import redirect_stderr

from lsp_client import SLEUTH  # the installed command (bench/ is the script's folder, on sys.path)


def shapes() -> dict[str, str]:
    bomb = ("a: &a {k0: x, k1: x, k2: x, k3: x, k4: x, k5: x, k6: x, k7: x, k8: x, k9: x}\n"
            + "".join(f"{chr(98 + i)}: &{chr(98 + i)} {{" + ", ".join(f"k{j}: *{chr(97 + i)}" for j in range(10))
                      + "}\n" for i in range(6)) + "sleuth:\n  tools: *g\n")
    shared = ["model: big", "other_tool:"]
    size, i = 0, 0
    while size < 973 * 1024:
        shared.append(f"  entry_{i}: {{name: n{i}, values: [a, b, c], flag: true}}")
        size += len(shared[-1]) + 1
        i += 1
    shared += ["tools:", "  search:", "    max_results: 77", "sleuth:", "  deny_globs: ['*.key']"]
    return {
        "empty": "",
        "alias bomb (619 B, 10^7 keys expanded)": bomb,
        "973 KiB shared file": "\n".join(shared) + "\n",
        "2 MiB file": "x: " + "y" * (2 << 20) + "\n",
        "15 KiB dense flow list in sleuth:": "sleuth:\n  deny_globs: [" + "a," * (15 * 512) + "a]\n",
        "900 deny globs": "sleuth:\n  deny_globs: [" + ", ".join(f"'d{i}/**'" for i in range(900)) + "]\n",
        "1,800 unknown keys in sleuth:": "sleuth:\n" + "".join(f"  k{i}: 1\n" for i in range(1800)),
        "nesting 1,000 deep": "sleuth: " + "[" * 1000 + "]" * 1000 + "\n",
        "doubled prefixes": "sleuth:\n  sleuth.sleuth.log_file: /tmp/pwn.log\n  sleuth.sleuth.redaction: false\n",
    }


def median_ms(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def cli_run(root: pathlib.Path, env: dict[str, str]) -> tuple[float, float]:
    """(CPU ms, wall ms) of one ``sleuth grep --no-server needle`` in ``root``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([SLEUTH, "grep", "--no-server", "needle"], cwd=root, env=env, capture_output=True, timeout=120)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    ns = parser.parse_args()
    from sleuth.cli import common
    from sleuth.core import settings as layers_module

    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "XDG_CONFIG_HOME": os.path.join(tmp, "config"), "XDG_CACHE_HOME": os.path.join(tmp, "c")}
        os.environ["XDG_CONFIG_HOME"] = env["XDG_CONFIG_HOME"]
        roots: dict[str, pathlib.Path] = {}
        reads: dict[str, float] = {}
        for name, text in shapes().items():
            root = roots[name] = pathlib.Path(tmp, f"ws-{len(roots)}")
            (root / ".agent").mkdir(parents=True)
            (root / ".agent" / "config.yml").write_text(text)
            (root / "a.py").write_text("needle\n")

            def read() -> None:
                common._REPORTED.clear()
                layers_module._READ.clear()  # a first read each time, as in a new process
                with redirect_stderr(io.StringIO()):
                    common.workspace_settings([str(root)])

            read()  # imports (yaml) paid once, as in any process that reads a file
            reads[name] = median_ms(read, ns.runs)
        cpu: dict[str, list[float]] = {name: [] for name in roots}
        wall: dict[str, list[float]] = {name: [] for name in roots}
        for _ in range(ns.runs):
            for name, root in roots.items():
                c, w = cli_run(root, env)
                cpu[name].append(c)
                wall[name].append(w)
        med = {name: (statistics.median(cpu[name]), statistics.median(wall[name])) for name in roots}
        empty = "empty"
        print(f"{'shape':42} {'read ms':>8} {'+ms':>6} {'CLI CPU ms':>11} {'+ms':>6} {'CLI wall ms':>12} {'+ms':>6}")
        for name in roots:
            print(f"{name:42} {reads[name]:8.2f} {reads[name] - reads[empty]:6.2f} {med[name][0]:11.1f} "
                  f"{med[name][0] - med[empty][0]:6.1f} {med[name][1]:12.1f} {med[name][1] - med[empty][1]:6.1f}")


if __name__ == "__main__":
    main()
