"""Downloads the wheels one VS Code platform's .vsix carries, and writes the package's WHEELS.json.

Why not plain ``pip download --platform``: pip matches the wheels' *tags* to the target but evaluates
environment *markers* on the machine it runs on, so from Linux a Windows download misses
``pywin32; sys_platform == "win32"`` (mcp) and ``colorama; platform_system == "Windows"`` (click),
and a macOS one asks for hyperscan (Sleuth's x86-64-Linux-only dependency) and fails. This script runs
pip with the target's marker environment (``--as-pip``: pip's own marker module is given the target's
values before pip starts), once per CPython version; pure-Python wheels land once in the shared folder.

    python target_wheels.py --target darwin-arm64 --pythons 3.11,3.12,3.13,3.14 --dest DIR SLEUTH_WHEEL

WHEELS.json names the target, the Pythons whose wheels are all there, every wheel, and each of
Sleuth's dependencies that this platform does not get, with the fallback Sleuth uses instead
(``FALLBACKS``: a dependency left out without a named fallback fails the build).
"""

from __future__ import annotations

import argparse
import email
import json
import subprocess
import sys
import zipfile
from pathlib import Path

#: VS Code's platform targets -> pip's platform tags (pip widens a macOS tag to older macOS versions
#: itself) and the marker values of that platform. macOS 13: google-re2 has no wheel for older macOS.
TARGETS: dict[str, tuple[list[str], dict[str, str]]] = {
    "linux-x64": (["manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64", "linux_x86_64"],
                  {"sys_platform": "linux", "platform_system": "Linux", "os_name": "posix", "platform_machine": "x86_64"}),
    "linux-arm64": (["manylinux_2_28_aarch64", "manylinux_2_17_aarch64", "manylinux2014_aarch64", "linux_aarch64"],
                    {"sys_platform": "linux", "platform_system": "Linux", "os_name": "posix", "platform_machine": "aarch64"}),
    "darwin-x64": (["macosx_13_0_x86_64", "macosx_13_0_universal2"],
                   {"sys_platform": "darwin", "platform_system": "Darwin", "os_name": "posix", "platform_machine": "x86_64"}),
    "darwin-arm64": (["macosx_13_0_arm64", "macosx_13_0_universal2"],
                     {"sys_platform": "darwin", "platform_system": "Darwin", "os_name": "posix", "platform_machine": "arm64"}),
    "win32-x64": (["win_amd64"],
                  {"sys_platform": "win32", "platform_system": "Windows", "os_name": "nt", "platform_machine": "AMD64"}),
}

#: What Sleuth does without each dependency a platform may lack (sleuth/core/platform.py chooses it).
FALLBACKS: dict[str, str] = {
    "hyperscan": "RE2 scans the literal prefilter's literals (google-re2, bundled); the same results, "
                 "slower on many-literal patterns (README, 'Platforms').",
}


def marker_environment(target: str, python: str) -> dict[str, str]:
    """The PEP 508 marker values of CPython ``python`` (``3.12``) on ``target``."""
    return {**TARGETS[target][1], "python_version": python, "python_full_version": f"{python}.0",
            "implementation_name": "cpython", "platform_python_implementation": "CPython",
            "implementation_version": f"{python}.0"}


def _as_pip(environment: dict[str, str], args: list[str]) -> int:
    """pip's ``main`` with ``environment`` as the marker values (pip evaluates markers at call time)."""
    from pip._vendor.packaging import markers

    host = markers.default_environment
    markers.default_environment = lambda: {**host(), **environment}  # type: ignore[assignment]
    from pip._internal.cli.main import main

    return main(args)


def _pip(python: str, environment: dict[str, str], *args: str) -> None:
    subprocess.run([python, __file__, "--as-pip", json.dumps(environment), "--disable-pip-version-check", "-q", *args],
                   check=True, stdin=subprocess.DEVNULL)


def requires(wheel: Path) -> list[str]:
    """The Requires-Dist lines of a wheel's METADATA."""
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        return email.message_from_bytes(zf.read(name)).get_all("Requires-Dist") or []


def left_out(sleuth_wheel: Path, target: str, pythons: list[str]) -> list[str]:
    """Sleuth's dependencies whose markers exclude them on ``target`` for every Python in ``pythons``."""
    from pip._vendor.packaging.requirements import Requirement

    out = []
    for line in requires(sleuth_wheel):
        req = Requirement(line)
        if req.marker is None or "extra" in str(req.marker):
            continue
        if not any(req.marker.evaluate(marker_environment(target, py)) for py in pythons):
            out.append(req.name)
    return out


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--as-pip":
        return _as_pip(json.loads(sys.argv[2]), sys.argv[3:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", required=True, choices=sorted(TARGETS))
    parser.add_argument("--pythons", default="3.11,3.12,3.13,3.14")
    parser.add_argument("--dest", required=True, type=Path)
    parser.add_argument("sleuth_wheel", type=Path)
    ns = parser.parse_args()
    pythons = [v for v in ns.pythons.replace(" ", ",").split(",") if v]
    tags, _ = TARGETS[ns.target]
    ns.dest.mkdir(parents=True, exist_ok=True)
    absent = left_out(ns.sleuth_wheel, ns.target, pythons)
    unnamed = [name for name in absent if name not in FALLBACKS]
    if unnamed:
        raise SystemExit(f"{ns.target} gets no {', '.join(unnamed)} and target_wheels.FALLBACKS names no fallback")
    for py in pythons:
        _pip(sys.executable, marker_environment(ns.target, py), "download", "--only-binary=:all:", "--implementation", "cp",
             "--python-version", py, *[a for tag in tags for a in ("--platform", tag)], "--dest", str(ns.dest),
             str(ns.sleuth_wheel))
    # The Sleuth wheel is the caller's (built from the checkout each time), not part of the cached set.
    (ns.dest / ns.sleuth_wheel.name).unlink(missing_ok=True)
    manifest = {
        "target": ns.target, "pythons": pythons, "platform_tags": tags,
        "absent": [{"name": name, "fallback": FALLBACKS[name]} for name in absent],
        "wheels": sorted(p.name for p in ns.dest.glob("*.whl")),
    }
    (ns.dest / "WHEELS.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
