"""A declared ``Curve`` with several quantities and slanted reference lines (``widgets/parts.py``).

The test experiment is E9 (the door's kinetic energy) with one curve over the angular speed ω:
T from spatialbook, the closed form ½ I_O,zz ω² over it, and the translation term ½ m |v_P|²
(a third quantity that differs from the other two, so a line drawn from the wrong key fails);
a tangent to T at the current ω (slope dT/dω = I_O,zz ω, the angular momentum about the hinge)
and the fixed line y = x + 0.5.  The oracle is the door's data written out by hand, not the scene.
"""

from __future__ import annotations

import numpy as np
import pytest

import spatialbook as sb
from widgets import Curve, KineticEnergy, Ref
from widgets.limits import nice_limit

MASS = float(sb.DOOR["mass"])
X_C = float(sb.DOOR["com"][0])
I_O = float(sb.DOOR["inertia_com"][2, 2]) + MASS * X_C ** 2      # parallel axes, by hand
COLORS = ("#0072B2", "#000000", "#009E73")


def scene(ref_x=0.0, omega=2.0) -> dict:
    s = KineticEnergy.scene(ref_x=ref_x, omega=omega)
    n = s["numbers"]
    n["T_formula"] = 0.5 * I_O * omega ** 2
    n["T_point"] = np.array([omega, n["kinetic_energy"]])
    n["L_O"] = I_O * omega                                  # dT/dω
    return s


class EnergyCurves(KineticEnergy):
    name = "energy_curves"                                  # not registered
    scene = staticmethod(scene)
    CURVES = (Curve("T against ω", "ω (rad/s)", "energy (J)",
                    ("kinetic_energy", "T_formula", "translation"), "omega",
                    labels=("T (spatialbook)", "½ I_O ω²", "½ m |v_P|²"), colors=COLORS,
                    refs=(Ref("T_point", axis="line", slope="L_O", label="tangent, slope I_O ω"),
                          Ref(axis="line", slope=1.0, intercept=0.5, label="y = x + 0.5")),
                    rect=(0.62, 0.55, 0.33, 0.35), positive=True),)


@pytest.fixture()
def exp():
    e = EnergyCurves(ref_x=0.3, omega=1.5)
    yield e
    e.close()


def _by_hand(w, x_P):
    """T, ½ I_O ω², ½ m (ω x_P)² at angular speeds w (rad/s), P at (x_P, 0, 0)."""
    w = np.asarray(w, float)
    return np.array([0.5 * I_O * w ** 2, 0.5 * I_O * w ** 2, 0.5 * MASS * (w * x_P) ** 2])


def test_every_quantity_is_drawn_from_its_own_key(exp):
    d = exp.curves[0]
    assert len(d.lines) == len(d.markers) == 3 and d.line is d.lines[0]
    ws = np.asarray(KineticEnergy.CONTROLS[1].sweep(61))
    for x_P in (0.3, 0.7):
        exp.set(ref_x=x_P)
        want = _by_hand(ws, x_P)
        for line, marker, y, color, now in zip(d.lines, d.markers, want, COLORS,
                                               _by_hand(1.5, x_P)):
            np.testing.assert_allclose(line.get_xdata(), ws, atol=0)
            np.testing.assert_allclose(line.get_ydata(), y, atol=1e-12)
            np.testing.assert_allclose(marker.get_xydata(), [[1.5, now]], atol=1e-12)
            assert line.get_color() == color
    assert [line.get_linestyle() for line in d.lines] == ["-", "--", "--"]
    labels = [t.get_text() for t in d.axes.get_legend().get_texts()]
    assert labels == ["T (spatialbook)", "½ I_O ω²", "½ m |v_P|²", "tangent, slope I_O ω",
                      "y = x + 0.5"]


def test_slanted_reference_lines(exp):
    d = exp.curves[0]
    lo, hi = d.axes.get_xlim()
    for w in (1.5, -2.0, 0.0, 3.0):
        before = exp.redraws
        exp.set(omega=w)
        assert exp.redraws == before                       # the tangent moves by blitting
        tangent, fixed = (line.get_xydata() for line in d.refs)
        T, L = 0.5 * I_O * w ** 2, I_O * w
        # the tangent touches T at ω and has its slope: T(ω) + L (x - ω) at the axis' ends
        np.testing.assert_allclose(tangent, [[lo, T + L * (lo - w)], [hi, T + L * (hi - w)]],
                                   atol=1e-12)
        # it is the tangent: T lies above it (T convex in ω) and touches it at ω only
        xs = d.line.get_xdata()
        line_at = T + L * (xs - w)
        assert np.all(d.line.get_ydata() >= line_at - 1e-12)
        np.testing.assert_allclose(fixed, [[lo, lo + 0.5], [hi, hi + 0.5]], atol=1e-12)


def test_the_axis_is_fitted_over_every_quantity(exp):
    lo, lim = exp.curves[0].axes.get_ylim()
    assert lo == 0.0
    big = max(_by_hand(3.0, x).max() for x in (0.0, 0.8))   # ω at its end, P anywhere
    assert big <= lim < 2 * big
    # the first quantity alone (T) would have fitted a smaller axis: the third one sets it
    assert nice_limit(0.5 * I_O * 3.0 ** 2) < lim


def test_bad_declarations_are_refused():
    with pytest.raises(ValueError, match="slope"):
        Ref("T_point", axis="line")
    with pytest.raises(ValueError, match="not both"):
        Ref("T_point", axis="line", slope=1.0, intercept=0.0)
    with pytest.raises(ValueError, match="not both"):
        Ref(axis="line", slope=1.0)
    with pytest.raises(ValueError, match="slope"):
        Ref("least_torque", axis="y", slope=1.0)
    with pytest.raises(ValueError, match="labels"):
        Curve("t", "x", "y", ("a", "b"), "omega", labels=("one",))
    with pytest.raises(ValueError, match="y must be"):
        Curve("t", "x", "y", (), "omega")
