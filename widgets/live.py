"""Live mode of the static book: the experiments run in the reader's browser under Pyodide.

The browser adapter (``book/_live/sb_live.js``) loads Pyodide once per page, unpacks the book's
own ``spatialbook`` and ``widgets`` packages, loads this file as the module ``sb_live`` and
calls it.  Nothing here re-implements physics or drawing: each experiment is the class
registered in ``widgets.EXPERIMENTS``, driven through its usual ``set``/``scene``/blitting path.

What differs from JupyterLab is only the display:

* there is no ipywidgets in Pyodide, so :func:`install_ipywidgets_stand_in` puts a small
  stand-in module in ``sys.modules`` before ``widgets`` is imported (the experiments build
  their controls as usual; the stand-in only holds values and calls observers);
* an update renders the figure (blitted) and leaves the PNG encoding out: the adapter copies
  the Agg canvas's RGBA buffer (:meth:`Live.pixels`) into an HTML canvas with ``ImageData``;
* matplotlib's font list is prebuilt (``fontlist-v330.json`` for matplotlib 3.8.4's bundled
  fonts, relative paths), so importing matplotlib does not rebuild it (about 3 s).

The controls are described to the adapter by :func:`control_specs` (built from each
experiment's ``CONTROLS``); readouts are the same HTML table as the frame players'
(``Experiment.readout_table``) and the numbers of ``Experiment.state()``.  When the player's content
box is narrower than ``WIDE_MIN_SCALE`` (0.96) of the wide figure (where its smallest text would
fall under 12 CSS px: a phone) the adapter asks for the experiment's narrow layout
(``Experiment(narrow=True)``, widgets/_narrow.py): the panels stacked in a 330-px column,
shown 1:1, so its text is as large as on a wide screen.  The figure is drawn at the page's
``devicePixelRatio`` (``Live.create(..., scale)``: the figure's dpi times it), so a 2x screen
gets sharp pixels at the same CSS size, and a 1x screen no more pixels than before.

The module also runs in CPython (with or without ipywidgets), which is how it is tested.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import types
from typing import Any, Callable

FONTLIST = "fontlist-v330.json"   # matplotlib 3.8's font cache file name


# --------------------------------------------------------------- ipywidgets stand-in (Pyodide)


class _Widget:
    """Holds keyword arguments as attributes; ``value`` assignments call the observers."""

    def __init__(self, *children, **kwargs: Any) -> None:
        self.__dict__["_observers"] = []
        if children:
            kwargs.setdefault("children", children[0])
        kwargs.setdefault("value", None)
        self.__dict__.update(kwargs)

    def __setattr__(self, name: str, value: Any) -> None:
        old = self.__dict__.get(name)
        self.__dict__[name] = value
        if name == "value":
            for fn in list(self._observers):
                fn({"name": "value", "old": old, "new": value, "owner": self, "type": "change"})

    def observe(self, fn: Callable, names: Any = None) -> None:
        self._observers.append(fn)

    def close(self) -> None:
        self._observers.clear()

    def _repr_mimebundle_(self, **kwargs):
        return {"text/plain": type(self).__name__}


def _stand_in() -> types.ModuleType:
    mod = types.ModuleType("ipywidgets")
    mod.__doc__ = "Stand-in for ipywidgets under Pyodide (widgets/live.py): values and observers."
    for name in ("Widget", "FloatSlider", "IntSlider", "ToggleButtons", "Play", "Image", "HTML",
                 "HBox", "VBox", "Box", "Label", "Checkbox", "Dropdown", "Output"):
        setattr(mod, name, type(name, (_Widget,), {}))
    mod.Layout = lambda **kw: types.SimpleNamespace(**kw)
    mod.jslink = lambda a, b: _Widget()
    mod.sb_stand_in = True
    return mod


def install_ipywidgets_stand_in(force: bool = False) -> bool:
    """Make ``import ipywidgets`` work where it is not installed; True when the stand-in is used."""
    if not force:
        try:
            import ipywidgets  # noqa: F401
            return False
        except ImportError:
            pass
    sys.modules["ipywidgets"] = _stand_in()
    return True


def install_fontlist(source: str) -> list[str]:
    """Put the prebuilt font list where matplotlib looks first (call before importing it).

    Upstream matplotlib reads ``<MPLCONFIGDIR>/fontlist-v330.json`` (written when absent).
    Pyodide's build of matplotlib reads ``<site-packages>/matplotlib/fontlist.json`` instead,
    and the one its wheel ships is stamped ``_version: 390`` (another matplotlib), so 3.8.4
    rejects it and rebuilds the list on every page load (about 3 s): under Pyodide that file
    is replaced.  matplotlib itself is not imported.  Returns the paths written.
    """
    import importlib.util

    if not os.path.isfile(source):
        return []
    config = os.environ.setdefault("MPLCONFIGDIR", "/tmp/sb-matplotlib")
    os.makedirs(config, exist_ok=True)
    targets = [os.path.join(config, FONTLIST)]
    spec = importlib.util.find_spec("matplotlib")
    replace = None
    if spec is not None and spec.origin and sys.platform == "emscripten":
        replace = os.path.join(os.path.dirname(spec.origin), "fontlist.json")
        targets.append(replace)
    written = []
    for target in targets:
        if target == replace or not os.path.isfile(target):
            shutil.copyfile(source, target)
            written.append(target)
    return written


def install_fitted(source: str) -> int:
    """Start with the axis fits the book's build made natively (``widgets.limits``
    ``export_fitted``; tools/live_packages.py writes them beside the packages): each experiment's
    first picture at its defaults then evaluates no scene to fit its axes.  Returns how many
    rows were read (0 without the file).  With the experiments loaded lazily
    (:func:`install_lazy_widgets`) an experiment's fits are taken when its module is first
    imported (``_experiment_class``), so that reading them imports no other experiment."""
    if not os.path.isfile(source):
        return 0
    with open(source, encoding="utf-8") as f:
        rows = json.load(f)
    if not _LAZY["classes"]:
        from widgets import limits

        return limits.load_fitted(rows)
    for row in rows:
        _LAZY["fitted"].setdefault(row[0].partition(":")[0], []).append(row)
    return len(rows)


def install_layouts(folder: str) -> int:
    """Replay the layouts the book's build recorded (``widgets._narrow`` ``export_layouts``;
    tools/live_packages.py writes them beside the packages, one file per module in
    ``folder``): each experiment's first picture, wide or narrow, in English or Chinese, is
    laid out without measuring its text (70-490 ms of building it in Pyodide), and gets the
    build's layout, the one of the book's frames.  A figure that differs from the recorded one
    is measured as before.  With the experiments loaded lazily (:func:`install_lazy_widgets`)
    a module's file is read when the module is first imported (``_experiment_class``).
    Returns how many files there are (0 without the folder)."""
    if not isinstance(folder, (str, os.PathLike)) or not isinstance(os.fspath(folder), str):
        raise ValueError(f"folder: expected the layouts' folder (a path), got {folder!r:.60}")
    folder = os.fspath(folder)
    if not os.path.isdir(folder):
        return 0
    files = {f[:-5]: os.path.join(folder, f) for f in sorted(os.listdir(folder)) if f.endswith(".json")}
    if _LAZY["classes"]:
        _LAZY["layouts"].update(files)
    else:
        for path in files.values():
            _load_layouts(path)
    return len(files)


def _load_layouts(path: str) -> int:
    from widgets._narrow import load_layouts

    with open(path, encoding="utf-8") as f:
        return load_layouts(json.load(f))


#: live mode's lazy experiments (:func:`install_lazy_widgets`): registry name -> "module:Class",
#: data files by module, axis fits by module (:func:`install_fitted`), layouts' files by module
#: (:func:`install_layouts`), modules done
_LAZY: dict = {"classes": {}, "data": {}, "fitted": {}, "layouts": {}, "done": set()}


def install_lazy_widgets(source: str) -> bool:
    """Load only the experiments a page shows: ``widgets`` becomes its package without running
    its ``__init__`` (which imports all twelve experiments: under Pyodide 0.6-0.9 s of the
    start, the Panda's and the biped's robot models read at import among them), and
    ``Live.create`` imports an experiment's own module when the page first asks for it.
    ``source``: the registry the book's build wrote (tools/live_packages.py ``registry``):
    ``{"classes": {name: "module:Class"}, "data": {module: file}}``; a data file (beside
    ``source``) is given to its module's ``load_simulation`` when the module is imported
    (E12's trajectories, integrated at build time).  Anything else asked of ``widgets``
    (``widgets.EXPERIMENTS``, a class by name) runs the real ``__init__`` then.  Call before
    importing ``widgets``; returns False (nothing changed) without the file."""
    import importlib.util

    if not os.path.isfile(source) or "widgets" in sys.modules:
        return False
    with open(source, encoding="utf-8") as f:
        registry = json.load(f)
    here = os.path.dirname(source)
    _LAZY["classes"] = dict(registry["classes"])
    _LAZY["data"] = {m: os.path.join(here, f) for m, f in registry.get("data", {}).items()}
    spec = importlib.util.find_spec("widgets")
    package = importlib.util.module_from_spec(spec)

    folder = spec.submodule_search_locations[0]

    def whole(attr: str) -> Any:                 # PEP 562: the real __init__, on demand
        if attr.startswith("__") or os.path.exists(os.path.join(folder, attr + ".py")):
            raise AttributeError(attr)           # a submodule: the import system loads it
        del package.__dict__["__getattr__"]
        spec.loader.exec_module(package)
        return getattr(package, attr)

    package.__getattr__ = whole
    sys.modules["widgets"] = package
    return True


def _experiment_class(name: str):
    """The class of registered experiment ``name``: from the lazy registry (its module imported
    now, with its fits and data), else from ``widgets.EXPERIMENTS``."""
    import importlib

    if not isinstance(name, str):                 # a list: "unhashable type" from the dict lookup
        raise ValueError(f"sb_live: name: expected an experiment's registry name (a text), got {name!r:.60}")
    if not _LAZY["classes"]:
        from widgets import EXPERIMENTS

        if name not in EXPERIMENTS:
            raise ValueError(f"sb_live: no experiment {name!r}; known: {sorted(EXPERIMENTS)}")
        return EXPERIMENTS[name]
    if name not in _LAZY["classes"]:
        raise ValueError(f"sb_live: no experiment {name!r}; known: {sorted(_LAZY['classes'])}")
    module_name, _, qualname = _LAZY["classes"][name].partition(":")
    module = importlib.import_module(module_name)
    if module_name not in _LAZY["done"]:
        _LAZY["done"].add(module_name)
        if module_name in _LAZY["data"]:
            import numpy as np

            with np.load(_LAZY["data"][module_name]) as data:
                module.load_simulation(**{k: data[k] for k in data.files})
        rows = _LAZY["fitted"].pop(module_name, [])
        if rows:
            from widgets import limits

            limits.load_fitted(rows)
        if module_name in _LAZY["layouts"]:
            _load_layouts(_LAZY["layouts"].pop(module_name))
    return getattr(module, qualname)


def lighten_matplotlib_import() -> None:
    """Skip the property lists matplotlib writes into each Artist subclass's ``set`` docstring.

    While importing, matplotlib builds ``set.__doc__`` of every Artist subclass from its setters'
    docstrings (``matplotlib.artist.kwdoc``): about 1 s of a 3.6 s import under Pyodide (cProfile,
    loaded machine).  Nobody reads those docstrings in the page, so ``kwdoc`` returns one line.
    Drawing is not affected.  Call after :func:`install_fontlist`, before importing ``widgets``.
    """
    import matplotlib.artist

    matplotlib.artist.kwdoc = lambda artist: "(property list not built in the browser)\n"


# ----------------------------------------------------------------------------------- the API


def control_specs(cls) -> list[dict]:
    """Each control of an experiment class as a plain dict the adapter turns into HTML."""
    from widgets.controls import Choice, Player, Slider

    out = []
    for c in cls.CONTROLS:
        if isinstance(c, Slider):
            out.append({"kind": "slider", "name": c.name, "label": c.label, "min": c.min,
                        "max": c.max, "step": c.step, "value": c.value, "fmt": c.fmt,
                        "hint": c.hint})
        elif isinstance(c, Choice):
            out.append({"kind": "choice", "name": c.name, "label": c.label,
                        "options": [_plain_option(o) for o in c.options],
                        "value": _plain_option(c.value), "hint": c.hint})
        elif isinstance(c, Player):
            out.append({"kind": "player", "name": c.name, "target": c.target, "min": c.min,
                        "max": c.max, "step": c.step, "interval": c.interval})
        else:
            raise ValueError(f"{cls.__name__}: control {c!r} is not a Slider, Choice or Player")
    return out


def _plain_option(o: Any) -> Any:
    return o if isinstance(o, (str, bool, int, float)) or o is None else str(o)


_MISSING = object()


def _json_object(values_json: Any) -> dict:
    """The control values the page sent: a JSON object, else ``ValueError`` naming it (a list
    used to fail with an AttributeError, in ``create`` after the experiment was registered)."""
    try:
        values = json.loads(values_json)
    except (TypeError, ValueError):
        values = _MISSING
    if not isinstance(values, dict):
        raise ValueError(f"values_json: expected a JSON object of control values, got {values_json!r:.60}")
    return values


def _clean(cls, values: dict) -> dict:
    """JSON's values as the controls take them: a choice's option itself (JSON has its plain
    form), a Play's whole number (JSON may send 3.0 for 3); the rest as sent (the specs check
    them: a number in range)."""
    specs = {c.name: c for c in cls.CONTROLS}
    clean = {}
    for k, v in values.items():
        spec = specs.get(k)
        if spec is None:
            raise ValueError(f"sb_live: {cls.__name__} has no control {k!r}")
        if hasattr(spec, "options"):               # a Choice: the option itself
            clean[k] = next((o for o in spec.options if _plain_option(o) == v), v)
        elif type(spec).__name__ == "Player":      # JSON may send 3.0 for 3
            clean[k] = int(v) if isinstance(v, float) and v.is_integer() else v
        else:
            clean[k] = v
    return clean


class Live:
    """The page's experiments: one Python object per "Run live" click, shared interpreter."""

    def __init__(self) -> None:
        self._experiments: dict[int, Any] = {}
        self._readouts: dict[int, tuple] = {}    # handle -> (scene, its readout table)
        self._next = 0
        self._language = None                    # the figures' language (a Chinese page)

    def language(self, table_json: str) -> None:
        """Draw every figure made from now on with its text translated by the table
        (``{english: chinese}``, the Chinese page's figure strings) in the CJK font
        (``widgets/figure_text.py``); once per page, later calls change nothing."""
        if self._language is None:
            from widgets.figure_text import language

            self._language = language(json.loads(table_json))
            self._language.__enter__()

    def controls(self, name: str) -> str:
        """Experiment ``name``'s controls as JSON (:func:`control_specs`), before it is created:
        the adapter puts the frame on screen's values on their step grid with them, so that
        :meth:`create` sets them and returns that frame's readouts (no separate update from the
        page before the first frame is shown)."""
        return json.dumps(control_specs(_experiment_class(name)))

    def create(self, name: str, narrow: bool = False, values_json: str = "{}",
               scale: float = 1.0) -> str:
        """Build experiment ``name`` (``narrow``: laid out for a phone's column) with the
        control values of ``values_json``, drawn at ``scale`` device pixels per CSS pixel (the
        page's devicePixelRatio: a 2x screen gets a figure drawn at twice the dpi, the same
        layout, shown at the same CSS size); return JSON ``{handle, title, width, height,
        scale, narrow, layout, controls, values, frame}`` (width and height in device pixels;
        ``layout``: "replayed" from the build's tape or "measured", :func:`install_layouts`; ``frame``:
        what :meth:`update` returns, for the picture now drawn).  The experiment is laid out at
        its defaults (its layout and axis fits are those of the book's frames) and first drawn
        at the values (``Experiment._for_live``)."""
        cls = _experiment_class(name)
        from widgets.controls import _real, _shown

        if not _real(scale) or not 1.0 <= scale <= 3.0:    # no float(): text, bools, huge ints
            raise ValueError(f"sb_live: scale must be a number from 1 to 3 (device pixels per "
                             f"CSS pixel), got {_shown(scale)}")
        scale = float(scale)
        from widgets._narrow import checked_narrow

        narrow = checked_narrow(narrow)
        # the values are checked before anything is built or registered
        values = _clean(cls, _json_object(values_json or "{}"))
        cls._checked_values(values)
        # laid out at the defaults, drawn once: at the values, at scale (same layout, more px)
        exp = cls._for_live(narrow, values, scale)
        handle = self._next
        self._next += 1
        self._experiments[handle] = exp
        w, h = exp.canvas.get_width_height()
        return json.dumps({"handle": handle, "title": exp.title, "width": w, "height": h,
                           "scale": scale, "narrow": exp.narrow, "layout": exp.layout,
                           "controls": control_specs(cls),
                           "values": {k: _plain_option(v) for k, v in exp.values().items()},
                           "frame": self._report(handle)})

    def close(self, handle: int) -> None:
        """Forget an experiment (the adapter re-creates it in the other layout on a resize)."""
        exp = self._experiments.pop(handle, None)
        self._readouts.pop(handle, None)
        if exp is not None:
            exp.close()

    def update(self, handle: int, values_json: str) -> str:
        """Set controls (JSON object), render (blitted, no PNG); return JSON readouts + state."""
        exp = self._experiment(handle)
        exp._set(_clean(type(exp), _json_object(values_json)), live=False)   # no encoding
        return json.dumps(self._report(handle))

    def _experiment(self, handle: int):
        """The experiment of ``handle``; one never made (or closed): ``ValueError`` naming it."""
        try:
            return self._experiments[handle]
        except (KeyError, TypeError):
            raise ValueError(f"handle: expected one of the open experiments' handles "
                             f"{sorted(self._experiments)}, got {handle!r:.40}") from None

    def _report(self, handle: int) -> dict:
        """The readouts, numbers, disabled controls and notes of the picture drawn now."""
        exp = self._experiments[handle]             # an open handle: update's or create's
        kept = self._readouts.get(handle)
        if kept is None or kept[0] is not exp._scene:  # a view's turn keeps the scene (and table)
            kept = self._readouts[handle] = (exp._scene, exp.readout_table())
        return {"readouts": kept[1], "state": exp.state(),
                "inactive": exp._inactive_of(exp.values()),   # control -> reason (values checked)
                "notes": exp.notes()}                     # control -> reason or hint

    def pixels(self, handle: int):
        """The figure's RGBA pixels (h, w, 4) uint8, rows top to bottom (no copy)."""
        return self._experiment(handle).canvas.buffer_rgba()

    def state(self, handle: int) -> str:
        return json.dumps(self._experiment(handle).state())

    def values(self, handle: int) -> str:
        """The experiment's control values (JSON object), as the adapter's controls show them."""
        return json.dumps({k: _plain_option(v) for k, v in self._experiment(handle).values().items()})


LIVE = Live()
