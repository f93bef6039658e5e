"""Sphinx extension: live mode for the static book's experiments (a "Run live" button each).

Set up by ``tools/sb_offline_assets.py`` (the book's local extension) when this file is next
to it; this module stages the files and connects the build's events, the work is done by

* ``tools/live_packages.py``: the book's own packages for Pyodide (``sb_packages.zip``);
* ``tools/live_compile.py``: the Python 3.12 that compiles the archives' bytecode;
* ``tools/live_pages.py``: the Run live bar and the warm-start script added to the pages;
* ``tools/live_frames.py``: the players' phone frames as files, and their 2x frames.

At ``config-inited`` it stages, in ``<outdir>/../_sb_live/`` (appended to ``html_extra_path``,
so Sphinx copies it to the site's root):

* ``_pyodide/``: the verified Pyodide interpreter (``tools/pyodide_dist.py``);
* ``_live/sb_live.js`` and ``_live/sb_worker.js``: the one browser adapter of every experiment
  (main thread: controls and painting) and the Web Worker that runs Python (``book/_live/``),
  with ``_live/sb_tar.js``, its reader of the site archive (the JupyterLite kernel's too);
* ``_live/sb_packages.zip``: the book's ``spatialbook`` and ``widgets`` packages as they are in
  the working tree, plus matplotlib's prebuilt font list, unpacked into Pyodide on first use
  (``tools/live_packages.py``);
* ``_live/sb_site.tar.gz`` and ``_live/python_stdlib_pyc.zip``: numpy, matplotlib and their
  dependencies from the verified wheels, trimmed, and the standard library, compiled by a
  CPython 3.12 found on the machine, else by Pyodide's own CPython 3.12 under Node.js
  (``archives``, ``tools/live_compile.py``, ``tools/live_archives.py``,
  ``tools/pyodide_python.mjs``; without either, live mode works and starts slower);
* ``_live/sb-lock.json``: the lock given to Pyodide (``live_lock``: no packages).

At ``html-page-context`` it adds, to every frame player that shows a registered experiment, a
"Run live" bar (``tools/live_pages.py``), lists the player's 2x frames and moves its
phone-layout frames into files (``tools/live_frames.py``); a page with a bar gets the warm
start in its head.  The stored notebook outputs are not touched.  At ``build-finished`` it
prunes the 2x frames' cache and says what drawing them cost.

When the distribution cannot be fetched (no network, no cache), the book still builds: every
player gets a short note saying that live mode is not available in this build, and the frames
work as before.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import sys
from pathlib import Path

from live_compile import NODE_WHEEL, compilers
from live_frames import add_dense_frames, move_narrow_frames, prune_dense_cache
from live_packages import packages_zip
from live_pages import add_bars, alt_names, settings_names, warm_script

ROOT = Path(__file__).resolve().parent.parent
ADAPTER = ROOT / "book" / "_live" / "sb_live.js"


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


@contextlib.contextmanager
def _exclusive(path: Path):
    """Hold an exclusive lock on ``path`` (created) for the block; no lock where the system has
    no ``fcntl`` (Windows)."""
    with open(path, "w") as handle:
        try:
            import fcntl
        except ImportError:
            yield
            return
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def stage_live(staging: Path) -> str | None:
    """Stage everything live mode needs; return None, or why live mode is unavailable."""
    sys.path.insert(0, str(ROOT / "tools"))
    import pyodide_dist

    live = staging / "_live"
    shutil.rmtree(live, ignore_errors=True)             # nothing stale from an older build
    live.mkdir(parents=True)
    for script in sorted(ADAPTER.parent.glob("*.js")):     # sb_live.js, sb_worker.js, sb_tar.js
        shutil.copy2(script, live / script.name)
    packages_zip(live / "sb_packages.zip", pyodide_dist.FONTLIST)
    try:
        pyodide_dist.stage(staging / "_pyodide")
        made = pyodide_dist.cache_dir().parent / f"live-{pyodide_dist.PYODIDE_VERSION}"
        made.mkdir(parents=True, exist_ok=True)
        # the cache is shared by every build of this user (clones, worktrees): one at a time
        # makes or copies the archives, or a build could copy a file another is rewriting (a
        # half-written zip, seen with two worktrees building at once)
        with _exclusive(made / ".lock"):
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


def _config_inited(app, config) -> None:
    from sb_editions import shared_dir, shared_root

    staging = shared_dir(app).parent / "_sb_live"
    app.sb_live_shared = bool(shared_root(config))
    if app.sb_live_shared:        # the Chinese edition: the English build staged the files
        app.env_sb_live_problem = (None if (staging / "_live" / "sb-lock.json").is_file()
                                   else "live mode was not staged by the English build")
    else:
        app.env_sb_live_problem = stage_live(staging)
    app.sb_live_names = alt_names()
    app.sb_live_settings = settings_names()
    app.sb_live_mb = first_start_bytes(staging) / 1e6
    app.sb_dense_stats = {}
    app.sb_zh_figures = None
    if app.sb_live_shared:        # the Chinese edition: its figures' text (tools/zh_frames.py)
        from zh_strings import figure_table

        po = Path(app.srcdir) / "locale" / "zh_CN" / "code_strings.po"
        app.sb_zh_figures = figure_table(po)
        app.sb_zh_stats = {}
        from widgets import EXPERIMENTS
        from zh_frames import table_key

        # each experiment's frames depend on its own figure strings (the cache's key)
        app.sb_zh_keys = {cls: table_key(figure_table(po, name)) for name, cls in EXPERIMENTS.items()}
    extra = list(config.html_extra_path or [])
    if not app.sb_live_shared and str(staging) not in extra:
        extra.append(str(staging))
    config.html_extra_path = extra


def _page_context(app, pagename, templatename, context, doctree) -> None:
    body = context.get("body")
    if not body or "sb-frame-player" not in body:
        return
    from sb_editions import shared_dir, shared_pathto

    problem = getattr(app, "env_sb_live_problem", None)
    pathto = shared_pathto(app, context["pathto"])      # the Chinese edition: ../_live/ ...
    src = pathto("_live/sb_live.js", 1)
    body, found = add_bars(body, app.sb_live_names, app.sb_live_settings, src, app.sb_live_mb,
                           problem)
    from widgets import EXPERIMENTS

    players = {uid: EXPERIMENTS[name] for uid, name in found.items()}
    if getattr(app, "sb_zh_figures", None):
        body = _chinese_frames(app, pagename, body, pathto, players)
    else:
        body = add_dense_frames(body, shared_dir(app), pathto, players,
                                app.sb_dense_stats, dense_cache(app))
    context["body"] = move_narrow_frames(body, shared_dir(app), pathto)
    if found and not problem:
        context["metatags"] = context.get("metatags", "") + warm_script(src)


def _chinese_frames(app, pagename, body, pathto, players) -> str:
    """The Chinese edition: the players' frames drawn with the figures' text in Chinese
    (``tools/zh_frames.py``), their 2x frames too (a player with no text to translate keeps
    the English build's); a figure text without a translation fails the build."""
    from sphinx.util import logging

    from sb_editions import shared_dir
    from widgets import figure_text
    from zh_frames import chinese_players

    table = app.sb_zh_figures
    before = set(figure_text.MISSES)
    body, changed = chinese_players(body, players, table, app.sb_zh_stats, zh_cache(app),
                                    app.sb_zh_keys)
    body = add_dense_frames(body, shared_dir(app), pathto,
                            {u: c for u, c in players.items() if u not in changed},
                            app.sb_dense_stats, dense_cache(app))
    with figure_text.language(table):
        for cls in {c for u, c in players.items() if u in changed}:
            body = add_dense_frames(body, shared_dir(app), pathto,
                                    {u: c for u, c in players.items() if u in changed and c is cls},
                                    app.sb_zh_stats.setdefault("2x", {}), zh_cache(app),
                                    key=app.sb_zh_keys.get(cls, ""))
    for text in sorted(set(figure_text.MISSES) - before):
        logging.getLogger(__name__).warning(
            f"a Chinese figure shows English text {text[:80]!r}: translate it in "
            "book/locale/zh_CN/code_strings.po (tools/zh_strings.py update, then import)",
            location=pagename, type="sb_i18n")
    return body


def zh_cache(app) -> Path:
    """The Chinese frames' cache (1x and 2x), kept between builds:
    ``book/_build/.sb_zh_frames_cache``."""
    return Path(app.outdir).resolve().parent.parent / ".sb_zh_frames_cache"


def dense_cache(app) -> Path:
    """The 2x frames' cache, kept between builds: ``<outdir>/../.sb_dense_cache``
    (``book/_build/.sb_dense_cache``; a fresh build removes only ``html`` and ``.doctrees``)."""
    return Path(app.outdir).resolve().parent / ".sb_dense_cache"


def _build_finished(app, exception) -> None:
    zh = getattr(app, "sb_zh_stats", None)
    if exception is None and zh is not None and (zh.get("drawn") or zh.get("linked")):
        dense = zh.get("2x", {})
        pruned = prune_dense_cache(zh_cache(app), zh.get("used", set()) | dense.get("used", set()))
        print(f"sb_live: Chinese frames: 1x {zh.get('drawn', 0)} drawn, {zh.get('linked', 0)} "
              f"from the cache in {zh.get('seconds', 0):.1f} s; 2x {dense.get('drawn', 0)} drawn, "
              f"{dense.get('linked', 0)} from the cache in {dense.get('seconds', 0):.1f} s, "
              f"{dense.get('bytes', 0) / 1e6:.1f} MB new files ({pruned} stale files removed)")
    stats = getattr(app, "sb_dense_stats", {})
    if exception is not None or not (stats.get("drawn") or stats.get("linked")) \
            or getattr(app, "sb_live_shared", False):
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
