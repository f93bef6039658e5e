"""Axis limits of declared panels: fitted once per class over every control's range.

A bar or curve axis whose limits moved with the controls would force a background redraw
(50-150 ms) on a change; instead :func:`fitted_limit` fits it once per class, over the box of
the controls in the panel's span (:func:`fit_span`), with :func:`fit_limit`, and keeps it.
"""

from __future__ import annotations

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
        lim = _FITTED[key] = fit_limit(cls.scene, p, {c: specs[c] for c in span}, values)
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
