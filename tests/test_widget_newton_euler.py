"""Physics tests of E6, Newton–Euler on the door term by term (widgets/newton_euler.py, book
chapter 8).  ``check`` and ``DEGENERATE`` also drive the shared sweeps of tests/test_widgets.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import spatialbook as sb
from widget_helpers import uv
from widgets import EXPERIMENTS

DOOR = sb.DOOR
I_O = sb.spatial_inertia(DOOR["mass"], DOOR["com"], DOOR["inertia_com"])
DEGENERATE = [dict(alpha=0.0), dict(alpha=0.0, omega=0.0), dict(alpha=0.0, omega=0.0, reference="COM")]


def check(e, st):
    """Oracle: the wrench at the hinge, moved to the COM by the force rule (chapter 4)."""
    V_O = np.array([0, 0, st["omega"], 0, 0, 0.0])
    A_O = np.array([0, 0, st["alpha"], 0, 0, 0.0])
    F_O = sb.required_wrench(I_O, V_O, A_O)
    if st["reference"] == "hinge":
        I, V, A = I_O, V_O, A_O
        expected_total = F_O
    else:
        X = sb.motion_transform(np.eye(3), DOOR["com"])
        I, V, A = sb.transform_inertia(X, I_O), X @ V_O, X @ A_O
        expected_total = sb.shift_wrench(F_O, DOOR["com"])    # the force-transform rule
    np.testing.assert_allclose(e.bar_heights(), [sb.inertial_wrench(I, A), sb.bias_wrench(I, V)],
                               atol=1e-12)
    np.testing.assert_allclose(e.bar_total(), expected_total, atol=1e-12)
    np.testing.assert_allclose(st["total"], np.add(st["inertial"], st["bias"]), atol=1e-12)
    # taught: f is the same at the hinge and at the COM, and f = m a_C
    np.testing.assert_allclose(st["f"], F_O[3:], atol=1e-12)
    np.testing.assert_allclose(st["f"], DOOR["mass"] * np.asarray(st["a_C"]), atol=1e-12)
    assert st["hinge_torque"] == pytest.approx(F_O[2], abs=1e-12)
    np.testing.assert_allclose(uv(e.parts["total[3:]"].quiver)[0], F_O[3:5], atol=1e-12)
    for key, part in (("inertial[3:]", sb.inertial_wrench(I, A)), ("bias[3:]", sb.bias_wrench(I, V))):
        np.testing.assert_allclose(uv(e.parts[key].quiver)[0], part[3:5], atol=1e-12)
        np.testing.assert_allclose(e.parts[key].quiver.get_offsets()[0], e.reference.marker.get_xydata()[0],
                                   atol=1e-12)
    # every other number shown: the twist, acceleration, torque, mass and power at the reference
    np.testing.assert_allclose(st["V"], V, atol=1e-12)
    np.testing.assert_allclose(st["A"], A, atol=1e-12)
    np.testing.assert_allclose(st["tau"], expected_total[:3], atol=1e-12)
    assert st["mass"] == DOOR["mass"]
    assert st["power"] == pytest.approx(st["omega"] * F_O[2], abs=1e-12)   # omega tau_O,z at any point


@pytest.fixture(scope="module")
def exp():
    e = EXPERIMENTS["newton_euler"]()
    yield e
    e.close()


def test_defaults_are_chapter_8s_door(exp):
    st = exp.state()
    np.testing.assert_allclose(st["total"], [0, 0, 1.28, -3.2, 2.4, 0], atol=1e-12)
    np.testing.assert_allclose(st["bias"], [0, 0, 0, -3.2, 0, 0], atol=1e-12)
    np.testing.assert_allclose(st["inertial"], [0, 0, 1.28, 0, 2.4, 0], atol=1e-12)
    np.testing.assert_allclose(st["a_C"], [-1.6, 1.2, 0], atol=1e-12)


def test_centripetal_pull_alone_and_the_com(exp):
    exp.set(alpha=0.0)                               # only the centripetal pull remains
    np.testing.assert_allclose(exp.state()["total"], [0, 0, 0, -3.2, 0, 0], atol=1e-12)
    exp.set(alpha=3.0, reference="COM")
    st = exp.state()
    np.testing.assert_allclose(st["tau"], [0, 0, 0.32], atol=1e-12)
    np.testing.assert_allclose(st["f"], [-3.2, 2.4, 0], atol=1e-12)
    exp.set(reference="hinge")


def test_choice_control_sweeps_its_options(exp):
    frames = exp.frames("reference")
    assert len(frames) == 2 and frames[0] != frames[1]
    assert exp.controls["reference"].value == "hinge"


def test_omega_and_reference_hints_at_alpha_zero():
    """The hints of ω and of the reference: at α = 0, ω and -ω give the same wrenches (the bias
    term is quadratic in ω), and hinge and COM the same τ (zero) and f; the power does not move."""
    scene = EXPERIMENTS["newton_euler"].scene
    for omega in (0.6, 1.7, 3.0):
        a, b = scene(alpha=0.0, omega=omega)["numbers"], scene(alpha=0.0, omega=-omega)["numbers"]
        c = scene(alpha=0.0, omega=omega, reference="COM")["numbers"]
        for key in ("inertial", "bias", "total", "a_C"):
            np.testing.assert_allclose(a[key], b[key], atol=1e-12)
            np.testing.assert_allclose(a[key], c[key], atol=1e-12)
        assert a["power"] == pytest.approx(0.0, abs=1e-12) and not np.allclose(a["V"], b["V"])
    d, e = scene(alpha=3.0, omega=2.0)["numbers"], scene(alpha=3.0, omega=2.0, reference="COM")["numbers"]
    assert not np.allclose(d["tau"], e["tau"]) and np.allclose(d["f"], e["f"])
