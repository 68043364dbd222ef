"""The platform-specific .vsix packages: each carries every dependency for every Python it claims.

``vscode-client/scripts/package-platforms.mjs`` (the README's packaging command) builds the packages;
this test opens each one (a zip) and resolves Sleuth's dependencies from the wheels inside, for each
CPython its WHEELS.json claims, with that platform's environment markers and wheel tags written out
here independently of the script. A dependency the platform does not get (hyperscan off x86-64 Linux)
must be absent and its fallback named in the package.

Which targets: ``SLEUTH_PACKAGE_TARGETS`` (space-separated, or ``all``); by default ``win32-x64``, the
one furthest from this Linux machine (markers, tags and hyperscan all differ), so that CI pays for one
cold download (the five together took over five minutes cold on a loaded 2-core machine; cached
downloads under ~/.cache/sleuth-wheels make later runs quick). Needs Node 24 and npm: the set-up
script installs them (cached); the test skips locally when a registry is unreachable.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

REPO = Path(__file__).resolve().parents[2]
CLIENT = REPO / "vscode-client"
IN_CI = bool(os.environ.get("CI"))
UNREACHABLE = 42
ALL = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64"]
_chosen = os.environ.get("SLEUTH_PACKAGE_TARGETS", "win32-x64").split()
TARGETS = ALL if _chosen == ["all"] else _chosen

#: Each target's marker values and the platform part of the wheel tags that run there.
PLATFORMS: dict[str, tuple[dict[str, str], re.Pattern[str]]] = {
    "linux-x64": ({"sys_platform": "linux", "platform_system": "Linux", "os_name": "posix", "platform_machine": "x86_64"},
                  re.compile(r"(many)?linux(_\d+_\d+|\d+)?_x86_64")),
    "linux-arm64": ({"sys_platform": "linux", "platform_system": "Linux", "os_name": "posix", "platform_machine": "aarch64"},
                    re.compile(r"(many)?linux(_\d+_\d+|\d+)?_aarch64")),
    "darwin-x64": ({"sys_platform": "darwin", "platform_system": "Darwin", "os_name": "posix", "platform_machine": "x86_64"},
                   re.compile(r"macosx_\d+_\d+_(x86_64|universal2|intel)")),
    "darwin-arm64": ({"sys_platform": "darwin", "platform_system": "Darwin", "os_name": "posix", "platform_machine": "arm64"},
                     re.compile(r"macosx_\d+_\d+_(arm64|universal2)")),
    "win32-x64": ({"sys_platform": "win32", "platform_system": "Windows", "os_name": "nt", "platform_machine": "AMD64"},
                  re.compile(r"win_amd64")),
}


def _tail(text: str, lines: int = 30) -> str:
    return "\n".join(text.splitlines()[-lines:])


@pytest.fixture(scope="module")
def packages() -> dict[str, Path]:
    """Builds the chosen targets' packages with the packaging command; {target: .vsix path}."""
    unknown = set(TARGETS) - set(ALL)
    assert not unknown, f"SLEUTH_PACKAGE_TARGETS names unknown targets {sorted(unknown)}"
    setup = subprocess.run(["bash", str(CLIENT / "scripts" / "setup-e2e.sh")], capture_output=True, text=True,
                           timeout=1800, stdin=subprocess.DEVNULL, env={**os.environ, "SLEUTH_SETUP_PACKAGING": "1"})
    if setup.returncode == UNREACHABLE and not IN_CI:
        pytest.skip("a package registry is unreachable: " + _tail(setup.stderr, 3))
    assert setup.returncode == 0, f"setup-e2e.sh failed:\n{_tail(setup.stderr)}"
    node_bin = dict(line.split("=", 1) for line in setup.stdout.splitlines() if "=" in line)["NODE24_BIN"]
    env = {**os.environ, "PATH": node_bin + os.pathsep + os.environ["PATH"], "SLEUTH_BUNDLE_PYTHON": sys.executable}
    build = subprocess.run([str(Path(node_bin) / "node"), "scripts/package-platforms.mjs", *TARGETS], cwd=CLIENT,
                           capture_output=True, text=True, timeout=3600, stdin=subprocess.DEVNULL, env=env)
    assert build.returncode == 0, f"package-platforms.mjs failed:\n{_tail(build.stderr)}\n{_tail(build.stdout)}"
    version = json.loads((CLIENT / "package.json").read_text())["version"]
    return {t: CLIENT / "packages" / f"sleuth-{version}-{t}.vsix" for t in TARGETS}


def _environment(target: str, python: str) -> dict[str, str]:
    return {**PLATFORMS[target][0], "python_version": python, "python_full_version": f"{python}.0",
            "implementation_name": "cpython", "platform_python_implementation": "CPython",
            "implementation_version": f"{python}.0", "extra": ""}


def _runs_on(wheel: str, target: str, python: str) -> bool:
    """Whether ``wheel`` installs on CPython ``python`` (``3.12``) on ``target``."""
    cp = "cp" + python.replace(".", "")
    for tag in parse_wheel_filename(wheel)[3]:
        platform_ok = tag.platform == "any" or PLATFORMS[target][1].fullmatch(tag.platform) is not None
        if not platform_ok:
            continue
        if tag.abi == "none" and tag.interpreter in {"py3", cp}:
            return True
        if tag.abi == cp and tag.interpreter == cp:
            return True
        if tag.abi == "abi3" and tag.interpreter.startswith("cp3") and int(tag.interpreter[3:]) <= int(cp[3:]):
            return True
    return False


def _requires(archive: zipfile.ZipFile, wheel: str) -> list[str]:
    """Requires-Dist of a wheel that is itself inside the .vsix."""
    import email
    import io

    with zipfile.ZipFile(io.BytesIO(archive.read(f"extension/wheels/{wheel}"))) as inner:
        meta = next(n for n in inner.namelist() if n.endswith(".dist-info/METADATA"))
        return email.message_from_bytes(inner.read(meta)).get_all("Requires-Dist") or []


def _missing(archive: zipfile.ZipFile, wheels: list[str], target: str, python: str) -> list[str]:
    """Requirements (from Sleuth's wheel down) that no wheel in the package satisfies for this Python."""
    usable = [w for w in wheels if _runs_on(w, target, python)]
    by_name: dict[str, list[str]] = {}
    for w in usable:
        by_name.setdefault(canonicalize_name(parse_wheel_filename(w)[0]), []).append(w)
    todo: list[tuple[str, frozenset[str]]] = [("sleuth", frozenset())]
    seen: set[tuple[str, frozenset[str]]] = set()
    missing = []
    while todo:
        name, extras = todo.pop()
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        wheel = by_name[name][0]
        for line in _requires(archive, wheel):
            req = Requirement(line)
            if req.marker and not any(req.marker.evaluate({**_environment(target, python), "extra": e})
                                      for e in (extras or {""})):
                continue
            dep = canonicalize_name(req.name)
            if not any(req.specifier.contains(str(parse_wheel_filename(w)[1]), prereleases=True) for w in by_name.get(dep, [])):
                missing.append(f"{line} (needed by {wheel})")
                continue
            todo.append((dep, frozenset(req.extras)))
    return missing


@pytest.mark.parametrize("target", TARGETS)
def test_every_dependency_is_there_for_every_python_it_claims(packages: dict[str, Path], target: str) -> None:
    with zipfile.ZipFile(packages[target]) as archive:
        names = archive.namelist()
        assert f'TargetPlatform="{target}"' in archive.read("extension.vsixmanifest").decode()
        manifest = json.loads(archive.read("extension/wheels/WHEELS.json"))
        wheels = [n.removeprefix("extension/wheels/") for n in names if n.startswith("extension/wheels/") and n.endswith(".whl")]
        assert manifest["target"] == target and manifest["pythons"] == ["3.11", "3.12", "3.13", "3.14"]
        assert any(w.startswith("pip-") for w in wheels), "no pip wheel: the extension's offline venv needs one"
        for python in manifest["pythons"]:
            assert _missing(archive, wheels, target, python) == [], f"{target}, CPython {python}"


@pytest.mark.parametrize("target", TARGETS)
def test_a_dependency_the_platform_does_not_get_is_absent_and_its_fallback_named(packages: dict[str, Path], target: str) -> None:
    with zipfile.ZipFile(packages[target]) as archive:
        manifest = json.loads(archive.read("extension/wheels/WHEELS.json"))
        wheels = {canonicalize_name(parse_wheel_filename(n.rsplit("/", 1)[1])[0])
                  for n in archive.namelist() if n.startswith("extension/wheels/") and n.endswith(".whl")}
        sleuth = next(n.rsplit("/", 1)[1] for n in archive.namelist() if re.search(r"/sleuth-[^/]*\.whl$", n))
        left_out = {canonicalize_name(Requirement(line).name) for line in _requires(archive, sleuth)
                    if (m := Requirement(line).marker) is not None and "extra" not in str(m)
                    and not any(m.evaluate(_environment(target, py)) for py in manifest["pythons"])}
    named = {canonicalize_name(a["name"]): a["fallback"] for a in manifest["absent"]}
    assert ("hyperscan" in left_out) == (target != "linux-x64")
    assert set(named) == left_out
    assert not left_out & wheels, f"{sorted(left_out & wheels)} packaged for {target}, which does not install them"
    for name in left_out:
        assert "RE2" in named[name] if name == "hyperscan" else named[name]
    if target == "linux-x64":
        assert "hyperscan" in wheels


def test_the_marker_conditions_of_the_target_not_of_this_machine_choose_the_wheels(packages: dict[str, Path]) -> None:
    """From Linux, pip alone would leave out mcp's ``pywin32; sys_platform == "win32"``."""
    if "win32-x64" not in packages:
        pytest.skip("win32-x64 not among SLEUTH_PACKAGE_TARGETS")
    with zipfile.ZipFile(packages["win32-x64"]) as archive:
        assert any(re.search(r"/pywin32-[^/]*-cp31[1-4]-cp31[1-4]-win_amd64\.whl$", n) for n in archive.namelist())
