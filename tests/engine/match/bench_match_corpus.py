"""Benchmark (not collected by pytest): the matcher alone on a corpus held in memory.

    /work/venv/bin/python tests/engine/match/bench_match_corpus.py [ROOT] [QUERY,...]

ROOT defaults to the Linux benchmark tree (``bench/README``). Files are listed with ``rg --files`` (so the
ignore rules match rg's), read once, and binary ones (NUL in the first 8 KiB) dropped; then, for each of
ripgrep's benchsuite queries, ``may_match`` + ``find_iter`` run over every buffer on one thread. It prints
CPU seconds (``time.process_time``: the machine is shared, wall time is noise), matched lines (compare
with the ``rg -n`` counts of ``bench/README``) and how many files passed the literal prefilter.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

from sleuth.engine.match import compile_matcher
from sleuth.engine.types import MatchOptions

QUERIES: dict[str, MatchOptions] = {
    "literal": MatchOptions(("PM_RESUME",), case="sensitive"),
    "literal_casei": MatchOptions(("PM_RESUME",), case="insensitive"),
    "word": MatchOptions(("PM_RESUME",), word=True, case="sensitive"),
    "re_literal_suffix": MatchOptions(("[A-Z]+_RESUME",), case="sensitive"),
    "alternates": MatchOptions(("ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT",), case="sensitive"),
    "alternates_casei": MatchOptions(("ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT",), case="insensitive"),
    "unicode_word": MatchOptions((r"\wAh",), case="sensitive"),
    "no_literal": MatchOptions((r"\w{5}\s+\w{5}\s+\w{5}\s+\w{5}\s+\w{5}",), case="sensitive"),
}


def load(root: str) -> list[bytes]:
    rg = shutil.which("rg") or os.path.join(os.path.dirname(sys.executable), "rg")
    names = subprocess.run([rg, "--files"], cwd=root, capture_output=True, check=True).stdout.splitlines()
    buffers = []
    for name in names:
        with open(os.path.join(os.fsencode(root), name), "rb") as handle:
            data = handle.read()
        if b"\0" not in data[:8192]:
            buffers.append(data)
    return buffers


def run(name: str, options: MatchOptions, buffers: list[bytes]) -> str:
    matcher = compile_matcher(options)
    started = time.process_time()
    lines = candidates = 0
    for data in buffers:
        if not matcher.may_match(data):
            continue
        candidates += 1
        last = -2
        for span in matcher.find_iter(data):
            start = data.rfind(b"\n", 0, span.start)
            if start != last:
                lines += 1
                last = start
    cpu = time.process_time() - started
    return f"{name:18s} {cpu:7.3f} s cpu  {lines:6d} lines  {candidates:6d} candidate files  [{matcher.description[:40]}]"


def main() -> None:
    root = sys.argv[1] if len(sys.argv) > 1 else "/root/.cache/sleuth-bench/linux"
    wanted = sys.argv[2].split(",") if len(sys.argv) > 2 else list(QUERIES)
    buffers = load(root)
    print(f"{len(buffers)} files, {sum(map(len, buffers)) >> 20} MiB", flush=True)
    for name in wanted:
        print(run(name, QUERIES[name], buffers), flush=True)


if __name__ == "__main__":
    main()
