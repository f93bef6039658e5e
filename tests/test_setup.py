"""The set-up: the universal lock serves every promised Python, and `make venv` chooses, checks and
replaces the interpreter as the README says (the real installs are run by tools/test_pythons.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import setup_venv  # noqa: E402

import tomllib

#: Every Python the README promises, with the patch releases that once broke set-up (3.11.2 is
#: Debian 12's; soupsieve 4 needs 3.11.5).  3.10 left the promise in December 2026: it reached its
#: end of life in October 2026, and numpy (2.3) and matplotlib (3.11) releases need 3.11.
PYTHONS = ["3.11.0", "3.11.2", "3.11.7", "3.12.1", "3.13.0"]
PLATFORMS = [("linux", "posix", "Linux"), ("darwin", "posix", "Darwin"), ("win32", "nt", "Windows")]


def marker_env(version: str, platform: tuple[str, str, str]) -> dict:
    sys_platform, os_name, system = platform
    env = default_environment()
    env.update(python_full_version=version, python_version=".".join(version.split(".")[:2]),
               sys_platform=sys_platform, os_name=os_name, platform_system=system,
               implementation_name="cpython", platform_python_implementation="CPython")
    return env


def lock_pins(env: dict) -> dict[str, list[str]]:
    pins: dict[str, list[str]] = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate(env):
            pins.setdefault(canonicalize_name(req.name), []).append(str(req.specifier))
    return pins


def project_requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    reqs = [Requirement(s) for s in project["dependencies"]]
    for extra in ("widgets", "book", "test"):
        reqs += [Requirement(s) for s in project["optional-dependencies"][extra]]
    return reqs


def test_lines_are_exact_pins():
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            spec = str(Requirement(line).specifier)
            assert spec.startswith("==") and "," not in spec, f"constraints.txt: not an exact pin: {line!r}"


@pytest.mark.parametrize("platform", PLATFORMS, ids=[p[0] for p in PLATFORMS])
@pytest.mark.parametrize("version", PYTHONS)
def test_lock_pins_every_requirement_once(version, platform):
    env = marker_env(version, platform)
    pins = lock_pins(env)
    doubled = {name: specs for name, specs in pins.items() if len(specs) > 1}
    assert not doubled, f"Python {version}: two pins for one package: {doubled}"
    for req in project_requirements():
        if req.marker is not None and not req.marker.evaluate(env):
            continue
        name = canonicalize_name(req.name)
        assert name in pins, f"Python {version} on {platform[0]}: {req} has no pin in constraints.txt"
        pinned = pins[name][0].removeprefix("==")
        assert req.specifier.contains(pinned, prereleases=True), \
            f"Python {version}: constraints.txt pins {name}=={pinned}, outside pyproject's {req}"


def test_soupsieve_pin_respects_debian_python():
    """The pin that broke Debian 12 (soupsieve 4.x needs Python >= 3.11.5) is split at 3.11.5."""
    old = lock_pins(marker_env("3.11.2", PLATFORMS[0]))["soupsieve"][0]
    new = lock_pins(marker_env("3.11.7", PLATFORMS[0]))["soupsieve"][0]
    assert int(old.removeprefix("==").split(".")[0]) < 4 <= int(new.removeprefix("==").split(".")[0])


def test_outputs_pins_are_shared_from_311():
    """The stored notebook outputs were made with one set of versions: every Python from 3.11.5 on
    gets the same pins of the packages that print into them."""
    printing = ["numpy", "matplotlib", "mujoco", "ipython", "ipykernel", "pin", "modern-robotics", "myst-nb"]
    sets = {v: {n: lock_pins(marker_env(v, PLATFORMS[0])).get(n) for n in printing}
            for v in ("3.11.7", "3.12.1", "3.13.0")}
    assert sets["3.11.7"] == sets["3.12.1"] == sets["3.13.0"], sets


def fake_python(tmp_path: Path, version: str, runs: bool = True) -> Path:
    """A stand-in interpreter that only answers the Makefile's two questions."""
    exe = tmp_path / f"python-{version}"
    major, minor = (int(x) for x in version.split(".")[:2])
    ok = (major, minor) >= (3, 11)
    exe.write_text("#!/bin/sh\n"
                   + ("exit 127\n" if not runs else "")
                   + f'case "$*" in\n  *version_info*) exit {0 if ok else 1};;\n'
                   f'  -V) echo "Python {version}";;\n  *) exit 0;;\nesac\n')
    exe.chmod(0o755)
    return exe


@pytest.mark.parametrize("version", ["2.7.18", "3.9.18", "3.10.16"])
def test_make_refuses_old_python_in_one_sentence(tmp_path, version):
    exe = fake_python(tmp_path, version)
    out = subprocess.run(["make", "-s", "venv", f"PYTHON={exe}"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode != 0
    message = out.stderr.strip().splitlines()
    assert message[0] == (f"spatialbook needs Python 3.11 or newer, but {exe} is Python {version}; "
                          "choose another, e.g. make test PYTHON=python3.12"), out.stderr
    assert "Traceback" not in out.stderr and "pip" not in out.stderr


def test_make_names_a_missing_interpreter(tmp_path):
    out = subprocess.run(["make", "-s", "venv", "PYTHON=python-that-does-not-exist"], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode != 0
    assert out.stderr.startswith("spatialbook: could not run 'python-that-does-not-exist'"), out.stderr


def test_a_venv_from_another_python_is_replaced(tmp_path, monkeypatch):
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("")
    (venv / "pyvenv.cfg").write_text("version = 3.9.18\n")
    (venv / "old-file").write_text("made by 3.9")
    (venv / ".installed").write_text(json.dumps({"executable": "/opt/py39/bin/python3.9",
                                                 "version": "3.9.18", "inputs": "x"}))
    calls = []

    def fake_run(cmd, **kw):
        calls.append([str(c) for c in cmd])
        if cmd[1:3] == ["-m", "venv"]:
            (venv / "bin").mkdir(parents=True, exist_ok=True)
            (venv / "bin" / "python").write_text("")
        return 0

    monkeypatch.setattr(setup_venv, "run", fake_run)
    assert setup_venv.main(["--venv", str(venv)]) == 0
    assert not (venv / "old-file").exists(), "the old venv was reused"
    stamp = json.loads((venv / ".installed").read_text())
    assert stamp["version"] == setup_venv.interpreter()["version"]
    assert stamp["executable"] == os.path.realpath(sys.executable)
    assert any(c[1:3] == ["-m", "venv"] for c in calls)
    assert any("uv" in c[-1] or "uv==" in " ".join(c) for c in calls)
    # a second call with the same interpreter and inputs does nothing
    calls.clear()
    assert setup_venv.main(["--venv", str(venv)]) == 0
    assert calls == []
