"""Physics tests of E10, the central axis as the line of least torque (widgets/least_torque.py,
book chapter 5).  ``check`` and ``DEGENERATE`` also drive the shared sweeps of
tests/test_widgets.py and the corrupted-scene guard of tests/test_widget_controls.py.

The oracle never calls spatialbook: it writes the system as point forces (the push at Q, the
wrist twist as two vertical forces either side of Q, the closer's couple as two opposite
forces either side of the hinge) and sums their moments about each point by hand; the central
axis comes from the closed form of a planar force plus a couple along it.
"""

from __future__ import annotations

import numpy as np
import pytest

from widget_helpers import uv
from widgets import EXPERIMENTS
from widgets.least_torque import LeastTorque, scene

Q = np.array([0.8, 0.0, 0.0])                # the push point (m)
PUSH = 5.0                                   # N
E_Z = np.array([0.0, 0.0, 1.0])
POSITIONS = np.linspace(-0.4, 1.2, 161)      # where the curve is drawn (m)

DEGENERATE = [
    dict(twist=0.0),                                         # planar: least torque 0
    dict(couple=0.0),                                        # the axis is the push's line
    dict(push_angle=0.0, couple=0.0, twist=0.0, ref_x=0.8),  # P on the line of action: tau_P = 0
    dict(push_angle=0.0, couple=0.0, ref_x=0.8),             # P on the axis: tau_P = twist only
]


def point_forces(st) -> list[tuple[np.ndarray, np.ndarray]]:
    """(point, force) pairs equivalent to the experiment's system of forces."""
    a = np.deg2rad(st["push_angle"])
    f = PUSH * np.array([-np.sin(a), np.cos(a), 0.0])        # the push, tilted from +y
    u = f / PUSH
    w = np.cross(E_Z, u)                                     # horizontal, across f
    t, c, r = st["twist"], st["couple"], 0.1                 # r: half the spacing of each pair
    return [(Q, f),
            (Q + r * w, t / (2 * r) * E_Z), (Q - r * w, -t / (2 * r) * E_Z),   # moment t u
            (np.array([r, 0, 0]), c / (2 * r) * np.array([0, 1.0, 0])),        # moment c e_z
            (np.array([-r, 0, 0]), -c / (2 * r) * np.array([0, 1.0, 0]))]


def moment_about(forces, x) -> np.ndarray:
    """Sum of (x_i - x) x f_i over the point forces, about each row of x (n, 3)."""
    x = np.atleast_2d(x)
    return sum(np.cross(p - x, F) for p, F in forces)


def check(e, st):
    """Oracle: particle sums and the closed-form axis of a planar push plus couples."""
    forces = point_forces(st)
    f = sum(F for _, F in forces)
    x_P = np.array([st["ref_x"], 0.0, 0.0])
    tau_P = moment_about(forces, x_P)[0]
    t, c = st["twist"], st["couple"]
    # the axis: tau parallel to f, i.e. tau_z = (0.8 - s) f_y + c = 0 on y = 0; along f
    s_axis = Q[0] + c / f[1]
    u = f / np.linalg.norm(f)
    rho = abs(st["ref_x"] - s_axis) * abs(u[1])
    np.testing.assert_allclose(st["f"], f, atol=1e-12)
    np.testing.assert_allclose(st["tau_P"], tau_P, atol=1e-12)
    np.testing.assert_allclose(st["F_P"], np.r_[tau_P, f], atol=1e-12)
    assert st["tau_P_size"] == pytest.approx(np.linalg.norm(tau_P), abs=1e-12)
    assert st["pitch"] == pytest.approx(t / PUSH, abs=1e-12)
    assert st["least_torque"] == pytest.approx(abs(t), abs=1e-12)
    assert st["least_torque"] == pytest.approx(abs(f @ tau_P) / np.linalg.norm(f), abs=1e-12)
    np.testing.assert_allclose(st["axis_point"], [s_axis, 0, 0], atol=1e-12)
    np.testing.assert_allclose(st["axis_direction"], u, atol=1e-12)
    assert st["axis_crossing"] == pytest.approx(s_axis, abs=1e-12)
    assert st["distance_to_axis"] == pytest.approx(rho, abs=1e-12)
    # taught: |tau_P| = |f| sqrt(p^2 + rho^2), least (|p||f|) on the axis, where tau || f
    assert st["tau_P_size"] == pytest.approx(PUSH * np.hypot(t / PUSH, rho), abs=1e-12)
    on_axis = moment_about(forces, [s_axis, 0, 0])[0]
    np.testing.assert_allclose(np.cross(on_axis, f), 0, atol=1e-12)
    # the curve: |tau| along P's line by particle sums, its marker and reference lines
    curve = e.curves[0]
    line = np.column_stack([POSITIONS, np.zeros((len(POSITIONS), 2))])
    np.testing.assert_allclose(curve.line.get_xdata(), POSITIONS, atol=1e-12)
    np.testing.assert_allclose(curve.line.get_ydata(), np.linalg.norm(moment_about(forces, line), axis=1),
                               atol=1e-12)
    np.testing.assert_allclose(curve.marker.get_xydata(), [[st["ref_x"], np.linalg.norm(tau_P)]], atol=1e-12)
    np.testing.assert_allclose(curve.refs[0].get_xdata(), [s_axis, s_axis], atol=1e-12)
    np.testing.assert_allclose(curve.refs[1].get_ydata(), [abs(t), abs(t)], atol=1e-12)
    lim = curve.axes.get_ylim()
    assert lim[0] == 0 and np.max(curve.line.get_ydata()) <= lim[1]
    # the top view: P, the push at Q, its line of action, the central axis, P's line
    np.testing.assert_allclose(e.reference.marker.get_xydata(), [x_P[:2]], atol=1e-12)
    np.testing.assert_allclose(uv(e.parts["f"].quiver), [f[:2]], atol=1e-12)
    np.testing.assert_allclose(e.parts["f"].quiver.get_offsets(), [Q[:2]], atol=1e-12)
    for name, through, along in (("x_Q", Q, f), ("axis_point", np.array([s_axis, 0, 0]), f),
                                 ("P's line", Q, np.array([1.0, 0, 0]))):
        ends = e.parts[name].line.get_xydata()                  # clipped to the top view's box
        assert len(ends) == 2, name
        box = np.array([e.top.get_xlim(), e.top.get_ylim()])
        for x in ends:
            assert np.min(np.abs(x[:, None] - box)) < 1e-9 and np.all(x >= box[:, 0] - 1e-9) \
                and np.all(x <= box[:, 1] + 1e-9), name
        for x in ends:
            r = x - through[:2]
            assert abs(r[0] * along[1] - r[1] * along[0]) < 1e-9, name
    # the torque at P: its vertical part as an arc, its part in the plane (along f) as an arrow
    arc = e.parts["tau_P[2]"]
    phi = np.unwrap(np.arctan2(*(arc.arc.get_xydata() - x_P[:2]).T[::-1]))
    assert phi[-1] - phi[0] == pytest.approx(np.clip(tau_P[2] / 4.0, -1, 1) * 1.75 * np.pi, abs=1e-9)
    np.testing.assert_allclose(uv(e.parts["tau_P"].quiver), [tau_P[:2]], atol=1e-12)
    np.testing.assert_allclose(e.parts["tau_P"].quiver.get_offsets(), [x_P[:2]], atol=1e-12)
    np.testing.assert_allclose(tau_P[:2], t * u[:2], atol=1e-12)      # the floor: t along f


@pytest.fixture(scope="module")
def exp():
    e = EXPERIMENTS["least_torque"]()
    yield e
    e.close()


def test_registered(exp):
    assert EXPERIMENTS["least_torque"] is LeastTorque and exp.main_control == "ref_x"
    check(exp, exp.state())


def test_least_torque_is_on_the_axis_for_random_systems():
    """Dense sampling by particle sums: along P's line |tau| is smallest at the axis crossing,
    and there it equals |f . tau_P| / |f| computed at any other point."""
    rng = np.random.default_rng(4)
    for _ in range(25):
        st = dict(push_angle=rng.uniform(-60, 60), couple=rng.uniform(-2, 2), twist=rng.uniform(-1, 1),
                  ref_x=rng.uniform(-0.4, 1.2))
        n = scene(**st)["numbers"]
        forces = point_forces(st)
        f = sum(F for _, F in forces)
        s = np.linspace(-20, 20, 400001)
        sizes = np.linalg.norm(moment_about(forces, np.column_stack([s, 0 * s, 0 * s])), axis=1)
        k = int(np.argmin(sizes))
        assert s[k] == pytest.approx(n["axis_crossing"], abs=2e-4)
        tau_any = moment_about(forces, [rng.uniform(-3, 3), rng.uniform(-3, 3), rng.uniform(-3, 3)])[0]
        assert sizes[k] == pytest.approx(abs(f @ tau_any) / np.linalg.norm(f), abs=1e-6)
        assert n["least_torque"] == pytest.approx(abs(f @ tau_any) / np.linalg.norm(f), abs=1e-12)


def test_planar_system_is_one_force_along_the_axis():
    """With no twist the system is planar: a single force f on the central axis replaces it
    (same moment about every point), so the torque vanishes on the axis."""
    rng = np.random.default_rng(9)
    for _ in range(10):
        st = dict(push_angle=rng.uniform(-60, 60), couple=rng.uniform(-2, 2), twist=0.0, ref_x=0.0)
        n = scene(**st)["numbers"]
        forces = point_forces(st)
        f = sum(F for _, F in forces)
        single = [(np.asarray(n["axis_point"]), f)]
        pts = rng.uniform(-2, 2, (6, 3))
        np.testing.assert_allclose(moment_about(single, pts), moment_about(forces, pts), atol=1e-12)
        assert n["least_torque"] == 0.0 and n["pitch"] == 0.0
        assert scene(**{**st, "ref_x": n["axis_crossing"]})["numbers"]["tau_P_size"] < 1e-12


def test_closer_couple_shifts_the_axis_by_c_over_f():
    """The axis is parallel to the push's line of action, c / |f| away from it."""
    for c in (-2.0, -0.5, 0.0, 1.5):
        n = scene(push_angle=20.0, couple=c)["numbers"]
        d = np.asarray(n["axis_direction"])
        offset = np.cross(np.asarray(n["axis_point"]) - Q, d)[2]
        assert offset == pytest.approx(c / PUSH, abs=1e-12)


def test_curve_axis_fitted_once_over_every_control(exp):
    from widgets.limits import fit_limit
    specs = {c.name: c for c in LeastTorque.CONTROLS}
    lim = exp.curves[0].axes.get_ylim()
    assert lim == (0.0, fit_limit(LeastTorque.scene, LeastTorque.CURVES[0], specs, {}))
    rng = np.random.default_rng(2)
    for _ in range(40):
        values = {k: float(rng.choice(s.sweep(50))) for k, s in specs.items()}
        assert scene(**values)["line_tau"].max() <= lim[1]
