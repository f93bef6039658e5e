"""Small helpers shared by the widget tests (tests/test_widgets.py and tests/test_widget_*.py)."""

from __future__ import annotations

import math

import numpy as np


def finite(x) -> bool:
    """True if every number in a plain state (nested dicts, lists, floats, strings) is finite."""
    if isinstance(x, dict):
        return all(finite(v) for v in x.values())
    if isinstance(x, list):
        return all(finite(v) for v in x)
    if isinstance(x, str):
        return True
    return isinstance(x, float) and math.isfinite(x)


def uv(q) -> np.ndarray:
    """The (U, V) components of a matplotlib quiver as an (n, 2) array."""
    return np.column_stack([np.asarray(q.U, float), np.asarray(q.V, float)])


def settings(cls, seed: int, n: int = 3) -> list[dict]:
    """``n`` seeded random settings of an experiment's sliders (on their step grid) and choices."""
    from widgets import Choice, Slider

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        values = {}
        for c in cls.CONTROLS:
            if isinstance(c, Slider):
                k = int(rng.integers(0, int(round((c.max - c.min) / c.step)) + 1))
                values[c.name] = float(round(c.min + k * c.step, 10))
            elif isinstance(c, Choice):
                values[c.name] = c.options[int(rng.integers(0, len(c.options)))]
        out.append(values)
    return out
