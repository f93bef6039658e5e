"""The two archives live mode's Python starts from, made from the verified Pyodide files.

    python3.12 tools/live_archives.py STDLIB_IN STDLIB_OUT SITE_OUT WHEEL [WHEEL ...]
    python3 tools/live_archives.py --no-compile STDLIB_IN STDLIB_OUT SITE_OUT WHEEL [...]
    python3.12 tools/live_archives.py --packages ZIP    # the book's packages' bytecode
    python3.12 tools/live_archives.py --site SITE_OUT WHEEL [WHEEL ...]   # the site archive alone

* ``STDLIB_OUT`` (``_live/python_stdlib_pyc.zip``): Pyodide's ``python_stdlib.zip`` with each
  module's ``.py`` replaced by its compiled ``.pyc`` (zipimport imports it alone); given to
  ``loadPyodide`` as ``stdLibURL``.
* ``SITE_OUT`` (``_live/sb_site.tar.gz``): the wheels of numpy, matplotlib and their
  dependencies, unpacked into one gzipped ustar archive rooted at ``/`` (members under
  ``lib/python3.12/site-packages/``), which the worker (``book/_live/sb_worker.js``) gunzips
  while it downloads and writes into Pyodide's file system itself.  Each ``.py`` is replaced by
  its compiled, sourceless ``.pyc``, and the files of :data:`TRIM` are left out.

Why one archive and not the wheels: Pyodide's ``loadPackage`` unpacks a wheel with Python's
``zipfile`` (numpy's and matplotlib's: about 830 files, 29 MB) and compiles and links every
shared library in it, used or not (12 MB of WebAssembly: numpy's FFT, matplotlib's
triangulation and Qhull, Pillow's WebP and FreeType, contourpy...).  Written by the worker from
the archive, an extension module is linked only when it is first imported.  Measured in headless
Chromium on the 2-core test machine, screw_axis, cold cache: click to first frame 3.20 s median
with the wheels, 2.65 s with this archive gunzipped after its download (4 runs each,
alternating), 2.35 s gunzipped while it downloads (5 runs; ``benchmarks/bench_live.py``).

Bytecode: hash-based, unchecked ``.pyc`` files (nothing compares them with a source file),
compiled with the paths the modules have in Pyodide, so tracebacks name the right files;
matplotlib's without docstrings (:data:`NO_DOCSTRINGS`).  The
bytecode of CPython 3.12 is Pyodide 0.27's, so compiling needs a Python 3.12: a CPython 3.12
found on the machine, or else Pyodide's own under Node.js (``node tools/pyodide_python.mjs
DIST tools/live_archives.py ...``; ``tools/live_compile.py`` ``compilers``); ``--no-compile`` (any
Python 3) keeps the ``.py`` files instead, and the standard library as it is: live mode
works, and starts slower.

Only the Python standard library is used here (this runs under whichever 3.12 is found).
Deterministic: the same inputs give the same bytes.
"""

from __future__ import annotations

import fnmatch
import gzip
import io
import sys
import tarfile
import zipfile

#: where the wheels' files go in Pyodide's file system (relative to /)
SITE_PACKAGES = "lib/python3.12/site-packages/"

#: Files of the wheels live mode never uses, left out of the site archive (patterns on a
#: member's path inside its wheel; ``fnmatch``: ``*`` crosses ``/``).  Each is a kind of file the
#: drawing of an experiment cannot reach: tests, headers, type stubs, build helpers, matplotlib's
#: example data, GUI toolkits' glue, and the fonts no figure asks for (matplotlib's serif faces
#: and the PostScript core-font metrics; the font list given to matplotlib leaves them out too,
#: see :func:`kept_fonts`).  The Computer Modern faces stay (216 kB): mathtext's DejaVu font set
#: looks all eight up as its fallback as soon as a figure has any math text (E8's
#: ``$\mathcal{I}_c$`` draws with cmsy10), and without them matplotlib logs a "findfont: Font
#: family ['cmsy10'] not found" warning per face and draws a different glyph than the book's
#: frames.  tests/test_live_archives.py checks, natively,
#: that no module the experiments import and no font they draw with matches a pattern; the
#: browser tests run every control of every experiment in the archive itself.
TRIM = (
    "*/tests/*",                                  # test suites
    "numpy/_core/include/*", "numpy/_core/lib/*",  # C headers, static libraries, pkg-config
    "numpy/f2py/*", "numpy/_pyinstaller/*",        # Fortran wrapper generator, PyInstaller hooks
    "*.pyi", "*.pxd", "*.h", "*.c",                # type stubs, Cython declarations, C sources
    "matplotlib/mpl-data/sample_data/*",           # datasets of matplotlib's examples
    "matplotlib/mpl-data/fonts/ttf/DejaVuSerif*",  # serif faces (the figures use DejaVu Sans)
    "matplotlib/mpl-data/fonts/afm/*",             # PostScript font metrics (PS/PDF output)
    "matplotlib/mpl-data/fonts/pdfcorefonts/*",
    "matplotlib/backends/_tkagg*", "PIL/_imagingtk*",   # Tk glue
)

#: Packages compiled without docstrings and asserts (as ``python -OO`` compiles): matplotlib
#: builds many docstrings while it imports (interpolated signatures and property tables) and
#: skips that where they are None, as its own test under -OO checks.  Not numpy: it adds
#: docstrings to its functions unless ``sys.flags.optimize`` is 2, which it is not in the
#: browser.  Measured: click to first frame 2.68 -> 2.47 s median (6 runs each, alternating).
NO_DOCSTRINGS = ("matplotlib/", "mpl_toolkits/")

_DATE = (2020, 1, 1, 0, 0, 0)


def trimmed(name: str) -> bool:
    """True if the wheel member ``name`` is left out of the site archive (:data:`TRIM`)."""
    return any(fnmatch.fnmatchcase(name, p) for p in TRIM)


def kept_fonts(fontlist: dict) -> dict:
    """matplotlib's font list (``fontlist-v330.json``, paths relative to ``mpl-data``) without
    the fonts :data:`TRIM` leaves out: matplotlib then falls back to a font that is there
    instead of opening a missing file."""
    def kept(entry: dict) -> bool:
        return not trimmed("matplotlib/mpl-data/" + entry["fname"])

    return {**fontlist, "ttflist": [e for e in fontlist["ttflist"] if kept(e)],
            "afmlist": [e for e in fontlist["afmlist"] if kept(e)]}


def _pyc(source: bytes, path: str, optimize: int = 0) -> bytes:
    import importlib.util
    from importlib._bootstrap_external import _code_to_hash_pyc

    code = compile(source, path, "exec", dont_inherit=True, optimize=optimize)
    return _code_to_hash_pyc(code, importlib.util.source_hash(source), checked=False)


def zip_put(zf: zipfile.ZipFile, name: str, data: bytes, date_time=_DATE) -> None:
    """Write one deflated member (a fixed date unless given: the same inputs, the same bytes)."""
    info = zipfile.ZipInfo(name, date_time=date_time)
    info.compress_type = zipfile.ZIP_DEFLATED
    zf.writestr(info, data)


def packages_bytecode(path: str, root: str = "/home/pyodide/sb/") -> int:
    """Add to the zip ``path`` (the book's packages, unpacked at ``root`` in Pyodide) each
    ``.py`` member's bytecode as ``__pycache__/<name>.cpython-312.pyc``; the sources stay, for
    tracebacks.  Returns how many were added."""
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as zf:
        names = [n for n in zf.namelist() if n.endswith(".py")]
        for name in names:
            head, _, tail = name.rpartition("/")
            zip_put(zf, f"{head}/__pycache__/{tail[:-3]}.cpython-312.pyc",
                    _pyc(zf.read(name), root + name))
    return len(names)


def stdlib_archive(src: str, dest: str, compile_: bool) -> None:
    """Pyodide's standard library zip with each module compiled: its ``.pyc`` in place of its
    ``.py`` (zipimport imports a ``.pyc`` alone; half the entries and bytes to read)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            name, data = info.filename, zin.read(info)
            date = info.date_time
            if compile_ and name.endswith(".py"):
                try:
                    name, data, date = name + "c", _pyc(data, "/lib/python312.zip/" + name), _DATE
                except SyntaxError:
                    pass
            zip_put(zout, name, data, date)


def site_archive(wheels: list[str], dest: str, compile_: bool) -> dict:
    """The wheels' files (less :data:`TRIM`; ``.py`` -> sourceless ``.pyc`` when ``compile_``)
    as a gzipped ustar archive; returns counts ``{"files", "trimmed", "bytes"}``."""
    members: dict[str, bytes] = {}
    left_out = 0
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as zf:
            for info in zf.infolist():
                name = info.filename
                if name.endswith("/"):
                    continue
                if trimmed(name):
                    left_out += 1
                    continue
                data = zf.read(info)
                if compile_ and name.endswith(".py"):
                    try:
                        data = _pyc(data, "/" + SITE_PACKAGES + name,
                                    2 if name.startswith(NO_DOCSTRINGS) else 0)
                        name += "c"
                    except SyntaxError:           # a template or a Python 2 file: kept as is
                        pass
                members[SITE_PACKAGES + name] = data
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tf:
        for name in sorted(members):
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(members[name]), 0, 0o644
            tf.addfile(info, io.BytesIO(members[name]))
    with open(dest, "wb") as f, gzip.GzipFile("", "wb", 6, f, mtime=0) as gz:   # no name, no time
        gz.write(raw.getvalue())
    return {"files": len(members), "trimmed": left_out, "bytes": raw.tell()}


def main(argv: list[str]) -> int:
    if sys.version_info[:2] != (3, 12) and "--no-compile" not in argv:
        print(f"live_archives: compiling needs CPython 3.12 (Pyodide 0.27's bytecode), this is "
              f"{sys.version.split()[0]}; use --no-compile", file=sys.stderr)
        return 2
    if argv[:1] == ["--site"] and len(argv) >= 3:     # the lite site's archive (tools/lite_site.py)
        counts = site_archive(argv[2:], argv[1], True)
        print(f"live_archives: {counts['files']} files ({counts['bytes'] / 1e6:.1f} MB) in {argv[1]}")
        return 0
    if argv[:1] == ["--packages"] and len(argv) == 2:
        print(f"live_archives: bytecode of {packages_bytecode(argv[1])} modules added to {argv[1]}")
        return 0
    compile_ = "--no-compile" not in argv
    args = [a for a in argv if a != "--no-compile"]
    if len(args) < 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    stdlib_in, stdlib_out, site_out, *wheels = args
    stdlib_archive(stdlib_in, stdlib_out, compile_)
    counts = site_archive(wheels, site_out, compile_)
    print(f"live_archives: {counts['files']} files ({counts['bytes'] / 1e6:.1f} MB) in the site "
          f"archive, {counts['trimmed']} left out; bytecode {'compiled' if compile_ else 'not compiled'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
