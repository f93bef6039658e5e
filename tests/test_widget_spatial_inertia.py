"""Physics tests of E4, the door's spatial inertia at a sliding reference point
(widgets/spatial_inertia.py, book chapter 6).  ``check`` and ``DEGENERATE`` also drive the shared
sweeps of tests/test_widgets.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import spatialbook as sb
from widgets import EXPERIMENTS

DOOR = sb.DOOR
I_O = sb.spatial_inertia(DOOR["mass"], DOOR["com"], DOOR["inertia_com"])
DEGENERATE = [dict(ref_x=0.4), dict(omega=0.0), dict(omega=0.0, ref_x=0.4)]


def check(e, st):
    """Oracle: chapter 6's eq. (eq-ch06-inertia) assembled directly at P (not by transforming I_O)."""
    x_P = np.array([st["ref_x"], 0, 0])
    I_P = sb.spatial_inertia(DOOR["mass"], np.asarray(DOOR["com"]) - x_P, DOOR["inertia_com"])
    np.testing.assert_allclose(e.im.get_array(), I_P, atol=1e-12)
    np.testing.assert_allclose(st["I_P"], I_P, atol=1e-12)
    V_P = sb.shift_twist([0, 0, st["omega"], 0, 0, 0], x_P)
    T = sb.kinetic_energy(I_O, [0, 0, st["omega"], 0, 0, 0])
    assert st["kinetic_energy"] == pytest.approx(float(T), abs=1e-12)      # unchanged
    assert st["kinetic_energy"] == pytest.approx(float(sb.kinetic_energy(I_P, V_P)), abs=1e-12)
    # coupling blocks are +-m D, zero exactly at the COM
    D = sb.skew(np.asarray(DOOR["com"]) - x_P)
    np.testing.assert_allclose(st["mD"], DOOR["mass"] * D, atol=1e-12)
    np.testing.assert_allclose(np.asarray(st["I_P"])[3:, :3], -DOOR["mass"] * D, atol=1e-12)
    # every other number shown, by hand (a spin about the hinge's z)
    w, c = st["omega"], np.asarray(DOOR["com"]) - x_P
    np.testing.assert_allclose(st["x_P"], x_P, atol=0)
    np.testing.assert_allclose(st["offset"], c, atol=1e-12)
    np.testing.assert_allclose(st["V_P"], [0, 0, w, 0, w * x_P[0], 0], atol=1e-12)
    np.testing.assert_allclose(st["H_P"], I_P @ V_P, atol=1e-12)
    np.testing.assert_allclose(st["I_rot"], I_P[:3, :3], atol=1e-12)
    assert st["I_zz"] == pytest.approx(DOOR["inertia_com"][2][2] + DOOR["mass"] * (c[0] ** 2 + c[1] ** 2),
                                       abs=1e-12)
    assert st["coupling_max"] == pytest.approx(DOOR["mass"] * np.max(np.abs(c)), abs=1e-12)
    assert st["mass"] == DOOR["mass"]
    # the marker at P, the d arrow from P to C
    np.testing.assert_allclose(e.reference.marker.get_xydata(), [x_P[:2]], atol=1e-12)
    np.testing.assert_allclose(e.reference.arrow.xy, DOOR["com"][:2], atol=1e-12)
    np.testing.assert_allclose(e.reference.arrow.get_position(), x_P[:2], atol=1e-12)


def test_defaults_are_chapter_6s_door():
    e = EXPERIMENTS["spatial_inertia"]()
    assert e.state()["kinetic_energy"] == pytest.approx(0.853333, abs=1e-6)
    np.testing.assert_allclose(e.state()["mD"], 0, atol=1e-12)
    e.close()
