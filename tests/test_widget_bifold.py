"""Physics tests of E8, the bifold door (widgets/bifold.py, book chapter 11).

The experiment's numbers come from ``sb.inverse_dynamics`` and ``sb.mass_matrix``.  These tests
check them and what is drawn against routes that do not use those functions: MuJoCo with the
hinge line really tilted in the world, the leaves' kinetic and potential energy from their
geometry, and each leaf's COM acceleration by finite differences of its position.
``check`` and ``DEGENERATE`` also drive the shared sweeps of tests/test_widgets.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import spatialbook as sb
from widgets import EXPERIMENTS
from widgets.readouts import plain
from widgets.bifold import (ARROW_F, BIFOLD, COM, I_C, MASS, WIDTH, BifoldDoor, gravity_in_base,
                            leaf_points, scene)

#: settings where something vanishes (rates, accelerations, tilt); the shared test draws them
DEGENERATE = [
    dict(qd1=0.0, qd2=0.0),
    dict(qd1=0.0, qd2=0.0, qdd1=0.0, qdd2=0.0),
    dict(qd1=0.0, qd2=0.0, qdd1=0.0, qdd2=0.0, tilt=0.0),
    dict(q1=0.0, q2=0.0, tilt=0.0),
]


def _state_of(st):
    q = np.deg2rad([st["q1"], st["q2"]])
    return q, np.array([st["qd1"], st["qd2"]]), np.array([st["qdd1"], st["qdd2"]]), gravity_in_base(st["tilt"])


def _com_positions(q):
    """The two COMs in base coordinates, by plane geometry (not through spatialbook)."""
    a, c = WIDTH, COM[0]
    x_O2 = a * np.array([np.cos(q[0]), np.sin(q[0]), 0.0])
    x_C1 = c * np.array([np.cos(q[0]), np.sin(q[0]), 0.0])
    x_C2 = x_O2 + c * np.array([np.cos(q[0] + q[1]), np.sin(q[0] + q[1]), 0.0])
    return x_C1, x_C2


def _com_accelerations(q, qd, qdd, h=1e-4):
    """d^2 x_C / dt^2 of both COMs along q(t) = q + qd t + qdd t^2 / 2, central differences."""
    pos = [np.array(_com_positions(q + qd * t + 0.5 * qdd * t * t)) for t in (-h, 0.0, h)]
    return (pos[0] - 2 * pos[1] + pos[2]) / h**2


def _kinetic_energy_from_leaves(q, qd):
    """T = sum over leaves of m v_C^2 / 2 + I_C,zz omega^2 / 2 (planar motion about z)."""
    h = 1e-6
    v = (np.array(_com_positions(q + qd * h)) - np.array(_com_positions(q - qd * h))) / (2 * h)
    omegas = (qd[0], qd[0] + qd[1])
    return sum(0.5 * MASS * vc @ vc + 0.5 * I_C[2, 2] * w**2 for vc, w in zip(v, omegas))


def _planar_kinematics(q, qd, qdd):
    """Hinge O2, COMs, their velocities and accelerations (base axes) in closed form: a point at
    r from a pivot turning at w, w' moves at w e_z x r and accelerates at w' e_z x r - w^2 r."""
    ez = np.array([0.0, 0.0, 1.0])
    x_C1, x_C2 = _com_positions(q)
    x_O2 = WIDTH * np.array([np.cos(q[0]), np.sin(q[0]), 0.0])
    w1, w2, a1, a2 = qd[0], qd[0] + qd[1], qdd[0], qdd[0] + qdd[1]
    r2 = x_C2 - x_O2
    v_C1, v_O2 = w1 * np.cross(ez, x_C1), w1 * np.cross(ez, x_O2)
    a_C1, a_O2 = a1 * np.cross(ez, x_C1) - w1**2 * x_C1, a1 * np.cross(ez, x_O2) - w1**2 * x_O2
    v_C2 = v_O2 + w2 * np.cross(ez, r2)
    a_C2 = a_O2 + a2 * np.cross(ez, r2) - w2**2 * r2
    return x_O2, (x_C1, x_C2), (v_C1, v_C2), (a_C1, a_C2), (w1, w2), (a1, a2)


def check(e, st):
    """Oracle: recompute from the control values what E8 must draw and read out."""
    q, qd, qdd, g = _state_of(st)
    tau = sb.inverse_dynamics(BIFOLD, q, qd, qdd, gravity=g)
    H = sb.mass_matrix(BIFOLD, q)
    # the three parts: bars, and their sum is the library's tau (the black marks)
    heights = e.bar_heights()
    np.testing.assert_allclose(heights[0], H @ qdd, atol=1e-12)
    np.testing.assert_allclose(heights[1], sb.inverse_dynamics(BIFOLD, q, qd, [0, 0], [0, 0, 0]), atol=1e-12)
    np.testing.assert_allclose(heights[2], sb.inverse_dynamics(BIFOLD, q, [0, 0], [0, 0], g), atol=1e-12)
    np.testing.assert_allclose(np.sum(heights, axis=0), tau, atol=1e-12)
    np.testing.assert_allclose(e.bar_total(), tau, atol=1e-12)
    np.testing.assert_allclose(st["tau"], tau, atol=1e-12)
    # taught: gravity has no moment about vertical hinges
    if st["tilt"] == 0.0:
        np.testing.assert_allclose(st["gravity"], 0.0, atol=1e-12)
    # H: symmetric, positive definite, and 1/2 qd^T H qd is the leaves' kinetic energy
    np.testing.assert_allclose(st["H"], H, atol=1e-12)
    assert st["asymmetry"] < 1e-12
    assert min(st["H_eigenvalues"]) > 0 and st["positive_definite"] == 1.0
    assert 0.5 * qd @ H @ qd == pytest.approx(_kinetic_energy_from_leaves(q, qd), abs=1e-8)
    # power balance, and the velocity torques' power is 1/2 qd^T Hdot qd (the skew property)
    assert st["power"] == pytest.approx(float(tau @ qd), abs=1e-12)
    assert abs(st["power_residual"]) < 1e-7
    assert st["velocity_power"] == pytest.approx(st["half_qd_Hdot_qd"], abs=1e-7)
    # the leaves as drawn, and each leaf's force f_i = m (a_C,i - g), from above
    x_C1, x_C2 = _com_positions(q)
    np.testing.assert_allclose(e.coms.get_xydata(), [x_C1[:2], x_C2[:2]], atol=1e-12)
    np.testing.assert_allclose(e.leaf1.get_xydata(), [[0, 0], [WIDTH * np.cos(q[0]), WIDTH * np.sin(q[0])]],
                               atol=1e-12)
    f = MASS * (_com_accelerations(q, qd, qdd) - g)
    np.testing.assert_allclose([st["f_leaf1"], st["f_leaf2"]], f, atol=2e-5)
    for i, key in enumerate(("f_leaf1", "f_leaf2")):
        arrow = e.parts[key].quiver
        np.testing.assert_allclose(np.column_stack([arrow.U, arrow.V])[0], f[i, :2], atol=2e-5)
        np.testing.assert_allclose(arrow.get_offsets()[0], [x_C1[:2], x_C2[:2]][i], atol=1e-12)
    # the leaf wrenches, projected on the hinge axes at the base origin, give the library's tau
    p = leaf_points(q)
    S1 = sb.revolute_axis([0, 0, 1], p["O1"], [0, 0, 0])
    S2 = sb.revolute_axis([0, 0, 1], p["O2"], [0, 0, 0])
    F1, F2 = np.array(st["F_leaf1"]), np.array(st["F_leaf2"])
    np.testing.assert_allclose([S1 @ (F1 + F2), S2 @ F2], tau, atol=1e-12)
    np.testing.assert_allclose(np.column_stack([e.parts['g_base'].quiver.U, e.parts['g_base'].quiver.V])[0], g[:2], atol=1e-12)
    # every other number and line, in closed form (plane kinematics, not spatialbook)
    t = np.deg2rad(st["tilt"])
    np.testing.assert_allclose(st["g_base"], [0, -9.81 * np.sin(t), -9.81 * np.cos(t)], atol=1e-12)
    np.testing.assert_allclose(st["H_eigenvalues"], np.linalg.eigvalsh(H), atol=1e-12)
    x_O2, x_C, v_C, a_C, w, a = _planar_kinematics(q, qd, qdd)
    end = x_O2 + WIDTH * np.array([np.cos(q[0] + q[1]), np.sin(q[0] + q[1]), 0.0])
    np.testing.assert_allclose(e.leaf2.get_xydata(), [x_O2[:2], end[:2]], atol=1e-12)
    dU = -MASS * g @ (v_C[0] + v_C[1])                            # U = -m g . (x_C1 + x_C2)
    dT = sum(MASS * vc @ ac for vc, ac in zip(v_C, a_C)) + I_C[2, 2] * (w[0] * a[0] + w[1] * a[1])
    assert st["dU_dt"] == pytest.approx(dU, abs=1e-7)
    assert st["dT_dt"] == pytest.approx(dT, abs=1e-6)
    assert st["energy_rate"] == pytest.approx(dT + dU, abs=1e-6)
    assert st["power_residual"] == pytest.approx(st["power"] - st["energy_rate"], abs=1e-15)
    ez = np.array([0.0, 0.0, 1.0])
    for key, xc, ac, wi, ai, q_abs in (("F_leaf1", x_C[0], a_C[0], w[0], a[0], q[0]),
                                       ("F_leaf2", x_C[1], a_C[1], w[1], a[1], q[0] + q[1])):
        f_i = MASS * (ac - g)                                   # Newton, gravity excluded
        R = sb.rotation_z(q_abs)
        I_w = R @ I_C @ R.T
        tau_O = np.cross(xc, f_i) + I_w @ (ai * ez) + np.cross(wi * ez, I_w @ (wi * ez))   # Euler at C, moved to O
        np.testing.assert_allclose(st[key], np.r_[tau_O, f_i], atol=1e-11, err_msg=key)


@pytest.fixture(scope="module")
def exp():
    e = EXPERIMENTS["bifold_door"]()
    yield e
    e.close()


def _random_controls(rng):
    out = {}
    for spec in BifoldDoor.CONTROLS:
        vals = spec.sweep(41)
        out[spec.name] = vals[rng.integers(len(vals))]
    return out


def test_registered_with_the_shared_protocol(exp):
    assert EXPERIMENTS["bifold_door"] is BifoldDoor and isinstance(exp, BifoldDoor)
    assert set(exp.controls) == {"q1", "q2", "qd1", "qd2", "qdd1", "qdd2", "tilt"}
    assert exp.main_control == "q2"
    check(exp, exp.state())


def test_tree_is_two_identical_leaves_on_parallel_hinges():
    assert BIFOLD.parents.tolist() == [-1, 0]
    np.testing.assert_allclose(BIFOLD.axes, [[0, 0, 1, 0, 0, 0]] * 2)
    np.testing.assert_allclose(BIFOLD.placements[1], sb.motion_transform(np.eye(3), [WIDTH, 0, 0]))
    np.testing.assert_allclose(BIFOLD.inertias[0], sb.spatial_inertia(MASS, COM, I_C))
    # straight out: H_22 is leaf 2's inertia about its own hinge, I_C,zz + m c^2; H_11 both leaves'
    # about the wall hinge (parallel-axis theorem)
    H = sb.mass_matrix(BIFOLD, [0.0, 0.0])
    assert H[1, 1] == pytest.approx(I_C[2, 2] + MASS * COM[0] ** 2)
    assert H[0, 0] == pytest.approx(2 * I_C[2, 2] + MASS * (COM[0] ** 2 + (WIDTH + COM[0]) ** 2))


def test_state_is_the_scene(exp):
    rng = np.random.default_rng(11)
    for _ in range(5):
        values = _random_controls(rng)
        exp.set(**values)
        expected = plain({**values, **scene(**values)["numbers"]})
        assert exp.state() == expected
        check(exp, exp.state())
    exp.set(**{s.name: s.value for s in BifoldDoor.CONTROLS})


def test_torque_parts_sum_to_inverse_dynamics():
    rng = np.random.default_rng(5)
    for _ in range(20):
        n = scene(**_random_controls(rng))["numbers"]
        np.testing.assert_allclose(n["inertial"] + n["velocity"] + n["gravity"], n["tau"], atol=1e-12)


def test_gravity_part_vanishes_only_with_vertical_hinges():
    rng = np.random.default_rng(6)
    for _ in range(10):
        values = _random_controls(rng)
        n0 = scene(**{**values, "tilt": 0.0})["numbers"]
        np.testing.assert_allclose(n0["gravity"], 0.0, atol=1e-12)
        assert abs(n0["dU_dt"]) < 1e-9
        # with a tilt, G is the gradient of the potential energy of the two COMs
        q = np.deg2rad([values["q1"], values["q2"]])
        g = gravity_in_base(20.0)
        h = 1e-6
        grad = [(-MASS * g @ sum(_com_positions(q + h * e)) + MASS * g @ sum(_com_positions(q - h * e)))
                / (2 * h) for e in np.eye(2)]
        n = scene(**{**values, "tilt": 20.0})["numbers"]
        np.testing.assert_allclose(n["gravity"], grad, atol=1e-7)


def test_gravity_across_the_hinges_is_g_sin_tilt_along_minus_y():
    for tilt in (-30.0, 10.0, 30.0):
        g = gravity_in_base(tilt)
        np.testing.assert_allclose(g, [0, -9.81 * np.sin(np.deg2rad(tilt)), -9.81 * np.cos(np.deg2rad(tilt))],
                                   atol=1e-12)


def test_against_mujoco_with_the_hinge_line_tilted_in_the_world():
    """MuJoCo: default gravity, the first leaf's body frame turned by the tilt about x; tau and H."""
    mujoco = pytest.importorskip("mujoco")

    def nums(*v):
        return " ".join(repr(float(x)) for x in v)

    rng = np.random.default_rng(8)
    for _ in range(4):
        values = _random_controls(rng)
        tilt = np.deg2rad(values["tilt"])
        leaf = (f'<joint type="hinge" axis="0 0 1"/><inertial pos="{nums(*COM)}" mass="{nums(MASS)}" '
                f'diaginertia="{nums(*np.diag(I_C))}"/>')
        xml = (f'<mujoco><compiler angle="radian"/><option gravity="0 0 -9.81"/><worldbody>'
               f'<body name="leaf1" euler="{nums(tilt, 0, 0)}">{leaf}'
               f'<body name="leaf2" pos="{nums(WIDTH, 0, 0)}">{leaf}</body></body>'
               f'</worldbody></mujoco>')
        model = mujoco.MjModel.from_xml_string(xml)
        data = mujoco.MjData(model)
        q = np.deg2rad([values["q1"], values["q2"]])
        data.qpos[:] = q
        data.qvel[:] = [values["qd1"], values["qd2"]]
        data.qacc[:] = [values["qdd1"], values["qdd2"]]
        mujoco.mj_inverse(model, data)
        H_mj = np.zeros((2, 2))
        mujoco.mj_fullM(model, data, H_mj)
        n = scene(**values)["numbers"]
        np.testing.assert_allclose(n["tau"], data.qfrc_inverse, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(n["H"], H_mj, rtol=1e-9, atol=1e-12)
        data.qacc[:] = 0.0
        data.qvel[:] = 0.0
        mujoco.mj_inverse(model, data)
        np.testing.assert_allclose(n["gravity"], data.qfrc_inverse, rtol=1e-9, atol=1e-9)


def test_defaults_are_chapter_9s_bifold_instant():
    n = scene()["numbers"]
    assert scene.__defaults__ == (-90.0, 45.0, 10.0, 2.0, -1.0, 3.0, 0.5)
    np.testing.assert_allclose(n["H"], [[2 * I_C[2, 2] + MASS * (COM[0] ** 2 + WIDTH**2 + COM[0] ** 2),
                                         I_C[2, 2] + MASS * COM[0] ** 2],
                                        [I_C[2, 2] + MASS * COM[0] ** 2, I_C[2, 2] + MASS * COM[0] ** 2]],
                               atol=1e-12)      # folded at 90 deg: leaf 2's COM is sqrt(a^2 + c^2)
    # from the wall hinge, and H_12 = I_C,zz + m c (c + a cos q2)
    assert abs(n["power_residual"]) < 1e-7


def test_arrow_scale_is_stated(exp):
    assert exp.parts["f_leaf1"].quiver.scale == pytest.approx(1 / ARROW_F)
    assert "0.04 m" in exp.figure.axes[0].get_title()


def test_qd2_hint_rates_mirrored_about_minus_qd1_give_the_same_torques():
    """The q̇₂ hint: with parallel hinges the velocity torques depend on q̇₂ only through
    q̇₂ (2 q̇₁ + q̇₂) (and q̇₁²), so q̇₂ and -2 q̇₁ - q̇₂ give the same bars; the power differs."""
    rng = np.random.default_rng(12)
    for _ in range(5):
        q1, q2, tilt = rng.uniform(-150, 150), rng.uniform(-150, 150), rng.uniform(-30, 30)
        qd1, qd2 = rng.uniform(-1.4, 1.4), rng.uniform(-0.2, 0.2)
        a = scene(q1=q1, q2=q2, tilt=tilt, qd1=qd1, qd2=qd2)["numbers"]
        b = scene(q1=q1, q2=q2, tilt=tilt, qd1=qd1, qd2=-2 * qd1 - qd2)["numbers"]
        for key in ("tau", "velocity", "inertial", "gravity"):
            np.testing.assert_allclose(a[key], b[key], atol=1e-12)
        assert abs(a["power"] - b["power"]) > 1e-6
    assert "2q̇₁ + q̇₂" in BifoldDoor.CONTROLS[4].hint
