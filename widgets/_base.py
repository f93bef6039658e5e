"""The shared design of every experiment: controls -> pure scene -> blitted figure + readouts.

An experiment is a subclass of :class:`Experiment` that supplies

- ``CONTROLS``: a tuple of :class:`Slider` / :class:`Choice` specs (name, label, range, default);
- ``scene``: a pure function ``scene(**control_values) -> dict`` that returns every array the
  figure draws and, under the key ``"numbers"``, every number the readout panel shows.  All of
  it is computed by :mod:`spatialbook`; the widget code only draws;
- ``_setup(fig)``: create the axes, the static artists (drawn once into a cached background)
  and the moving artists (registered with :meth:`Experiment._moving`, blitted on each change;
  ``_moving(artist, depends=(...))`` caches an artist that ignores the other controls in a
  second background layer);
- ``_draw(scene)``: copy the scene's arrays into the moving artists; return True only when
  something static changed (then the background is redrawn);
- ``READOUTS``: rows ``(label, key, unit)`` of the HTML readout panel;
- optionally, declared parts that the base class builds, draws and blits itself:
  ``TOP_VIEW`` (:class:`TopView`, the door from above, ``self.top``), ``REFERENCE``
  (:class:`ReferencePoint`, the sliding point with its label, d arrow and velocity arrow) and
  ``BARS`` (:class:`Bars` panels of :class:`Series`, each axis fitted once over every control),
  ``TOP_PARTS`` (:class:`ForceArrow`, :class:`InfiniteLine`, :class:`TorqueArc` on the top view,
  ``self.parts``) and ``CURVES`` (:class:`Curve` panels, a quantity against a control or a
  position, fitted like the bars, ``self.curves``).  An experiment made only of declarations
  needs no ``_setup`` or ``_draw`` (E9, E10).

The figure is a :class:`matplotlib.figure.Figure` on a :class:`FigureCanvasAgg` (never
pyplot), shown as PNG bytes in an :class:`ipywidgets.Image`, so it works with or without
ipympl, in JupyterLab, VS Code and nbconvert alike.  See ``widgets/README.md``.
"""

from __future__ import annotations

import contextlib
import html
import math
import struct
import zlib
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Callable, Sequence

import ipywidgets as W
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .prose import significant

import spatialbook as sb

from ._narrow import enlarge_text, fit_wide_layout, keep_panels_inside, narrow_layout

#: the book's text column on a 1280-px desktop page (CSS px, measured in the built book with
#: headless Chromium): the wide figure is drawn this wide, so it is shown 1:1
WIDE_WIDTH_PX = 660
#: the smallest text of the wide figure (pt): 9 pt is 12.5 px at 100 dpi, >= 12 CSS px 1:1
WIDE_MIN_FONT = 9.0
#: the smallest text on a page (CSS px): the wide figure may shrink to this fraction of its
#: width (JupyterLab's image, the static player) before its smallest text falls below it
MIN_TEXT_PX = 12.0
WIDE_MIN_SCALE = MIN_TEXT_PX / (WIDE_MIN_FONT * 100 / 72)      # 0.96

# Okabe–Ito colours: distinguishable with colour-blindness, legible on the white figure card,
# which stays opaque so the plot reads the same in light and dark notebook themes.
COLORS = {
    "door": "#555555",
    "blue": "#0072B2",
    "orange": "#E69F00",
    "green": "#009E73",
    "vermillion": "#D55E00",
    "sky": "#56B4E9",
    "purple": "#CC79A7",
    "yellow": "#F0E442",
    "grey": "#999999",
    "field": "#8FA7BF",
}

#: the door's width (m): the top views draw it from the hinge O (the origin) to here
DOOR_WIDTH = float(sb.DOOR["width"])


# ----------------------------------------------------------------------------- control specs


@dataclass(frozen=True)
class Slider:
    """A float slider: ``name`` (keyword of ``scene``), ``label`` (with unit), range and default.

    ``hint``: one line for a control whose effect is easy to miss (it moves only some readouts,
    say): its tooltip, and a note under the readouts in JupyterLab and in live mode."""

    name: str
    label: str
    min: float
    max: float
    step: float
    value: float
    fmt: str = ".2f"
    hint: str = ""

    def make(self) -> W.Widget:
        return W.FloatSlider(
            value=self.value, min=self.min, max=self.max, step=self.step,
            description=self.label, readout_format=self.fmt, continuous_update=True,
            style={"description_width": "initial"}, layout=W.Layout(width="340px"),
            tooltip=self.hint or None,
        )

    def sweep(self, n: int = 21) -> list[float]:
        """``n`` values from min to max, ends included, on the slider's step grid."""
        steps = int(round((self.max - self.min) / self.step))
        idx = np.unique(np.round(np.linspace(0, steps, min(n, steps + 1))).astype(int))
        return [float(round(self.min + i * self.step, 10)) for i in idx]


@dataclass(frozen=True)
class Choice:
    """A set of toggle buttons: ``options`` are the values ``scene`` receives; ``hint`` as for
    :class:`Slider`."""

    name: str
    label: str
    options: tuple
    value: Any
    hint: str = ""

    def make(self) -> W.Widget:
        return W.ToggleButtons(
            options=list(self.options), value=self.value, description=self.label,
            style={"description_width": "initial", "button_width": "auto"},
            tooltip=self.hint or None,
        )

    def sweep(self, n: int = 0) -> list:
        return list(self.options)


@dataclass(frozen=True)
class Player:
    """An ipywidgets Play that drives the slider ``target`` (linked in Python, both ways)."""

    name: str
    target: str
    min: int
    max: int
    step: int
    interval: int = 100

    def make(self) -> W.Widget:
        return W.Play(value=self.min, min=self.min, max=self.max, step=self.step,
                      interval=self.interval, description="play", repeat=True)

    def sweep(self, n: int = 21) -> list[int]:
        steps = (self.max - self.min) // self.step
        idx = np.unique(np.round(np.linspace(0, steps, min(n, steps + 1))).astype(int))
        return [int(self.min + i * self.step) for i in idx]


# ------------------------------------------------------------------ declared figure parts


@dataclass(frozen=True)
class TopView:
    """The "door from above" axes (see :func:`door_top_view`), declared once: the base class
    builds it as ``self.top`` (the axes) and ``self.door`` (the door bar) before ``_setup``."""

    rect: tuple
    xlim: tuple
    ylim: tuple
    title: str
    hinge_label: tuple = (-0.1, -0.12)
    door_lw: float = 5.0
    door_alpha: float = 0.85
    door_zorder: float = 1
    com: bool = False                   # mark the door's centre of mass C (orange dot, "C")
    legend: str | None = None           # where the legend of the labelled top-view parts goes
    legend_fontsize: float = 7
    legend_ncols: int = 1


@dataclass(frozen=True)
class Series:
    """One set of bars in a :class:`Bars` panel, one bar per tick, in one colour (or one per tick).

    ``values`` is either a vector key of ``scene()["numbers"]`` (component i at tick i) or one
    entry per tick: a scalar key ``"total_power"`` or a component ``"vdot_P[0]"``.
    """

    label: str
    values: str | tuple
    color: str | tuple


@dataclass(frozen=True)
class Bars:
    """A bar chart declared once; the base class lays it out, registers its bars as moving,
    sets their heights from the scene and offers its rows to the readouts (:meth:`readouts`).

    ``ticks``: the groups along x; ``series``: the bars of each group (side by side); ``total``:
    a vector key drawn as a black mark per group (e.g. the sum of the series).  ``lim``: the
    y axis runs from -lim to lim; ``None`` fits it once to the largest bar (or total) over the
    whole box of the controls in ``span`` (default: every control), rounded up to a round number
    (:func:`nice_limit`).  With every control in the span the axis never moves, so no change
    ever refits it or redraws the background (a refit costs many ``scene`` calls, a redraw
    50-150 ms; the shared tests fail a control outside the span).  The fit is computed once per
    class and kept (:func:`fit_limit`).
    """

    title: str
    ylabel: str
    unit: str
    ticks: tuple
    series: tuple
    rect: tuple = (0.62, 0.12, 0.35, 0.78)
    lim: float | None = None
    span: tuple | None = None           # None: every control (Play excluded)
    samples: int = 9                    # grid values per span control when fitting the axis
    total: str | None = None
    total_label: str = "total"
    total_size: float = 22.0
    labels: tuple | None = None         # readout labels per tick (default: the ticks)
    width: float = 0.8                  # of a group of bars, in tick spacings
    tick_fontsize: float | None = 8
    legend: str | None = "upper right"
    separators: tuple = ()              # x positions of thin vertical lines between groups

    def values(self, numbers: dict) -> np.ndarray:
        """Bar heights, shape (series, ticks), read from the scene's numbers."""
        return np.array([_series_values(s.values, numbers, len(self.ticks)) for s in self.series])

    def readouts(self) -> tuple:
        """Readout rows ``(label, key, unit)``: a vector series gives one row (its label), a
        series of scalar keys one row per tick (the tick's label); then the total."""
        rows = []
        labels = self.labels or self.ticks
        for s in self.series:
            if isinstance(s.values, str):
                rows.append((s.label, s.values, self.unit))
            else:
                rows.extend((l, v, self.unit) for l, v in zip(labels, s.values) if "[" not in v)
        if self.total:
            rows.append((self.total_label, self.total, self.unit))
        return tuple(rows)


def _series_values(values, numbers: dict, n: int) -> np.ndarray:
    if isinstance(values, str):
        return np.asarray(numbers[values], float).reshape(n)
    out = []
    for ref in values:
        key, _, index = ref.partition("[")
        v = numbers[key]
        out.append(float(v[int(index[:-1])] if index else v))
    return np.array(out)


@dataclass(frozen=True)
class ReferencePoint:
    """The sliding reference point on the top view, declared once: a blue diamond at the scene
    key ``key`` (a 3-vector), with an optional ``label`` under it, an optional arrow d from it
    to the point under the scene key ``target`` (d = x_target - x_P), and an optional velocity
    arrow of the numbers' vector ``velocity``, drawn ``scale`` m per m/s."""

    key: str
    label: str = ""
    target: str | None = None
    velocity: str | None = None
    scale: float = 0.15
    color: str = "#0072B2"
    legend: str = ""                    # its entry in the top view's legend (marker and arrow)



# ------------------------------------------------------- declared top-view parts and curves


def lookup(scene: dict, key: str) -> np.ndarray:
    """The value a declared part draws: ``key`` in ``scene["numbers"]``, else in the scene
    itself (``"points/C1"`` walks nested dicts); a tail ``"[2]"`` takes a component and
    ``"[3:5]"`` a slice (``"tau_P[2]"``, ``"total[3:]"``)."""
    name, _, index = key.partition("[")
    numbers = scene.get("numbers", {})
    if name in numbers:
        v = numbers[name]
    else:
        v = scene
        for part in name.split("/"):
            v = v[part]
    v = np.asarray(v, float)
    if not index:
        return v
    lo, colon, hi = index[:-1].partition(":")
    if colon:
        return v[slice(int(lo) if lo else None, int(hi) if hi else None)]
    return v[int(lo)]


def _point(scene: dict, at) -> np.ndarray:
    """A part's anchor: a scene key (``lookup``) or fixed coordinates (m)."""
    return lookup(scene, at) if isinstance(at, str) else np.asarray(at, float)


def clip_line(point, direction, xlim, ylim) -> np.ndarray:
    """The segment of the infinite line through ``point`` along ``direction`` (x, y used) inside
    the box ``xlim`` x ``ylim``: a (2, 2) array of its ends, or shape (0, 2) if the line misses
    the box or the direction is zero (Liang-Barsky)."""
    p, d = np.asarray(point, float)[:2], np.asarray(direction, float)[:2]
    lo, hi = -np.inf, np.inf
    for pi, di, (a, b) in zip(p, d, (sorted(xlim), sorted(ylim))):
        if abs(di) < 1e-15:
            if not a <= pi <= b:
                return np.zeros((0, 2))
            continue
        t0, t1 = sorted(((a - pi) / di, (b - pi) / di))
        lo, hi = max(lo, t0), min(hi, t1)
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
        return np.zeros((0, 2))
    return np.array([p + lo * d, p + hi * d])


@dataclass(frozen=True)
class ForceArrow:
    """A vector drawn as an arrow on the top view, declared once (in ``TOP_PARTS``): the x, y
    components of the scene key ``vector`` (a force in N, or any vector) from the point ``at``
    (a scene key, or fixed coordinates), ``scale`` m per unit ("1 N ↦ 0.06 m").  Moving;
    ``depends``: the controls it depends on (drawn in the cached layer, see ``_moving``).
    Artist for tests: ``exp.parts[name].quiver`` (``name`` defaults to ``vector``)."""

    vector: str
    at: str | tuple
    scale: float = 0.06
    label: str = ""
    color: str = "#D55E00"
    width: float = 0.008
    zorder: float = 6
    depends: tuple | None = None
    name: str = ""

    def build(self, exp: "Experiment", ax) -> SimpleNamespace:
        x = np.zeros(2) if isinstance(self.at, str) else np.asarray(self.at, float)[:2]
        q = exp._moving(ax.quiver([x[0]], [x[1]], [0], [0], color=self.color, angles="xy",
                                  scale_units="xy", scale=1 / self.scale, width=self.width,
                                  zorder=self.zorder), depends=self.depends)
        return SimpleNamespace(quiver=q)

    def draw(self, drawn: SimpleNamespace, scene: dict) -> None:
        v = lookup(scene, self.vector)
        if isinstance(self.at, str):
            drawn.quiver.set_offsets(_point(scene, self.at)[None, :2])
        drawn.quiver.set_UVC(v[:1], v[1:2])

    def handle(self):
        from matplotlib.lines import Line2D
        return Line2D([], [], color=self.color, lw=3, label=self.label)


@dataclass(frozen=True)
class InfiniteLine:
    """A line of action or an axis on the top view, declared once (in ``TOP_PARTS``): the
    infinite line through the scene key ``point`` along the scene key ``direction`` (x, y
    used), clipped to the axes' limits.  Moving (``depends`` as for :class:`ForceArrow`).
    Artist for tests: ``exp.parts[name].line`` (a ``Line2D`` from one edge of the box to the
    other; ``name`` defaults to ``point``)."""

    point: str
    direction: str
    label: str = ""
    color: str = "#D55E00"
    style: str = "--"
    lw: float = 1.0
    zorder: float = 1
    depends: tuple | None = None
    name: str = ""

    def build(self, exp: "Experiment", ax) -> SimpleNamespace:
        line = exp._moving(ax.plot([], [], self.style, color=self.color, lw=self.lw,
                                   zorder=self.zorder)[0], depends=self.depends)
        return SimpleNamespace(line=line, axes=ax)

    def draw(self, drawn: SimpleNamespace, scene: dict) -> None:
        seg = clip_line(lookup(scene, self.point), lookup(scene, self.direction),
                        drawn.axes.get_xlim(), drawn.axes.get_ylim())
        drawn.line.set_data(seg[:, 0], seg[:, 1])

    def handle(self):
        from matplotlib.lines import Line2D
        return Line2D([], [], color=self.color, ls=self.style, lw=max(self.lw, 1.0), label=self.label)


#: a torque arc's sweep at ``TorqueArc.full`` (and beyond): 315 degrees
ARC_SWEEP = 1.75 * np.pi


@dataclass(frozen=True)
class TorqueArc:
    """A torque about z drawn as a circular arc on the top view, declared once (in
    ``TOP_PARTS``): centred on ``at`` (a scene key or fixed coordinates), radius ``radius`` m,
    starting at the angle ``start`` (deg), sweeping ``tau / full`` of 315 degrees
    (counter-clockwise for tau > 0, clipped at +-315), with a dot at its end (hidden at zero
    torque).  ``torque`` is a scene key of tau_z (``"tau_P[2]"``).  Its legend entry carries
    the scale note "(4 N m ↦ 315°)".  Artists for tests: ``exp.parts[name].arc`` and
    ``.head`` (``name`` defaults to ``torque``)."""

    torque: str
    at: str | tuple
    full: float = 4.0
    radius: float = 0.09
    start: float = 90.0
    label: str = ""
    color: str = "#009E73"
    lw: float = 2.0
    zorder: float = 6
    depends: tuple | None = None
    name: str = ""

    def build(self, exp: "Experiment", ax) -> SimpleNamespace:
        arc = exp._moving(ax.plot([], [], "-", color=self.color, lw=self.lw, zorder=self.zorder)[0],
                          depends=self.depends)
        head = exp._moving(ax.plot([], [], "o", color=self.color, ms=4, zorder=self.zorder)[0],
                           depends=self.depends)
        return SimpleNamespace(arc=arc, head=head)

    def sweep(self, tau: float) -> float:
        """The arc's signed sweep (rad) for a torque ``tau``."""
        return float(np.clip(tau / self.full, -1.0, 1.0) * ARC_SWEEP)

    def draw(self, drawn: SimpleNamespace, scene: dict) -> None:
        x = _point(scene, self.at)
        span = self.sweep(float(lookup(scene, self.torque)))
        phi = np.linspace(0.0, span, 40) + np.deg2rad(self.start)
        xs, ys = x[0] + self.radius * np.cos(phi), x[1] + self.radius * np.sin(phi)
        drawn.arc.set_data(xs, ys)
        drawn.head.set_data([xs[-1]], [ys[-1]])
        drawn.head.set_visible(abs(span) > 1e-9)

    def handle(self):
        from matplotlib.lines import Line2D
        return Line2D([], [], color=self.color, lw=self.lw,
                      label=f"{self.label} ({self.full:g} N m ↦ 315°)")


@dataclass(frozen=True)
class Ref:
    """A reference line of a :class:`Curve`: vertical at x = the scene key ``key``
    (``axis="x"``, e.g. where the central axis crosses) or horizontal at y = it (``"y"``,
    e.g. the smallest value)."""

    key: str
    axis: str = "x"
    label: str = ""
    color: str = "#999999"
    style: str = ":"
    lw: float = 1.5

    def __post_init__(self):
        if self.axis not in ("x", "y"):
            raise ValueError(f"Ref: axis must be 'x' (a vertical line) or 'y' (a horizontal one), "
                             f"got {self.axis!r}")


@dataclass(frozen=True)
class Curve:
    """A quantity plotted against a control or a position, declared once (in ``CURVES``).

    ``x`` is a control name (the curve runs over that control's range, the other controls at
    their values: ``y`` is then a scalar scene key, evaluated by ``scene`` at each value of the
    control's grid, at most ``points`` of them) or a scene key holding the positions (a vector;
    ``y`` is then a vector key of the same length).  A dot marks the current value: at the
    control's value, or at (``at``, ``value``), two scalar keys; ``refs`` (:class:`Ref`) add
    moving reference lines.  The y axis is fitted once per class over the controls in ``span``
    exactly like :class:`Bars` (:func:`fit_limit`, ``lim=None``), from 0 if ``positive`` else
    from -lim.  Artists for tests: ``exp.curves[i].axes``, ``.line``, ``.marker`` and
    ``.refs`` (one ``Line2D`` per :class:`Ref`)."""

    title: str
    xlabel: str
    ylabel: str
    y: str
    x: str
    at: str | None = None
    value: str | None = None
    refs: tuple = ()
    rect: tuple = (0.62, 0.12, 0.35, 0.78)
    lim: float | None = None
    span: tuple | None = None           # None: every control (Play excluded)
    samples: int = 9
    positive: bool = False
    xlim: tuple | None = None           # default: the control's range, or the positions' ends
    label: str = ""
    color: str = "#0072B2"
    legend: str | None = "upper right"
    depends: tuple | None = None        # the controls the line depends on (cached layer)
    points: int = 61

    def largest(self, scene: dict) -> float:
        """The largest |y| of this scene (the fit's measure)."""
        big = float(np.max(np.abs(lookup(scene, self.y))))
        for r in self.refs:
            if r.axis == "y":
                big = max(big, abs(float(lookup(scene, r.key))))
        return big


def nice_limit(x: float) -> float:
    """The smallest round number (1, 1.5, 2.5, 4, 6 times a power of ten) at least 8 % above
    ``x``; 1 for x = 0.  Consecutive steps differ by at most 5/3, so ``x`` fills more than half
    of the limit (55 %), and a control that scales the bars continuously crosses about five
    steps per decade, each one background redraw."""
    x = 1.08 * abs(float(x))
    if not math.isfinite(x) or x <= 0:
        return 1.0
    p = 10.0 ** math.floor(math.log10(x))
    return next(m * p for m in (1, 1.5, 2.5, 4, 6, 10) if m * p >= x * (1 - 1e-12))


#: most scene evaluations of one axis fit before sampling replaces the whole grid
FIT_BUDGET = 96
_FITTED: dict = {}                      # (class, panel, other controls) -> fitted limit


def _largest_bar(p: "Bars", numbers: dict) -> float:
    big = float(np.max(np.abs(p.values(numbers))))
    return max(big, float(np.max(np.abs(numbers[p.total])))) if p.total else big


def _largest(p, scene: dict) -> float:
    """The measure an axis is fitted to: the largest bar (or total) of a :class:`Bars`, the
    largest |y| of a :class:`Curve` (its ``largest``)."""
    return p.largest(scene) if hasattr(p, "largest") else _largest_bar(p, scene["numbers"])


def fit_limit(scene: Callable[..., dict], p: "Bars", specs: dict, values: dict,
              budget: int | None = None) -> float:
    """``nice_limit`` of the largest bar of panel ``p`` (or the largest |y| of a :class:`Curve`) over the box of the controls ``specs``
    (name -> spec), the others at ``values``: the whole grid of ``p.samples`` values per control
    if it has at most ``budget`` points (default :data:`FIT_BUDGET`); otherwise ``budget``
    seeded random grid points (each coordinate an end with probability 1/2), then a coordinate-
    wise ascent from the largest (each control's grid scanned, the others held, until nothing
    grows).  Deterministic.  ``nice_limit`` leaves 8 % head room over what the fit finds.

    >>> from widgets import PowerSplit
    >>> fit_limit(PowerSplit.scene, PowerSplit.BARS[0],
    ...           {c.name: c for c in PowerSplit.CONTROLS}, {})
    15.0
    """
    budget = FIT_BUDGET if budget is None else budget
    names = list(specs)
    grids = [list(specs[c].sweep(p.samples)) for c in names]
    seen: dict = {}

    def largest(idx: tuple) -> float:
        if idx not in seen:
            v = {**values, **{c: grids[j][k] for j, (c, k) in enumerate(zip(names, idx))}}
            seen[idx] = _largest(p, scene(**v))
        return seen[idx]

    if math.prod(len(g) for g in grids) <= budget:
        for idx in np.ndindex(*(len(g) for g in grids)):
            largest(tuple(int(k) for k in idx))
        return nice_limit(max(seen.values(), default=0.0))
    rng = np.random.default_rng(0)
    for _ in range(budget):
        idx = tuple(int(rng.choice([0, len(g) - 1])) if rng.random() < 0.5
                    else int(rng.integers(len(g))) for g in grids)
        largest(idx)
    best = max(seen, key=seen.get)
    grown = True
    while grown:
        grown = False
        for j, g in enumerate(grids):
            for k in range(len(g)):
                idx = best[:j] + (k,) + best[j + 1:]
                if largest(idx) > seen[best]:
                    best, grown = idx, True
    return nice_limit(seen[best])


# ------------------------------------------------------------------------- plain-number helpers


def plain(x: Any) -> Any:
    """Convert numpy scalars/arrays (and nested containers) to JSON-able Python floats/lists."""
    if isinstance(x, dict):
        return {str(k): plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, (str, bool)) or x is None:
        return x
    a = np.asarray(x, dtype=float)
    a = np.where(a == 0.0, 0.0, a)          # no "-0.0" in readouts
    return a.tolist() if a.ndim else float(a)


def fmt_number(x: Any, digits: int = 3) -> str:
    """Readout text of a float (``0.853``) or a vector (``(0.00, 0.80, 0.00)``); strings escaped."""
    if isinstance(x, str):
        return html.escape(x)
    a = np.asarray(x, dtype=float)
    if a.ndim == 0:
        v = significant(float(a))     # last-bit noise must not flip a rounding (prose.py)
        if not math.isfinite(v):
            return "—"
        if abs(v) < 0.5 * 10.0 ** -digits:
            v = 0.0                                   # never print "-0.000"
        return f"{v:.{digits}f}"
    vdigits = max(digits - 1, 1)                       # vectors one digit shorter (narrow panel)
    return "(" + ", ".join(fmt_number(v, vdigits) for v in a.ravel()) + ")"


# ------------------------------------------------------------------------------ the base class


class Experiment:
    """Base of every experiment: persistent figure, blitting, readouts, frames.

    Attributes a user touches: ``controls`` (dict of ipywidgets), ``widget`` (the displayable
    container), ``state()``, ``set(**values)``, ``main_control``, ``frames()``,
    ``static_player()``.  Constructing an experiment displays nothing.
    """

    name: str = ""
    title: str = ""
    alt: str = ""
    CONTROLS: tuple = ()
    READOUTS: tuple = ()                     # (label, key, unit)
    TOP_VIEW: TopView | None = None          # declared parts, built and drawn by the base class
    BARS: tuple = ()                         # Bars panels
    REFERENCE: ReferencePoint | None = None  # on the top view
    TOP_PARTS: tuple = ()                    # ForceArrow, InfiniteLine, TorqueArc on the top view
    CURVES: tuple = ()                       # Curve panels
    main_control: str = ""
    narrow: bool = False                     # phone layout (set per instance, see __init__)
    scene: Callable[..., dict]               # set by subclasses as staticmethod(module.scene)
    figsize = (WIDE_WIDTH_PX / 100, 3.4)     # 660 x 340 px: the book's column, 1:1
    dpi = 100
    live_compress_level = 1                  # fast PNG for live updates
    frame_compress_level = 6                 # full-quality PNG for frames
    redraws = 0                              # full background redraws so far (per instance)

    def __init__(self, *, narrow: bool = False, **values: Any) -> None:
        if not isinstance(narrow, bool):
            raise ValueError(f"{type(self).__name__}: narrow must be True or False, got {narrow!r}")
        #: laid out for a phone's column (panels stacked, see widgets/_narrow.py)
        self.narrow = narrow
        self._specs = {c.name: c for c in self.CONTROLS}
        self.controls: dict[str, W.Widget] = {c.name: c.make() for c in self.CONTROLS}
        self._players = {c.name: c for c in self.CONTROLS if isinstance(c, Player)}
        for k, v in values.items():
            self._control(k).value = v

        self.figure = Figure(figsize=self.figsize, dpi=self.dpi, facecolor="white")
        self.canvas = FigureCanvasAgg(self.figure)
        self._moving_artists: list = []
        self._layer_artists: list = []       # moving, but only when their controls change
        self._top_artists: list = []         # static, above everything: cached RGBA overlay
        self._top_image = None
        self._layer_deps: set[str] = set()
        self._layer_background = None
        self._layer_key = None
        self._background = None
        self._scene: dict = {}
        self._suspended = False
        self._build(self.figure)
        self._move_artists()                            # lay out what the first scene shows
        fit_wide_layout(self.figure, self.canvas)       # labels inside, panels apart
        if narrow:
            self._narrow_panels = narrow_layout(self.figure, self.canvas)

        w, h = self.canvas.get_width_height()
        # the plot shrinks (aspect kept) to leave room for the readouts on narrow notebooks
        self.image = W.Image(format="png", layout=W.Layout(
            width="100%", max_width=f"{w}px", min_width=f"{math.ceil(w * WIDE_MIN_SCALE)}px",
            height="auto",
            flex="1 1 0%", object_fit="contain"))
        # no ``tooltip`` on the Image: the JupyterLab widget manager 8.1 fails to create an
        # ImageView that has one (TypeError in updateTooltip); the HTML panel carries the text
        self.readout = W.HTML(layout=W.Layout(flex="0 0 auto", min_width="260px",
                                              margin="0 0 0 12px"))
        self.widget = self._layout()

        # a Play and its slider are linked here in Python, not by a jslink in the browser: a
        # jslink answers every slider value the kernel sends with a Play value of its own, which
        # comes back after the kernel's next ``set`` and moves the slider back (the widget and the
        # kernel then disagree after Run All)
        self._linking = False
        for name, spec in self._players.items():
            self.controls[name].observe(self._on_play(spec.target), names="value")
            self.controls[spec.target].observe(self._on_target(name), names="value")
        for name, c in self.controls.items():
            if name not in self._players:
                c.observe(self._on_change, names="value")
        self.update()

    # ------------------------------------------------------------------ subclass hooks
    def _setup(self, fig: Figure) -> None:
        """Create the experiment's own axes and artists (the declared parts are built by
        :meth:`_build`: ``TOP_VIEW`` before this hook, ``BARS`` and ``REFERENCE`` after it)."""

    def _draw(self, scene: dict) -> bool:
        """Move the experiment's own artists; return True if something static changed."""
        return False

    def inactive(self, values: dict) -> dict[str, str]:
        """Controls that change nothing at ``values`` (all controls' values), each with a
        one-line reason: shown disabled, the reason as its tooltip and under the readouts.
        The shared tests check that a control changes what is seen exactly when it is not here.

        >>> from widgets import Probes
        >>> Probes(path="fixed").inactive({"path": "fixed", "nu": 0.0, "omega": 2.0, "u": 0.5})
        {'u': 'moves only the line probe: choose probe path = line'}
        """
        return {}

    # ------------------------------------------------------------------ declared parts
    def _build(self, fig: Figure) -> None:
        """Build the declared top view and its parts (``TOP_PARTS``, as ``self.parts``), the
        experiment's own artists, the bar panels, the curves, the reference point and the top
        view's legend, in that order."""
        self._bar_parts: list = []
        self.parts: dict[str, SimpleNamespace] = {}
        self.curves: list[SimpleNamespace] = []
        self.reference = None
        self.top_legend: list = []           # extra legend handles an experiment adds in _setup
        if self.TOP_VIEW is not None:
            t = self.TOP_VIEW
            self.top, self.door = door_top_view(
                fig, t.rect, t.xlim, t.ylim, t.title, hinge_label=t.hinge_label, door_lw=t.door_lw,
                door_alpha=t.door_alpha, door_zorder=t.door_zorder)
            if t.com:
                x_C = float(sb.DOOR["com"][0])
                self.top.plot([x_C], [0.0], "o", color=COLORS["orange"], ms=8, zorder=4)
                self.top.annotate("C", (x_C, 0.0), (x_C - 0.02, 0.07), fontsize=9)
            for part in self.TOP_PARTS:
                if not hasattr(part, "build"):
                    raise ValueError(f"{type(self).__name__}.TOP_PARTS: expected ForceArrow, "
                                     f"InfiniteLine or TorqueArc parts, got {part!r}")
                name = part.name or getattr(part, "vector", None) or getattr(part, "point", None) \
                    or part.torque
                if name in self.parts:
                    raise ValueError(f"{type(self).__name__}.TOP_PARTS: two parts named {name!r}; "
                                     f"give one a name=")
                self.parts[name] = part.build(self, self.top)
        elif self.TOP_PARTS:
            raise ValueError(f"{type(self).__name__}.TOP_PARTS: the parts are drawn on the top "
                             f"view; declare a TOP_VIEW too")
        self._setup(fig)
        for panel in self.BARS:
            self._bar_parts.append(self._setup_bars(fig, panel))
        for curve in self.CURVES:
            self.curves.append(self._setup_curve(fig, curve))
        if self.REFERENCE is not None:
            self._setup_reference(self.REFERENCE)
        t = self.TOP_VIEW
        if t is not None and t.legend:
            handles = [*self.top_legend, *(p.handle() for p in self.TOP_PARTS if p.label)]
            r = self.REFERENCE
            if r is not None and r.legend:
                from matplotlib.lines import Line2D
                handles.append(Line2D([], [], color=r.color, marker="D", lw=3, label=r.legend))
            self._on_top(self.top.legend(handles=handles, loc=t.legend, fontsize=t.legend_fontsize,
                                         ncols=t.legend_ncols, framealpha=0.9))
        enlarge_text(fig, WIDE_MIN_FONT)        # >= 12 CSS px where the figure is shown 1:1

    def _setup_bars(self, fig: Figure, p: Bars) -> tuple:
        ax = fig.add_axes(p.rect)
        xs = np.arange(len(p.ticks))
        k = len(p.series)
        step = p.width / k
        groups = []
        for j, s in enumerate(p.series):
            color = list(s.color) if isinstance(s.color, tuple) else s.color
            group = ax.bar(xs + (j - (k - 1) / 2) * step, np.zeros(len(xs)),
                           step - (0.02 if k > 1 else 0.0), color=color, label=s.label or None)
            for b in group:
                self._moving(b)
            groups.append(group)
        total = None
        if p.total:
            total = self._moving(ax.plot(xs, np.zeros(len(xs)), "_", color="black", ms=p.total_size,
                                         mew=2.5, label=p.total_label, zorder=5)[0])
        ax.set_xticks(xs, list(p.ticks), fontsize=p.tick_fontsize)
        lim = p.lim if p.lim is not None else 1.0
        ax.set_ylim(-lim, lim)
        ax.set_ylabel(p.ylabel)
        ax.axhline(0, color="black", lw=0.8)
        for x in p.separators:
            ax.axvline(x, color="grey", lw=0.8)
        ax.grid(True, axis="y", alpha=0.3)
        if p.legend and any(s.label for s in p.series):
            from matplotlib.lines import Line2D
            handles = [g for g, s in zip(groups, p.series) if s.label]
            if total is not None:                    # a short line, not the wide group mark
                handles.append(Line2D([], [], color="black", lw=2.5, label=p.total_label))
            ax.legend(handles=handles, loc=p.legend, fontsize=8)
        ax.set_title(p.title, fontsize=10)
        return ax, groups, total

    def _setup_reference(self, r: ReferencePoint) -> None:
        """``self.reference``: ``.marker`` (Line2D), ``.label`` (Text), ``.arrow`` (the d
        annotation: ``.xy`` its head at the target, ``get_position()`` its tail at P) and
        ``.velocity`` (Quiver); the last three None unless declared."""
        ax = self.top
        ref = self.reference = SimpleNamespace(label=None, arrow=None, velocity=None)
        ref.marker = self._moving(ax.plot([], [], "D", color=r.color, ms=8, zorder=7)[0])
        if r.label:
            ref.label = self._moving(ax.text(0, -0.13, r.label, fontsize=9, ha="center",
                                             color=r.color))
        if r.target:
            ref.arrow = self._moving(ax.annotate(
                "", (0, 0), (0, 0), zorder=5, arrowprops=dict(arrowstyle="->", color=r.color, lw=1.5)))
        if r.velocity:
            ref.velocity = self._moving(ax.quiver(
                [0], [0], [0], [0], color=r.color, angles="xy", scale_units="xy", scale=1 / r.scale,
                width=0.008, zorder=6))
        # the private names of earlier branches
        self._ref_marker, self._ref_label = ref.marker, ref.label
        self._ref_arrow, self._ref_velocity = ref.arrow, ref.velocity

    def _setup_curve(self, fig: Figure, c: Curve) -> SimpleNamespace:
        spec = self._specs.get(c.x)
        if spec is None and (c.at is None or c.value is None):
            raise ValueError(f"{type(self).__name__}.CURVES: x={c.x!r} is not a control, so the "
                             f"curve is drawn over positions and needs at= and value= (the "
                             f"marker's scene keys)")
        ax = fig.add_axes(c.rect)
        deps = c.depends
        if spec is not None and deps is None:           # the curve ignores its own control
            deps = tuple(k for k in self._specs if k != c.x and k not in self._players_of())
        line = self._moving(ax.plot([], [], "-", color=c.color, lw=2, zorder=3,
                                    label=c.label or None)[0], depends=deps)
        marker = self._moving(ax.plot([], [], "o", color=c.color, mec="black", ms=7, zorder=5)[0])
        refs = []
        for r in c.refs:
            make = ax.axvline if r.axis == "x" else ax.axhline
            refs.append(self._moving(make(0.0, color=r.color, ls=r.style, lw=r.lw, zorder=2,
                                          label=r.label or None)))
        if c.xlim is not None:
            ax.set_xlim(*c.xlim)
        elif spec is not None:
            ax.set_xlim(spec.min, spec.max)
        lim = c.lim if c.lim is not None else 1.0
        ax.set_ylim(0.0 if c.positive else -lim, lim)
        ax.set_xlabel(c.xlabel)
        ax.set_ylabel(c.ylabel)
        ax.set_title(c.title, fontsize=10)
        ax.grid(True, alpha=0.3)
        if not c.positive:
            ax.axhline(0, color="black", lw=0.8)
        if c.legend and (c.label or any(r.label for r in c.refs)):
            self._on_top(ax.legend(loc=c.legend, fontsize=8, framealpha=0.9))
        return SimpleNamespace(axes=ax, line=line, marker=marker, refs=refs, cache={},
                               xlim_set=c.xlim is not None or spec is not None)

    def _players_of(self) -> set:
        return {c.name for c in self.CONTROLS if isinstance(c, Player)}

    def _draw_curve(self, j: int, c: Curve, d: SimpleNamespace, scene: dict) -> bool:
        values = self._drawn_values
        spec = self._specs.get(c.x)
        if spec is not None:                            # y(control), the others held
            key = tuple((k, repr(v)) for k, v in sorted(values.items()) if k != c.x)
            if key not in d.cache:
                xs = spec.sweep(c.points)
                ys = [float(lookup(type(self).scene(**{**values, c.x: x}), c.y)) for x in xs]
                d.cache.clear()                         # one setting of the others is kept
                d.cache[key] = (np.asarray(xs, float), np.asarray(ys))
            xs, ys = d.cache[key]
            mx, my = float(values[c.x]), float(lookup(scene, c.y))
        else:
            xs, ys = lookup(scene, c.x), lookup(scene, c.y)
            mx, my = float(lookup(scene, c.at)), float(lookup(scene, c.value))
        d.line.set_data(xs, ys)
        d.marker.set_data([mx], [my])
        for r, line in zip(c.refs, d.refs):
            v = float(lookup(scene, r.key))
            (line.set_xdata if r.axis == "x" else line.set_ydata)([v, v])
        full = False
        if not d.xlim_set:                              # positions: their ends, once
            d.axes.set_xlim(float(np.min(xs)), float(np.max(xs)))
            d.xlim_set = full = True
        if c.lim is None:
            lim = self._fitted_limit(("curve", j), c)
            if lim != d.axes.get_ylim()[1]:
                d.axes.set_ylim(0.0 if c.positive else -lim, lim)
                full = True
        return full

    def _draw_declared(self, scene: dict) -> bool:
        """Heights of the declared bars, the curves, the top-view parts, the reference marker;
        True if an axis was rescaled."""
        numbers = scene["numbers"]
        full = False
        for i, (p, (ax, groups, total)) in enumerate(zip(self.BARS, self._bar_parts)):
            for group, heights in zip(groups, p.values(numbers)):
                for b, h in zip(group, heights):
                    b.set_height(float(h))
            if total is not None:
                total.set_ydata(np.asarray(numbers[p.total], float))
            if p.lim is None:
                lim = self._fitted_limit(i, p)
                if lim != ax.get_ylim()[1]:
                    ax.set_ylim(-lim, lim)
                    full = True
        for j, (c, d) in enumerate(zip(self.CURVES, self.curves)):
            full = self._draw_curve(j, c, d, scene) or full
        for part, drawn in zip(self.TOP_PARTS, self.parts.values()):
            part.draw(drawn, scene)
        r, ref = self.REFERENCE, self.reference
        if r is not None:
            x = np.asarray(scene[r.key], float)
            ref.marker.set_data([x[0]], [x[1]])
            if ref.label is not None:
                ref.label.set_x(x[0])
            if ref.arrow is not None:
                t = np.asarray(scene[r.target], float)
                ref.arrow.xy = (t[0], t[1])
                ref.arrow.set_position((x[0], x[1]))
            if ref.velocity is not None:
                v = np.asarray(numbers[r.velocity], float)
                ref.velocity.set_offsets(x[None, :2])
                ref.velocity.set_UVC(v[:1], v[1:2])
        return full

    def fit_span(self, p: Bars | Curve) -> tuple:
        """The controls a panel's axis is fitted over: ``p.span``, or every control (no Play)."""
        return tuple(p.span) if p.span else tuple(
            c.name for c in self.CONTROLS if not isinstance(c, Player))

    def _fitted_limit(self, i: int, p: Bars) -> float:
        """``nice_limit`` of the largest bar (or total) over the box of the controls in the
        panel's span (:meth:`fit_span`) at the current values of any others.  Kept per class and
        setting of those others: with every control in the span, one fit per class, ever."""
        values = self._scene_values()
        span = self.fit_span(p)
        key = (type(self), i, tuple((k, repr(v)) for k, v in sorted(values.items()) if k not in span))
        lim = _FITTED.get(key)
        if lim is None:
            lim = _FITTED[key] = fit_limit(type(self).scene, p, {c: self._specs[c] for c in span},
                                           values)
        return lim

    def _scene_values(self) -> dict:
        return dict(self._drawn_values)

    def bar_heights(self, panel: int = 0) -> np.ndarray:
        """The drawn heights of a declared bar panel, shape (series, ticks) (for tests)."""
        return np.array([[b.get_height() for b in group] for group in self._bar_parts[panel][1]])

    def bar_total(self, panel: int = 0) -> np.ndarray | None:
        """The drawn total marks of a declared bar panel, or None."""
        total = self._bar_parts[panel][2]
        return None if total is None else np.asarray(total.get_ydata(), float)

    def bar_axes(self, panel: int = 0):
        """The axes of a declared bar panel."""
        return self._bar_parts[panel][0]

    # ------------------------------------------------------------------ public API
    def values(self) -> dict[str, Any]:
        """Current control values that ``scene`` takes (Play widgets excluded)."""
        return {k: c.value for k, c in self.controls.items() if k not in self._players}

    def set(self, **values: Any) -> None:
        """Set one or more controls; the figure and readouts update once."""
        self._set(values, live=True)

    def _set(self, values: dict, live: bool) -> None:
        self._suspended = True
        try:
            for k, v in values.items():
                _assign(self._control(k), v)
        finally:
            self._suspended = False
        self.update(live=live)

    def state(self) -> dict[str, Any]:
        """The numbers the experiment currently shows (controls + readouts), as plain floats/lists."""
        return plain({**self.values(), **self._scene["numbers"]})

    def update(self, live: bool = True) -> None:
        """Recompute the scene from the controls, redraw moving artists, refresh the readouts
        (``live=False``: render only, leave the widget's image and panel alone)."""
        self._render(self._move_artists())
        self._show_inactive()
        if live:
            self.image.value = self._encode(self.live_compress_level)
            self.readout.value = self.readout_html()

    def _show_inactive(self) -> None:
        """Disable the controls that do nothing now (:meth:`inactive`), with their reason."""
        self._inactive = off = self.inactive(self._drawn_values)
        for name, c in self.controls.items():
            if getattr(c, "disabled", False) != (name in off):
                c.disabled = name in off
                c.tooltip = off.get(name, getattr(self._specs[name], "hint", "") or None)

    def _move_artists(self) -> bool:
        """Scene of the current controls into the artists; True if something static changed."""
        self._drawn_values = self.values()
        self._scene = self.scene(**self._drawn_values)
        full = self._draw(self._scene)
        return self._draw_declared(self._scene) or full

    def notes(self) -> dict[str, str]:
        """Control name -> the one line shown under the readouts: why the control is disabled
        now (:meth:`inactive`), else its declared ``hint``.

        >>> from widgets import SpatialInertia
        >>> SpatialInertia().notes()["omega"].startswith("moves only the twist")
        True
        """
        off = getattr(self, "_inactive", {})
        return {name: off.get(name) or getattr(spec, "hint", "")
                for name, spec in self._specs.items()
                if off.get(name) or getattr(spec, "hint", "")}

    def readout_html(self, scene: dict | None = None) -> str:
        """The readout panel as HTML (colours inherited, so it suits any theme)."""
        notes = "".join(f"<div style='font-size:smaller;opacity:0.8'>"
                        f"{html.escape(self._specs[k].label)}: {html.escape(why)}</div>"
                        for k, why in self.notes().items())
        return (f"<div role='status' aria-label='{html.escape(self.title)} readouts'>"
                f"<b>{html.escape(self.title)}</b>{self.readout_table(scene)}{notes}</div>")

    def readout_table(self, scene: dict | None = None) -> str:
        """The readout rows as an HTML table (also shown under each static frame)."""
        nums = (scene or self._scene)["numbers"]
        rows = "".join(
            f"<tr><td style='padding:1px 8px 1px 0'>{label}</td>"
            f"<td style='font-family:monospace;text-align:right'>{fmt_number(nums[key])}</td>"
            f"<td style='padding-left:4px'>{unit}</td></tr>"
            for label, key, unit in self.READOUTS
        )
        return f"<table style='border-collapse:collapse'>{rows}</table>"

    def readout_text(self, scene: dict | None = None) -> str:
        """A short one-line version of the readouts (for static frames)."""
        nums = (scene or self._scene)["numbers"]
        return "; ".join(f"{label} = {fmt_number(nums[key])} {unit}".strip()
                         for label, key, unit in self.READOUTS[:4])

    def sweep_values(self, control: str | None = None, n: int = 17) -> list:
        """Default values of a sweep: the control's whole range, ends included."""
        return self._specs[control or self.main_control].sweep(n)

    def frames(self, control: str | None = None, values: Sequence | None = None,
               narrow: bool = False) -> list[bytes]:
        """Full-quality PNG bytes, one per value of ``control`` (default: the main control);
        the control is restored afterwards.  ``narrow=True``: the same frames in the phone
        layout, drawn by a narrow twin at this experiment's current values."""
        if narrow:
            twin = type(self)(narrow=True, **self.values())
            try:
                return twin.frames(control, values)
            finally:
                twin.close()
        return [png for png, _ in self._sweep(control, values)]

    def static_player(self, control: str | None = None, values: Sequence | None = None):
        """Frames of a sweep under a plain-JS slider (no kernel needed), with per-frame readouts.

        Uses ``widgets.static_html.frame_player``.  A choice control is swept over its options;
        the slider then shows the option's index and the label lists the options.  The same
        sweep is also drawn in the narrow layout (``narrow=True``), which the player shows on a
        phone; the player records every control's value, where live mode starts.
        """
        from .static_html import frame_player

        control = control or self.main_control
        spec = self._specs[control]
        values = list(self.sweep_values(control) if values is None else values)
        pairs = self._sweep(control, values)
        settings = plain(self.values())
        narrow = self.frames(control, values, narrow=True)   # the same frames for a phone
        label = getattr(spec, "label", control)
        readouts = [r for _, r in pairs]
        if isinstance(spec, Choice):
            label = f"{label} ({', '.join(f'{i} = {o}' for i, o in enumerate(spec.options))})"
            readouts = [f"{v}: {r}" for v, r in zip(values, readouts)]
            values = [float(spec.options.index(v)) for v in values]
        return frame_player([p for p, _ in pairs], [float(v) for v in values], label,
                            readouts=readouts, alt=self.alt or self.title, narrow_frames=narrow,
                            settings=settings, control=control, min_scale=WIDE_MIN_SCALE)

    @classmethod
    def draw_on(cls, fig: Figure, **values: Any) -> "Experiment":
        """Draw the scene for ``values`` once on a given figure, with no widgets and no
        blitting (used by the naive baseline of the benchmark and for one-off pictures)."""
        drawer = cls.__new__(cls)
        drawer._moving_artists, drawer._layer_artists, drawer._layer_deps = [], [], set()
        drawer._top_artists = []
        drawer._specs = {c.name: c for c in cls.CONTROLS}
        cls._build(drawer, fig)
        defaults = {c.name: c.value for c in cls.CONTROLS if not isinstance(c, Player)}
        drawer._drawn_values = {**defaults, **values}
        drawer._scene = cls.scene(**drawer._drawn_values)
        cls._draw(drawer, drawer._scene)
        cls._draw_declared(drawer, drawer._scene)
        for a in (*drawer._moving_artists, *drawer._layer_artists, *drawer._top_artists):
            a.set_animated(False)
        return drawer

    # ------------------------------------------------------------------ internals
    def _control(self, name: str) -> W.Widget:
        try:
            return self.controls[name]
        except KeyError:
            raise KeyError(f"{type(self).__name__} has no control {name!r}; "
                           f"controls: {sorted(self.controls)}") from None

    def _on_change(self, change: dict) -> None:
        if not self._suspended:
            self.update()

    def _on_play(self, target: str) -> Callable[[dict], None]:
        def follow(change: dict) -> None:      # the Play moves its slider
            if not self._linking:
                self._linking = True
                try:
                    _assign(self.controls[target], change["new"])
                finally:
                    self._linking = False
        return follow

    def _on_target(self, player: str) -> Callable[[dict], None]:
        def mirror(change: dict) -> None:      # a moved slider: the Play resumes from there
            spec = self._players[player]
            if not self._linking:
                self._linking = True
                try:
                    self.controls[player].value = int(min(max(round(change["new"]), spec.min),
                                                          spec.max))
                finally:
                    self._linking = False
        return mirror

    def _sweep(self, control: str | None, values: Sequence | None) -> list[tuple[bytes, str]]:
        control = control or self.main_control
        values = self.sweep_values(control) if values is None else values
        self._control(control)
        # restore every control afterwards (a Play drives its slider): players first
        old = {k: c.value for k, c in self.controls.items() if k in self._players}
        old.update({k: c.value for k, c in self.controls.items() if k not in self._players})
        out = []
        with contextlib.ExitStack() as held:   # the browser sees only the restored values
            for c in self.controls.values():
                if hasattr(c, "hold_sync"):
                    held.enter_context(c.hold_sync())
            try:
                for v in values:
                    self._set({control: v}, live=False)
                    out.append((self._encode(self.frame_compress_level), self.readout_table()))
            finally:
                self._set(old, live=True)
        return out

    def _on_top(self, artist):
        """Register a STATIC artist that must appear above the moving ones (legends, labels
        over a heat map): rendered once into a transparent RGBA overlay, composited last
        (~0.1 ms instead of ~0.6 ms per text)."""
        artist.set_animated(True)
        self._top_artists.append(artist)
        return artist

    def _moving(self, artist, depends: Sequence[str] | None = None):
        """Register a moving artist: excluded from the cached background, blitted each update.

        ``depends``: the controls the artist's data depends on.  Such an artist is drawn into
        a second cached layer that is rebuilt only when one of those controls changes, so a
        sweep of another control does not pay for it (e.g. E1's field arrows during a play).
        """
        artist.set_animated(True)
        if depends is None:
            self._moving_artists.append(artist)
        else:
            self._layer_artists.append(artist)
            self._layer_deps.update(depends)
        return artist

    def invalidate(self) -> None:
        """Force a full redraw of the background at the next update."""
        self._background = None

    def _render(self, full: bool = False) -> None:
        renderer = None
        if full or self._background is None:
            if self.narrow:                          # longer tick labels after a rescale
                keep_panels_inside(self.figure, self.canvas.get_renderer(), self._narrow_panels)
            self.canvas.draw()                       # static artists only (moving are animated)
            self.redraws += 1
            self._background = self.canvas.copy_from_bbox(self.figure.bbox)
            self._layer_key = None
            fresh = True
            if self._top_artists:                    # transparent overlay of on-top artists
                r = self.canvas.get_renderer()
                r.clear()
                self._draw_sorted(self._top_artists, r)
                self._top_image = np.asarray(self.canvas.buffer_rgba())[::-1].copy()
                self.canvas.restore_region(self._background)
        else:
            fresh = False
        if self._layer_artists:
            values = self.values()
            key = tuple(repr(values[k]) for k in sorted(self._layer_deps))
            if key != self._layer_key:
                if not fresh:
                    self.canvas.restore_region(self._background)
                renderer = self.canvas.get_renderer()
                self._draw_sorted(self._layer_artists, renderer)
                self._layer_background = self.canvas.copy_from_bbox(self.figure.bbox)
                self._layer_key = key
            else:
                self.canvas.restore_region(self._layer_background)
        elif not fresh:
            self.canvas.restore_region(self._background)
        renderer = renderer or self.canvas.get_renderer()
        self._draw_sorted(self._moving_artists, renderer)
        if self._top_image is not None:
            gc = renderer.new_gc()
            renderer.draw_image(gc, 0, 0, self._top_image)
            gc.restore()

    @staticmethod
    def _draw_sorted(artists, renderer) -> None:
        for a in sorted(artists, key=lambda a: a.get_zorder()):
            if a.get_visible():
                a.draw(renderer)

    def _encode(self, level: int) -> bytes:
        # live images keep the opaque alpha (fastest); stored frames are RGB (smaller)
        return encode_png(self.canvas.buffer_rgba(), level, alpha=level <= self.live_compress_level)

    def _layout(self) -> W.Widget:
        rows, row = [], []
        for name, c in self.controls.items():
            row.append(c)
            if len(row) == 3:
                rows.append(W.HBox(row)); row = []
        if row:
            rows.append(W.HBox(row))
        # readouts beside the plot, wrapping below it when the notebook is narrow
        return W.VBox([*rows, W.HBox([self.image, self.readout],
                                     layout=W.Layout(flex_flow="row wrap", align_items="flex-start"))])

    def _repr_mimebundle_(self, **kwargs):
        """Displaying the experiment itself displays its widget."""
        return self.widget._repr_mimebundle_(**kwargs)

    def close(self) -> None:
        """Close every widget of the experiment (frees the kernel-side objects)."""
        stack = [self.widget]
        while stack:
            w = stack.pop()
            stack.extend(getattr(w, "children", ()))
            w.close()


def _assign(control: W.Widget, value: Any) -> None:
    """Set a control's value from Python so that the browser does not send it back.

    A slider view answers a value from the kernel by moving its noUiSlider handle, which fires
    the handle's ``update`` event; with ``continuous_update`` on, the view then sends the
    handle's value back whenever it differs from the model's by a rounding (-0.06 snapped to
    the step grid is -0.060000000000000005).  ipywidgets 8 then ignores the kernel's next value
    for that slider until the echo of the old one returns, and the old value wins: the kernel
    and the slider keep a value that an earlier ``set`` left.  So the value goes out together
    with ``continuous_update=False`` (one message: the view reads the flag during the event),
    and the flag is restored in a second message.
    """
    if not (hasattr(control, "hold_sync") and getattr(control, "continuous_update", False)
            and control.value != value):
        control.value = value              # not a slider, or the live-mode stand-in
        return
    with control.hold_sync():
        control.continuous_update = False
        control.value = value
    control.continuous_update = True


# ------------------------------------------------------------------------ drawing helpers


def door_top_view(fig: Figure, rect: Sequence[float], xlim: Sequence[float],
                  ylim: Sequence[float], title: str, *, hinge_label: Sequence[float] = (-0.1, -0.12),
                  door_lw: float = 5.0, door_alpha: float = 0.85, door_zorder: float = 1,
                  width: float = DOOR_WIDTH):
    """The "door from above" axes of the 2-D experiments: equal aspect, fixed limits, x/y in m,
    ``title``, the door as a thick grey bar from the hinge O (the origin) to ``width`` along +x,
    the hinge dot and its label (text placed at ``hinge_label``, data coordinates).

    Returns ``(ax, door)``; ``door`` is the bar's ``Line2D``, static unless the caller registers
    it with ``_moving`` and moves it (E1 turns the door).
    """
    ax = fig.add_axes(tuple(rect))
    ax.set_aspect("equal")
    ax.set_xlim(*xlim); ax.set_ylim(*ylim)
    ax.set_xlabel("x (m)"); ax.set_ylabel("y (m)")
    ax.set_title(title, fontsize=10, pad=9)
    ax.plot([0], [0], "o", color="black", ms=6, zorder=5)
    ax.annotate("hinge O", (0, 0), tuple(hinge_label), fontsize=8)
    door = ax.plot([0, width], [0, 0], "-", color=COLORS["door"], lw=door_lw, alpha=door_alpha,
                   solid_capstyle="butt", zorder=door_zorder)[0]
    return ax, door


def _png_chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def encode_png(rgba, level: int = 1, alpha: bool = True) -> bytes:
    """Lossless PNG of an (h, w, 4) uint8 buffer (the Agg canvas).

    Rows use PNG filter 0 and zlib at ``level``.  ``alpha=True`` keeps the (opaque) alpha
    channel, which avoids a strided copy: at level 1 this is about twice as fast as PIL's
    encoder for plot images.  ``alpha=False`` writes RGB (smaller files, for stored frames).
    """
    a = np.asarray(rgba)
    h, w = a.shape[:2]
    if alpha:
        rows = np.empty((h, 1 + 4 * w), np.uint8)
        rows[:, 1:] = a.reshape(h, 4 * w)
        colour_type = 6
    else:
        rows = np.empty((h, 1 + 3 * w), np.uint8)
        rows[:, 1:].reshape(h, w, 3)[...] = a[..., :3]
        colour_type = 2
    rows[:, 0] = 0                                   # filter type "None" for every row
    header = struct.pack(">IIBBBBB", w, h, 8, colour_type, 0, 0, 0)   # 8-bit, no interlace
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header)
            + _png_chunk(b"IDAT", zlib.compress(rows, level)) + _png_chunk(b"IEND", b""))


def arrow_segments_3d(starts: np.ndarray, vectors: np.ndarray, scale: float,
                      head: float = 0.25, side=(1.0, 0.0, 0.0)) -> tuple[np.ndarray, ...]:
    """x, y, z polylines (NaN-separated) of 3-D arrows: shaft + two head strokes.

    Geometry only (the vectors come from the core).  Zero vectors give a single point.
    """
    starts = np.atleast_2d(np.asarray(starts, float))
    vecs = np.atleast_2d(np.asarray(vectors, float)) * scale
    ends = starts + vecs
    L = np.linalg.norm(vecs, axis=1, keepdims=True)
    unit = np.divide(vecs, L, out=np.zeros_like(vecs), where=L > 0)
    side = np.broadcast_to(np.asarray(side, float), vecs.shape)
    perp = side - np.sum(side * unit, axis=1, keepdims=True) * unit
    pn = np.linalg.norm(perp, axis=1, keepdims=True)
    perp = np.divide(perp, pn, out=np.zeros_like(perp), where=pn > 0)
    hl = head * L
    h1 = ends - hl * unit + 0.5 * hl * perp
    h2 = ends - hl * unit - 0.5 * hl * perp
    nan = np.full_like(starts, np.nan)
    pts = np.stack([starts, ends, nan, h1, ends, h2, nan], axis=1).reshape(-1, 3)
    return pts[:, 0], pts[:, 1], pts[:, 2]
