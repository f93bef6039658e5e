"""Physics tests of E9, the kinetic energy's three terms (widgets/kinetic_energy.py, book
chapter 6).  ``check`` and ``DEGENERATE`` also drive the shared sweeps of tests/test_widgets.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import spatialbook as sb

M, X_C = float(sb.DOOR["mass"]), float(sb.DOOR["com"][0])
I_CZ = M * float(sb.DOOR["width"]) ** 2 / 12                     # the plate about its COM, z
DEGENERATE = [dict(omega=0.0), dict(ref_x=X_C), dict(ref_x=0.0), dict(omega=0.0, ref_x=X_C)]


def check(e, st):
    """Oracle: the terms of eq. (eq-ch06-energy-split) written out for a spin about the hinge."""
    w, x = st["omega"], st["ref_x"]
    terms = [0.5 * (I_CZ + M * (X_C - x) ** 2) * w**2,             # rotation about P
             M * w**2 * x * (X_C - x),                              # m v_P . (w x d)
             0.5 * M * (w * x) ** 2]                                # translation of P
    T = 0.5 * (I_CZ + M * X_C**2) * w**2                            # 1/2 I_O,z w^2, any P
    np.testing.assert_allclose([st["rotation"], st["coupling"], st["translation"]], terms, atol=1e-12)
    assert st["kinetic_energy"] == pytest.approx(T, abs=1e-12)
    np.testing.assert_allclose(e.bar_heights()[0], [*terms, T], atol=1e-12)
    np.testing.assert_allclose(e.reference.marker.get_xydata(), [[x, 0]], atol=1e-12)
    np.testing.assert_allclose(e.reference.arrow.xy, [X_C, 0], atol=1e-12)
    np.testing.assert_allclose(st["v_P"], [0, w * x, 0], atol=1e-12)
    np.testing.assert_allclose(st["V_P"], [0, 0, w, 0, w * x, 0], atol=1e-12)


def test_coupling_changes_sign_at_the_com():
    from widgets.kinetic_energy import scene
    c = [scene(ref_x=x)["numbers"]["coupling"] for x in (0.2, X_C, 0.6)]
    assert c[0] > 0 and c[1] == pytest.approx(0, abs=1e-12) and c[2] < 0
