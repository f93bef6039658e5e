"""Sphinx extension: live mode for the static book's experiments (a "Run live" button each).

Set up by ``tools/sb_offline_assets.py`` (the book's local extension) when this file is next
to it.  At ``config-inited`` it
stages, in ``<outdir>/../_sb_live/`` (appended to ``html_extra_path``, so Sphinx copies it to
the site's root):

* ``_pyodide/``: the verified Pyodide distribution (``tools/pyodide_dist.py``);
* ``_live/sb_live.js`` and ``_live/sb_worker.js``: the one browser adapter of every experiment
  (main thread: controls and painting) and the Web Worker that runs Python (``book/_live/``);
* ``_live/sb_packages.zip``: the book's ``spatialbook`` and ``widgets`` packages as they are in
  the working tree, plus matplotlib's prebuilt font list, unpacked into Pyodide on first use;
* ``_live/sb-lock.json``: the lock given to Pyodide (``live_lock``: the official one less the
  packages the drawing never imports);
* ``_live/sb_bytecode.zip`` and ``_live/python_stdlib_pyc.zip``: the distribution's Python
  files compiled by a CPython 3.12 found on the machine (see ``bytecode``; without one, live
  mode works and starts slower).

At ``html-page-context`` it adds, to every frame player that shows a registered experiment
(recognised by its picture's alt text, ``Experiment.alt``), a "Run live" button, and moves
the players' phone-layout frames into files (``move_narrow_frames``).  A player whose pictures
have their own alt text (ch02's probe sweep) is recognised by the control names of its
``data-sb-settings``.  The button carries only a few attributes, an inline click handler (it
shows the progress bar at once) and a hidden progress bar: before the click the page loads
nothing new, unless live mode has already run in this browser (then the warm start, ``_WARM``:
Python starts in the background from the browser's cache once the page has loaded, and draws
the page's experiments, so a click only shows them; the hint offers to turn it off).  The first click loads the adapter, which starts Pyodide in a Web Worker (once
per page, shared by the page's experiments); the files come from the browser's HTTP cache on
the next page (plain URLs, no query strings).  The stored notebook outputs are not touched.

2x frames (``add_dense_frames``): every recognised player's frames are drawn again at twice
the pixel density, both layouts, from what the player records (its experiment,
``data-sb-settings``, ``data-sb-control``, the values beside its slider;
``widgets.players.dense_frames``), written beside the phone frames (named by content) and
listed in the player (``<script class="sb-2x-frames">``, a few bytes a frame).  The player's
script shows them (``srcset`` "2x", same CSS size) only where ``devicePixelRatio >= 1.5``: a
1x reader fetches none.  Drawing the book's 544 took 28-37 s on the 2-core test machine (56 MB
of PNG at zlib level 1); a cache kept between builds (``book/_build/.sb_dense_cache``, keyed
by the player and the source of ``widgets`` and ``spatialbook``, pruned to what the last
build used) makes a rebuild with unchanged code nearly free.

When the distribution cannot be fetched (no network, no cache), the book still builds: every
player gets a short note saying that live mode is not available in this build, and the frames
work as before.
"""

from __future__ import annotations

import functools
import html
import re
import shutil
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ADAPTER = ROOT / "book" / "_live" / "sb_live.js"
PACKAGES = ("spatialbook", "widgets")

_PLAYER = re.compile(r'<div class="sb-frame-player" id="(sb-fp-[0-9a-f]{12})"[^>]*>')


# The phone layout of each frame player's pictures (``narrow_frames`` of
# widgets.static_html.frame_player) is stored in the notebook as data URIs in a JSON <script>.
# In the built page they become files of _sb_frames/ (named by content), so the page is not
# heavier: a wide screen never asks for them, a phone asks for the frames it shows.
_NARROW_LIST = re.compile(r'<script type="application/json" class="sb-narrow-frames">(\[.*?\])</script>',
                          re.S)


def move_narrow_frames(body: str, outdir: Path, pathto) -> str:
    """Replace every player's inline narrow frames by links to files written in
    ``outdir/_sb_frames/`` (``pathto(name, 1)`` makes the page-relative link)."""
    import base64
    import hashlib
    import json

    folder = Path(outdir) / "_sb_frames"

    def move(m: re.Match) -> str:
        links = []
        for uri in json.loads(m.group(1)):
            head, _, data = uri.partition(",")
            if not head.startswith("data:image/png;base64"):
                links.append(uri)
                continue
            png = base64.b64decode(data)
            name = f"_sb_frames/{hashlib.sha1(png).hexdigest()[:20]}.png"
            folder.mkdir(parents=True, exist_ok=True)
            target = Path(outdir) / name
            if not target.is_file():
                target.write_bytes(png)
            links.append(pathto(name, 1))
        return ('<script type="application/json" class="sb-narrow-frames">'
                + json.dumps(links).replace("</", "<\\/") + "</script>")

    return _NARROW_LIST.sub(move, body)


# Each player's frames again at twice the pixel density (issue 20: sharp on a 2x screen, a 1x
# reader's page no heavier): drawn at build time by widgets.players.dense_frames from what the
# player records (its experiment, data-sb-settings, data-sb-control and the values it shows),
# written beside the phone frames (named by content) and listed in the player as
# {"base": folder, "wide": [names], "narrow": [names]}; the player's script asks for them only
# where devicePixelRatio >= 1.5 (widgets/static_html.py).
DENSE_SCALE = 2.0
_VALUES = re.compile(r"var values = (\[.*?\]);")
_SETTINGS = re.compile(r"data-sb-settings='([^']*)'|data-sb-settings=\"([^\"]*)\"")
_CONTROL = re.compile(r'data-sb-control="([^"]*)"')


def player_values(cls, control: str, texts: list[str]) -> list:
    """The values of ``control`` a player's frames show, from the texts beside its slider
    (``static_html._fmt``, 4 digits): a choice control's options by index; a slider's
    ``sweep(len(texts))`` when it prints the same texts (the players' default sweeps, whose
    values 4 digits may round), else the numbers as printed."""
    sys.path.insert(0, str(ROOT))
    from widgets.controls import Choice
    from widgets.static_html import _fmt

    specs = {c.name: c for c in cls.CONTROLS}
    if control not in specs:
        raise ValueError(f"sb_live: {cls.__name__} has no control {control!r}")
    spec = specs[control]
    if isinstance(spec, Choice):
        return [spec.options[int(float(t))] for t in texts]
    sweep = spec.sweep(len(texts))
    if [_fmt(v) for v in sweep] == list(texts):
        return sweep
    return [float(t) for t in texts]


@functools.lru_cache(maxsize=None)
def dense_code_key() -> str:
    """What a 2x frame depends on besides its player: the source of the packages that draw it
    (``widgets``, ``spatialbook``), matplotlib's, numpy's and Python's versions and the PNG
    level (the cache's key; see ``add_dense_frames``)."""
    import hashlib
    import platform

    import matplotlib
    import numpy

    from widgets.players import DENSE_COMPRESS_LEVEL

    h = hashlib.sha1()
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            h.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes())
    h.update(repr((matplotlib.__version__, numpy.__version__, platform.python_version(),
                   DENSE_COMPRESS_LEVEL)).encode())
    return h.hexdigest()


def add_dense_frames(body: str, outdir: Path, pathto, players: dict, stats: dict | None = None,
                     cache: Path | None = None, scale: float = DENSE_SCALE) -> str:
    """Give every frame player of ``players`` (id -> experiment class) its frames drawn at
    ``scale`` times the density, wide and (if it has them) narrow, as files of
    ``outdir/_sb_frames/`` listed in a ``<script class="sb-2x-frames">`` (see above).

    ``cache`` (a folder kept between builds): frames drawn by an earlier build from the same
    inputs (player: experiment, settings, control, values, layout; code: ``dense_code_key``)
    are linked from there instead of drawn again.  ``stats`` (optional) counts the frames
    drawn and linked, the seconds spent and the bytes written, and collects the cache entries
    used (``prune_dense_cache`` removes the others)."""
    import hashlib
    import json
    import time

    from widgets.players import dense_frames

    stats = {} if stats is None else stats
    folder = Path(outdir) / "_sb_frames"
    starts = [(m.start(), m.end(), m.group(1)) for m in _PLAYER.finditer(body)]
    out, last = [], 0
    for k, (start, end, uid) in enumerate(starts):
        cls = players.get(uid)
        if cls is None:
            continue
        tag = body[start:end]
        markup = body[end:starts[k + 1][0] if k + 1 < len(starts) else len(body)]
        values_m, control_m, settings_m = _VALUES.search(markup), _CONTROL.search(tag), \
            _SETTINGS.search(tag)
        if not (values_m and control_m and settings_m):
            continue                     # a player that does not say how it was drawn
        control = html.unescape(control_m.group(1))
        settings = json.loads(html.unescape(settings_m.group(1) or settings_m.group(2)))
        values = player_values(cls, control, json.loads(values_m.group(1)))
        t0 = time.perf_counter()
        lists = {}
        for layout in ("wide", "narrow"):
            if layout == "narrow" and "sb-narrow-frames" not in markup:
                continue
            key = hashlib.sha1(json.dumps([dense_code_key(), cls.__module__, cls.__name__,
                                           settings, control, repr(values), layout, scale],
                                          sort_keys=True).encode()).hexdigest()
            names = _cached(cache, key, folder, stats)
            if names is None:
                names = []
                for png in dense_frames(cls, settings, control, values, layout == "narrow", scale):
                    digest = hashlib.sha1(png).hexdigest()[:20]
                    target = folder / f"{digest}.png"
                    if not target.is_file():
                        folder.mkdir(parents=True, exist_ok=True)
                        target.write_bytes(png)
                        stats["bytes"] = stats.get("bytes", 0) + len(png)
                    if cache is not None and not (cache / target.name).is_file():
                        cache.mkdir(parents=True, exist_ok=True)
                        _link(target, cache / target.name)
                    names.append(digest)
                stats["drawn"] = stats.get("drawn", 0) + len(names)
                if cache is not None:
                    (cache / f"{key}.txt").write_text("\n".join(names) + "\n")
                    stats.setdefault("used", set()).update([f"{key}.txt", *(f"{n}.png" for n in names)])
            lists[layout] = names
        stats["seconds"] = stats.get("seconds", 0.0) + time.perf_counter() - t0
        link = pathto(f"_sb_frames/{lists['wide'][0]}.png", 1)
        listed = {"base": link[:-len(lists["wide"][0] + ".png")], **lists}
        out += [body[last:end], '<script type="application/json" class="sb-2x-frames">',
                json.dumps(listed, separators=(",", ":")).replace("</", "<\\/"), "</script>"]
        last = end
    out.append(body[last:])
    return "".join(out)


def _cached(cache: Path | None, key: str, folder: Path, stats: dict) -> list[str] | None:
    """The frame names of cache entry ``key``, linked (or copied) into ``folder``; None when
    the entry or one of its frames is missing."""
    entry = cache / f"{key}.txt" if cache is not None else None
    if entry is None or not entry.is_file():
        return None
    names = entry.read_text().split()
    if not names or not all((cache / f"{n}.png").is_file() for n in names):
        return None
    folder.mkdir(parents=True, exist_ok=True)
    for n in names:
        target = folder / f"{n}.png"
        if not target.is_file():
            _link(cache / f"{n}.png", target)
            stats["bytes"] = stats.get("bytes", 0) + target.stat().st_size
    stats["linked"] = stats.get("linked", 0) + len(names)
    stats.setdefault("used", set()).update([entry.name, *(f"{n}.png" for n in names)])
    return names


def _link(source: Path, target: Path) -> None:
    """A hard link (no copy: the site and the cache share the file), else a copy."""
    import os

    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def prune_dense_cache(cache: Path, used: set[str]) -> int:
    """Remove the cache's files that this build did not use (older code's frames); their count."""
    gone = 0
    for path in cache.glob("*"):
        if path.name not in used and path.suffix in (".txt", ".png"):
            path.unlink()
            gone += 1
    return gone


def _alt_names() -> dict[str, str]:
    """Escaped alt text of each registered experiment's pictures -> registry name."""
    sys.path.insert(0, str(ROOT))
    from widgets import EXPERIMENTS

    return {html.escape(cls.alt or cls.title): name for name, cls in EXPERIMENTS.items()}


def packages_zip(dest: Path, fontlist: Path) -> Path:
    """The project's packages (``*.py`` only) and the font list, as a deterministic zip."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
        for pkg in PACKAGES:
            for path in sorted((ROOT / pkg).rglob("*.py")):
                rel = path.relative_to(ROOT).as_posix()
                if "__pycache__" in rel:
                    continue
                info = zipfile.ZipInfo(rel, date_time=(2020, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, path.read_bytes())
        info = zipfile.ZipInfo("fontlist-v330.json", date_time=(2020, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        zf.writestr(info, fontlist.read_bytes())
    exe = python312()
    if exe is not None:      # their bytecode too (as for the distribution: see _PYC_SCRIPT)
        import subprocess

        if subprocess.run([exe, "-c", _PACKAGES_PYC_SCRIPT, str(dest)]).returncode != 0:
            print("sb_live: the packages' bytecode was not compiled (they still work)",
                  file=sys.stderr)
    return dest


_PACKAGES_PYC_SCRIPT = r"""
import importlib.util, sys, zipfile
from importlib._bootstrap_external import _code_to_hash_pyc
assert sys.version_info[:2] == (3, 12), sys.version
with zipfile.ZipFile(sys.argv[1], "a", zipfile.ZIP_DEFLATED) as zf:
    for name in [n for n in zf.namelist() if n.endswith(".py")]:
        src = zf.read(name)
        code = compile(src, "/home/pyodide/sb/" + name, "exec", dont_inherit=True)
        head, _, tail = name.rpartition("/")
        info = zipfile.ZipInfo(head + "/__pycache__/" + tail[:-3] + ".cpython-312.pyc",
                               date_time=(2020, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        zf.writestr(info, _code_to_hash_pyc(code, importlib.util.source_hash(src), checked=False))
"""


# The bytecode cache: Pyodide's wheels and standard library hold only .py files, and compiling
# them at import is most of the time Python spends starting (6.6 s of compile() for the ~400
# modules the experiments import, measured in Chromium on a loaded 2-core machine; loadPyodide
# alone went from 6.4-7.2 s to 2.7-2.9 s with a compiled standard library).  A CPython 3.12
# (same bytecode, magic number 3531) compiles them at build time into unchecked hash-based .pyc
# files with the paths they have in Pyodide:
# * the standard library: a copy of the verified python_stdlib.zip with each module's .pyc
#   added next to its .py (zipimport takes the .pyc), given to loadPyodide as stdLibURL;
# * the wheels: __pycache__/*.cpython-312.pyc files, unpacked next to the installed sources
#   (the wheels themselves stay as verified: Pyodide checks their sha256 from the lock).
_PYC_WHEELS = ("numpy", "matplotlib", "pyparsing", "python-dateutil", "pillow", "six",
               "packaging", "cycler", "kiwisolver", "contourpy")
_PYC_SCRIPT = r"""
import importlib.util, sys, zipfile
from importlib._bootstrap_external import _code_to_hash_pyc
assert sys.version_info[:2] == (3, 12), sys.version
out = zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED)
std = zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED)
def pyc(src, path):
    code = compile(src, path, "exec", dont_inherit=True)
    return _code_to_hash_pyc(code, importlib.util.source_hash(src), checked=False)
def skip(name):
    return any(p in ("tests", "test", "testing", "f2py", "_pyinstaller", "distutils")
               for p in name.split("/"))
def put(zf, name, data, date_time=(2020, 1, 1, 0, 0, 0)):
    info = zipfile.ZipInfo(name, date_time=date_time)
    info.compress_type = zipfile.ZIP_DEFLATED
    zf.writestr(info, data)
for kind, archive in zip(sys.argv[3::2], sys.argv[4::2]):
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            name = info.filename
            src = zf.read(info)
            if kind == "stdlib":
                put(std, name, src, info.date_time)          # every file, as it is
            if not name.endswith(".py") or (kind != "stdlib" and skip(name)):
                continue
            try:
                if kind == "stdlib":
                    put(std, name + "c", pyc(src, "/lib/python312.zip/" + name))
                else:
                    head, _, tail = name.rpartition("/")
                    put(out, "lib/python3.12/site-packages/" + head + "/__pycache__/"
                        + tail[:-3] + ".cpython-312.pyc",
                        pyc(src, "/lib/python3.12/site-packages/" + name))
            except SyntaxError:
                continue
out.close()
std.close()
"""


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


def bytecode(dest: Path, dist: Path) -> bool:
    """Write ``dest/sb_bytecode.zip`` (wheels) and ``dest/python_stdlib_pyc.zip`` (standard
    library + bytecode), compiled by a CPython 3.12 (see _PYC_SCRIPT; cached by their inputs).
    Without one: an empty bytecode zip and the plain standard library; returns False."""
    import json
    import subprocess

    exe = python312()
    wheels, stdlib = dest / "sb_bytecode.zip", dest / "python_stdlib_pyc.zip"
    stamp = dest / "bytecode.inputs"
    if exe is not None:
        lock = json.loads((dist / "pyodide-lock.json").read_text())
        args = ["stdlib", str(dist / "python_stdlib.zip")]
        for name in _PYC_WHEELS:
            args += ["wheel", str(dist / lock["packages"][name]["file_name"])]
        key = json.dumps([args, _PYC_SCRIPT, exe])
        if wheels.is_file() and stdlib.is_file() and stamp.is_file() and stamp.read_text() == key:
            return True
        try:
            subprocess.run([exe, "-c", _PYC_SCRIPT, str(wheels), str(stdlib), *args], check=True)
            stamp.write_text(key)
            return True
        except (OSError, subprocess.CalledProcessError) as exc:
            print(f"sb_live: compiling the bytecode cache with {exe} failed ({exc})", file=sys.stderr)
    print("sb_live: no bytecode cache (needs a CPython 3.12: python3.12, pyenv or $SB_PYTHON312): "
          "live mode works, but starts slower", file=sys.stderr)
    stamp.unlink(missing_ok=True)
    zipfile.ZipFile(wheels, "w").close()
    shutil.copy2(dist / "python_stdlib.zip", stdlib)
    return False


def live_lock(dist: Path) -> dict:
    """The lock live mode gives Pyodide (``_live/sb-lock.json``): the verified official lock
    with the packages of ``pyodide_dist.UNUSED`` removed, from the packages and from every
    ``depends`` (the wheels' names and sha256 are untouched)."""
    import json

    import pyodide_dist

    lock = json.loads((dist / "pyodide-lock.json").read_text())
    for name in pyodide_dist.UNUSED:
        lock["packages"].pop(name, None)
    for entry in lock["packages"].values():
        entry["depends"] = [d for d in entry.get("depends", []) if d not in pyodide_dist.UNUSED]
    return lock


def stage_live(staging: Path) -> str | None:
    """Stage everything live mode needs; return None, or why live mode is unavailable."""
    sys.path.insert(0, str(ROOT / "tools"))
    import pyodide_dist

    live = staging / "_live"
    shutil.rmtree(live, ignore_errors=True)             # nothing stale from an older build
    live.mkdir(parents=True)
    for script in sorted(ADAPTER.parent.glob("*.js")):     # sb_live.js, sb_worker.js
        shutil.copy2(script, live / script.name)
    packages_zip(live / "sb_packages.zip", pyodide_dist.FONTLIST)
    try:
        pyodide_dist.stage(staging / "_pyodide")
        compiled = pyodide_dist.cache_dir().parent / f"bytecode-{pyodide_dist.PYODIDE_VERSION}"
        compiled.mkdir(parents=True, exist_ok=True)
        bytecode(compiled, pyodide_dist.cache_dir())
        for name in ("sb_bytecode.zip", "python_stdlib_pyc.zip"):
            shutil.copy2(compiled / name, live / name)
        import json
        (live / "sb-lock.json").write_text(json.dumps(live_lock(staging / "_pyodide")))
    except pyodide_dist.DistributionUnavailable as exc:
        shutil.rmtree(staging / "_pyodide", ignore_errors=True)
        shutil.rmtree(live, ignore_errors=True)
        print(f"sb_live: live mode NOT available in this build (frames only): {exc}",
              file=sys.stderr)
        return str(exc)
    return None


def first_start_bytes(staging: Path) -> int:
    """Bytes the first start downloads (what sb_worker.js fetches): the interpreter, the
    standard library with bytecode, the book's zips and scripts, and the wheels of numpy and
    matplotlib with their dependencies (from the lock file).  0 when nothing is staged."""
    import json

    lock_file = staging / "_live" / "sb-lock.json"
    if not lock_file.is_file():
        return 0
    import pyodide_dist

    lock = json.loads(lock_file.read_text())
    files = [staging / "_pyodide" / n for n in ("pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm")]
    files += [staging / "_pyodide" / lock["packages"][n]["file_name"]
              for n in pyodide_dist.package_closure(lock)]
    files += [p for p in (staging / "_live").iterdir() if p.name != "bytecode.inputs"]
    return sum(p.stat().st_size for p in files if p.is_file())


def _settings_names() -> dict[frozenset, str]:
    """The control names of each registered experiment (its players' settings) -> name."""
    from widgets import EXPERIMENTS, Player

    out: dict[frozenset, list] = {}
    for name, cls in EXPERIMENTS.items():
        key = frozenset(c.name for c in cls.CONTROLS if not isinstance(c, Player))
        out.setdefault(key, []).append(name)
    return {k: v[0] for k, v in out.items() if len(v) == 1}     # unambiguous ones only


def _config_inited(app, config) -> None:
    staging = Path(app.outdir).resolve().parent / "_sb_live"
    app.env_sb_live_problem = stage_live(staging)
    app.sb_live_names = _alt_names()
    app.sb_live_settings = _settings_names()
    app.sb_live_mb = first_start_bytes(staging) / 1e6
    app.sb_dense_stats = {}
    extra = list(config.html_extra_path or [])
    if str(staging) not in extra:
        extra.append(str(staging))
    config.html_extra_path = extra


_NOTE = ('<p class="sb-live-note">Live mode is not available in this build (the Pyodide '
         'distribution could not be fetched when the book was built); the precomputed frames '
         'below work without it.</p>')


_FILE_HINT = ("Live mode needs the book served over http (make serve); opened from a file, "
              "the frames below work")


# The warm start (sb_live.js ``warm``): where live mode has run before in this browser
# (localStorage), the page's first bar loads the adapter once the page has loaded, and the
# adapter starts Python in the background (from the browser's cache).  Nothing happens for a
# reader who never ran live mode, nor with the browser's data saver on, nor on a device that
# reports under 4 GB of memory (navigator.deviceMemory: Python in a worker takes ~250 MB).
_WARM = ('var w=false;try{w=localStorage.getItem("sb-live-warm")==="1";}catch(e){}'
         'if(!w||window.__sbWarm||(navigator.connection&&navigator.connection.saveData)'
         '||(navigator.deviceMemory&&navigator.deviceMemory<4)){return;}'
         'window.__sbWarm=1;var go=function(){if(window.sbLive){window.sbLive.warm();return;}'
         'var x=document.createElement("script");x.src=b.getAttribute("data-sb-src");'
         'x.onload=function(){window.sbLive.warm();};document.head.appendChild(x);};'
         'if(document.readyState==="complete"){go();}else{window.addEventListener("load",go);}')


def _button(name: str, uid: str, src: str, megabytes: float) -> str:
    """The Run live bar: button, hidden progress bar and status, hint.  The click shows the
    progress bar at once (before the adapter has loaded); opened from a file, an inline
    script disables the button and says why (nothing is fetched)."""
    return (f'<div class="sb-live-bar">'
            f'<button type="button" class="sb-live-button" aria-pressed="false" '
            f'id="{uid}-live" data-sb-experiment="{name}" data-sb-src="{src}" '
            "onclick=\"var b=this,p=b.parentNode;if(window.sbLive){window.sbLive.start(b);return;}"
            "if(b.disabled){return;}b.disabled=true;b.textContent='Starting…';"
            "p.querySelector('progress').hidden=false;"
            "var t=p.querySelector('.sb-live-status');t.hidden=false;"
            "t.textContent='loading the live adapter…';"
            "p.querySelector('.sb-live-hint').hidden=true;"
            "var s=document.createElement('script');"
            "s.src=b.getAttribute('data-sb-src');s.onload=function(){window.sbLive.start(b);};"
            "s.onerror=function(){b.textContent='Live mode unavailable';};"
            "document.head.appendChild(s);\">Run live</button> "
            '<progress class="sb-live-progress" aria-label="starting live mode" hidden></progress>'
            '<span class="sb-live-status" role="status" hidden></span>'
            "<span class=\"sb-live-hint\">every control runs the book's Python in your browser; "
            f"the first start downloads {megabytes:.0f} MB, later pages start from the "
            "browser's cache</span>"
            '<script>(function(s){var p=s.parentNode,b=p.querySelector("button");'
            'if(location.protocol==="file:"){b.disabled=true;'
            f'p.querySelector(".sb-live-hint").textContent="{_FILE_HINT}";return;}}'
            + _WARM + '})(document.currentScript);</script></div>\n')


def _page_context(app, pagename, templatename, context, doctree) -> None:
    body = context.get("body")
    if not body or "sb-frame-player" not in body:
        return
    names = app.sb_live_names
    problem = getattr(app, "env_sb_live_problem", None)
    src = context["pathto"]("_live/sb_live.js", 1)
    found: dict[str, str] = {}           # player id -> experiment name

    def add(m: re.Match) -> str:
        uid = m.group(1)
        alt = re.search(rf'id="{uid}-img" src="[^"]*" alt="([^"]*)"', body[m.end():])
        name = names.get(alt.group(1)) if alt else None
        if name is None:       # a player with its own alt text: known by its controls' names
            settings = _SETTINGS.search(m.group(0))
            if settings:
                import json
                raw = html.unescape(settings.group(1) or settings.group(2))
                name = app.sb_live_settings.get(frozenset(json.loads(raw)))
        if name is None:
            return m.group(0)
        found[uid] = name
        return m.group(0) + "\n" + (_NOTE if problem else _button(name, uid, src, app.sb_live_mb))

    body = _PLAYER.sub(add, body)
    from widgets import EXPERIMENTS

    body = add_dense_frames(body, Path(app.outdir), context["pathto"],
                            {uid: EXPERIMENTS[name] for uid, name in found.items()},
                            app.sb_dense_stats, dense_cache(app))
    context["body"] = move_narrow_frames(body, Path(app.outdir), context["pathto"])


def dense_cache(app) -> Path:
    """The 2x frames' cache, kept between builds: ``<outdir>/../.sb_dense_cache``
    (``book/_build/.sb_dense_cache``; a fresh build removes only ``html`` and ``.doctrees``)."""
    return Path(app.outdir).resolve().parent / ".sb_dense_cache"


def _build_finished(app, exception) -> None:
    stats = getattr(app, "sb_dense_stats", {})
    if exception is not None or not (stats.get("drawn") or stats.get("linked")):
        return
    pruned = prune_dense_cache(dense_cache(app), stats.get("used", set()))
    print(f"sb_live: 2x frames: {stats.get('drawn', 0)} drawn, {stats.get('linked', 0)} from "
          f"the cache ({pruned} stale files removed) in {stats['seconds']:.1f} s, "
          f"{stats.get('bytes', 0) / 1e6:.1f} MB")


def setup(app):
    app.connect("config-inited", _config_inited)
    app.connect("html-page-context", _page_context)
    app.connect("build-finished", _build_finished)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
