"""The worked door of book chapter 8: a 2 kg thin plate, 0.8 m wide and 1.2 m tall.

Body frame: origin O on the vertical hinge at the middle of the left edge, x along the
width, z up, thickness along y ignored.  The COM is 0.4 m from the hinge along x.
"""

from __future__ import annotations

from types import MappingProxyType

import numpy as np

from .inertia import plate_inertia

_MASS = 2.0
_WIDTH = 0.8
_HEIGHT = 1.2

def _frozen(values: dict) -> MappingProxyType:
    """A read-only view of ``values`` whose arrays are read-only too: DOOR is shared by the book,
    the widgets and ``python -m spatialbook check``, so ``DOOR["com"] += 1`` in one notebook would
    silently change every later figure; now it raises.  Copy to change: ``dict(sb.DOOR)``,
    ``sb.DOOR["com"].copy()``."""
    for value in values.values():
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
    return MappingProxyType(values)


#: The door as plain data, read-only (see ``_frozen``), so the seed's usage works unchanged.
DOOR = _frozen({
    "mass": _MASS,                                   # kg
    "width": _WIDTH,                                 # m, a, along body x
    "height": _HEIGHT,                               # m, c, along body z
    "com": np.array([_WIDTH / 2, 0.0, 0.0]),         # m, d = x_C - x_O
    "inertia_com": plate_inertia(_MASS, _WIDTH, _HEIGHT),  # kg m^2 about C, body axes
    "hinge_axis": np.array([0.0, 0.0, 1.0]),
    "omega": 2.0,                                    # rad/s at the worked instant
    "alpha": 3.0,                                    # rad/s^2 at the worked instant
})
