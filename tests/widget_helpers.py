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
