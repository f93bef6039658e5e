"""Physics tests of E11, the arm explorer (widgets/arm.py, book chapter 12).

The experiment computes everything with spatialbook from the Panda's URDF (embedded in
widgets/robots.py).  The oracle ``check`` recomputes what is drawn and read out with
MuJoCo reading the MJCF twin of the robot (book/models/panda.xml): ``mj_fullM`` for H,
``qfrc_bias`` for G and C_v, ``mj_jac`` / ``mj_jacBody`` for the hand's twist in space and
body form, ``xpos`` for the link origins, and the screw axis in closed form from MuJoCo's twist.
Further tests compare with Pinocchio reading the URDF file, and check what the chapter teaches:
which joints each entry of H depends on, and G's first entry vanishing (vertical first axis).
"""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
import pinocchio as pin
import pytest

import spatialbook as sb
from widgets import EXPERIMENTS
from widgets.parts import arrow_segments_3d
from widgets.arm import (ARROW_V, AXIS_HALF, CONTROLS, LIMITS, PANDA, QD_DEMO, ArmExplorer, scene)
from widgets.arm import PANDA_URDF

MODELS = Path(__file__).resolve().parents[1] / "book" / "models"
MJ = mujoco.MjModel.from_xml_path(str(MODELS / "panda.xml"))
MJ_DATA = mujoco.MjData(MJ)
BODIES = [mujoco.mj_name2id(MJ, mujoco.mjtObj.mjOBJ_BODY, b)
          for b in ("link1", "link2", "link3", "link4", "link5", "link6", "link7", "flange")]
HAND = BODIES[-1]
RTOL, ATOL = 1e-8, 1e-11

#: settings where something vanishes or lines up (zero angles where the ranges allow, slowest rate)
DEGENERATE = [
    dict(q1=0.0, q2=0.0, q3=0.0, q5=0.0, q7=0.0),
    dict(q1=0.0, q2=0.0, q3=0.0, q4=-90.0, q5=0.0, q6=0.0, q7=0.0, rate=0.1),
    dict(q2=90.0, q4=-4.0, q6=215.0),
]


def mujoco_reference(q, qd) -> dict:
    """What E11 must show at (q, qd), computed by MuJoCo (no spatialbook involved)."""
    m, d = MJ, MJ_DATA
    d.qpos[:], d.qvel[:] = q, 0.0
    mujoco.mj_forward(m, d)
    G = d.qfrc_bias.copy()                             # q̇ = 0: gravity only
    M = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, M)
    d.qvel[:] = qd
    mujoco.mj_forward(m, d)
    C_v = d.qfrc_bias - G                              # Coriolis and centripetal
    jacp, jacr = np.zeros((3, m.nv)), np.zeros((3, m.nv))
    mujoco.mj_jac(m, d, jacp, jacr, np.zeros(3), HAND)   # the hand-fixed point at the world origin
    V_s = np.r_[jacr @ qd, jacp @ qd]
    mujoco.mj_jacBody(m, d, jacp, jacr, HAND)          # the flange origin, world axes
    R = d.xmat[HAND].reshape(3, 3)
    w, v = jacr @ qd, jacp @ qd
    p = d.xpos[HAND].copy()
    return {"H": M, "G": G, "C_v": C_v, "V_s": V_s, "V_b": np.r_[R.T @ w, R.T @ v],
            "v_hand": v, "hand": p, "origins": np.vstack([np.zeros(3), d.xpos[BODIES[:7]]]),
            "pitch": w @ v / (w @ w), "axis_point": p + np.cross(w, v) / (w @ w),
            "axis_direction": w / np.linalg.norm(w)}


def _state_of(st):
    q = np.deg2rad([st[f"q{i + 1}"] for i in range(7)])
    return q, st["rate"] * QD_DEMO


def view_toward(elev, azim):
    """The unit vector toward the viewer at elevation ``elev``, azimuth ``azim`` (deg)."""
    e, a = np.deg2rad(elev), np.deg2rad(azim)
    return np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])


def screen(ax, points):
    """3-D points (n, 3) where the 3-D axes' projection ax.M puts them (its 2-D data coords)."""
    p = np.asarray(points, float)
    h = np.asarray(ax.M) @ np.vstack([p.T, np.ones(len(p))])
    return (h[:2] / h[3]).T


def _xy(line):
    return np.column_stack(line.get_data()).astype(float)


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=RTOL, atol=ATOL,
                               equal_nan=True)


def check(e, st):
    """Oracle: everything E11 reads out and draws, from MuJoCo at the control values."""
    q, qd = _state_of(st)
    ref = mujoco_reference(q, qd)
    _close(st["q"], q)
    _close(st["qd"], qd)
    for key in ("H", "G", "C_v", "V_s", "V_b", "v_hand", "hand", "pitch", "axis_point",
                "axis_direction"):
        _close(st[key], ref[key])
    _close(st["H_diag"], np.diag(ref["H"]))
    _close(st["H_least_eigenvalue"], np.linalg.eigvalsh(ref["H"])[0])
    _close(st["kinetic_energy"], 0.5 * qd @ ref["H"] @ qd)
    # drawn: the bars, the heat map, and in the 3-D view the arm, the hand, its velocity arrow
    # and the screw axis, each where the view's projection puts MuJoCo's points
    _close(e.bar_heights(0)[0], ref["G"])
    _close(e.bar_heights(1)[0], ref["C_v"])
    _close(np.asarray(e.im.get_array()).reshape(7, 7), ref["H"])
    ax, toward = e.ax3d, view_toward(st["elev"], st["azim"])
    assert (ax.elev, ax.azim) == (st["elev"], st["azim"])
    np.testing.assert_allclose(ax.M, ax.get_proj(), rtol=0, atol=1e-12)   # the view drawn
    # an orthographic view along `toward`: a step toward the viewer does not move the picture
    p = np.array([[0.3, -0.2, 0.5]])
    _close(screen(ax, p + 0.7 * toward), screen(ax, p))
    o = np.vstack([ref["origins"], ref["hand"]])
    segs = np.stack([o[:-1], o[1:]], axis=1)
    order = np.argsort(segs.mean(axis=1) @ toward, kind="stable")     # far to near
    drawn = np.asarray(e.links.lines.get_segments())
    _close(drawn[0::2], drawn[1::2])                                  # edge under core
    _close(np.array(drawn[0::2]).reshape(-1, 2), screen(ax, segs[order].reshape(-1, 3)))
    _close(_xy(e.joints.line), screen(ax, o[1:-1]))
    _close(_xy(e.hand.line), screen(ax, ref["hand"][None]))
    seg = ref["axis_point"] + np.outer([-AXIS_HALF, AXIS_HALF], ref["axis_direction"])
    _close(_xy(e.axis_line.line), screen(ax, seg))
    # the arrow of v, ARROW_V m per m/s, its head in the plane facing the viewer
    arrow = np.stack(arrow_segments_3d(ref["hand"], ref["v_hand"], ARROW_V,
                                       side=np.cross(toward, ref["v_hand"])), axis=1)
    _close(_xy(e.v_arrow.line), screen(ax, arrow))
    across = arrow[3] - arrow[5]               # from one barb to the other: across the view
    assert abs(across @ toward) < 1e-12 and abs(across @ ref["v_hand"]) < 1e-12
    # the invariants: H symmetric positive definite, the twist the same screw in both forms
    H = np.asarray(st["H"])
    assert np.allclose(H, H.T, atol=1e-14) and np.linalg.eigvalsh(H).min() > 0


# --------------------------------------------------------------------------- the model


def test_the_model_is_the_book_file():
    assert PANDA_URDF == (MODELS / "panda.urdf").read_text(encoding="utf-8")


def test_controls_span_the_joint_ranges():
    for c, (lo, hi) in zip(CONTROLS[:7], np.rad2deg(LIMITS)):
        assert lo <= c.min < lo + 1 and hi - 1 < c.max <= hi and c.min <= c.value <= c.max


def random_q(rng, n=10):
    return rng.uniform(LIMITS[:, 0], LIMITS[:, 1], (n, 7))


def test_dynamics_agree_with_pinocchio():
    """H, G and C_v of the scene against Pinocchio's crba and rnea reading the URDF file."""
    pm = pin.buildModelFromXML((MODELS / "panda.urdf").read_text())
    pd = pm.createData()
    pm.gravity.linear = np.array([0.0, 0.0, -9.81])
    rng = np.random.default_rng(7)
    for q in random_q(rng):
        s = scene(*np.rad2deg(q), rate=1.5)["numbers"]
        H = pin.crba(pm, pd, q)
        H = np.triu(H) + np.triu(H, 1).T
        qd = 1.5 * QD_DEMO
        G = pin.rnea(pm, pd, q, np.zeros(7), np.zeros(7))
        C = pin.rnea(pm, pd, q, qd, np.zeros(7)) - G
        for a, b in ((s["H"], H), (s["G"], G), (s["C_v"], C)):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def test_least_eigenvalue_is_positive_and_below_every_diagonal_entry():
    """H is positive definite and its least eigenvalue is at most its least diagonal entry
    (a diagonal entry is the Rayleigh quotient of a unit vector); the readout's line under the
    H table shows both to two significant digits, never the 0.00 the table's rounding gives
    H₇₇."""
    rng = np.random.default_rng(11)
    exp = ArmExplorer()
    for q in random_q(rng):
        exp.set(**{f"q{i + 1}": angle for i, angle in enumerate(np.rad2deg(q))})
        s = exp.state()
        lam, diag = s["H_least_eigenvalue"], np.asarray(s["H_diag"])
        assert 0.0 < lam <= diag.min() + 1e-12
        k = int(np.argmin(diag)) + 1
        line = exp.readout_table().rsplit("<div", 1)[-1]
        assert f"= {diag.min():.2g}," in line and f"least eigenvalue {lam:.2g} " in line
        assert "H" + "₀₁₂₃₄₅₆₇₈₉"[k] * 2 in line
    exp.close()


def test_twist_is_the_sum_of_carried_joint_axes_and_agrees_with_mujoco_jacobians():
    """At random q: V_s = J_s q̇ with MuJoCo's mj_jac columns (space form), V_b = R^T-rotated
    mj_jacBody (body form), and V_b = ^hX_0 V_s (one twist, two frames)."""
    rng = np.random.default_rng(8)
    for q in random_q(rng):
        st = scene(*np.rad2deg(q), rate=0.7)["numbers"]
        ref = mujoco_reference(q, 0.7 * QD_DEMO)
        _close(st["V_s"], ref["V_s"])
        _close(st["V_b"], ref["V_b"])
        R = MJ_DATA.xmat[HAND].reshape(3, 3)
        X_h0 = sb.motion_transform(R, MJ_DATA.xpos[HAND])   # world -> flange coordinates
        _close(X_h0 @ st["V_s"], st["V_b"])


def test_which_joints_each_entry_of_H_depends_on():
    """H_ij depends only on q_k with k > min(i, j): moving joint k changes no entry of the
    bottom-right block from row and column k on (joints i, j >= k and every body beyond them
    turn together with joint k, rigidly, so S_j^T I^c_j ^jX_i S_i does not change).  So H never
    depends on q1, and H_77 is constant.  Checked with MuJoCo's mj_fullM."""
    rng = np.random.default_rng(9)
    for q in random_q(rng, 4):
        H0 = mujoco_reference(q, QD_DEMO)["H"]
        for k in range(7):
            q2 = q.copy()
            q2[k] = rng.uniform(*LIMITS[k])
            dH = np.abs(mujoco_reference(q2, QD_DEMO)["H"] - H0)
            assert dH[k:, k:].max() < 1e-12, k
            if k > 0:
                assert dH[:k, :].max() > 1e-6, k          # the rows above do change


def test_gravity_has_no_moment_about_the_vertical_first_axis():
    rng = np.random.default_rng(10)
    for q in random_q(rng):
        G = scene(*np.rad2deg(q))["numbers"]["G"]
        assert abs(G[0]) < 1e-12 and np.abs(G).max() > 1.0


def test_velocity_terms_scale_with_the_square_of_the_rate():
    a = scene(rate=0.5)["numbers"]
    b = scene(rate=1.5)["numbers"]
    np.testing.assert_allclose(b["C_v"], 9.0 * a["C_v"], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(b["V_s"], 3.0 * a["V_s"], rtol=1e-12, atol=1e-14)
    assert a["pitch"] == pytest.approx(b["pitch"], rel=1e-12)         # the screw does not scale


def test_registered_and_drawn_at_defaults():
    e = EXPERIMENTS["arm_explorer"]()
    try:
        assert isinstance(e, ArmExplorer)
        check(e, e.state())
    finally:
        e.close()


def test_stored_axis_limits_are_the_fitted_ones():
    """H_LIM, G_LIM, C_LIM are stored (not computed at import, see widgets/arm.py): they must
    stay what the seeded sweep over the joint ranges gives, or a colour or bar would clip."""
    from widgets import arm

    assert (arm.H_LIM, arm.G_LIM, arm.C_LIM) == arm._limits_over_the_ranges()


def test_stored_reach_is_the_fitted_one():
    """REACH (the radius of the ball the 3-D view shows) is stored like H_LIM: it must stay what
    the seeded sweep over the joint ranges gives, or the arm could leave the view."""
    from widgets import arm

    assert arm.REACH == arm._reach_over_the_ranges()


def test_the_view_turns_the_picture_and_changes_no_number():
    """Azimuth and elevation move every 3-D artist and no number; at every view and at random
    poses everything drawn of the arm stays inside the 3-D axes (the ball fits the square)."""
    e = EXPERIMENTS["arm_explorer"]()
    try:
        before = e.state()
        png = e.frames(values=[before["q2"]])[0]
        rng = np.random.default_rng(11)
        for _ in range(6):
            q = rng.uniform(np.rad2deg(LIMITS[:, 0]), np.rad2deg(LIMITS[:, 1])).round()
            view = dict(azim=float(rng.choice(np.arange(-180, 181, 5))),
                        elev=float(rng.choice(np.arange(-30, 91, 5))))
            e.set(**{f"q{i + 1}": float(v) for i, v in enumerate(q)}, rate=2.0, **view)
            st = e.state()
            check(e, st)
            box = e.ax3d.bbox
            for xy in (np.asarray(e.links.lines.get_segments()).reshape(-1, 2), _xy(e.hand.line),
                       _xy(e.v_arrow.line)):
                px = e.ax3d.transData.transform(xy[np.isfinite(xy).all(axis=1)])
                assert np.all((px >= (box.x0, box.y0)) & (px <= (box.x1, box.y1)))
            e.set(azim=float(-view["azim"]) if view["azim"] else 90.0)
            turned = e.state()
            assert {k: v for k, v in turned.items() if k != "azim"} == \
                   {k: v for k, v in st.items() if k != "azim"}
        e.set(**{k: before[k] for k in e.values()})
        assert e.frames(values=[before["q2"]])[0] == png
    finally:
        e.close()
