"""Physics tests of E3, the power split of a push (widgets/power_split.py, book chapters 4 and 5).
``check`` and ``DEGENERATE`` also drive the shared sweeps of tests/test_widgets.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import spatialbook as sb
from widget_helpers import uv
from widgets import EXPERIMENTS
from widgets.power_split import PUSH_FORCE, PUSH_POINT

DEGENERATE = [dict(ref_x=0.8), dict(omega=0.0), dict(omega=0.0, ref_x=0.8, push_angle=60.0)]


def check(e, st):
    """Oracle: the wrench at the hinge from tau_O = x_Q x f (shift_wrench from Q), the twist at P."""
    f = sb.rotation_z(np.deg2rad(st["push_angle"])) @ [0, PUSH_FORCE, 0]
    F_O = sb.shift_wrench(np.r_[np.zeros(3), f], -PUSH_POINT)
    x_P = np.array([st["ref_x"], 0, 0])
    V_P = sb.shift_twist([0, 0, st["omega"], 0, 0, 0], x_P)
    F_P = sb.shift_wrench(F_O, x_P)
    rot, trans = sb.power_terms(V_P, F_P)
    np.testing.assert_allclose(e.bar_heights()[0], [rot, trans, sb.power(V_P, F_P)], atol=1e-12)
    np.testing.assert_allclose(uv(e.parts["f"].quiver)[0], f[:2], atol=1e-12)
    np.testing.assert_allclose(uv(e.reference.velocity)[0], V_P[3:5], atol=1e-12)
    # the drawn line of action runs through Q along f, from one edge of the top view to the other
    ends = e.parts["line_point"].line.get_xydata()
    assert len(ends) == 2 and np.linalg.norm(ends[1] - ends[0]) > 1.0
    for x in ends:
        r = x - PUSH_POINT[:2]
        assert abs(r[0] * f[1] - r[1] * f[0]) < 1e-9
    # the torque arc sweeps tau_P,z / (4 N m) of 315 degrees
    arc = e.parts["tau_P[2]"]
    tau_z = np.cross(PUSH_POINT - x_P, f)[2]
    phi = np.unwrap(np.arctan2(*(arc.arc.get_xydata() - x_P[:2]).T[::-1]))
    assert phi[-1] - phi[0] == pytest.approx(np.clip(tau_z / 4.0, -1, 1) * 1.75 * np.pi, abs=1e-9)
    # taught: the sum does not depend on P; it equals the power at the hinge
    total_O = sb.power([0, 0, st["omega"], 0, 0, 0], F_O)
    assert st["total_power"] == pytest.approx(total_O, abs=1e-12)
    assert st["rotational_power"] + st["translational_power"] == pytest.approx(total_O, abs=1e-12)
    assert st["hinge_torque"] == pytest.approx(F_O[2], abs=1e-12)
    # the line of action passes through Q, along f; P's distance to it is the lever arm
    p, d = np.array(st["line_point"]), np.array(st["line_direction"])
    assert np.linalg.norm(np.cross(PUSH_POINT - p, d)) < 1e-12
    np.testing.assert_allclose(d, f / np.linalg.norm(f), atol=1e-12)
    assert st["lever_arm"] == pytest.approx(abs(np.cross(PUSH_POINT - x_P, f)[2]) / PUSH_FORCE, abs=1e-12)
    # every other number shown: twist, wrench, torque, force and velocity at P
    np.testing.assert_allclose(st["V_P"], [0, 0, st["omega"], 0, st["omega"] * x_P[0], 0], atol=1e-12)
    tau_P = np.cross(PUSH_POINT - x_P, f)                      # moment of f about P, by hand
    np.testing.assert_allclose(st["F_P"], np.r_[tau_P, f], atol=1e-12)
    np.testing.assert_allclose(st["tau_P"], tau_P, atol=1e-12)
    np.testing.assert_allclose(st["f"], f, atol=1e-12)
    np.testing.assert_allclose(st["v_P"], V_P[3:], atol=1e-12)
    np.testing.assert_allclose(e.reference.marker.get_xydata(), [x_P[:2]], atol=1e-12)


@pytest.fixture(scope="module")
def exp():
    e = EXPERIMENTS["power_split"]()
    yield e
    e.close()


def test_default_is_chapter_4s_push(exp):
    assert exp.state()["total_power"] == pytest.approx(8.0)


def test_reference_point_on_the_line_of_action(exp):
    exp.set(ref_x=0.8)                               # P on the line of action: no torque
    st = exp.state()
    np.testing.assert_allclose(st["tau_P"], 0, atol=1e-12)
    assert st["rotational_power"] == pytest.approx(0, abs=1e-12)
    assert st["translational_power"] == pytest.approx(8.0)
    exp.set(ref_x=0.0)


def test_static_player(exp):
    out = exp.static_player(values=[0.0, 0.4, 0.8])
    text = out.data if hasattr(out, "data") else str(out)
    assert "range" in text and "data:image/png;base64" in text
    assert exp.controls["ref_x"].value == 0.0
