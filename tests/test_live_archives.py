"""tools/live_archives.py: what live mode's site archive leaves out, and that nothing the
experiments use is among it.

The browser tests (tests/browser/test_live.py) run every control of every experiment from the
built archive under Pyodide; this checks the same property natively, without a browser: an
experiment drawn through live mode's path (``widgets/live.py``), wide and narrow, at its
defaults and a few settings of every control, imports no module and opens no font that
``live_archives.TRIM`` leaves out.  (The versions differ from Pyodide's numpy 2.0 and
matplotlib 3.8; the patterns are about kinds of files, which both share.)
"""

from __future__ import annotations

import gzip
import io
import json
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import live_archives  # noqa: E402


@pytest.mark.parametrize("name, left_out", [
    ("numpy/_core/tests/test_umath.py", True),
    ("numpy/_core/include/numpy/ndarraytypes.h", True),
    ("matplotlib/mpl-data/sample_data/goog.npz", True),
    ("matplotlib/mpl-data/fonts/ttf/DejaVuSerif-Bold.ttf", True),
    ("matplotlib/mpl-data/fonts/afm/pagd8a.afm", True),
    ("numpy/__init__.pyi", True),
    ("numpy/__init__.py", False),
    ("numpy/random/mtrand.cpython-312-wasm32-emscripten.so", False),
    ("pyparsing/testing.py", False),                 # a module pyparsing imports, not a test
    ("matplotlib/mpl-data/fonts/ttf/DejaVuSans.ttf", False),
    ("matplotlib/mpl-data/fonts/ttf/cmsy10.ttf", False),      # mathtext's fallback (E8)
    ("matplotlib/mpl-data/fonts/ttf/STIXGeneral.ttf", False),
    ("matplotlib/mpl-data/matplotlibrc", False),
])
def test_trimmed(name, left_out):
    assert live_archives.trimmed(name) is left_out


def test_font_list_keeps_only_fonts_in_the_archive():
    sys.path.insert(0, str(ROOT / "tools"))
    import pyodide_dist

    full = json.loads(pyodide_dist.FONTLIST.read_text())
    kept = live_archives.kept_fonts(full)
    names = [e["fname"] for e in kept["ttflist"] + kept["afmlist"]]
    assert "fonts/ttf/DejaVuSans.ttf" in names and "fonts/ttf/STIXGeneral.ttf" in names
    assert not [n for n in names if live_archives.trimmed("matplotlib/mpl-data/" + n)]
    assert len(kept["ttflist"]) < len(full["ttflist"]) and kept["afmlist"] == []


def _wheel(path: Path, files: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return path


def test_site_archive_is_deterministic_trimmed_and_compiled(tmp_path):
    wheel = _wheel(tmp_path / "pkg-1.0-py3-none-any.whl", {
        "pkg/__init__.py": b"X = 1\n",
        "pkg/tests/test_x.py": b"def test(): pass\n",
        "pkg/data/table.txt": b"1 2 3\n",
        "pkg/py2.py": b"print 'old'\n",             # not Python 3: kept as source
        "pkg/__init__.pyi": b"X: int\n",
    })
    out1, out2 = tmp_path / "a.tar.gz", tmp_path / "b.tar.gz"
    counts = live_archives.site_archive([str(wheel)], str(out1), compile_=False)
    live_archives.site_archive([str(wheel)], str(out2), compile_=False)
    assert out1.read_bytes() == out2.read_bytes()
    assert counts["files"] == 3 and counts["trimmed"] == 2
    with tarfile.open(out1) as tf:
        names = tf.getnames()
        assert tf.extractfile(live_archives.SITE_PACKAGES + "pkg/data/table.txt").read() == b"1 2 3\n"
    assert names == [live_archives.SITE_PACKAGES + n
                     for n in ("pkg/__init__.py", "pkg/data/table.txt", "pkg/py2.py")]
    assert gzip.decompress(out1.read_bytes())[257:262] == b"ustar"     # what the worker parses
    if sys.version_info[:2] == (3, 12):                  # bytecode: only a 3.12 makes Pyodide's
        import marshal

        live_archives.site_archive([str(wheel)], str(out1), compile_=True)
        with tarfile.open(out1) as tf:
            pyc = tf.extractfile(live_archives.SITE_PACKAGES + "pkg/__init__.pyc").read()
        import importlib.util

        assert pyc[:4] == importlib.util.MAGIC_NUMBER
        mpl = _wheel(tmp_path / "matplotlib-1.0-py3-none-any.whl",
                     {"matplotlib/m.py": b'"""Doc."""\ndef f():\n    "Doc."\n'})
        live_archives.site_archive([str(mpl)], str(out2), compile_=True)
        with tarfile.open(out2) as tf:
            code = marshal.loads(tf.extractfile(live_archives.SITE_PACKAGES + "matplotlib/m.pyc")
                                 .read()[16:])
        space: dict = {}
        exec(code, space)
        assert space.get("__doc__") is None and space["f"].__doc__ is None    # as -OO compiles
        ns: dict = {}
        exec(marshal.loads(pyc[16:]), ns)
        assert ns["X"] == 1
    else:
        assert live_archives.main(["s", "t", str(out1), str(wheel)]) == 2    # refuses to compile



def test_pyodide_under_node_compiles_the_bytecode(tmp_path):
    """Without a CPython 3.12, the build compiles live mode's bytecode with Pyodide's own
    CPython 3.12 under Node.js (tools/pyodide_python.mjs; tools/live_compile.py ``compilers``):
    the book's packages' zip gets 3.12 bytecode (magic number 3531), hash-based and unchecked,
    that runs the module's code when a CPython 3.12 is here to load it."""
    import shutil

    import pyodide_dist

    dist = pyodide_dist.cache_dir()
    node = shutil.which("node")
    if node is None or not (dist / "pyodide.mjs").is_file():
        pytest.skip("needs Node.js and the cached Pyodide distribution (tools/pyodide_dist.py)")
    book = tmp_path / "sb_packages.zip"
    with zipfile.ZipFile(book, "w") as zf:
        zf.writestr("pkg/__init__.py", "")
        zf.writestr("pkg/m.py", "X = 6 * 7\ndef f():\n    return X + 1\n")
    run = subprocess.run([node, str(ROOT / "tools" / "pyodide_python.mjs"), str(dist),
                          str(ROOT / "tools" / "live_archives.py"), "--packages", str(book)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "bytecode of 2 modules" in run.stdout
    with zipfile.ZipFile(book) as zf:
        pyc = zf.read("pkg/__pycache__/m.cpython-312.pyc")
        assert zf.read("pkg/m.py").startswith(b"X = 6 * 7")        # the source stays
    assert pyc[:4] == (3531).to_bytes(2, "little") + b"\r\n", pyc[:4]   # CPython 3.12's
    assert int.from_bytes(pyc[4:8], "little") == 0b01             # hash-based, unchecked
    sys.path.insert(0, str(ROOT / "tools"))
    import live_compile

    exe = live_compile.python312()
    if exe is not None:                  # a native 3.12 runs what Pyodide compiled
        (tmp_path / "m.pyc").write_bytes(pyc)
        out = subprocess.run([exe, "-c", "import marshal, sys; ns = {}; "
                              "exec(marshal.loads(open(sys.argv[1], 'rb').read()[16:]), ns); "
                              "print(ns['f']())", str(tmp_path / "m.pyc")],
                             capture_output=True, text=True)
        assert out.stdout.strip() == "43", out.stderr

_EXERCISE = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import importlib.util
spec = importlib.util.spec_from_file_location("sb_live", sys.argv[1] + "/widgets/live.py")
m = importlib.util.module_from_spec(spec); sys.modules["sb_live"] = m; spec.loader.exec_module(m)
assert m.install_ipywidgets_stand_in(force=True)
import logging, os
from matplotlib import font_manager
sys.path.insert(0, sys.argv[1] + "/tools")
import live_archives
# the font list live mode gives matplotlib (kept_fonts): what the archive leaves out is not there
data = os.path.dirname(os.path.dirname(os.path.dirname(font_manager.findfont("DejaVu Sans"))))
fm = font_manager.fontManager
fm.ttflist = [e for e in fm.ttflist if not (os.path.abspath(e.fname).startswith(data + os.sep)
              and live_archives.trimmed("matplotlib/mpl-data/" + os.path.relpath(e.fname, data)))]
fm.afmlist = [e for e in fm.afmlist if not (os.path.abspath(e.fname).startswith(data + os.sep)
              and live_archives.trimmed("matplotlib/mpl-data/" + os.path.relpath(e.fname, data)))]
fm._findfont_cached.cache_clear()
fallbacks = []
class Catch(logging.Handler):
    def emit(self, record):
        fallbacks.append(record.getMessage())
logging.getLogger("matplotlib.font_manager").addHandler(Catch(logging.WARNING))
fonts = set()
ORIGINAL = font_manager.get_font
def spy(paths, *a, **k):
    fonts.update([str(paths)] if isinstance(paths, (str, bytes)) or not hasattr(paths, "__iter__")
                 else [str(p) for p in paths])
    return ORIGINAL(paths, *a, **k)
import widgets
for mod in list(sys.modules.values()):        # every module that took get_font by name
    if getattr(mod, "get_font", None) is ORIGINAL:
        mod.get_font = spy
for name, (layouts, cases) in json.loads(sys.argv[2]).items():
    for narrow in layouts:
        h = json.loads(m.LIVE.create(name, narrow))["handle"]
        for values in cases:
            m.LIVE.update(h, json.dumps(values))
            m.LIVE.pixels(h)
        m.LIVE.close(h)
files = [getattr(mod, "__file__", None) for mod in list(sys.modules.values())]
print(json.dumps({"modules": [f for f in files if f], "fonts": sorted(fonts),
                  "fallbacks": sorted(set(fallbacks))}))
"""


def test_experiments_use_nothing_the_archive_leaves_out():
    from sampling import count, sampled
    from widget_helpers import settings
    from widgets import EXPERIMENTS, Choice, Slider
    from widgets.live import _plain_option

    cases = {}
    for i, (name, cls) in enumerate(EXPERIMENTS.items()):
        rows = [{}]
        for c in cls.CONTROLS:                     # every control at both ends (the others
            if isinstance(c, Slider):              # at their defaults; its top end only in
                rows += [{c.name: c.min}] * count(1, 0) + [{c.name: c.max}]   # make test-fast)
            elif isinstance(c, Choice):
                rows += [{c.name: _plain_option(o)} for o in c.options]
        # and 2 random settings of all controls (none in make test-fast: the ends reach every control)
        rows += [{k: _plain_option(v) for k, v in s.items()} for s in settings(cls, 7, count(2, 0))]
        # both layouts (in make test-fast one, alternating between experiments: both reached)
        layouts = [False, True] if not sampled() else [bool(i % 2)]
        cases[name] = [layouts, rows]
    proc = subprocess.run([sys.executable, "-c", _EXERCISE, str(ROOT), json.dumps(cases)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    import matplotlib

    roots = {"numpy", "matplotlib", "PIL", "pyparsing", "dateutil", "kiwisolver", "contourpy",
             "cycler", "six", "packaging", "mpl_toolkits"}
    used = []
    for f in got["modules"]:
        parts = Path(f).parts
        hits = [i for i, p in enumerate(parts) if p in roots and "site-packages" in parts[i - 1:i]]
        if hits:
            used.append("/".join(parts[hits[0]:]))
    assert any(u.startswith("matplotlib/") for u in used) and any(u.startswith("numpy/") for u in used)
    bad = [u for u in used if live_archives.trimmed(u)]
    assert not bad, f"modules the experiments import that the site archive leaves out: {bad}"
    data = Path(matplotlib.get_data_path())
    fonts = [f for f in got["fonts"] if Path(f).is_relative_to(data)]
    assert any(f.endswith("DejaVuSans.ttf") for f in fonts), got["fonts"]
    rel = ["matplotlib/mpl-data/" + Path(f).relative_to(data).as_posix() for f in fonts]
    assert not [r for r in rel if live_archives.trimmed(r)], rel
    # with live mode's font list, no figure asks for a font that is not there (a fallback is a
    # warning in the browser's console and a glyph unlike the book's frames)
    assert not got["fallbacks"], got["fallbacks"]


def test_packages_zip_carries_the_robot_files_as_package_data(tmp_path, monkeypatch):
    """Live mode's packages zip holds book/models/ as package data of widgets, and unpacked
    where no book/ folder exists (as in the browser) widgets.robots reads the very files from it.
    (The axis fits, the layouts and the bytecode, slow and tested elsewhere, are left out here.)"""
    import live_packages

    monkeypatch.setattr(live_packages, "fitted_limits", lambda: [])
    monkeypatch.setattr(live_packages, "layouts", lambda: [])
    monkeypatch.setattr(live_packages, "compilers", lambda *a, **k: [])
    dest = live_packages.packages_zip(tmp_path / "sb_packages.zip", ROOT / "tools" / "pyodide-0.27.7-fontlist-v330.json")
    site = tmp_path / "site"
    with zipfile.ZipFile(dest) as zf:
        names = zf.namelist()
        zf.extractall(site)
    models = sorted(p.name for p in (ROOT / "book" / "models").iterdir() if p.suffix in (".urdf", ".xml"))
    assert models and all(f"widgets/robot_files/{m}" in names for m in models)
    probe = ("import sys, widgets.robots as r; "
             "print(str(r.PLACES[0].resolve()).startswith(sys.argv[1]), "
             "*(r.robot_file(m) == open(sys.argv[2] + '/' + m, encoding='utf-8').read() for m in sys.argv[3:]))")
    out = subprocess.run([sys.executable, "-c", probe, str(site.resolve()), str(ROOT / "book" / "models"), *models],
                         cwd=site, env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin", "MPLBACKEND": "Agg"},
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True"] * (len(models) + 1), out
    assert not (site / "book").exists()


_LAZY_PROBE = r"""
import importlib.util, json, sys
import numpy as np
site = sys.argv[1]
spec = importlib.util.spec_from_file_location("sb_live", site + "/widgets/live.py")
m = importlib.util.module_from_spec(spec); sys.modules["sb_live"] = m; spec.loader.exec_module(m)
m.install_ipywidgets_stand_in(force=True)
assert m.install_lazy_widgets(site + "/experiments.json")
import widgets.experiment                      # what the worker imports before the first frame
m.install_fitted(site + "/fitted_limits.json")
experiments = lambda: sorted(k for k in sys.modules if k.startswith("widgets.")
                             and k.split(".")[1] in ("arm", "bifold", "floating_biped", "screw_axis"))
before = experiments()
info = json.loads(m.LIVE.create("floating_biped", False, json.dumps({"t_ms": 730.0, "gravity": "on"})))
after = experiments()
import widgets.floating_biped as fb
shipped = fb.SIMULATED
state = json.loads(m.LIVE.state(info["handle"]))
fresh_q, fresh_qd = fb.simulate()
fb.SIMULATED = None
fb.trajectories.cache_clear()
native = fb.FloatingBiped()
native.set(t_ms=730.0, gravity="on")
print(json.dumps({"before": before, "after": after, "given": shipped is not None,
                  "equal": bool(np.array_equal(shipped[0], fresh_q) and np.array_equal(shipped[1], fresh_qd)),
                  "same_state": json.dumps(state, sort_keys=True) == json.dumps(native.state(), sort_keys=True),
                  "all": len(__import__("widgets").EXPERIMENTS)}))
"""


def test_packages_zip_loads_only_the_pages_experiments_and_ships_e12s_integration(tmp_path, monkeypatch):
    """Live mode's lazy experiments (widgets/live.py ``install_lazy_widgets``, the registry of
    tools/live_packages.py): after the worker's imports no experiment module is loaded; creating
    E12 loads its module alone, with the integration the build shipped (``floating_biped.npz``),
    which equals a fresh ``simulate()`` exactly, and E12's numbers equal those of a fresh
    computation; ``widgets.EXPERIMENTS`` still works (the real ``__init__``, on demand)."""
    import live_packages

    monkeypatch.setattr(live_packages, "fitted_limits", lambda: [])
    monkeypatch.setattr(live_packages, "layouts", lambda: [])
    monkeypatch.setattr(live_packages, "compilers", lambda *a, **k: [])
    dest = live_packages.packages_zip(tmp_path / "sb_packages.zip", ROOT / "tools" / "pyodide-0.27.7-fontlist-v330.json")
    site = tmp_path / "site"
    with zipfile.ZipFile(dest) as zf:
        zf.extractall(site)
    out = subprocess.run([sys.executable, "-c", _LAZY_PROBE, str(site.resolve())], cwd=site,
                         env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin", "MPLBACKEND": "Agg"},
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.splitlines()[-1])
    assert got["before"] == [], got
    assert got["after"] == ["widgets.floating_biped"], got
    assert got["given"] and got["equal"], got
    assert got["same_state"], got
    assert got["all"] == len(json.loads((site / "experiments.json").read_text())["classes"]), got


#: Node.js script: SB_TAR ZIP; prints {path: hex bytes} of sbUnzip's files, or {"error": ...}
UNZIP_SCRIPT = r"""
import fs from "node:fs";
globalThis.self = globalThis;
(0, eval)(fs.readFileSync(process.argv[2], "utf8"));
const u8 = new Uint8Array(fs.readFileSync(process.argv[3]));
try {
  const files = await self.sbUnzip(u8);
  console.log(JSON.stringify(Object.fromEntries(files.map(([n, b]) => [n, Buffer.from(b).toString("hex")]))));
} catch (e) { console.log(JSON.stringify({ error: String(e.message) })); }
"""


def test_the_workers_unzip_gives_the_zips_files(tmp_path):
    """sb_tar.js ``sbUnzip`` (live mode's worker unpacks the book's packages with it, so that
    Python need not import zipfile and shutil before the first frame): every file of a zip,
    stored or deflated, with a folder entry, a non-ASCII name and an empty file, byte for byte
    as Python's zipfile reads them; a file that is not a zip is refused (the worker then
    falls back to Pyodide's unpackArchive)."""
    import live_compile

    node = live_compile.node()
    if node is None:
        pytest.skip("needs Node.js (tools/live_compile.py node())")
    book = tmp_path / "sb_packages.zip"
    payload = {"pkg/__init__.py": b"", "pkg/m.py": b"X = 6 * 7\n" * 500,
               "pkg/data/\u00e9t\u00e9.json": json.dumps({"a": list(range(300))}).encode(),
               "pkg/raw.bin": bytes(range(256)) * 40}
    with zipfile.ZipFile(book, "w") as zf:
        zf.writestr(zipfile.ZipInfo("pkg/data/"), b"")
        for i, (name, data) in enumerate(payload.items()):
            zf.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED if i % 2 else zipfile.ZIP_STORED)
    with zipfile.ZipFile(book) as zf:
        assert {i.compress_type for i in zf.infolist()} == {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED}
    script = tmp_path / "unzip.mjs"
    script.write_text(UNZIP_SCRIPT)
    sb_tar = ROOT / "book" / "_live" / "sb_tar.js"

    def unzip(path):
        run = subprocess.run([node, str(script), str(sb_tar), str(path)], capture_output=True,
                             text=True, timeout=120)
        assert run.returncode == 0, run.stderr[-2000:]
        return json.loads(run.stdout)

    got = unzip(book)
    assert {k: bytes.fromhex(v) for k, v in got.items()} == payload
    not_zip = tmp_path / "not.zip"
    not_zip.write_bytes(b"PK\x03\x04 not really a zip" * 10)
    assert "not a zip archive" in unzip(not_zip)["error"]
