"""Live mode's packages: ``_live/sb_packages.zip``, the book's own code for Pyodide.

The zip holds the book's ``spatialbook`` and ``widgets`` packages as they are in the working
tree (``*.py`` only, with their bytecode when a Python 3.12 compiler is found:
``tools/live_compile.py``), the robot description files of ``book/models/`` as package data
of ``widgets`` (``widgets/robot_files/``, read by ``widgets.robots.robot_file``), matplotlib's
prebuilt font list (less the fonts the site archive leaves out), every experiment's axis
fits at its defaults (:data:`FITTED`) and its layout's measurements (:data:`LAYOUTS`), where
each experiment's class is (:data:`REGISTRY`: a page imports only its own experiments'
modules) and E12's integration (:data:`BIPED`).  Pyodide unpacks it on first use.  ``PACKAGES`` and
``robot_files`` also key the 2x frames' cache (``tools/live_frames.py``): a frame depends on
the code that draws it.
"""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path

from live_compile import compilers

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("spatialbook", "widgets")


def robot_files() -> list:
    """The robot description files of book/models/, shipped in the packages' zip as package data of
    widgets (``widgets/robot_files/``, read by ``widgets.robots.robot_file``)."""
    return sorted(p for p in (ROOT / "book" / "models").iterdir() if p.suffix in (".urdf", ".xml"))


#: in sb_packages.zip: the experiments' axis fits at their defaults (``fitted_limits``)
FITTED = "fitted_limits.json"
#: in sb_packages.zip: where each experiment's class is, and data files by module (``registry``)
REGISTRY = "experiments.json"
#: in sb_packages.zip: E12's integration made here (``biped_simulation``)
BIPED = "floating_biped.npz"


def registry() -> dict:
    """``{"classes": {name: "module:Class"}, "data": {module: file}}`` for live mode's lazy
    experiments (``widgets/live.py`` ``install_lazy_widgets``): a page imports only the
    modules of the experiments it shows."""
    sys.path.insert(0, str(ROOT))
    from widgets import EXPERIMENTS

    return {"classes": {name: f"{cls.__module__}:{cls.__qualname__}"
                        for name, cls in sorted(EXPERIMENTS.items())},
            "data": {"widgets.floating_biped": BIPED}}


def biped_simulation() -> bytes:
    """E12's trajectories (``widgets.floating_biped.simulate()``: q and qd of its six settings
    at every step) as an .npz, integrated here for the browser (``load_simulation``): about
    1 s of CPU natively, several in Pyodide, on the first picture of chapter 14."""
    import io

    import numpy as np

    from live_archives import zip_put

    sys.path.insert(0, str(ROOT))
    from widgets import floating_biped

    q, qd = floating_biped.simulate()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as npz:     # np.savez's layout, with fixed dates
        for name, array in (("q", q), ("qd", qd)):
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(array), allow_pickle=False)
            zip_put(npz, f"{name}.npy", member.getvalue())
    return out.getvalue()


def fitted_limits() -> list:
    """Every registered experiment's axis fits at its defaults (``widgets.limits``), made here
    natively, for live mode to start with (``widgets/live.py`` ``install_fitted``)."""
    sys.path.insert(0, str(ROOT))
    from widgets import EXPERIMENTS, limits

    for name in sorted(EXPERIMENTS):
        EXPERIMENTS[name]().close()          # draws once: fits every panel at the defaults
    return limits.export_fitted()


#: in sb_packages.zip: every experiment's layout measurements at its defaults (``layouts``),
#: one file per module (``<LAYOUTS>/widgets.arm.json``): a page reads only its experiments'
LAYOUTS = "layouts"


def layouts() -> list:
    """Every registered experiment's layout at its defaults, wide and narrow, in English and in
    Chinese (each with its own figure strings, as a page with it alone translates them),
    recorded here natively (``widgets._narrow.recording_layouts``) for live mode to replay
    (``widgets/live.py`` ``install_layouts``): 70-490 ms of each first picture in Pyodide."""
    sys.path.insert(0, str(ROOT))
    from widgets import EXPERIMENTS
    from widgets._narrow import export_layouts, recording_layouts
    from widgets.figure_text import language
    from zh_strings import figure_table

    with recording_layouts():
        for name in sorted(EXPERIMENTS):
            for table in (None, figure_table(experiment=name)):
                with language(table):
                    for narrow in (False, True):
                        EXPERIMENTS[name](narrow=narrow).close()
    return export_layouts()


def packages_zip(dest: Path, fontlist: Path) -> Path:
    """The project's packages (``*.py`` only), the font list (less the fonts the site archive
    leaves out), the experiments' layouts (:data:`LAYOUTS`) and axis fits at their defaults
    (:data:`FITTED`), as a zip."""
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
        # the Chinese figures' font (widgets.figure_text, 28 KB): live mode on a Chinese page
        for path in sorted((ROOT / "widgets" / "fonts").glob("*.otf")):
            zip_put(zf, f"widgets/fonts/{path.name}", path.read_bytes())
        zip_put(zf, "fontlist-v330.json",
                json.dumps(kept_fonts(json.loads(fontlist.read_text())), indent=2))
        by_module: dict = {}
        for row in layouts():
            by_module.setdefault(row[0].partition(":")[0], []).append(row)
        for module, rows in sorted(by_module.items()):
            zip_put(zf, f"{LAYOUTS}/{module}.json", json.dumps(rows, separators=(",", ":")))
        zip_put(zf, FITTED, json.dumps(fitted_limits()))
        zip_put(zf, REGISTRY, json.dumps(registry()))
        zip_put(zf, BIPED, biped_simulation())
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
