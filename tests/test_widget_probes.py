"""Physics tests of E5, three probes at one place (widgets/probes.py, book chapter 7).
``check`` and ``DEGENERATE`` also drive the shared sweeps of tests/test_widgets.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import spatialbook as sb
from widget_helpers import uv
from widgets import EXPERIMENTS
from widgets.probes import ARROWS

DEGENERATE = [dict(path=p, omega=0.0, u=0.0, nu=0.0) for p in ("material", "fixed", "line")]


def check(e, st):
    """Oracle: each probe's field rate written out with cross products (chapter 7)."""
    w = np.array([0, 0, st["omega"]])
    x_P = np.array([0.4, 0, 0])
    V_P = sb.shift_twist(np.r_[w, 0, 0, 0], x_P)
    a_P = sb.acceleration_field(np.r_[w, 0, 0, 0], np.zeros(6), x_P)
    u = {"material": V_P[3:], "fixed": np.zeros(3), "line": np.array([st["u"], 0, 0])}[st["path"]]
    vdot = {"material": a_P, "fixed": np.zeros(3), "line": np.cross(w, u)}[st["path"]]
    np.testing.assert_allclose(st["vdot_P"], vdot, atol=1e-12)
    np.testing.assert_allclose(st["omega_x_u"], np.cross(w, u), atol=1e-12)
    # taught: all three probes agree on the door's spatial acceleration, zero
    np.testing.assert_allclose(st["A_P_lin"], 0, atol=1e-12)
    np.testing.assert_allclose(st["A_P"], 0, atol=1e-12)
    np.testing.assert_allclose(sb.probe_acceleration(w, vdot, u), st["A_P_lin"], atol=1e-12)
    # chapter 7, eq. (eq-ch07-frame): the frame's rotation adds -nu x v_P to the coordinate rate
    nu = np.array([0, 0, st["nu"]])
    np.testing.assert_allclose(st["frame_rate"],
                               sb.rotating_frame_derivative(np.eye(3), nu, vdot, V_P[3:]), atol=1e-12)
    drawn = {k: uv(e.parts[k].quiver)[0] for k, *_ in ARROWS}
    for k, *_ in ARROWS:
        np.testing.assert_allclose(drawn[k], np.asarray(st[k])[:2], atol=1e-12)
    rates = [vdot, np.cross(w, u), np.zeros(3), st["frame_rate"]]
    # every other number shown, by hand: v_P = w x x_P, a = -w^2 x_P (steady spin), each
    # probe's rate, and the frame's term -nu x v_P
    v_P = np.array([0, st["omega"] * x_P[0], 0])
    np.testing.assert_allclose(st["x_P"], x_P, atol=0)
    np.testing.assert_allclose(st["v_P"], v_P, atol=1e-12)
    np.testing.assert_allclose(st["u_P"], u, atol=1e-12)
    np.testing.assert_allclose(st["a_material"], -st["omega"] ** 2 * x_P, atol=1e-12)
    np.testing.assert_allclose(st["vdot_material"], -st["omega"] ** 2 * x_P, atol=1e-12)
    np.testing.assert_allclose(st["vdot_fixed"], 0, atol=1e-12)
    np.testing.assert_allclose(st["vdot_line"], [0, st["omega"] * st["u"], 0], atol=1e-12)
    np.testing.assert_allclose(st["frame_term"], [st["nu"] * v_P[1], 0, 0], atol=1e-12)
    np.testing.assert_allclose(e.bar_heights(), np.array(rates)[:, :2].T, atol=1e-12)


@pytest.fixture(scope="module")
def exp():
    e = EXPERIMENTS["probes"]()
    yield e
    e.close()


def test_defaults_are_chapter_7s_probes(exp):
    st = exp.state()
    assert st["path"] == "material" and st["nu"] == 0.0
    np.testing.assert_allclose(st["x_P"], [0.4, 0, 0])
    np.testing.assert_allclose(st["vdot_P"], [-1.6, 0, 0], atol=1e-12)
    np.testing.assert_allclose(st["vdot_fixed"], [0, 0, 0], atol=1e-12)
    np.testing.assert_allclose(st["vdot_line"], np.cross([0, 0, 2], [0.5, 0, 0]), atol=1e-12)


def test_basis_rotation_alone(exp):
    exp.set(nu=1.0)                                  # basis rotation alone: -nu x v_P
    np.testing.assert_allclose(exp.state()["frame_term"], [0.8, 0, 0], atol=1e-12)
    exp.set(nu=0.0)


def test_set_rejects_unknown_controls(exp):
    with pytest.raises(ValueError, match="no control 'not_a_control': expected one of"):
        exp.set(not_a_control=1)
