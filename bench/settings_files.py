"""What a hostile ``.agent/config.yml`` costs (issue 28): medians, against an empty file.

Two figures per shape: reading the settings in-process (:func:`sleuth.cli.common.workspace_settings`,
what every CLI call and every server start does) and a whole ``sleuth grep --no-server needle`` run by
the installed script. The issue's bound: any shape costs at most 50 ms more than an empty file.

    python bench/settings_files.py [--runs N]
"""

from __future__ import annotations

import argparse
import io
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stderr

SLEUTH = str(pathlib.Path(sys.executable).with_name("sleuth"))


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    ns = parser.parse_args()
    from sleuth.cli import common

    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "XDG_CONFIG_HOME": os.path.join(tmp, "config"), "XDG_CACHE_HOME": os.path.join(tmp, "c")}
        os.environ["XDG_CONFIG_HOME"] = env["XDG_CONFIG_HOME"]
        rows = []
        for name, text in shapes().items():
            root = pathlib.Path(tmp, "ws-" + str(len(rows)))
            (root / ".agent").mkdir(parents=True)
            (root / ".agent" / "config.yml").write_text(text)
            (root / "a.py").write_text("needle\n")

            def read() -> None:
                common._REPORTED.clear()
                with redirect_stderr(io.StringIO()):
                    common.workspace_settings([str(root)])

            def cli() -> None:
                subprocess.run([SLEUTH, "grep", "--no-server", "needle"], cwd=root, env=env, capture_output=True,
                               timeout=120)

            read()  # imports (yaml) paid once, as in any process that reads a file
            rows.append((name, median_ms(read, ns.runs), median_ms(cli, ns.runs)))
        base_read, base_cli = rows[0][1], rows[0][2]
        print(f"{'shape':42} {'read ms':>9} {'+ms':>7} {'CLI ms':>8} {'+ms':>7}")
        for name, read_ms, cli_ms in rows:
            print(f"{name:42} {read_ms:9.2f} {read_ms - base_read:7.2f} {cli_ms:8.1f} {cli_ms - base_cli:7.1f}")


if __name__ == "__main__":
    main()
