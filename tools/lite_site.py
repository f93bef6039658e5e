"""The book's JupyterLite site: ``book/_build/html/lite/``, every chapter editable in the browser.

    .venv/bin/python tools/lite_site.py             # after a build: (re)make the lite site

Called by ``tools/build_book.py`` after the book is built (:func:`build`).  Nothing is fetched
at the reader's run time: JupyterLite 0.6 (``jupyterlite-core`` and
``jupyterlite-pyodide-kernel`` from the universal lock, the ``lite`` extra) is run offline
with the book's own pieces:

* **Pyodide**: the site's own verified Pyodide 0.27.7 (``<site>/_pyodide/``, staged for live
  mode by ``tools/live_stage.py`` from ``tools/pyodide_dist.py``), shared, not copied, with
  live mode's compiled standard library (``<site>/_live/python_stdlib_pyc.zip``) when staged.
  The kernel's ``pyodideUrl`` is the book's loader, ``lite/pyodide/lite_kernel_pyodide.js``
  (:data:`BOOT_JS`), which starts that Pyodide as live mode starts its own: the packages come
  as archives written into the file system, so an extension module is compiled and linked when
  it is first imported (Pyodide's ``loadPackage`` links every one of a package as it installs
  it: numpy's FFT, matplotlib's Qhull, Pillow's WebP...).
* **Packages** (:func:`boot_archives`, fetched with the browser's HTTP cache): live mode's site
  archive (numpy, matplotlib and their dependencies, compiled: ``<site>/_live/sb_site.tar.gz``,
  shared), the lite site's own (``lite/pyodide/sb_lite_site.tar.gz``: IPython, jedi, micropip,
  sqlite3 and their dependencies from the verified distribution, ``pyodide_dist.ensure`` with
  :data:`ROOTS`; ``comm`` and ``ipywidgets`` from PyPI, ``tools/lite-wheels.txt``, pinned by
  hash; the kernel's own ``piplite``, ``pyodide_kernel`` and ``ipykernel`` shim, shipped by
  ``jupyterlite-pyodide-kernel``), matplotlib's prebuilt font list and the book's
  ``spatialbook`` and ``widgets`` (live mode's ``<site>/_live/sb_packages.zip``, shared).  Every
  package the kernel would install at start is named in ``loadPyodideOptions.packages``, so it
  installs nothing with micropip; ``import spatialbook, widgets`` works with no ``%pip``.  A
  lock of our own (``lite/pyodide/sb-lite-lock.json``) holds ssl and OpenSSL, with their
  sha256 (Pyodide checks it with the fetch's integrity), loaded when a cell imports ssl.
  ``disablePyPIFallback`` is on: a ``%pip install`` of anything else says it is not available
  instead of reaching for PyPI.
* **Front end**: JupyterLite's Notebook and JupyterLab apps with the prebuilt extensions of
  ``jupyterlab_widgets`` 3.0.15 (ipywidgets 8), ``jupyterlab-myst`` (the chapters' MyST, as in
  ``make lab``) and the book's own ``tools/jupyter/labextensions/spatialbook-lab``; nothing
  from the build machine's environment (``ignore_sys_prefix``).  jupyterlab-myst is the lock's
  2.7.0, built against JupyterLab 4.5 (it asks for ``@jupyterlab/notebook`` ^4.5.9, apputils
  ^4.6.9, coreutils ^6.5.9...), while JupyterLite 0.6.4 is JupyterLab 4.4.5: each page logs
  "Unsatisfied version 4.4.5 ... of shared singleton module" for seven packages and "No
  satisfying version" for ``@jupyterlab/cells`` and ``attachments`` (whose own copies it then
  loads).  It runs on 4.4.5's singletons and renders the chapters (the browser test reads
  MyST-rendered cells); an older jupyterlab-myst built for 4.4 would silence it, at the cost of
  a second version pinned for the lite site alone.
* **Files**: the chapters (outputs cleared: the reader runs them; the stored outputs are in the
  book's pages) and ``book/models/``, as ``chapters/`` and ``models/``.

JupyterLite's application files depend only on the versions and extensions, so the app is built
once into ``~/.cache/spatialbook/lite-<key>/`` keyed by a hash of those inputs and copied into
each build (:func:`app_dir`); the files and the lock are written every time (under a second).

When anything is missing (JupyterLite not installed, the Pyodide distribution or live mode's
files not staged, a wheel not downloadable), :func:`build` says what and returns the reason;
the book builds and reads without the lite site, and its pages' "Edit in your browser" links
are then left out (``tools/lite_pages.py``).
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
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import pyodide_dist  # noqa: E402

LITE = "lite"                                 # the lite site's folder in the built book
WHEELS_FILE = HERE / "lite-wheels.txt"
SB_EXTENSION = HERE / "jupyter" / "labextensions" / "spatialbook-lab"
#: the packages of the verified distribution the kernel needs: its own (micropip, ssl, sqlite3,
#: IPython, jedi: jupyterlite-pyodide-kernel installs them at start) and the book's
ROOTS = ("micropip", "ssl", "sqlite3", "ipython", "jedi", "numpy", "matplotlib")
#: the kernel's own wheels, shipped by jupyterlite-pyodide-kernel (relative to the lite root)
KERNEL_PYPI = "extensions/@jupyterlite/pyodide-kernel-extension/static/pypi"
KERNEL_WHEELS = ("piplite", "pyodide_kernel", "ipykernel")
#: what the kernel installs at start unless named in ``loadPyodideOptions.packages`` (0.6.1)
KERNEL_START = ("ssl", "sqlite3", "ipykernel", "comm", "pyodide_kernel", "jedi", "ipython")
APPS = ("notebooks", "lab")


class LiteUnavailable(RuntimeError):
    """Something the lite site needs is missing (the message says what)."""


def cache_root() -> Path:
    return pyodide_dist.cache_dir().parent


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def pinned_wheels() -> list[tuple[str, str, str]]:
    """(project, version, sha256) of each line of ``tools/lite-wheels.txt``."""
    out = []
    for line in WHEELS_FILE.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            req, digest = line.split(" --hash=sha256:")
            project, version = req.split("==")
            out.append((project, version, digest.strip()))
    return out


def fetch_wheels(dest: Path) -> dict[str, Path]:
    """Download (or reuse from ``dest``) every pinned wheel, hash-checked; project -> path."""
    dest.mkdir(parents=True, exist_ok=True)
    found: dict[str, Path] = {}
    wanted = []
    for project, version, digest in pinned_wheels():
        stem = project.replace("-", "_")
        hits = [p for p in dest.glob(f"{stem}-{version}-*.whl") if pyodide_dist.sha256_of(p) == digest]
        if hits:
            found[project] = hits[0]
        else:
            wanted.append((project, version, digest))
    if wanted:
        if os.environ.get("SB_PYODIDE_OFFLINE") == "1":
            raise LiteUnavailable("fetching is disabled (SB_PYODIDE_OFFLINE=1) and these wheels "
                                  f"are not cached in {dest}: {[w[0] for w in wanted]}")
        with tempfile.TemporaryDirectory(prefix="sb-lite-") as tmp:
            req = Path(tmp) / "requirements.txt"
            req.write_text("".join(f"{p}=={v} --hash=sha256:{d}\n" for p, v, d in wanted))
            proc = subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                 "--require-hashes", "--disable-pip-version-check", "-q", "-r", str(req),
                 "-d", tmp], capture_output=True, text=True)
            if proc.returncode != 0:
                raise LiteUnavailable("could not download the lite site's wheels "
                                      f"({WHEELS_FILE.name}): "
                                      + (proc.stderr.strip().splitlines() or ["?"])[-1])
            for p in Path(tmp).glob("*.whl"):
                shutil.copy2(p, dest / p.name)
        return fetch_wheels(dest)
    return found


def jupyterlite_versions() -> dict[str, str]:
    """The installed jupyterlite-core and jupyterlite-pyodide-kernel versions."""
    from importlib import metadata

    out = {}
    for dist in ("jupyterlite-core", "jupyterlite-pyodide-kernel"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            raise LiteUnavailable(f"{dist} is not installed (the 'lite' extra of pyproject.toml; "
                                  "make venv installs it)") from None
    if not out["jupyterlite-core"].startswith("0.6."):
        raise LiteUnavailable(f"jupyterlite-core {out['jupyterlite-core']} is not 0.6.x (the "
                              "series that runs Pyodide 0.27)")
    return out


def _tree_digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(folder).as_posix().encode())
            h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def app_dir(wheels: dict[str, Path]) -> Path:
    """JupyterLite's application (no files, no lock), built once per set of inputs and cached
    in ``~/.cache/spatialbook/lite-<key>/app``: the inputs are the JupyterLite versions, the
    extensions' wheels and folders, and the settings written into it."""
    versions = jupyterlite_versions()
    key = hashlib.sha256(json.dumps(
        [versions, pyodide_dist.sha256_of(wheels["jupyterlab-widgets"]), _tree_digest(SB_EXTENSION),
         _myst_extension_digest(), _lite_config(), _overrides(), APPS]
    ).encode()).hexdigest()[:16]
    out = cache_root() / f"lite-app-{key}"
    if (out / "jupyter-lite.json").is_file():
        return out
    for old in cache_root().glob("lite-app-*"):       # keep one app only
        if old.is_dir() and old.name != out.name:
            shutil.rmtree(old, ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix="sb-lite-") as tmp:
        tmp = Path(tmp)
        litedir = tmp / "litedir"
        litedir.mkdir()
        (litedir / "jupyter-lite.json").write_text(json.dumps(_lite_config(), indent=1))
        (litedir / "overrides.json").write_text(json.dumps(_overrides(), indent=1))
        config = {"LiteBuildConfig": {
            "apps": list(APPS), "no_sourcemaps": True, "no_unused_shared_packages": True,
            "ignore_sys_prefix": True, "contents": [],
            "federated_extensions": [str(wheels["jupyterlab-widgets"]), str(_kernel_extension()),
                                     str(_myst_extension()), str(SB_EXTENSION)],
            "output_dir": str(tmp / "out"), "lite_dir": str(litedir)},
            "PipliteAddon": {"piplite_urls": []}}
        (litedir / "jupyter_lite_config.json").write_text(json.dumps(config, indent=1))
        exe = Path(sys.executable).with_name("jupyter")
        proc = subprocess.run([str(exe), "lite", "build", "--lite-dir", str(litedir)],
                              cwd=litedir, capture_output=True, text=True)
        if proc.returncode != 0 or not (tmp / "out" / "jupyter-lite.json").is_file():
            raise LiteUnavailable("jupyter lite build failed: "
                                  + "\n".join((proc.stdout + proc.stderr).splitlines()[-15:]))
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(tmp / "out", out)
    return out


def _share_labextensions() -> Path:
    return Path(sys.prefix) / "share" / "jupyter" / "labextensions"


def _kernel_extension() -> Path:
    p = _share_labextensions() / "@jupyterlite" / "pyodide-kernel-extension"
    if not (p / "package.json").is_file():
        raise LiteUnavailable(f"the Pyodide kernel's extension is missing ({p})")
    return p


def _myst_extension() -> Path:
    p = _share_labextensions() / "jupyterlab-myst"
    if not (p / "package.json").is_file():
        raise LiteUnavailable(f"jupyterlab-myst's prebuilt extension is missing ({p})")
    return p


def _myst_extension_digest() -> str:
    return json.loads((_myst_extension() / "package.json").read_text())["version"]


def _lite_config() -> dict:
    """The build's jupyter-lite.json: the kernel settings are written by :func:`write_settings`
    (they name files of the book's own build), here only what the app needs."""
    return {"jupyter-lite-schema-version": 0,
            "jupyter-config-data": {"appName": "Spatial vectors (JupyterLite)",
                                    "disabledExtensions": DISABLED}}


#: JupyterLab plugins the lite pages leave out: the news announcements; and the table of
#: contents and the cell toolbar, which with cells drawn in the browser's idle time
#: (``windowingMode: defer``, :func:`_overrides`) read cells not drawn yet and threw
#: ("Cannot read properties of undefined (reading 'type')", "... (reading 'node')"); the
#: chapter's contents are the book's own page, and a cell's menu and keys do what its toolbar did
DISABLED = ["@jupyterlab/apputils-extension:announcements", "@jupyterlab/notebook-extension:toc",
            "@jupyterlab/toc-extension", "@jupyterlab/cell-toolbar-extension"]


def _overrides() -> dict:
    return {"@jupyterlab/apputils-extension:notification": {"fetchNews": "false",
                                                            "checkForUpdates": False},
            # every cell in the page, as in the book (no virtual scrolling of long chapters),
            # drawn after the first ones in the browser's idle time ("defer"): drawn all at once
            # ("none"), the notebook's session, and so the kernel, waited for every cell (MyST
            # draws each prose cell from the whole notebook): the kernel was asked for 12.8 and
            # 14.5 s after a second chapter's page opened, 7.6 s with "defer" (load 10-12)
            "@jupyterlab/notebook-extension:tracker": {"autoStartDefaultKernel": True,
                                                       "windowingMode": "defer"}}


#: packages with a shared library of their own, left to Pyodide's loader (the lite lock),
#: loaded only when a cell imports them (the kernel's ``loadPackagesFromImports``)
OWN_WHEELS = ("ssl", "openssl")
#: the kernel's Pyodide loader (tools/lite_kernel_pyodide.js), the kernel's ``pyodideUrl``
BOOT_JS = HERE / "lite_kernel_pyodide.js"
#: the pages' first script: what is missing (a file:// page, no service workers), instead of a
#: hang (tools/lite_guard.js), copied to ``lite/`` and loaded before JupyterLite's start
GUARD_JS = HERE / "lite_guard.js"
GUARD_NAME = "sb_lite_guard.js"
#: the kernel's worker script the pages start at once (tools/lite_kernel_worker.js: Pyodide
#: boots while JupyterLab starts), written beside the kernel's own worker bundle
WORKER_JS = HERE / "lite_kernel_worker.js"
WORKER_NAME = "sb_kernel_worker.js"
KERNEL_STATIC = "extensions/@jupyterlite/pyodide-kernel-extension/static"
#: in the app's pages: a cell out of view skips style, layout and paint (``content-visibility:
#: auto``; its last size is kept for the scroll bar).  A chapter is one long notebook with every
#: cell in the page (``windowingMode: none``, :func:`_overrides`); without this each widget
#: update or kernel status change restyled all of it: a slider move cost 12 style passes of
#: 60 ms each (load 11) in the browser's trace.
#: And the page's own cursor stays the default: a widget slider dragged with the mouse (ipywidgets'
#: noUiSlider) sets ``document.body.style.cursor`` as the drag starts and clears it as it ends,
#: and each change of that inherited property restyled every element of the page (two style
#: passes of about 1,140 elements, 13-38 ms each, per slider move in a chapter's trace, load 5);
#: with the body's cursor fixed by the page's style the inline value changes nothing that is
#: inherited (the handle and the other controls keep their own cursors).
PAGE_STYLE = ("<style>.jp-Notebook .jp-Cell{content-visibility:auto;"
              "contain-intrinsic-size:auto 200px}body{cursor:auto!important}</style>")
SITE_ARCHIVE = "sb_lite_site.tar.gz"
#: the book's packages (live mode's zip, compiled for this folder) and where it goes on sys.path
BOOK_DIR = "/home/pyodide/sb"
#: imported by the loader before the kernel starts, while the file system's working folder is
#: still Pyodide's own (``/home/pyodide``, in memory): what every chapter imports first, then the
#: kernel's own module and the book's widgets.  The kernel imports ``pyodide_kernel`` (IPython,
#: ipykernel's shim, comm, jedi: about 60 modules) only after it has made the drive (``/drive``,
#: the site's files through the service worker) the working folder, so each of those imports
#: first asked the service worker about ``''`` on ``sys.path``: about 60 synchronous requests,
#: 2.4-2.5 s of each start (load 4.4-4.7).  Imported here, the kernel's import finds it in
#: ``sys.modules``; ``pyodide_kernel`` makes the IPython shell at import, so ipywidgets and
#: matplotlib's inline backend (which register with that shell at import) and ``widgets`` come
#: after it.  Anything printed before the kernel wires its streams is dropped
#: (``LiteStream.write`` with no callback).  The backend is the kernel's own (pyodide_kernel sets
#: it when unset), here before matplotlib reads it.  ``piplite.piplite`` (and micropip) is what
#: the kernel imports first once the drive is the working folder (its package manager), the
#: same look-ups through the service worker otherwise.
#: ``import IPython`` imports ``IPython.terminal.embed`` for ``IPython.embed`` (the terminal's
#: shell: prompt_toolkit, pygments' lexers), which a notebook's kernel never runs: a stand-in
#: module whose ``embed`` imports the real one when first called (:data:`TERMINAL_STUB`) cut
#: the kernel's imports by 0.45-0.6 s (``import IPython`` to ``pyodide_kernel`` 0.81 s warm and
#: 1.45 s cold, against 1.26 and 2.08 s, load 3-6; ``ipywidgets`` after it 0.3-0.5 s faster too)
TERMINAL_STUB = '''def embed(*args, **kwargs):
    """IPython.embed: IPython's terminal shell, imported when first called"""
    import sys
    if sys.modules.get("IPython.terminal.embed") is _stub:
        del sys.modules["IPython.terminal.embed"]
    from IPython.terminal.embed import embed as real
    return real(*args, **kwargs)
'''
PRE_IMPORTS = ("import os\n"
               "os.environ.setdefault('MPLBACKEND', 'module://matplotlib_inline.backend_inline')\n"
               "import numpy, matplotlib, matplotlib.figure, matplotlib.backends.backend_agg\n"
               "import spatialbook\n"
               "import piplite.piplite\n"
               "import sys, types; _sb = types.ModuleType('IPython.terminal.embed'); _sb._stub = _sb; "
               f"exec({TERMINAL_STUB!r}, _sb.__dict__); "
               "sys.modules['IPython.terminal.embed'] = _sb; del _sb\n"
               "import IPython\n"
               "import pyodide_kernel\n"
               "import ipywidgets, widgets")


def archive_wheels(dist: Path, wheels: dict[str, Path], app: Path) -> list[Path]:
    """Every wheel whose files go into the lite site's archive: :data:`ROOTS` and their
    dependencies (less :data:`OWN_WHEELS` and what live mode's archive holds), comm, ipywidgets
    and the kernel's own wheels."""
    official = json.loads(pyodide_dist.LOCK_FILE.read_text())
    shared = set(pyodide_dist.package_closure(official))          # in live mode's archive
    out = [dist / official["packages"][n]["file_name"]
           for n in pyodide_dist.package_closure(official, ROOTS)
           if n not in OWN_WHEELS and n not in shared]
    out += [wheels["comm"], wheels["ipywidgets"]]
    for name in KERNEL_WHEELS:
        found = sorted((app / KERNEL_PYPI).glob(f"{name}-*.whl"))
        if not found:
            raise LiteUnavailable(f"the kernel's wheel {name} is missing from {app / KERNEL_PYPI}")
        out.append(found[-1])
    return out


def site_archive(paths: list[Path], dist: Path) -> Path:
    """The archive wheels' files as one gzipped ustar archive rooted at ``/`` (tools/
    live_archives.py ``site_archive``, as live mode's ``sb_site.tar.gz``: trimmed, each module
    compiled by a CPython 3.12 when one is found), which the kernel's Pyodide loader writes
    into the file system: imports read bytecode, and an extension module is linked when it is
    first imported.  Cached by its inputs in ``~/.cache/spatialbook/lite-site/``."""
    import live_archives
    from live_compile import compilers

    script = HERE / "live_archives.py"
    key = hashlib.sha256(json.dumps(
        [[pyodide_dist.sha256_of(p) for p in paths], script.read_text()]).encode()).hexdigest()[:16]
    out = cache_root() / "lite-site" / f"sb_lite_site-{key}.tar.gz"
    if out.is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    for old in out.parent.glob("sb_lite_site-*.tar.gz"):
        old.unlink()
    with tempfile.TemporaryDirectory(prefix="sb-lite-") as tmp:
        tar = Path(tmp) / "site.tar.gz"
        done = False
        for prefix in compilers(dist):
            if subprocess.run([*prefix, str(script), "--site", str(tar), *map(str, paths)]).returncode == 0:
                done = True
                break
        if not done:
            print("lite_site: no CPython 3.12 to compile the kernel's packages: they work, and "
                  "start slower", file=sys.stderr)
            live_archives.site_archive([str(p) for p in paths], str(tar), False)
        missing = _missing_modules(tar)
        if missing:
            raise LiteUnavailable(f"the lite site's archive lacks what the kernel imports at "
                                  f"start: {missing}")
        shutil.move(tar, out)
    return out


def _missing_modules(tar: Path) -> list[str]:
    """The modules the kernel imports at start (:data:`KERNEL_START` less :data:`OWN_WHEELS`,
    micropip, piplite) that are not at the top of the archive's site-packages."""
    import tarfile

    from live_archives import SITE_PACKAGES

    with tarfile.open(tar) as tf:
        tops = {n[len(SITE_PACKAGES):].split("/")[0].split(".")[0] for n in tf.getnames()}
    wanted = {"IPython" if n == "ipython" else n
              for n in ("micropip", "piplite", *KERNEL_START) if n not in OWN_WHEELS}
    return sorted(wanted - tops)


def lite_lock() -> dict:
    """The lock given to Pyodide (``lite/pyodide/sb-lite-lock.json``): the verified official
    lock's ``info`` (Pyodide checks its version) and :data:`OWN_WHEELS` only, each file named
    relative to ``<site>/_pyodide/`` (Pyodide's index URL) with its sha256 (Pyodide checks it
    with the fetch's integrity).  Everything else comes in the archives of :func:`boot_archives`."""
    official = json.loads(pyodide_dist.LOCK_FILE.read_text())
    packages = {}
    for name in OWN_WHEELS:
        entry = dict(official["packages"][name])
        entry["file_name"] = f"../{LITE}/pyodide/{entry['file_name']}"
        packages[name] = entry
    return {"info": official["info"], "packages": packages}


def boot_archives() -> list[dict]:
    """What the kernel's Pyodide loader unpacks, in order (URLs relative to ``lite/pyodide/``):
    live mode's site archive (numpy, matplotlib), the lite site's (the kernel's packages),
    matplotlib's font list over the wheel's, and the book's packages."""
    return [{"url": "../../_live/sb_site.tar.gz", "format": "gztar", "dir": "/"},
            {"url": SITE_ARCHIVE, "format": "gztar", "dir": "/"},
            {"url": "sb_fontlist.zip", "format": "zip", "dir": "/"},
            {"url": "../../_live/sb_packages.zip", "format": "zip", "dir": BOOK_DIR}]


def canonical(name: str) -> str:
    """A package's key in a Pyodide lock (``pyodide_kernel`` -> ``pyodide-kernel``)."""
    return name.lower().replace("_", "-")


def fontlist_zip(dest: Path) -> Path:
    """matplotlib's prebuilt font list as ``matplotlib/fontlist.json`` (Pyodide's matplotlib
    reads it there; the wheel's own is another version's and is rebuilt at every import, about
    3 s: widgets/live.py ``install_fontlist``)."""
    from live_archives import SITE_PACKAGES, kept_fonts, zip_put

    fonts = kept_fonts(json.loads(pyodide_dist.FONTLIST.read_text()))   # the archive's fonts
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
        zip_put(zf, f"{SITE_PACKAGES}matplotlib/fontlist.json", json.dumps(fonts, indent=2))
    return dest


def write_settings(lite: Path, site: Path) -> None:
    """Point the kernel at its Pyodide loader (:data:`BOOT_JS`, which starts the site's shared
    Pyodide with the lite lock and unpacks the archives) and name every package the kernel
    would otherwise install at start."""
    path = lite / "jupyter-lite.json"
    config = json.loads(path.read_text())
    data = config["jupyter-config-data"]
    boot = {"pyodide": "../../_pyodide/", "lockFileURL": "sb-lite-lock.json",
            "tarScript": "../../_live/sb_tar.js",       # the archive reader live mode uses
            "archives": boot_archives(), "sysPath": [BOOK_DIR], "imports": PRE_IMPORTS}
    if (site / "_live" / "python_stdlib_pyc.zip").is_file():
        boot["stdLibURL"] = "../../_live/python_stdlib_pyc.zip"
    # spelled as jupyterlite-pyodide-kernel 0.6.1 spells them: it installs with piplite what it
    # does not find in this list; the loader gives Pyodide none of them (they are unpacked)
    options = {"packages": sorted(("micropip", "piplite", *KERNEL_START)), "sbBoot": boot}
    data["exposeAppInBrowser"] = True      # window.jupyterapp: the browser test drives it
    data.setdefault("litePluginSettings", {})["@jupyterlite/pyodide-kernel-extension:kernel"] = {
        "pyodideUrl": f"./pyodide/{BOOT_JS.name}",
        "disablePyPIFallback": True,
        "pipliteUrls": [f"./{KERNEL_PYPI}/all.json"],
        "loadPyodideOptions": options}
    path.write_text(json.dumps(config, indent=1))


def kernel_bundle(lite: Path) -> str | None:
    """The kernel's own worker bundle (relative to ``lite/``) that jupyterlite-pyodide-kernel
    0.6 starts in a page that is not cross-origin isolated: the second chunk of its
    ``initWorker`` (``crossOriginIsolated ? new Worker(<chunk 620>) : new Worker(<chunk 352>)``
    in 0.6.1), or None when its bundles are not written so."""
    import re

    static = lite / KERNEL_STATIC
    pattern = re.compile(r"initWorker\(\w*\)\{return crossOriginIsolated\?new Worker\(new URL\("
                         r"\w+\.p\+\w+\.u\(\d+\),\w+\.b\)[^)]*\):new Worker\(new URL\("
                         r"\w+\.p\+\w+\.u\((\d+)\)")
    for js in sorted(static.glob("*.js")):
        found = pattern.search(js.read_text(errors="replace"))
        if found:
            chunk = [p for p in static.glob(f"{found.group(1)}.*.js") if p.suffix == ".js"]
            if len(chunk) == 1:
                return chunk[0].relative_to(lite).as_posix()
    return None


def early_kernel(lite: Path) -> dict[str, str]:
    """Write :data:`WORKER_JS` beside the kernel's own worker bundle, with the kernel's
    settings (``pyodideUrl``, ``loadPyodideOptions``: :func:`write_settings`) written in, and
    return the guard tag's attribute that makes the pages start it at once: the bundle
    (``data-sb-kernel``).  Without the
    bundle (another version of the kernel) it says so and returns none: the kernel then
    starts its worker itself, later."""
    bundle = kernel_bundle(lite)
    if bundle is None:
        print(f"lite_site: the kernel's worker bundle was not found in {KERNEL_STATIC} (not "
              "jupyterlite-pyodide-kernel 0.6?): the kernel boots when JupyterLab asks, "
              "seconds later", file=sys.stderr)
        return {}
    data = json.loads((lite / "jupyter-lite.json").read_text())["jupyter-config-data"]
    kernel = data["litePluginSettings"]["@jupyterlite/pyodide-kernel-extension:kernel"]
    settings = {"lite": "../" * len(Path(KERNEL_STATIC).parts),
                "pyodideUrl": kernel["pyodideUrl"],
                "loadPyodideOptions": kernel["loadPyodideOptions"]}
    text = WORKER_JS.read_text()
    blank = "var SB_KERNEL = null;"
    if blank not in text:
        raise LiteUnavailable(f"{WORKER_JS.name} has no '{blank}' to write the settings in")
    (lite / KERNEL_STATIC / WORKER_NAME).write_text(
        text.replace(blank, f"var SB_KERNEL = {json.dumps(settings)};", 1))
    return {"data-sb-kernel": bundle}


def early_service_worker(lite: Path) -> dict[str, str]:
    """The guard tag's attributes that make a first visit's page register JupyterLite's service
    worker at once (tools/lite_guard.js ``registerEarly``): its URL as JupyterLite 0.6.4's
    ``ServiceWorkerManager`` makes it (``service-worker.js?enableCache=<enableServiceWorkerCache
    or false>`` in the lite root) and the app's version, which JupyterLite checks in
    localStorage before it keeps a registration it finds."""
    data = json.loads((lite / "jupyter-lite.json").read_text())["jupyter-config-data"]
    cache = str(data.get("enableServiceWorkerCache") or "false").lower()
    return {"data-sb-sw": f"{SW_FILE}?enableCache={cache}", "data-sb-app-version": data["appVersion"]}


def guard_pages(lite: Path, attrs: dict[str, str] | None = None) -> int:
    """Put :data:`GUARD_JS` first in every page of the app that starts JupyterLite (the root
    and each app's ``index.html``: they ``await import(...config-utils.js)``), with ``attrs``
    on its tag (:func:`early_kernel`), and make that start wait on it: a page the guard
    stopped (``window.sbLiteStop``) shows what is missing and starts nothing.  Returns how many
    pages; fails when the app's pages are not as JupyterLite 0.6 writes them (the guard would
    silently not run)."""
    import html

    shutil.copy2(GUARD_JS, lite / GUARD_NAME)
    start = "await import("
    extra = "".join(f' {k}="{html.escape(v)}"' for k, v in (attrs or {}).items())
    pages = [p for p in sorted(lite.rglob("index.html"))
             if "extensions" not in p.relative_to(lite).parts and start in p.read_text()]
    for page in pages:
        text = page.read_text()
        rel = "../" * (len(page.relative_to(lite).parts) - 1)
        tag = f'<script src="{rel}{GUARD_NAME}"{extra}></script>{PAGE_STYLE}\n'
        head = text.index("<head>") + len("<head>\n")
        text = text[:head] + "    " + tag + text[head:]
        page.write_text(text.replace(start, "if (!window.sbLiteStop) " + start, 1))
    names = {p.relative_to(lite).as_posix() for p in pages}
    if not {"index.html", "notebooks/index.html", "lab/index.html"} <= names:
        raise LiteUnavailable(f"JupyterLite's pages are not as expected: guarded only {sorted(names)}")
    return len(pages)


#: JupyterLite 0.6's service worker (``lite/service-worker.js``) answers every GET of the pages
#: and of their workers, the kernel's included, with a ``fetch`` of its own when its cache is off
#: (as here): each script, the interpreter and the archives went through the service worker's
#: thread, and what the browser keeps of a script it has compiled (V8's code cache, a wasm
#: module's compiled code) is not used for a response a service worker made.  Only its drive
#: (``/api/drive``, ``/api/stdin``: the site's files for Python) and its heartbeat need it, so
#: everything else is left to the browser (:func:`lean_service_worker`): the fetch handler
#: answers only those, and on install the worker asks the browser (the Static Routing API,
#: Chromium 123+) to send every other request straight to the network, without waking it.
SW_FILE = "service-worker.js"
SW_ANSWER_ALL = "shouldDrop(t,a)||(n=maybeFromCache(e))"
SW_INSTALL = "function onInstall(e){self.skipWaiting(),"
SW_ROUTES = ("function onInstall(e){self.skipWaiting();"
             "try{e.addRoutes&&e.waitUntil(e.addRoutes([{condition:{not:{urlPattern:"
             "new URLPattern({pathname:\"*/api/*\"})}},source:\"network\"}]).catch(()=>{}))}"
             "catch(r){}")


def lean_service_worker(lite: Path) -> bool:
    """Make JupyterLite's service worker answer only its drive and heartbeat (:data:`SW_FILE`);
    False (and a note) when its script is not as 0.6.4 writes it: then it answers everything,
    as JupyterLite's own, which works, slower."""
    path = lite / SW_FILE
    text = path.read_text() if path.is_file() else ""
    if text.count(SW_ANSWER_ALL) != 1 or text.count(SW_INSTALL) != 1:
        print(f"lite_site: {SW_FILE} is not as JupyterLite 0.6.4 writes it: its service worker "
              "left answering every request (slower starts)", file=sys.stderr)
        return False
    path.write_text(text.replace(SW_ANSWER_ALL, "null", 1).replace(SW_INSTALL, SW_ROUTES, 1))
    return True


def stage_files(dest: Path, book: Path = ROOT / "book") -> int:
    """The chapters (outputs cleared) and book/models/ as the site's files; returns how many."""
    import nbformat

    n = 0
    (dest / "chapters").mkdir(parents=True)
    for nb_path in sorted((book / "chapters").glob("*.ipynb")):
        nb = nbformat.read(nb_path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs = []
                cell.execution_count = None
        nb.metadata.pop("widgets", None)
        nb.metadata["kernelspec"] = {"name": "python", "display_name": "Python (Pyodide)",
                                     "language": "python"}
        nbformat.write(nb, dest / "chapters" / nb_path.name)
        n += 1
    shutil.copytree(book / "models", dest / "models")
    glossary = book / "glossary.md"
    if glossary.is_file():
        shutil.copy2(glossary, dest / "glossary.md")
    return n


def build(site: Path, book: Path = ROOT / "book") -> str | None:
    """Make ``<site>/lite/`` from ``book``'s chapters and models; return None, or what is
    missing (the book is fine without it)."""
    t0 = time.perf_counter()
    lite = site / LITE
    shutil.rmtree(lite, ignore_errors=True)
    try:
        for need in ("_pyodide/pyodide.js", "_live/sb_packages.zip", "_live/sb_tar.js"):
            if not (site / need).is_file():
                raise LiteUnavailable(f"{need} is not in the built site (live mode's files were "
                                      "not staged: the Pyodide distribution is unavailable)")
        try:
            dist = pyodide_dist.ensure(roots=pyodide_dist.PACKAGES + ROOTS)
        except pyodide_dist.DistributionUnavailable as exc:
            raise LiteUnavailable(f"the Pyodide packages of the kernel: {exc}") from None
        wheels = fetch_wheels(cache_root() / "lite-wheels")
        app = app_dir(wheels)
        shutil.copytree(app, lite)
        pyo = lite / "pyodide"
        pyo.mkdir()
        official = json.loads(pyodide_dist.LOCK_FILE.read_text())
        for name in OWN_WHEELS:
            fname = official["packages"][name]["file_name"]
            shutil.copy2(dist / fname, pyo / fname)
        shutil.copy2(site_archive(archive_wheels(dist, wheels, app), dist), pyo / SITE_ARCHIVE)
        fontlist_zip(pyo / "sb_fontlist.zip")
        shutil.copy2(BOOT_JS, pyo / BOOT_JS.name)
        (pyo / "sb-lite-lock.json").write_text(json.dumps(lite_lock()))
        write_settings(lite, site)
        attrs = early_kernel(lite)
        if attrs and lean_service_worker(lite):
            attrs.update(early_service_worker(lite))
        guard_pages(lite, attrs)
        with tempfile.TemporaryDirectory(prefix="sb-lite-files-") as tmp:
            n = stage_files(Path(tmp) / "files", book)
            _add_contents(lite, Path(tmp) / "files")
    except LiteUnavailable as exc:
        shutil.rmtree(lite, ignore_errors=True)
        print(f"lite_site: the JupyterLite site is NOT in this build ('Edit in your browser' "
              f"links left out; the book reads without it): {exc}", file=sys.stderr)
        return str(exc)
    size = sum(p.stat().st_size for p in lite.rglob("*") if p.is_file())
    print(f"lite_site: {LITE}/ built in {time.perf_counter() - t0:.1f} s: {n} chapters, "
          f"{size / 1e6:.1f} MB added (Pyodide and the book's packages shared with live mode)")
    return None


def _add_contents(lite: Path, files: Path) -> None:
    """Copy ``files`` to ``lite/files`` and index each folder in ``lite/api/contents/<folder>/
    all.json`` as JupyterLite's contents addon does (the same fields; written here, so the
    cached app is not built again when a chapter changes)."""
    import mimetypes
    from datetime import datetime, timezone

    shutil.copytree(files, lite / "files")

    def stamp(p: Path) -> str:
        return datetime.fromtimestamp(p.stat().st_mtime, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    def model(p: Path, rel: str) -> dict:
        folder = p.is_dir()
        kind = "directory" if folder else "notebook" if p.suffix == ".ipynb" else "file"
        return {"content": None, "created": stamp(p), "format": None, "hash": None,
                "hash_algorithm": None, "last_modified": stamp(p),
                "mimetype": None if folder or kind == "notebook" else mimetypes.guess_type(p.name)[0],
                "name": p.name if rel else "", "path": rel,
                "size": None if folder else p.stat().st_size, "type": kind, "writable": True}

    for folder in [lite / "files", *sorted(d for d in (lite / "files").rglob("*") if d.is_dir())]:
        rel = folder.relative_to(lite / "files").as_posix()
        rel = "" if rel == "." else rel
        index = dict(model(folder, rel), format="json",
                     content=[model(c, f"{rel}/{c.name}".lstrip("/")) for c in sorted(folder.iterdir())])
        out = lite / "api" / "contents" / rel / "all.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(index))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--site", type=Path, default=ROOT / "book" / "_build" / "html")
    args = ap.parse_args(argv)
    return 0 if build(args.site.resolve()) is None else 1


if __name__ == "__main__":
    sys.exit(main())
