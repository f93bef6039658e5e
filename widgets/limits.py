"""Axis limits of declared panels: fitted once per class over every control's range.

A bar or curve axis whose limits moved with the controls would force a background redraw
(50-150 ms) on a change; instead :func:`fitted_limit` fits it once per class, over the box of
the controls in the panel's span (:func:`fit_span`), with :func:`fit_limit`, and keeps it.
"""

from __future__ import annotations

import itertools
import math
from typing import Callable

import numpy as np

from .controls import Player



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


def ball_radius(points, center) -> float:
    """The radius (m) of the ball about ``center`` that holds every point of ``points`` (..., 3),
    rounded up to 5 cm with 2 % head room: the size a :func:`widgets.parts.bare_3d_axes` view
    shows.  NaN rows (breaks in a polyline) are ignored."""
    d = np.linalg.norm(np.asarray(points, float).reshape(-1, 3) - np.asarray(center, float), axis=1)
    return float(np.ceil(1.02 * float(np.nanmax(d)) / 0.05) * 0.05)


def view_reach(points: Callable[..., np.ndarray], controls, center, samples: int = 7) -> float:
    """The reach of a 3-D view: :func:`ball_radius` of everything drawn, over a grid of the
    controls' ranges (``samples`` values of each slider, every option of a choice).

    ``points(**values)`` returns every point the view draws at those control values (the
    outline, the arrows' tips at their scales, :meth:`widgets.parts.Triad.extent`), as one
    (..., 3) array.  Compute it once, store the number as the class's ``REACH`` and let a test
    check ``view_reach(...) == REACH`` (E2's and E11's tests): a changed scale or range then
    fails the test instead of leaving a part outside the view."""
    names = [c.name for c in controls]
    far = 0.0
    for values in itertools.product(*(c.sweep(samples) for c in controls)):
        far = max(far, ball_radius(points(**dict(zip(names, values))), center))
    return far


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


def fit_span(cls, p) -> tuple:
    """The controls a :class:`~widgets.parts.Bars` or ``Curve`` panel's axis is fitted over:
    ``p.span``, or every control of the experiment class ``cls`` (no Play)."""
    return tuple(p.span) if p.span else tuple(
        c.name for c in cls.CONTROLS if not isinstance(c, Player))


def fitted_limit(exp, panel, p) -> float:
    """``nice_limit`` of the largest bar (or |y|) of panel ``p`` (``panel``: its index, or
    ``("curve", j)``) over the box of the controls in its span (:func:`fit_span`) at the
    experiment's current values of any others.  Kept per class and setting of those others:
    with every control in the span, one fit per class, ever."""
    cls = type(exp)
    values = exp._drawn_values
    span = fit_span(cls, p)
    key = (cls, panel, tuple((k, repr(v)) for k, v in sorted(values.items()) if k not in span))
    lim = _FITTED.get(key)
    if lim is None:
        specs = {c.name: c for c in cls.CONTROLS}
        lim = _FITTED[key] = fit_limit(cls._scene_of, p, {c: specs[c] for c in span}, values)
    return lim


# ------------------------------------------------------------------ fits computed ahead of time


def export_fitted() -> list:
    """The fits made so far in this process, as plain rows ``[class, panel, others, limit]``
    (``class``: ``"module:QualName"``; ``panel``: an index or ``["curve", j]``; ``others``: the
    key's ``[control, repr(value)]`` pairs) for :func:`load_fitted` in another process.

    The book's build fits every experiment at its defaults natively and ships the rows with
    live mode's packages, so a reader's browser, where a fit (up to a few hundred scene
    evaluations in WebAssembly, and numpy.random's first import) took 15-280 ms of the first
    picture, starts with them; any other setting is still fitted on first use."""
    return [[f"{cls.__module__}:{cls.__qualname__}", list(panel) if isinstance(panel, tuple)
             else panel, [list(kv) for kv in others], lim]
            for (cls, panel, others), lim in sorted(_FITTED.items(), key=repr)]


def load_fitted(rows: list) -> int:
    """Take fits exported by :func:`export_fitted` (classes not importable here are skipped);
    returns how many were taken."""
    import importlib

    taken = 0
    for name, panel, others, lim in rows:
        module, _, qualname = name.partition(":")
        try:
            cls = getattr(importlib.import_module(module), qualname)
        except (ImportError, AttributeError):
            continue
        key = (cls, tuple(panel) if isinstance(panel, list) else panel,
               tuple(tuple(kv) for kv in others))
        _FITTED.setdefault(key, float(lim))
        taken += 1
    return taken


# ------------------------------------------------------------------------- ticks of our own

#: the steps a tick interval is chosen from, times a power of ten (matplotlib's MaxNLocator's)
TICK_STEPS = (1.0, 2.0, 2.5, 5.0)
_MINUS = "\N{MINUS SIGN}"


def tick_room(length_pt: float, label_pt: float, horizontal: bool) -> int:
    """How many tick intervals an axis ``length_pt`` long holds with labels of ``label_pt``:
    one per 3 label heights along x (a label up to 3:1 wide), one per 2 along y, from 1 to 9
    (the rule of matplotlib's ``AutoLocator``, written out so it is the same on every version).

    >>> tick_room(400.0, 9.0, True), tick_room(200.0, 9.0, False), tick_room(10.0, 9.0, True)
    (9, 9, 1)
    """
    n = math.floor(length_pt / (label_pt * (3.0 if horizontal else 2.0))) if label_pt > 0 else 9
    return int(min(9, max(1, n)))


def nice_ticks(lo: float, hi: float, bins: int) -> list[float]:
    """Ticks on ``[lo, hi]``: the multiples of the smallest step s = m 10^k (m in 1, 2, 2.5, 5)
    with s >= (hi - lo) / ``bins`` that puts at least two ticks inside (a smaller step
    otherwise); each tick rounded to 12 significant digits, so 0.1 * 3 is 0.3.

    >>> nice_ticks(-0.2, 1.2, 5), nice_ticks(0.0, 1.0, 4), nice_ticks(-1.1, 1.1, 3)
    ([0.0, 0.5, 1.0], [0.0, 0.25, 0.5, 0.75, 1.0], [-1.0, 0.0, 1.0])
    """
    lo, hi = sorted((float(lo), float(hi)))
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi - lo <= 0:
        return [lo] if math.isfinite(lo) else []
    raw = (hi - lo) / max(1, int(bins))
    p = 10.0 ** math.floor(math.log10(raw))
    steps = sorted({m * p * f for m in TICK_STEPS for f in (0.1, 1.0, 10.0)})
    eps = 1e-9
    first = next(i for i, s in enumerate(steps) if s >= raw * (1 - eps))
    for s in reversed(steps[:first + 1]):
        k0, k1 = math.ceil(lo / s - eps), math.floor(hi / s + eps)
        if k1 - k0 + 1 >= 2:
            break
    return [float(f"{k * s:.12g}") + 0.0 for k in range(k0, k1 + 1)]


def tick_labels(locs) -> list[str]:
    """The labels of ticks ``locs``: every one with the decimals the most precise needs (at
    most 6), a true minus sign, never "-0".

    >>> tick_labels([-1.5, -0.75, 0.0, 0.75, 1.5]), tick_labels([0, 45, 90]), tick_labels([0.5, 1.0])
    (['−1.50', '−0.75', '0.00', '0.75', '1.50'], ['0', '45', '90'], ['0.5', '1.0'])
    """
    locs = [float(x) for x in locs]
    digits = 0
    for x in locs:
        text = f"{abs(x):.6f}".rstrip("0")
        digits = max(digits, len(text.partition(".")[2]))
    out = []
    for x in locs:
        s = f"{x:.{digits}f}"
        if float(s) == 0:
            s = s.lstrip("-")
        out.append(s.replace("-", _MINUS))
    return out


def _axis_length(axis) -> tuple[float, float, bool]:
    """(length in points, tick label size in points, horizontal) of a 2-D or 3-D axes' axis,
    from the axes' box in the figure as it is placed now."""
    ax = axis.axes
    box = ax.get_position()
    w, h = ax.get_figure().get_size_inches()
    if getattr(ax, "name", "") == "3d":
        length, horizontal = max(box.width * w, box.height * h) * 72, True
    elif axis.axis_name == "x":
        length, horizontal = box.width * w * 72, True
    else:
        length, horizontal = box.height * h * 72, False
    ticks = axis.get_major_ticks(1)
    return length, float(ticks[0].label1.get_fontsize()) if ticks else 10.0, horizontal


from matplotlib import ticker as _ticker  # noqa: E402  (the helpers above need no matplotlib)


class NiceLocator(_ticker.Locator):
    """Ticks at :func:`nice_ticks` of the axis's view, with the :func:`tick_room` of the axis
    as it was when :func:`freeze_tick_room` last measured it (``length_pt``, ``label_pt``):
    the same on every matplotlib version.  Their ``AutoLocator`` is not: it measures the axis
    after the layout, which each version's text metrics move by a point or two, enough to
    change the number of intervals (ch01's y axis: 0.5 steps with matplotlib 3.11, 0.25 with
    3.8.4 in the browser, on an axis 178.9 or 180.6 pt tall)."""

    def __init__(self):
        self.length_pt = self.label_pt = None
        self.horizontal = True

    def freeze(self) -> None:
        """Measure the axis now (see :func:`freeze_tick_room`)."""
        self.length_pt, self.label_pt, self.horizontal = _axis_length(self.axis)

    @property
    def bins(self) -> int:
        if self.length_pt is None:
            self.freeze()
        return tick_room(self.length_pt, self.label_pt, self.horizontal)

    def __call__(self):
        lo, hi = self.axis.get_view_interval()
        return self.tick_values(lo, hi)

    def tick_values(self, vmin, vmax):
        return nice_ticks(vmin, vmax, self.bins if self.axis is not None else 9)


class NiceFormatter(_ticker.Formatter):
    """Labels of :func:`tick_labels`: no offset, no scientific notation, the same decimals
    for every tick of an axis, on every matplotlib version."""

    def __call__(self, x, pos=None):
        return tick_labels([x])[0]

    def format_ticks(self, values):
        return tick_labels(values)


def fix_ticks(fig) -> None:
    """Put every numeric axis of ``fig``'s axes (3-D axes' too, colour bars' long axis) on
    :class:`NiceLocator` and :class:`NiceFormatter`: an automatic locator is replaced, ticks an
    experiment set itself (``set_xticks``) are kept, and matplotlib's number formatter is
    replaced where the ticks are numbers; named ticks (a ``FixedFormatter``) and log axes stay.
    Called by :func:`widgets.parts.build_parts` after an experiment's ``_setup``, so tick
    locations and labels are the same in the book's frames (matplotlib 3.11) and in
    live mode (Pyodide's 3.8.4).  Each axis's room is measured here, on the axes as the
    experiment placed them (:func:`freeze_tick_room`)."""
    for ax in fig.axes:
        bar = getattr(ax, "_colorbar", None)
        for name in ("x", "y", "z"):
            axis = getattr(ax, f"{name}axis", None)
            if axis is None or axis.get_scale() != "linear":
                continue
            auto = isinstance(axis.get_major_locator(), _ticker.MaxNLocator)
            scalar = isinstance(axis.get_major_formatter(), _ticker.ScalarFormatter)
            if bar is not None and name == ("y" if bar.orientation == "vertical" else "x"):
                if auto:
                    bar.locator = NiceLocator()
                if scalar:
                    bar.formatter = NiceFormatter()
                continue
            if auto:
                axis.set_major_locator(NiceLocator())
            if scalar:
                axis.set_major_formatter(NiceFormatter())
    freeze_tick_room(fig)


def freeze_tick_room(fig) -> None:
    """Measure the room of every :class:`NiceLocator` axis of ``fig`` now and keep it: called
    where the axes' boxes depend on the code alone (the experiment's own rects, in
    :func:`fix_ticks`; the phone layout's first placement, before text is measured, in
    :func:`widgets._narrow.narrow_layout`), never after a layout fitted to measured text, whose
    boxes differ between matplotlib versions by a point or two."""
    for ax in fig.axes:
        for name in ("x", "y", "z"):
            axis = getattr(ax, f"{name}axis", None)
            locator = axis.get_major_locator() if axis is not None else None
            if isinstance(locator, NiceLocator):
                locator.freeze()
