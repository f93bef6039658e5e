"""Create or refresh ``./.venv`` for the interpreter that runs this script (``make venv``).

    python3.12 tools/setup_venv.py            # what `make venv PYTHON=python3.12` runs
    python3.12 tools/setup_venv.py --venv /tmp/v312 --pip   # another folder, plain pip

The Makefile checks the version first (any Python, one sentence), then runs this script with the
chosen interpreter.  The script

1. keeps ``.venv`` when its stamp says it was made by this very interpreter (same path, same
   version) from the current ``pyproject.toml`` and ``constraints.txt``: nothing to do;
2. otherwise removes a ``.venv`` made by another Python (or from other inputs), creates a fresh
   one, installs ``uv`` (pinned below) into it with pip, and installs the project with its
   ``widgets``, ``book`` and ``test`` extras, constrained by the universal lock
   ``constraints.txt`` (its environment markers pick the pins for this Python);
3. falls back to plain pip, with the same lock, if uv cannot be installed or fails;
4. writes the stamp last, so an interrupted set-up is redone next time.

uv installs the same pins as pip from the same registry (PyPI); it only downloads in parallel
and links from its cache, which is why it is used (figures in CONTRIBUTING.md).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "constraints.txt"
EXTRAS = "widgets,book,test"
UV = "uv==0.13.9"


def interpreter() -> dict:
    """What identifies the interpreter running this script."""
    return {"executable": os.path.realpath(sys.executable), "version": platform.python_version()}


def inputs_digest() -> str:
    """A hash of the files the environment is made from."""
    h = hashlib.sha256()
    for path in (ROOT / "pyproject.toml", LOCK):
        h.update(path.read_bytes())
    return h.hexdigest()


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def read_stamp(venv: Path) -> dict | None:
    try:
        return json.loads((venv / ".installed").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def made_by(venv: Path) -> str:
    """The Python version recorded in a venv's pyvenv.cfg (for the message), or '?'."""
    try:
        for line in (venv / "pyvenv.cfg").read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition("=")
            if key.strip() in ("version", "version_info"):
                return value.strip()
    except OSError:
        pass
    return "?"


def run(cmd: list[str], **kw) -> int:
    print("$ " + " ".join(str(c) for c in cmd), flush=True)
    return subprocess.call([str(c) for c in cmd], cwd=ROOT, **kw)


def install(venv: Path, use_uv: bool, quiet: bool) -> None:
    py = venv_python(venv)
    q = ["--quiet"] if quiet else []
    target = ["-c", LOCK, "-e", f".[{EXTRAS}]"]
    if use_uv:
        if run([py, "-m", "pip", "install", *q, UV]) == 0:
            uv = venv / "bin" / "uv"
            # --system-certs: trust the operating system's certificate store, as pip and curl do
            # (uv's own bundled roots refused this machine's registry certificate with an empty
            # environment, and the install fell back to pip: 3-10x slower)
            if run([uv, "pip", "install", *q, "--system-certs", "--python", py, *target]) == 0:
                return
        print("setup: uv did not work here; installing the same pins with pip instead", flush=True)
    if run([py, "-m", "pip", "install", *q, *target]) != 0:
        raise SystemExit(f"setup: installing spatialbook's pinned dependencies into {venv} failed (see above)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--venv", type=Path, default=ROOT / ".venv")
    ap.add_argument("--pip", action="store_true", help="install with plain pip instead of uv")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    venv = args.venv.resolve()
    want = {**interpreter(), "inputs": inputs_digest()}
    have = read_stamp(venv)
    if have == want and venv_python(venv).exists():
        return 0
    if venv.exists():
        if have is None or {k: have.get(k) for k in ("executable", "version")} != interpreter():
            print(f"setup: {venv.name} was made by Python {made_by(venv)}; replacing it with one for "
                  f"Python {want['version']} ({want['executable']})", flush=True)
        else:
            print(f"setup: pyproject.toml or constraints.txt changed; rebuilding {venv.name}", flush=True)
        shutil.rmtree(venv)
    t0 = time.perf_counter()
    print(f"setup: creating {venv} with Python {want['version']} ({want['executable']})", flush=True)
    if run([sys.executable, "-m", "venv", venv]) != 0:
        raise SystemExit(f"setup: `{sys.executable} -m venv` failed; on Debian/Ubuntu install python3-venv")
    install(venv, use_uv=not args.pip, quiet=not args.verbose)
    (venv / ".installed").write_text(json.dumps(want, indent=1) + "\n", encoding="utf-8")
    print(f"setup: {venv.name} ready in {time.perf_counter() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
