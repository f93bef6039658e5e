"""Declared figure parts: what an experiment draws, named once and drawn by the base class.

``TopView`` (the door from above), ``ReferencePoint``, the top-view parts ``ForceArrow``,
``InfiniteLine`` and ``TorqueArc``, ``Bars`` panels of ``Series`` and ``Curve`` panels with
``Ref`` lines.  :func:`build_parts` creates their artists on an experiment's figure (moving
ones registered with the experiment's blitter); :func:`draw_parts` copies a scene into them.
Keys are looked up by :func:`lookup`.  Geometry helpers of hand-drawn parts live here too
(:func:`door_top_view`, :func:`clip_line`, :func:`arrow_segments_3d`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Sequence

import numpy as np
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

import spatialbook as sb

from ._narrow import enlarge_text
from .limits import fitted_limit, fix_ticks
from .style import COLORS, DOOR_WIDTH, LABEL_BOX, LABEL_Z, WIDE_MIN_FONT


@dataclass(frozen=True)
class TopView:
    """The "door from above" axes (see :func:`door_top_view`), declared once: the base class
    builds it as ``self.top`` (the axes) and ``self.door`` (the door bar) before ``_setup``."""

    rect: tuple
    xlim: tuple
    ylim: tuple
    title: str
    hinge_label: tuple = (-0.1, -0.12)
    #: places for the hinge label where something moving (an arrow from the hinge, a leaf, a
    #: label) may cover any one spot: ``(x, y, ha, va)``, the text aligned at (x, y) (data
    #: coordinates) by ``ha`` ("left", "right", "center") and ``va`` ("bottom", "top",
    #: "center"), so that it lies on one side of the point whatever its size in a layout or a
    #: language.  At every change the first clear one is taken (:func:`place_hinge_label`),
    #: and ``hinge_label`` is not used
    hinge_spots: tuple = ()
    #: scene keys of other points the hinge label must not seem to name (E8: the middle hinge):
    #: a spot is clear only if its box is nearer to the hinge O than to each of them
    hinge_rivals: tuple = ()
    door_lw: float = 5.0
    door_alpha: float = 0.85
    door_zorder: float = 1
    com: bool = False                   # mark the door's centre of mass C (orange dot, "C")
    #: where the legend of the labelled top-view parts goes: a ``loc`` ("upper left": on the
    #: view) or ``"below"``: under the view and its x label, off everything the view draws
    #: (placed by the layouts, :func:`widgets._narrow.place_legends_below`)
    legend: str | None = None
    legend_fontsize: float = 7
    legend_ncols: int = 1
    #: the legend's columns in the phone layout (under the view, in a 330-px column)
    legend_narrow_ncols: int = 1
    #: with ``legend="below"``: the height (figure fraction) taken from the bottom of ``rect``
    #: for the legend in the wide figure; the phone layout, which gives the legend a room of
    #: its own under the view, starts from the whole ``rect`` (the view as large as before)
    legend_room: float = 0.0
    #: (x, y) in the top view's axes fractions where the legend's ``legend`` corner sits, e.g.
    #: ``(1.03, 0.0)`` with ``legend="lower left"``: beside the view, off the door's sweep
    legend_anchor: tuple | None = None


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
    legend: str | None = "upper right"  # a ``loc``, or "below": under the bar names
    legend_ncols: int = 1               # the wide figure's (one on a phone)
    #: (x, y) in figure fractions where the legend's ``legend`` corner sits, beside the panel,
    #: in the wide figure (left out of its layout's fit: keep it inside the figure and off the
    #: other panels); the phone layout, where the panels are stacked, puts it under the bar
    #: names
    legend_anchor: tuple | None = None
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
    (``axis="x"``, e.g. where the central axis crosses), horizontal at y = it (``"y"``, e.g. the
    smallest value), or slanted (``"line"``): through the point ``key`` (a scene key of an
    (x, y) pair) with ``slope`` dy/dx (a tangent), or the line y = ``slope`` x + ``intercept``
    (no ``key``); ``slope`` and ``intercept`` are scene keys or numbers.  A slanted line is
    drawn across the curve's x range and cut by its axes; the y fit ignores it."""

    key: str | None = None
    axis: str = "x"
    label: str = ""
    color: str = "#999999"
    style: str = ":"
    lw: float = 1.5
    slope: str | float | None = None
    intercept: str | float | None = None

    def __post_init__(self):
        if self.axis not in ("x", "y", "line"):
            raise ValueError(f"Ref: axis must be 'x' (a vertical line), 'y' (a horizontal one) "
                             f"or 'line' (a slanted one), got {self.axis!r}")
        if self.axis == "line":
            if self.slope is None:
                raise ValueError("Ref: axis='line' needs slope= (a scene key or a number)")
            if (self.key is None) == (self.intercept is None):
                raise ValueError("Ref: axis='line' needs either key= (a point (x, y) it passes "
                                 "through) or intercept= (y at x = 0), not both")
        elif self.key is None or self.slope is not None or self.intercept is not None:
            raise ValueError(f"Ref: axis={self.axis!r} needs key= (where the line is) and no "
                             f"slope= or intercept= (those are for axis='line')")

    def ends(self, scene: dict, xlim) -> tuple[np.ndarray, np.ndarray]:
        """The drawn line's (x, y) at the two ends ``xlim`` of a slanted line."""
        m = _number(scene, self.slope)
        if self.key is None:
            x0, y0 = 0.0, _number(scene, self.intercept)
        else:
            x0, y0 = (float(v) for v in np.asarray(lookup(scene, self.key), float).reshape(2))
        xs = np.asarray(xlim, float)
        return xs, y0 + m * (xs - x0)


def _number(scene: dict, v) -> float:
    return float(lookup(scene, v)) if isinstance(v, str) else float(v)


#: the colours of a Curve's second, third, ... quantity when ``colors`` is not given
_MORE_COLORS = ("#D55E00", "#009E73", "#CC79A7", "#E69F00")


@dataclass(frozen=True)
class Curve:
    """A quantity plotted against a control or a position, declared once (in ``CURVES``).

    ``x`` is a control name (the curve runs over that control's range, the other controls at
    their values: ``y`` is then a scalar scene key, evaluated by ``scene`` at each value of the
    control's grid, at most ``points`` of them) or a scene key holding the positions (a vector;
    ``y`` is then a vector key of the same length).  ``y`` may be a tuple of keys: several
    quantities on one axes (a formula over the computed curve), each with its entry of
    ``labels`` and ``colors`` (defaults: ``label``/``color`` for the first, then vermillion,
    green, ...), the first solid, the others dashed above it, from the same ``scene`` calls.
    A dot marks each quantity's current value: at the control's value, or at (``at``,
    ``value``), two scalar keys (``value`` marks the first quantity; the others are marked at
    their own value at ``at``); ``refs`` (:class:`Ref`) add
    moving reference lines.  The y axis is fitted once per class over the controls in ``span``
    exactly like :class:`Bars` (:func:`fit_limit`, ``lim=None``), over every quantity, from 0 if
    ``positive`` else from -lim.  Artists for tests: ``exp.curves[i].axes``, ``.lines`` and
    ``.markers`` (one per quantity; ``.line``, ``.marker`` the first's) and ``.refs`` (one
    ``Line2D`` per :class:`Ref`)."""

    title: str
    xlabel: str
    ylabel: str
    y: str | tuple
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
    legend: str | None = "upper right"  # a ``loc``, or "below": under the x label
    legend_ncols: int = 1               # the wide figure's (one on a phone)
    legend_room: float = 0.0            # as TopView.legend_room
    depends: tuple | None = None        # the controls the line depends on (cached layer)
    points: int = 61
    labels: tuple = ()                  # one per key of a tuple ``y``
    colors: tuple = ()

    def __post_init__(self):
        keys = self.keys
        if not keys or not all(isinstance(k, str) for k in keys):
            raise ValueError(f"Curve: y must be a scene key or a tuple of them, got {self.y!r}")
        for name in ("labels", "colors"):
            given = getattr(self, name)
            if given and len(given) != len(keys):
                raise ValueError(f"Curve: {name} must give one entry per key of y "
                                 f"({len(keys)}), got {len(given)}")

    @property
    def keys(self) -> tuple:
        """The quantities' scene keys (``y`` as a tuple)."""
        return (self.y,) if isinstance(self.y, str) else tuple(self.y)

    def styles(self) -> list[tuple[str, str]]:
        """(label, colour) of each quantity."""
        n = len(self.keys)
        labels = self.labels or (self.label,) + ("",) * (n - 1)
        colors = self.colors or (self.color,) + _MORE_COLORS[:n - 1]
        return list(zip(labels, colors))

    def largest(self, scene: dict) -> float:
        """The largest |y| of this scene (the fit's measure), over every quantity."""
        big = max(float(np.max(np.abs(lookup(scene, k)))) for k in self.keys)
        for r in self.refs:
            if r.axis == "y":
                big = max(big, abs(float(lookup(scene, r.key))))
        return big


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
    #: the label is boxed and meant to be drawn on top (``exp._on_top(ax.hinge_text)``); a plain
    #: Text (not an annotation), so that a moving one's pixels are reused (BlitFigure._text)
    ax.hinge_text = ax.text(*hinge_label, "hinge O", fontsize=8, bbox=LABEL_BOX, zorder=LABEL_Z)
    door = ax.plot([0, width], [0, 0], "-", color=COLORS["door"], lw=door_lw, alpha=door_alpha,
                   solid_capstyle="butt", zorder=door_zorder)[0]
    return ax, door


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


# ------------------------------------------------------- building and drawing declared parts


def build_parts(exp: "Experiment", fig: Figure) -> None:
    """Build an experiment's declared parts on ``fig``, in this order: the top view and its
    ``TOP_PARTS`` (``exp.top``, ``exp.door``, ``exp.parts``), the experiment's own ``_setup``,
    the ``BARS`` panels, the ``CURVES`` (``exp.curves``), the ``REFERENCE`` point
    (``exp.reference``) and the top view's legend; then every text is enlarged to the book's
    smallest size, and every numeric axis gets ticks of our own rule, the same on every
    matplotlib version (:func:`widgets.limits.fix_ticks`).  Moving artists are registered with ``exp._moving``, overlays with
    ``exp._on_top``."""
    cls = type(exp)
    exp._bar_parts = []
    exp.parts = {}
    exp.curves = []
    exp.reference = None
    exp.top_legend = []                  # extra legend handles an experiment adds in _setup
    t = cls.TOP_VIEW
    if t is not None:
        exp.top, exp.door = door_top_view(
            fig, _room_for_legend(exp, t.rect, t.legend, t.legend_room), t.xlim, t.ylim, t.title, hinge_label=t.hinge_label, door_lw=t.door_lw,
            door_alpha=t.door_alpha, door_zorder=t.door_zorder)
        if t.hinge_spots:
            exp._moving(exp.top.hinge_text)
            for spot in t.hinge_spots:
                if (len(spot) != 4 or spot[2] not in ("left", "right", "center")
                        or spot[3] not in ("bottom", "top", "center")):
                    raise ValueError(f"{cls.__name__}.TOP_VIEW.hinge_spots: expected (x, y, ha, va) "
                                     f"with ha left, right or center and va bottom, top or center, "
                                     f"got {spot!r}")
            x, y, ha, va = t.hinge_spots[0]
            exp.top.hinge_text.set(x=x, y=y, ha=ha, va=va)
        else:
            exp._on_top(exp.top.hinge_text)
        if t.com:
            x_C = float(sb.DOOR["com"][0])
            exp.top.plot([x_C], [0.0], "o", color=COLORS["orange"], ms=8, zorder=4)
            # up and to the right of C: clear of an arrow along y from C or from P at C
            exp._on_top(exp.top.annotate("C", (x_C, 0.0), (x_C + 0.025, 0.05), fontsize=9,
                                         bbox=LABEL_BOX, zorder=LABEL_Z))
        for part in cls.TOP_PARTS:
            if not hasattr(part, "build"):
                raise ValueError(f"{cls.__name__}.TOP_PARTS: expected ForceArrow, "
                                 f"InfiniteLine or TorqueArc parts, got {part!r}")
            name = part.name or getattr(part, "vector", None) or getattr(part, "point", None) \
                or part.torque
            if name in exp.parts:
                raise ValueError(f"{cls.__name__}.TOP_PARTS: two parts named {name!r}; "
                                 f"give one a name=")
            exp.parts[name] = part.build(exp, exp.top)
    elif cls.TOP_PARTS:
        raise ValueError(f"{cls.__name__}.TOP_PARTS: the parts are drawn on the top "
                         f"view; declare a TOP_VIEW too")
    exp._setup(fig)
    for panel in cls.BARS:
        exp._bar_parts.append(_build_bars(exp, fig, panel))
    for curve in cls.CURVES:
        exp.curves.append(_build_curve(exp, fig, curve))
    if cls.REFERENCE is not None:
        _build_reference(exp, cls.REFERENCE)
    if t is not None and t.legend:
        handles = [*exp.top_legend, *(p.handle() for p in cls.TOP_PARTS if p.label)]
        r = cls.REFERENCE
        if r is not None and r.legend:
            from matplotlib.lines import Line2D
            handles.append(Line2D([], [], color=r.color, marker="D", lw=3, label=r.legend))
        exp._on_top(axes_legend(exp.top, t.legend, handles=handles, fontsize=t.legend_fontsize,
                                ncols=t.legend_narrow_ncols if exp.narrow else t.legend_ncols,
                                framealpha=0.9,
                                bbox_to_anchor=t.legend_anchor))
    enlarge_text(fig, WIDE_MIN_FONT)        # >= 12 CSS px where the figure is shown 1:1
    fix_ticks(fig)                          # the same ticks and labels on every matplotlib


def _room_for_legend(exp: "Experiment", rect, legend, room: float) -> tuple:
    """A panel's ``rect`` less ``room`` at its bottom for a legend under it, in the wide
    figure; the whole ``rect`` in the phone layout (which makes the legend's room itself)."""
    if legend != "below" or exp.narrow or not room:
        return tuple(rect)
    x, y, w, h = rect
    return (x, y + room, w, h - room)


def axes_legend(ax, where: str, **kw):
    """``ax.legend(loc=where, **kw)``; ``where="below"``: the legend goes under the axes and
    its labels (x tick labels, x label), centred, off everything the axes draw: a legend on the
    plot hides or crosses what moves under it (tests/test_widget_overlaps.py).  Its place is
    measured, on the drawing stack in use, by the layouts
    (:func:`widgets._narrow.place_legends_below`)."""
    if where != "below":
        return ax.legend(loc=where, **kw)
    kw.pop("bbox_to_anchor", None)
    legend = ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), **kw)
    legend.sb_below = True
    return legend


class BarSeries(PolyCollection):
    """One series of a bar panel: a bar of width ``width`` centred on each of ``centers``
    (data x), from 0 to its height, filled with ``color`` (one colour, or one per bar), no
    edge, as ``Axes.bar`` draws them, to the same pixels.  One artist for the whole series: a
    change of the heights is one ``draw_path_collection`` call, where ``Axes.bar``'s rectangles
    were one patch draw each, with its own transforms and unit conversions (E11, 14 bars: its
    blit went from 6.5 to 4.3 ms per change of a joint in Pyodide, the whole change from 11.7
    to 10.5 ms).  As a legend handle it shows its first bar's colour, as a ``BarContainer``
    does.

    >>> b = BarSeries([0.0, 1.0], 0.8, "C0", "G")
    >>> b.set_heights([2.0, -1.5]); b.heights().tolist()
    [2.0, -1.5]
    """

    def __init__(self, centers, width: float, color, label=None) -> None:
        x = np.asarray(centers, float)
        verts = np.zeros((len(x), 4, 2))
        verts[:, :2, 0] = (x - width / 2)[:, None]
        verts[:, 2:, 0] = (x + width / 2)[:, None]
        self._verts = verts                   # (bars, 4, 2): (x0, 0) (x0, h) (x1, h) (x1, 0)
        super().__init__(verts, closed=True, facecolors=color, edgecolors="none",
                         label=label)

    def set_heights(self, heights) -> None:
        """Each bar from 0 to its height (data y), one value per bar."""
        h = np.asarray(heights, float).reshape(len(self._verts))
        self._verts[:, 1:3, 1] = h[:, None]
        self.set_verts(self._verts, closed=True)

    def heights(self) -> np.ndarray:
        """The drawn heights, one per bar."""
        return np.array([path.vertices[1, 1] for path in self.get_paths()])


def _build_bars(exp: "Experiment", fig: Figure, p: Bars) -> tuple:
    ax = fig.add_axes(p.rect)
    xs = np.arange(len(p.ticks))
    k = len(p.series)
    step = p.width / k
    groups = []
    for j, s in enumerate(p.series):
        color = list(s.color) if isinstance(s.color, tuple) else s.color
        centers = xs + (j - (k - 1) / 2) * step
        group = BarSeries(centers, step - (0.02 if k > 1 else 0.0), color, s.label or None)
        ax.add_collection(exp._moving(group))
        groups.append(group)
    ax.autoscale_view()
    total = None
    if p.total:
        total = exp._moving(ax.plot(xs, np.zeros(len(xs)), "_", color="black", ms=p.total_size,
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
        if p.legend_anchor is None or exp.narrow:
            axes_legend(ax, "below" if p.legend_anchor else p.legend, handles=handles,
                        fontsize=8, ncols=1 if exp.narrow else p.legend_ncols)
        else:
            ax.legend(handles=handles, loc=p.legend, fontsize=8, ncols=p.legend_ncols,
                      bbox_to_anchor=p.legend_anchor,
                      bbox_transform=fig.transFigure).set_in_layout(False)
    ax.set_title(p.title, fontsize=10)
    return ax, groups, total


def _build_reference(exp: "Experiment", r: ReferencePoint) -> None:
    """``exp.reference``: ``.marker`` (Line2D), ``.label`` (Text), ``.arrow`` (the d
    annotation: ``.xy`` its head at the target, ``get_position()`` its tail at P) and
    ``.velocity`` (Quiver); the last three None unless declared."""
    ax = exp.top
    ref = exp.reference = SimpleNamespace(label=None, arrow=None, velocity=None)
    ref.marker = exp._moving(ax.plot([], [], "D", color=r.color, ms=8, zorder=7)[0])
    if r.label:
        ref.label = exp._moving(ax.text(0, -0.13, r.label, fontsize=9, ha="right",
                                         color=r.color, bbox=LABEL_BOX, zorder=LABEL_Z))
    if r.target:
        ref.arrow = exp._moving(ax.annotate(
            "", (0, 0), (0, 0), zorder=5, arrowprops=dict(arrowstyle="->", color=r.color, lw=1.5)))
    if r.velocity:
        ref.velocity = exp._moving(ax.quiver(
            [0], [0], [0], [0], color=r.color, angles="xy", scale_units="xy", scale=1 / r.scale,
            width=0.008, zorder=6))


def _build_curve(exp: "Experiment", fig: Figure, c: Curve) -> SimpleNamespace:
    spec = exp._specs.get(c.x)
    if spec is None and (c.at is None or c.value is None):
        raise ValueError(f"{type(exp).__name__}.CURVES: x={c.x!r} is not a control, so the "
                         f"curve is drawn over positions and needs at= and value= (the "
                         f"marker's scene keys)")
    ax = fig.add_axes(_room_for_legend(exp, c.rect, c.legend, c.legend_room))
    deps = c.depends
    if spec is not None and deps is None:           # the curve ignores its own control
        deps = tuple(k for k in exp._specs if k != c.x and k not in exp._players)
    lines, markers = [], []
    for i, (label, color) in enumerate(c.styles()):
        lines.append(exp._moving(ax.plot([], [], "-" if i == 0 else "--", color=color,
                                         lw=2 if i == 0 else 1.6, zorder=3 + 0.1 * i,
                                         label=label or None)[0], depends=deps))
        markers.append(exp._moving(ax.plot([], [], "o", color=color, mec="black", ms=7 - i,
                                           zorder=5 + 0.1 * i)[0]))
    refs = []
    for r in c.refs:
        if r.axis == "line":
            made = ax.plot([], [], color=r.color, ls=r.style, lw=r.lw, zorder=2,
                           label=r.label or None)[0]
        else:
            make = ax.axvline if r.axis == "x" else ax.axhline
            made = make(0.0, color=r.color, ls=r.style, lw=r.lw, zorder=2, label=r.label or None)
        refs.append(exp._moving(made))
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
    if c.legend and (any(label for label, _ in c.styles()) or any(r.label for r in c.refs)):
        exp._on_top(axes_legend(ax, c.legend, fontsize=8, framealpha=0.9,
                                ncols=1 if exp.narrow else c.legend_ncols))
    return SimpleNamespace(axes=ax, line=lines[0], marker=markers[0], lines=lines,
                           markers=markers, refs=refs, cache={},
                           xlim_set=c.xlim is not None or spec is not None)


def check_declared_keys(cls, scene: dict) -> None:
    """The scene keys an experiment class declares (``READOUTS``, ``BARS``, ``TOP_PARTS``,
    ``REFERENCE``) looked up in a scene it computed (its first): a ValueError naming the
    declaration, the key and the keys the scene has, where a misspelt key would otherwise be a
    bare KeyError, or numpy's reshape error for a bar series of the wrong length, from deep
    inside the first draw.

    >>> from widgets import KineticEnergy
    >>> class Typo(KineticEnergy):
    ...     READOUTS = (("T", "kinetic", "J"),)
    >>> Typo()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: Typo.READOUTS, row 'T': 'kinetic' is not a key of scene()['numbers'] (it has: ...
    """
    numbers = scene.get("numbers", {})
    offered = ", ".join(sorted(numbers))

    def missing(where: str, key: str, in_scene: bool = False) -> ValueError:
        has = offered
        if in_scene:
            has += "; the scene: " + ", ".join(sorted(k for k in scene if k != "numbers"))
        of = "the scene" if in_scene else "scene()['numbers']"
        return ValueError(f"{cls.__name__}.{where}: {key!r} is not a key of {of} (it has: {has})")

    for row in cls.READOUTS:
        if row[1] not in numbers:
            raise missing(f"READOUTS, row {row[0]!r}", row[1])
    for p in cls.BARS:
        where = f"BARS {p.title!r}"
        for s in p.series:
            refs = (s.values,) if isinstance(s.values, str) else tuple(s.values)
            for ref in refs:
                key, _, index = ref.partition("[")
                if key not in numbers:
                    raise missing(f"{where}, series {s.label!r}", key)
                if index:
                    size = np.asarray(numbers[key]).size
                    i = index[:-1]
                    if not (i.lstrip("-").isdigit() and -size <= int(i) < size):
                        raise ValueError(f"{cls.__name__}.{where}, series {s.label!r}: {ref!r} "
                                         f"is not a component of {key!r} ({size} values)")
            n = np.asarray(numbers[s.values]).size if isinstance(s.values, str) else len(refs)
            if n != len(p.ticks):
                raise ValueError(f"{cls.__name__}.{where}, series {s.label!r}: {n} values for "
                                 f"{len(p.ticks)} ticks {p.ticks!r}")
        if p.total and p.total not in numbers:
            raise missing(f"{where}, total", p.total)
    for part in cls.TOP_PARTS:
        for attr in ("vector", "at", "point", "direction", "torque"):
            key = getattr(part, attr, None)
            if isinstance(key, str):
                try:
                    lookup(scene, key)
                except (KeyError, IndexError, TypeError):
                    raise missing(f"TOP_PARTS {type(part).__name__}, {attr}", key,
                                  in_scene=True) from None
    r = cls.REFERENCE
    if r is not None:
        for attr, key in (("key", r.key), ("target", r.target)):
            if key is not None and key not in scene:
                raise missing(f"REFERENCE, {attr}", key, in_scene=True)
        if r.velocity is not None and r.velocity not in numbers:
            raise missing("REFERENCE, velocity", r.velocity)


def draw_parts(exp: "Experiment", scene: dict) -> bool:
    """Copy ``scene`` into the declared parts: bar heights, curves, top-view parts, the
    reference point; True if an axis was rescaled (then the background must be redrawn)."""
    cls = type(exp)
    numbers = scene["numbers"]
    full = False
    for i, (p, (ax, groups, total)) in enumerate(zip(cls.BARS, exp._bar_parts)):
        for group, heights in zip(groups, p.values(numbers)):
            group.set_heights(heights)
        if total is not None:
            total.set_ydata(np.asarray(numbers[p.total], float))
        if p.lim is None:
            lim = fitted_limit(exp, i, p)
            if lim != ax.get_ylim()[1]:
                ax.set_ylim(-lim, lim)
                full = True
    for j, (c, d) in enumerate(zip(cls.CURVES, exp.curves)):
        full = _draw_curve(exp, j, c, d, scene) or full
    for part, drawn in zip(cls.TOP_PARTS, exp.parts.values()):
        part.draw(drawn, scene)
    r, ref = cls.REFERENCE, exp.reference
    if r is not None:
        x = np.asarray(scene[r.key], float)
        ref.marker.set_data([x[0]], [x[1]])
        if ref.label is not None and ref.label.get_position()[0] != x[0] - 0.02:
            # below and left of P: clear of an arrow along y; set only when P has moved, as a
            # text set again is stale and drawn again (BlitFigure._text reuses an unchanged
            # one's pixels: a text's layout and draw are 2-4 ms of a change in the browser)
            ref.label.set_x(x[0] - 0.02)
        if ref.arrow is not None:
            t = np.asarray(scene[r.target], float)
            ref.arrow.xy = (t[0], t[1])
            ref.arrow.set_position((x[0], x[1]))
        if ref.velocity is not None:
            v = np.asarray(numbers[r.velocity], float)
            ref.velocity.set_offsets(x[None, :2])
            ref.velocity.set_UVC(v[:1], v[1:2])
    if cls.TOP_VIEW is not None and cls.TOP_VIEW.hinge_spots:
        place_hinge_label(exp, scene)
    return full


def _draw_curve(exp: "Experiment", j: int, c: Curve, d: SimpleNamespace, scene: dict) -> bool:
    values = exp._drawn_values
    spec = exp._specs.get(c.x)
    keys = c.keys
    if spec is not None:                            # y(control), the others held
        key = tuple((k, repr(v)) for k, v in sorted(values.items()) if k != c.x)
        if key not in d.cache:
            xs = spec.sweep(c.points)
            scenes = [type(exp).scene(**{**values, c.x: x}) for x in xs]
            ys = np.array([[float(lookup(sc, k)) for sc in scenes] for k in keys])
            d.cache.clear()                         # one setting of the others is kept
            d.cache[key] = (np.asarray(xs, float), ys)
        xs, ys = d.cache[key]
        mx = float(values[c.x])
        mys = [float(lookup(scene, k)) for k in keys]
    else:
        xs = lookup(scene, c.x)
        ys = [lookup(scene, k) for k in keys]
        mx = float(lookup(scene, c.at))
        mys = [float(lookup(scene, c.value))] + [
            float(np.interp(mx, xs, y)) for y in ys[1:]]
    for line, marker, y, my in zip(d.lines, d.markers, ys, mys):
        line.set_data(xs, y)
        marker.set_data([mx], [my])
    full = False
    if not d.xlim_set:                              # positions: their ends, once
        d.axes.set_xlim(float(np.min(xs)), float(np.max(xs)))
        d.xlim_set = full = True
    for r, line in zip(c.refs, d.refs):
        if r.axis == "line":
            line.set_data(*r.ends(scene, d.axes.get_xlim()))
        else:
            v = float(lookup(scene, r.key))
            (line.set_xdata if r.axis == "x" else line.set_ydata)([v, v])
    if c.lim is None:
        lim = fitted_limit(exp, ("curve", j), c)
        if lim != d.axes.get_ylim()[1]:
            d.axes.set_ylim(0.0 if c.positive else -lim, lim)
            full = True
    return full


# ------------------------------------------------------------------------ 3-D parts
#
# A 3-D view that the reader turns (E11's azimuth and elevation sliders) must not redraw the
# background on each turn (50-150 ms).  So the 3-D axes is drawn bare (:func:`bare_3d_axes`: no
# panes, grid, ticks or labels, which would turn with the view), everything in it is a moving
# artist (or lies in a ``depends=`` layer of the view controls), and :func:`turn_view` gives the
# axes the projection of the new view without drawing it.  The parts below project their 3-D
# points themselves (:func:`project`, one matrix product) into plain 2-D artists of that axes:
# matplotlib's own 3-D lines re-project through masked arrays on every draw, about 1 ms each,
# and a 3-D text is measured by layouts at its unprojected place.  Each part has one ``set``
# per change, called after ``turn_view``; ``.points`` keeps the 3-D points it was given.


def bare_3d_axes(fig: Figure, rect: Sequence[float], center, radius: float, elev: float,
                 azim: float):
    """A 3-D axes with an orthographic projection and nothing of its own drawn (no panes, grid,
    ticks or axis labels), showing the ball of ``radius`` (m) about ``center`` whole from every
    direction: its box is the cube of that ball, at equal scales, and the zoom makes the ball's
    outline (which an orthographic view draws the same from every side) nearly touch the axes'
    square.  Everything inside the ball is therefore inside the axes at every view: fit the
    ball once over every control (E11's ``REACH``), and 1 m is drawn the same length at every
    view and pose, so an arrow's stated scale holds."""
    ax = fig.add_axes(tuple(rect), projection="3d", computed_zorder=False, proj_type="ortho")
    c = np.asarray(center, float)
    ax.set_xlim(c[0] - radius, c[0] + radius)
    ax.set_ylim(c[1] - radius, c[1] + radius)
    ax.set_zlim(c[2] - radius, c[2] + radius)
    # zoom 1 fits the cube's widest projection (sqrt(3) edges) in the square; the ball spans
    # one edge from every side: zoom sqrt(3) would make it touch the square, 0.93 of that leaves
    # room for mplot3d's 2-D view box, which is off centre by 1.4 % (-0.095 to 0.09)
    ax.set_box_aspect((1.0, 1.0, 1.0), zoom=0.93 * math.sqrt(3.0))
    ax.set_axis_off()
    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):         # measured by layouts only when visible
        axis.set_visible(False)
        axis.set_major_locator(NullLocator())            # and no ticks made for it
    turn_view(ax, elev, azim)
    return ax


def view_direction(elev: float, azim: float) -> np.ndarray:
    """The unit vector from the scene toward the viewer of a 3-D axes at ``elev``, ``azim``
    (degrees, matplotlib's ``view_init``), in data coordinates (equal scales):
    (cos e cos a, cos e sin a, sin e).

    >>> view_direction(90.0, 0.0).round(12)          # looking straight down
    array([0., 0., 1.])
    """
    e, a = np.deg2rad(elev), np.deg2rad(azim)
    return np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])


def turn_view(ax, elev: float, azim: float) -> np.ndarray:
    """Turn a 3-D axes to ``elev``, ``azim`` (degrees) without drawing it: ``view_init`` and the
    projection matrix its ``draw`` would compute (``ax.M``), which :func:`project` uses.  A blit
    after it shows the new view; the cached background (a :func:`bare_3d_axes` has none of its
    own) stays valid.  Returns :func:`view_direction`.  The same view again (a change of
    anything but the view: E11's joints) keeps the projection computed for it, as long as the
    axes' limits, box aspect and zoom are those it was computed for (``get_proj`` and its
    inverse are a tenth or so of the drawing of such a change in the browser)."""
    if getattr(ax, "_sb_view", None) != _view_key(ax, elev, azim) or getattr(ax, "M", None) is None:
        ax.view_init(elev=elev, azim=azim)
        ax.M = ax.get_proj()
        ax.invM = np.linalg.inv(ax.M)
        ax._sb_view = _view_key(ax, elev, azim)
    return view_direction(elev, azim)


def _view_key(ax, elev: float, azim: float) -> tuple:
    """What ``get_proj`` computes a 3-D axes' projection from (:func:`turn_view`)."""
    return (float(elev), float(azim), float(ax.elev), float(ax.azim), ax.roll,
            getattr(ax, "_vertical_axis", None), ax.get_w_lims(),
            tuple(np.asarray(ax._box_aspect, float).tolist()), ax._focal_length,
            getattr(ax, "_dist", None))


def project(ax, points) -> np.ndarray:
    """(n, 2) of 3-D ``points`` (n, 3; NaN rows stay NaN: breaks in a polyline) projected by a
    3-D axes' current view (``ax.M``, see :func:`turn_view`), in the axes' 2-D data coordinates
    (``ax.transData``): where matplotlib's own 3-D artists would be drawn."""
    p = np.asarray(points, float).reshape(-1, 3)
    M = np.asarray(ax.M, float)
    # elementwise, not a matrix product: the same bits in every process (BLAS kernels may
    # round differently), so a frame's pixels are reproducible (tests/test_widget_live.py)
    h = p[:, 0:1] * M[:, 0] + p[:, 1:2] * M[:, 1] + p[:, 2:3] * M[:, 2] + M[:, 3]
    return h[:, :2] / h[:, 3:4]


class Polyline3D:
    """A 3-D polyline (NaN rows break it) as a 2-D line of a 3-D axes, any matplotlib line
    style: ``Polyline3D(exp, ax, "-.", color="black", lw=1.5)``.  ``set(points)``, (n, 3) m.
    Artist ``.line``; ``.points`` the last 3-D points."""

    def __init__(self, exp, ax, style: str = "-", depends=None, **line):
        self._ax = ax
        self.points = np.zeros((0, 3))
        from matplotlib.lines import Line2D
        # a plain 2-D line (a 3-D axes' plot() would make a Line3D that projects itself)
        marker = style if style in "ospD^v.x+*" else "None"
        ls = "None" if marker != "None" else style
        self.line = exp._moving(ax.add_line(Line2D([], [], linestyle=ls, marker=marker, **line)),
                                depends)

    def set(self, points) -> None:
        self.points = np.asarray(points, float).reshape(-1, 3)
        xy = project(self._ax, self.points)
        self.line.set_data(xy[:, 0], xy[:, 1])


class Tubes3D:
    """Straight 3-D segments drawn with width, as tubes seen from the side: each a core ``lw``
    points wide over a darker edge ``edge`` points wider, round ends, drawn far to near (the
    painter's order along the view direction), so a link passing in front hides the one behind.
    One ``LineCollection`` (edge, core, edge, core, ...): ``set(segments, toward)``, segments
    (n, 2, 3) m, ``toward`` from :func:`turn_view`.  Artist ``.lines``; ``.points`` the
    segments as given; ``.order`` the drawing order (indices into them)."""

    def __init__(self, exp, ax, color: str, lw: float = 7.0, edge: float = 2.5,
                 edge_color: str = "#222222", zorder: float = 2.0, depends=None):
        from matplotlib.collections import LineCollection
        self._ax, self._lw, self._edge = ax, lw, edge
        self._colors = (edge_color, color)
        self.points = np.zeros((0, 2, 3))
        self.order = np.zeros(0, int)
        lines = LineCollection([], capstyle="round", joinstyle="round", zorder=zorder)
        # a 3-D axes asks every collection in it to project itself when it draws: this one is
        # projected by set() already (matplotlib 3.8 to 3.11 call it with no argument)
        lines.do_3d_projection = lambda: np.inf
        self.lines = exp._moving(ax.add_collection(lines, autolim=False), depends)

    def set(self, segments, toward) -> None:
        from matplotlib.colors import to_rgba_array
        self.points = np.asarray(segments, float).reshape(-1, 2, 3)
        n = len(self.points)
        self.order = np.argsort(self.points.mean(axis=1) @ np.asarray(toward, float),
                                kind="stable")
        xy = project(self._ax, self.points[self.order]).reshape(n, 2, 2)
        self.lines.set_segments(np.repeat(xy, 2, axis=0))
        self.lines.set_linewidths(np.tile([self._lw + self._edge, self._lw], n))
        self.lines.set_colors(np.tile(to_rgba_array(self._colors), (n, 1)))


class Arrow3D:
    """A vector drawn from a point, ``scale`` m per unit of ``unit``, its head in the plane
    facing the viewer (so it never collapses to a line, whatever the view).  ``label`` is the
    legend's text with the scale: "v (1 m/s ↦ 0.25 m)".  ``set(start, vector, toward)``:
    ``toward`` is :func:`view_direction` (what :func:`turn_view` returns).  Artist ``.line``
    (shaft and head as one polyline, see :func:`arrow_segments_3d`), ``.points`` its 3-D points."""

    def __init__(self, exp, ax, scale: float, unit: str, color: str, label: str = "",
                 lw: float = 2.0, head: float = 0.25, zorder: float = 5.0, depends=None):
        self.scale, self.head = scale, head
        self.label = f"{label} (1 {unit} ↦ {scale:g} m)" if label else ""
        self._line = Polyline3D(exp, ax, "-", depends, color=color, lw=lw, zorder=zorder,
                                solid_capstyle="round", label=self.label)
        self.line = self._line.line
        # an arrow, for the overlap check (tests/widget_overlaps.py): no label may touch or
        # hide it; a field of arrows drawn as the background sets its gid to "background"
        self.line.set_gid("arrow")

    @property
    def points(self) -> np.ndarray:
        return self._line.points

    def segments(self, start, vector, toward) -> np.ndarray:
        """The drawn points (n, 3), NaN-separated: the head's side is ``toward`` × ``vector``."""
        side = _cross(np.asarray(toward, float), np.asarray(vector, float))
        return np.stack(arrow_segments_3d(start, vector, self.scale, self.head, side=side), axis=1)

    def set(self, start, vector, toward) -> None:
        self._line.set(self.segments(start, vector, toward))


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.cross`` of 3-vectors (broadcast over leading axes), the same products in the same
    order (so the same bits), without its axis bookkeeping: about 5 % of a change of E2."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def circle_3d(center, normal, radius: float, n: int = 49) -> np.ndarray:
    """(n, 3) points of the circle of ``radius`` about ``center`` in the plane normal to
    ``normal`` (closed: the last point is the first); draw it with :class:`Polyline3D`.

    >>> np.linalg.norm(circle_3d((0, 0, 1), (0, 0, 2), 0.5) - (0, 0, 1), axis=1).round(12).max()
    np.float64(0.5)
    """
    k = np.asarray(normal, float) / np.linalg.norm(normal)
    u = np.cross(k, [1.0, 0.0, 0.0] if abs(k[0]) < 0.9 else [0.0, 1.0, 0.0])
    u /= np.linalg.norm(u)
    t = np.linspace(0.0, 2.0 * np.pi, n)[:, None]
    return np.asarray(center, float) + radius * (np.cos(t) * u + np.sin(t) * np.cross(k, u))


def _segments(points: np.ndarray, half_width: float) -> np.ndarray:
    """The segments of a 2-D polyline (NaN rows break it) as rows (ax, ay, bx, by, half_width)."""
    p = np.asarray(points, float).reshape(-1, 2)
    rows = np.column_stack([p[:-1], p[1:], np.full(max(len(p) - 1, 0), float(half_width))])
    return rows[np.isfinite(rows).all(axis=1)]


def _room(q: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """The least distance from each point of ``q`` (n, 2) to the segments' edges (their
    distance less their half width; rows as :func:`_segments` makes them): (n,), inf with no
    segments."""
    q = np.asarray(q, float).reshape(-1, 2)
    if not len(segments):
        return np.full(len(q), np.inf)
    a, b, w = segments[:, :2], segments[:, 2:4], segments[:, 4]
    ab = b - a
    L2 = np.einsum("ij,ij->i", ab, ab)
    qa = q[:, None, :] - a                                              # (n, segments, 2)
    t = np.clip(np.einsum("nij,ij->ni", qa, ab) / np.where(L2 > 0, L2, 1.0), 0.0, 1.0)
    d = qa - t[..., None] * ab
    return np.min(np.hypot(d[..., 0], d[..., 1]) - w, axis=1)


class Triad:
    """A frame's three axes as arrows of ``length`` m from its origin (x, y, z in vermillion,
    green, blue), each labelled just beyond its tip; ``set(origin, R, toward)`` with R the
    frame's axes in world coordinates (columns).  Artists ``.arrows`` (three :class:`Arrow3D`),
    ``.labels`` (three 2-D texts placed by :func:`project`, left out of layouts).

    The arrows take ``depends`` (a world triad: the view's layer); the labels are always
    moving artists at ``LABEL_Z`` on their white card (``LABEL_BOX``), so they are drawn
    after everything else in the view: a path, link or grid line that passes a label runs
    under its card, never through its letters (tests/test_widget_overlaps.py)."""

    COLORS = ("vermillion", "green", "blue")
    #: where the labels sit, in lengths from the origin (a view's reach must include them)
    LABEL_AT = 1.35

    @classmethod
    def extent(cls, origin, R, length: float):
        """The (3, 3) points a triad reaches (its labels, beyond the tips): for a view's reach
        (:func:`widgets.limits.view_reach`)."""
        return np.asarray(origin, float) + cls.LABEL_AT * length * np.asarray(R, float).T

    def __init__(self, exp, ax, length: float = 0.2, names=("x", "y", "z"), fontsize=9,
                 depends=None):
        self.length, self._ax = length, ax
        self.end_on = [False, False, False]      # each axis pointing at the viewer (set)
        self._tips, self._segments = np.zeros((4, 2)), np.zeros((0, 5))
        self.arrows = [Arrow3D(exp, ax, length, "", COLORS[c], lw=1.8, head=0.3, depends=depends)
                       for c in self.COLORS]
        self.labels = [exp._moving(ax.text2D(0, 0, n, transform=ax.transData, color=COLORS[c],
                                             fontsize=fontsize, ha="center", va="center",
                                             in_layout=False, bbox=LABEL_BOX, zorder=LABEL_Z))
                       for n, c in zip(names, self.COLORS)]

    #: a label's candidate directions from its arrow's tip, in degrees from the arrow (turned
    #: toward the first side that is clear): straight on first, then ever more across
    TURNS = (0.0, 30.0, -30.0, 60.0, -60.0, 90.0, -90.0, 120.0, -120.0, 150.0, -150.0, 180.0)
    _COS, _SIN = np.cos(np.radians(TURNS)), np.sin(np.radians(TURNS))
    #: a label's reach from its centre (its letter on its card) and the clear gap it keeps from
    #: the arrows and the other labels: font sizes
    RADIUS, GAP = 0.75, 0.3

    def set(self, origin, R, toward, avoid=()) -> None:
        """Move the arrows and labels.  A label is hidden only where its axis points within 30°
        of the viewer (drawn shorter than half its length, its tip near the origin).  Each
        label sits beside its arrow's tip, in the first of :data:`TURNS` (straight beyond the
        tip, then turned to either side) where its card keeps :data:`GAP` from the three
        arrows, from the labels placed before it and from ``avoid``: ``(points (n, 3), width
        in points)`` for polylines the figure draws near the triad (E11's base column, the
        experiments' arrows), ``(points, width, True)`` for those a label may cover when
        nothing else is clear (E2's paths): :meth:`_place`.  A label kept at a fixed reach
        along its arrow met the x arrow and label in E2 (y points almost into the page) and
        was hidden for it; pushed further along, it landed on E11's column on a phone."""
        o, R = np.asarray(origin, float), np.asarray(R, float)
        ax = self._ax
        to_pt = ax.transData.transform
        k = 72.0 / ax.figure.dpi                                       # px -> points: any dpi
        ends = project(ax, np.vstack([o, o + self.length * R.T]))
        pt = to_pt(ends) * k                                            # origin, 3 tips
        self._tips = pt
        drawn = []                          # the arrows' segments in points: what labels avoid
        for i, arrow in enumerate(self.arrows):
            arrow.set(o, R[:, i], toward)
            drawn.append(_segments(to_pt(project(ax, arrow.points)) * k,
                                   0.5 * arrow.line.get_linewidth()))
        self._segments = np.vstack(drawn)
        self.end_on = [abs(R[:, i] @ toward) >= math.cos(math.radians(30.0)) for i in range(3)]
        self.place(avoid)

    def place(self, avoid=()) -> None:
        """Place the labels again (:meth:`set` places them), clear of ``avoid`` too: for what
        moves near a triad that stays (E11's hand velocity arrow, which a turn of the view can
        bring onto the world axes), without setting the arrows again."""
        ax = self._ax
        k = 72.0 / ax.figure.dpi
        pt = self._tips
        hard, soft = [self._segments], [np.zeros((0, 5))]
        for points, width, *rest in avoid:
            (soft if rest and rest[0] else hard).append(
                _segments(ax.transData.transform(project(ax, points)) * k, 0.5 * width))
        segments = (np.vstack(hard), np.vstack(soft))
        placed: list = []
        for i, text in enumerate(self.labels):
            ok = not self.end_on[i]
            if text.get_visible() != ok:          # matplotlib 3.8 marks it stale even if equal
                text.set_visible(ok)
            if not ok:
                continue
            fs = text.get_fontsize()
            at = self._place(pt[0], pt[i + 1], fs, segments, placed)
            placed.append(at)
            xy = tuple(ax.transData.inverted().transform(at / k))
            if tuple(text.get_position()) != xy:           # unchanged: stays reusable
                text.set_position(xy)

    def _place(self, origin, tip, fs, segments, placed) -> np.ndarray:
        """The centre (points) of a label of font size ``fs`` beside ``tip``: the first of
        :data:`TURNS` clear by :data:`GAP` of the ``placed`` centres and of ``segments`` (hard,
        soft); failing that, the first clear of the hard ones only (a label may cover a path,
        never an arrow); failing that, the one that comes least close to them."""
        d = tip - origin
        n = float(np.hypot(*d))
        d = d / n if n > 1e-9 else np.array([1.0, 0.0])
        r, gap = self.RADIUS * fs, self.GAP * fs
        hard, soft = segments
        # every spot at once, in the order of TURNS: its card's edge two gaps from the tip (one
        # gap clear of its own arrow's tip)
        c, s = self._COS, self._SIN
        spots = tip + (r + 2 * gap) * np.stack([c * d[0] - s * d[1], s * d[0] + c * d[1]], axis=1)
        room = _room(spots, hard) - r
        for q in placed:
            room = np.minimum(room, np.hypot(*(spots - q).T) - 2 * r)
        clear = room >= gap
        first = np.flatnonzero(clear & (_room(spots, soft) - r >= gap))   # clear of everything
        if not len(first):
            first = np.flatnonzero(clear)                                 # of the hard ones
        return spots[first[0] if len(first) else int(np.argmax(room))]


#: pixels kept between the hinge label's box and anything that moves on the top view
_CLEAR_PX = 2.0
#: where a text's box starts, as a fraction of its size back from the point it is aligned at
_ALIGN = {"left": 0.0, "bottom": 0.0, "center": 0.5, "right": 1.0, "top": 1.0}


def _segments_px(ax, artists) -> np.ndarray:
    """Points sampled along what the moving ``artists`` of the top view ``ax`` draw, in display
    pixels: each quiver's shafts (offset to offset + UV / scale, ``scale_units="xy"``), each
    line's vertices and, where it draws a line, the segments between them."""
    from matplotlib.lines import Line2D
    from matplotlib.quiver import Quiver

    starts, steps = [], []
    for a in artists:
        if isinstance(a, Quiver):
            starts.append(np.asarray(a.get_offsets(), float))
            steps.append(np.column_stack((np.ravel(a.U), np.ravel(a.V))) / a.scale)
        elif isinstance(a, Line2D):
            xy = np.asarray(a.get_xydata(), float)
            xy = xy[np.isfinite(xy).all(axis=1)]
            if len(xy) == 1 or a.get_linestyle() in ("None", "none", "", " "):   # markers only
                starts.append(xy)
                steps.append(np.zeros_like(xy))
            elif len(xy):
                starts.append(xy[:-1])
                steps.append(np.diff(xy, axis=0))
    if not starts:
        return np.zeros((0, 2))
    p0, d = np.concatenate(starts), np.concatenate(steps)
    t = np.linspace(0.0, 1.0, 16)[:, None, None]
    return ax.transData.transform((p0 + t * d).reshape(-1, 2))


def _box_distance(x0, y0, x1, y1, points: np.ndarray) -> np.ndarray:
    """Distances (pixels) from the box to each of ``points`` (n, 2); 0 inside."""
    dx = np.maximum(np.maximum(x0 - points[:, 0], points[:, 0] - x1), 0.0)
    dy = np.maximum(np.maximum(y0 - points[:, 1], points[:, 1] - y1), 0.0)
    return np.hypot(dx, dy)


def place_hinge_label(exp, scene: dict) -> None:
    """Put the top view's hinge label at the first of ``TopView.hinge_spots`` where its box,
    with its frame and :data:`_CLEAR_PX` more, holds no point of a moving arrow or line
    (:func:`_segments_px`), meets no moving text, stays inside the view and is nearer to the
    hinge O than to any of ``TopView.hinge_rivals``; where none is clear, the spot with the
    fewest such points, then one not nearer a rival.  The label is moved only when the spot
    changes (a text set again is drawn again)."""
    from matplotlib.text import Text

    view, ax, label = type(exp).TOP_VIEW, exp.top, exp.top.hinge_text
    canvas = exp.blit.canvas
    # (a figure given to draw_on may have no Agg canvas: matplotlib's own renderer for it)
    renderer = canvas.get_renderer() if hasattr(canvas, "get_renderer") else ax.figure._get_renderer()
    box = label.get_window_extent(renderer)          # its size is the same at every spot
    size = np.array([box.width, box.height])
    margin = label.get_bbox_patch().get_boxstyle().pad * label.get_fontsize() * ax.figure.dpi / 72.0 + _CLEAR_PX
    moving = [a for a in (*exp.blit._moving, *exp.blit._layer)
              if a.axes is ax and a is not label and a.get_visible()]
    ink = _segments_px(ax, moving)
    texts = [a.get_window_extent(renderer) for a in moving if isinstance(a, Text) and a.get_text()]
    rivals = [np.asarray(lookup(scene, k), float)[:2] for k in view.hinge_rivals]
    points = ax.transData.transform(np.array([[0.0, 0.0], *rivals]))
    inside = ax.bbox
    best, fewest = None, None
    for spot in view.hinge_spots:
        at = ax.transData.transform(spot[:2])
        x0 = at[0] - size[0] * _ALIGN[spot[2]] - margin
        y0 = at[1] - size[1] * _ALIGN[spot[3]] - margin
        x1, y1 = x0 + size[0] + 2 * margin, y0 + size[1] + 2 * margin
        hits = int(np.count_nonzero((ink[:, 0] > x0) & (ink[:, 0] < x1) & (ink[:, 1] > y0) & (ink[:, 1] < y1)))
        hits += sum(b.x1 > x0 and b.x0 < x1 and b.y1 > y0 and b.y0 < y1 for b in texts)
        if x0 < inside.x0 or y0 < inside.y0 or x1 > inside.x1 or y1 > inside.y1:
            hits += 10 ** 6                           # out of the view, onto its tick labels
        far = _box_distance(x0, y0, x1, y1, points)
        score = (hits, int(bool(rivals) and far[0] >= far[1:].min()))
        if fewest is None or score < fewest:
            best, fewest = spot, score
        if score == (0, 0):
            break
    x, y, ha, va = best
    if (label.get_position(), label.get_ha(), label.get_va()) != ((x, y), ha, va):
        label.set(x=x, y=y, ha=ha, va=va)
