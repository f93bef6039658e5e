"""Physics tests of E12, the floating biped (widgets/floating_biped.py, book chapter 14).

The experiment integrates the biped with spatialbook (forward dynamics, ``rk4_step``) and reads
h_G, the centre of mass and the body poses from spatialbook.  The oracle ``check`` integrates
the same robot again with Pinocchio (``pin.aba``, ``pin.integrate``, the same RK4 scheme and
the same motor law, which are the experiment's inputs), reading ``book/models/biped.urdf``
itself, and takes h_G from ``pin.ccrba``, the centre of mass from ``pin.centerOfMass`` and the
drawn points from ``pin.forwardKinematics``.  Further tests compare h_G with MuJoCo's subtree
momentum (``book/models/biped.xml``), and check what the chapter teaches: h_G constant without
gravity, l_G constant and M v_G changing by M g t with it, the error of the integration
shrinking 16 times when the step is halved (fourth order), the torso's share of l_G
cancelling the legs', and gravity leaving the joints' and the torso's motion unchanged.
"""

from __future__ import annotations

import functools
from pathlib import Path

import mujoco
import numpy as np
import pinocchio as pin
import pytest

import spatialbook as sb
from widgets import EXPERIMENTS
from widgets import floating_biped as fb

MODELS = Path(__file__).resolve().parents[1] / "book" / "models"
PIN = pin.buildModelFromUrdf(str(MODELS / "biped.urdf"), pin.JointModelFreeFlyer())
PIN_DATA = PIN.createData()
MASS = pin.computeTotalMass(PIN)
G = {"off": np.zeros(3), "on": np.array([0.0, 0.0, -9.81])}
DT, STEPS = 0.01, 100
TORSO, HIPS, KNEES = PIN.getJointId("root_joint"), \
    [PIN.getJointId(n) for n in ("left_hip_pitch", "right_hip_pitch")], \
    [PIN.getJointId(n) for n in ("left_knee", "right_knee")]

#: t = 0: nothing has moved yet, for every kick and gravity
DEGENERATE = [dict(t_ms=0.0, pattern=p, gravity=g) for p in fb.PATTERNS for g in ("off", "on")]


# ----------------------------------------------------------- the oracle, with Pinocchio alone

def _to_pin(q_sb):
    """The book's q [p; quat w x y z; joints] as Pinocchio's [p; quat x y z w; joints]."""
    return np.r_[q_sb[:3], q_sb[4:7], q_sb[3], q_sb[7:]]


def _from_pin(q, v):
    return np.r_[q[:3], q[6], q[3:6], q[7:]], np.r_[v[3:6], v[:3], v[6:]]


def _bracket(a, b):
    """se(3)'s bracket of twists in Pinocchio's order [v; omega]."""
    return np.r_[np.cross(a[3:], b[:3]) + np.cross(a[:3], b[3:]), np.cross(a[3:], b[3:])]


def _local(theta, v):
    out = v.copy()
    c = _bracket(theta, v[:6])
    out[:6] = v[:6] + 0.5 * c + _bracket(theta, c) / 12.0
    return out


def _pin_acc(q, v, t, pattern, g):
    q_sb, v_sb = _from_pin(q, v)
    tau = np.zeros(PIN.nv)
    tau[6:] = fb.joint_torques(t, q_sb, v_sb, pattern)[6:]      # the motors: the experiment's input
    PIN.gravity.linear[:] = g
    return pin.aba(PIN, PIN_DATA, q, v, tau)


@functools.lru_cache(maxsize=None)
def oracle(pattern: str, gravity: str, steps: int = STEPS, dt: float = DT) -> dict:
    """The trajectory by Pinocchio and everything E12 shows of it, per step."""
    g = G[gravity]
    q = _to_pin(np.r_[0.0, 0.0, fb.START_HEIGHT, 1.0, 0.0, 0.0, 0.0, np.zeros(6)])
    v = np.zeros(PIN.nv)
    v[:3] = fb.DRIFT[gravity]                   # upright: body axes = world axes
    out = {k: [] for k in ("q", "qd", "h", "torso", "legs", "com", "box", "left", "right", "rot")}
    for n in range(steps + 1):
        q_sb, v_sb = _from_pin(q, v)
        out["q"].append(q_sb)
        out["qd"].append(v_sb)
        Ag = pin.ccrba(PIN, PIN_DATA, q, v).copy()          # linear rows first
        Ag = np.r_[Ag[3:], Ag[:3]]
        out["torso"].append(Ag[:3, :6] @ v[:6])
        out["legs"].append(Ag[:3, 6:] @ v[6:])
        out["h"].append(Ag @ v)
        out["com"].append(pin.centerOfMass(PIN, PIN_DATA, q).copy())
        pin.forwardKinematics(PIN, PIN_DATA, q)
        out["box"].append(np.array([PIN_DATA.oMi[TORSO].act(c) for c in fb._BOX_PATH]))
        for side, hip, knee in (("left", HIPS[0], KNEES[0]), ("right", HIPS[1], KNEES[1])):
            out[side].append(np.array([PIN_DATA.oMi[hip].translation]
                                      + [PIN_DATA.oMi[knee].act(p) for p in fb._SHIN_POINTS]))
        out["rot"].append(np.rad2deg(pin.log3(PIN_DATA.oMi[TORSO].rotation)))
        if n == steps:
            break
        t = n * dt
        a1 = _pin_acc(q, v, t, pattern, g)
        d1 = v
        v2 = v + 0.5 * dt * a1
        d2 = _local(0.5 * dt * d1[:6], v2)
        a2 = _pin_acc(pin.integrate(PIN, q, 0.5 * dt * d1), v2, t + 0.5 * dt, pattern, g)
        v3 = v + 0.5 * dt * a2
        d3 = _local(0.5 * dt * d2[:6], v3)
        a3 = _pin_acc(pin.integrate(PIN, q, 0.5 * dt * d2), v3, t + 0.5 * dt, pattern, g)
        v4 = v + dt * a3
        d4 = _local(dt * d3[:6], v4)
        a4 = _pin_acc(pin.integrate(PIN, q, dt * d3), v4, t + dt, pattern, g)
        q = pin.integrate(PIN, q, dt * (d1 + 2 * d2 + 2 * d3 + d4) / 6)
        v = v + dt * (a1 + 2 * a2 + 2 * a3 + a4) / 6
    return {k: np.array(x) for k, x in out.items()}


# The two integrations (spatialbook's and Pinocchio's, same scheme) agree to rounding: about
# 1e-13 after the 100 steps (measured); the tolerances leave room without letting a 1 %
# change of any shown number through.
RTOL, ATOL = 1e-9, 1e-11


def _close(a, b, what=""):
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=RTOL, atol=ATOL,
                               err_msg=what)


def _xz(line):
    return np.column_stack([np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)])


def check(e, st):
    """Oracle: everything E12 reads out and draws, from Pinocchio's own integration."""
    k = int(round(st["t_ms"] / 10.0))
    o = oracle(st["pattern"], st["gravity"])
    t = k * DT
    assert st["t"] == pytest.approx(t, abs=1e-12)
    _close(st["q"], o["q"][k], "q")
    _close(st["qd"], o["qd"][k], "qd")
    _close(st["joints"], np.rad2deg(o["q"][k][7:]), "joints")
    _close(st["h_G"], o["h"][k], "h_G")
    _close(st["h_G0"], o["h"][0], "h_G0")
    impulse = np.r_[0.0, 0.0, 0.0, MASS * t * G[st["gravity"]]]
    _close(st["impulse"], impulse, "impulse")
    dh = np.asarray(st["h_G"]) - np.asarray(st["h_G0"])
    np.testing.assert_allclose(st["dh_G"], dh, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(st["l_error"], np.linalg.norm(dh[:3] - impulse[:3]), rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(st["p_error"], np.linalg.norm(dh[3:] - impulse[3:]), rtol=1e-9, atol=1e-14)
    # the law itself: internal torques leave l_G alone, gravity changes M v_G by M g t
    assert st["l_error"] < 1e-3 and st["p_error"] < 1e-3, (st["l_error"], st["p_error"])
    _close(st["l_torso"], o["torso"][k], "l_torso")
    _close(st["l_legs"], o["legs"][k], "l_legs")
    _close(st["torso_rotation"], o["rot"][k], "torso_rotation")
    _close(st["com"], o["com"][k], "com")
    # drawn: the side view (x, z) of the torso box, the legs, G and its path so far
    for line, key in ((e.torso, "box"), (e.left_leg, "left"), (e.right_leg, "right")):
        _close(_xz(line), o[key][k][:, [0, 2]], key)
    _close(_xz(e.path), o["com"][:k + 1, [0, 2]], "path")
    _close(_xz(e.com), o["com"][k:k + 1, [0, 2]], "G")
    # the momentum panels over the whole kick, and the time cursor
    times = np.arange(STEPS + 1) * DT
    for (key, j), line in e.ang_lines.items():
        ref = {"l_legs": o["legs"], "l_torso": o["torso"], "l_G": o["h"][:, :3]}[key]
        _close(_xz(line), np.column_stack([times, ref[:, j]]), f"{key}[{j}]")
    for j, line in e.lin_lines.items():
        _close(_xz(line), np.column_stack([times, o["h"][:, 3 + j]]), f"M v_G[{j}]")
    for c in e.cursors:
        _close(c.get_xdata(), [t, t], "cursor")


# ------------------------------------------------------------------ what the chapter teaches

def test_the_two_integrations_agree_to_rounding():
    for key in fb.SETTINGS:
        tr, o = fb.trajectories()[key], oracle(*key)
        assert np.max(np.abs(tr["q"] - o["q"])) < 1e-11, key
        assert np.max(np.abs(tr["qd"] - o["qd"])) < 1e-10, key


def _sb_bracket(a, b):
    """The motion cross product of twists [omega; v], written out (the book's order)."""
    return np.concatenate([np.cross(a[..., :3], b[..., :3]),
                           np.cross(a[..., :3], b[..., 3:]) + np.cross(a[..., 3:], b[..., :3])], -1)


def _sb_local(theta, v):
    out = v.copy()
    c = _sb_bracket(theta, v[..., :6])
    out[..., :6] = v[..., :6] + 0.5 * c + _sb_bracket(theta, c) / 12.0
    return out


def test_the_library_step_is_the_scheme_written_out():
    """E12 steps with ``sb.rk4_step``; the same RKMK4 stages written out here with
    ``sb.integrate`` and ``sb.forward_dynamics`` (as E12 did before the step moved into the
    library) give the same trajectories to rounding (1e-12)."""
    q, qd = fb.start_state()
    acc, dt = fb._accelerations, DT
    for n in range(STEPS):
        t = n * dt
        a1 = acc(t, q, qd)
        d1 = qd
        v2 = qd + 0.5 * dt * a1
        d2 = _sb_local(0.5 * dt * d1[..., :6], v2)
        a2 = acc(t + 0.5 * dt, sb.integrate(fb.BIPED, q, d1, 0.5 * dt), v2)
        v3 = qd + 0.5 * dt * a2
        d3 = _sb_local(0.5 * dt * d2[..., :6], v3)
        a3 = acc(t + 0.5 * dt, sb.integrate(fb.BIPED, q, d2, 0.5 * dt), v3)
        v4 = qd + dt * a3
        d4 = _sb_local(dt * d3[..., :6], v4)
        a4 = acc(t + dt, sb.integrate(fb.BIPED, q, d3, dt), v4)
        q = sb.integrate(fb.BIPED, q, (d1 + 2 * d2 + 2 * d3 + d4) / 6, dt)
        qd = qd + dt * (a1 + 2 * a2 + 2 * a3 + a4) / 6
    for i, key in enumerate(fb.SETTINGS):
        tr = fb.trajectories()[key]
        np.testing.assert_allclose(tr["q"][-1], q[i], rtol=0, atol=1e-12, err_msg=str(key))
        np.testing.assert_allclose(tr["qd"][-1], qd[i], rtol=0, atol=1e-12, err_msg=str(key))


@pytest.mark.parametrize("key", fb.SETTINGS)
def test_h_G_agrees_with_mujoco_subtree_momentum(key):
    """MuJoCo (biped.xml): the torso's subtree linear velocity times the mass, and its angular
    momentum about the subtree's centre of mass (mj_subtreeVel), at every tenth step."""
    m = mujoco.MjModel.from_xml_path(str(MODELS / "biped.xml"))
    d = mujoco.MjData(m)
    torso = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "torso")
    tr = fb.trajectories()[key]
    for k in range(0, STEPS + 1, 10):
        q, qd = tr["q"][k], tr["qd"][k]
        R = pin.Quaternion(q[3], q[4], q[5], q[6]).toRotationMatrix()      # w, x, y, z
        d.qpos[:] = q
        d.qvel[:] = np.r_[R @ qd[3:6], qd[:3], qd[6:]]                     # v world, omega body
        mujoco.mj_forward(m, d)
        mujoco.mj_subtreeVel(m, d)
        h = np.r_[d.subtree_angmom[torso], m.body_subtreemass[torso] * d.subtree_linvel[torso]]
        np.testing.assert_allclose(tr["h_G"][k], h, rtol=1e-9, atol=1e-10, err_msg=str((key, k)))
        np.testing.assert_allclose(tr["com"][k], d.subtree_com[torso], rtol=1e-12, atol=1e-12)


def _law_error(pattern, gravity, steps, dt):
    o = oracle(pattern, gravity, steps, dt)
    t = np.arange(steps + 1) * dt
    change = o["h"] - o["h"][0]
    change[:, 3:] -= MASS * t[:, None] * G[gravity]
    return np.max(np.abs(change))


@pytest.mark.parametrize("key", fb.SETTINGS)
def test_h_G_follows_the_law_and_the_error_is_fourth_order(key):
    """dh_G/dt = [0; M g]: what is left is the integration's error, below 1e-3 (4e-4 measured)
    at the experiment's step and about 16 times smaller at half the step."""
    coarse = _law_error(*key, STEPS, DT)
    fine = _law_error(*key, 2 * STEPS, DT / 2)
    assert coarse < 1e-3
    assert 10.0 < coarse / fine < 24.0, (key, coarse, fine)
    assert np.max(np.abs(oracle(*key)["h"][:, :3])) < 1e-3       # started with l_G = 0


def test_the_torso_turns_back_as_the_legs_swing():
    """Both legs kick forward (negative hip pitch): their share of l_G about y is cancelled by
    the torso's, which pitches the other way; the legs move a lot, the centre of mass does not
    leave its straight line."""
    e = EXPERIMENTS["floating_biped"](pattern="both legs", gravity="off", t_ms=300.0)
    try:
        st = e.state()
        assert st["joints"][1] < -20.0 and st["joints"][4] < -20.0         # hips forward
        assert st["l_legs"][1] < -1.0
        assert st["l_torso"][1] == pytest.approx(-st["l_legs"][1], abs=1e-3)
        assert st["torso_rotation"][1] > 5.0        # about +y: the torso pitches forward, to the legs
        o = oracle("both legs", "off")
        line = o["com"][0] + np.outer(np.arange(STEPS + 1) * DT, o["h"][0][3:] / MASS)
        assert np.max(np.abs(o["com"] - line)) < 1e-5         # the integration error: ~1e-6 m
    finally:
        e.close()


def test_a_scissor_kick_turns_the_torso_about_the_vertical():
    """Legs swinging opposite ways beside each other carry angular momentum about z; the torso
    yaws the other way, and keeps a net turn once the legs are back (out with the knees bent,
    back with them straight: a loop in the joint angles), with l_G = 0 throughout."""
    o = oracle("scissor", "off")
    assert np.max(np.abs(o["legs"][:, 2])) > 2.0
    assert np.max(np.abs(o["rot"][:, 2])) > 20.0
    assert np.max(np.abs(np.rad2deg(o["q"][-1, 7:]))) < 6.0            # the legs are back
    assert abs(o["rot"][-1][2]) > 10.0                                 # the torso is not
    assert np.max(np.abs(o["h"][:, :3])) < 1e-3


@pytest.mark.parametrize("pattern", fb.PATTERNS)
def test_gravity_changes_only_where_the_centre_of_mass_goes(pattern):
    """In a uniform field the joints and the torso's turning do not feel gravity: the same
    joint angles and torso orientation with it and without it (to the integration's error:
    the two runs move through space differently, so their rounding and step errors differ)."""
    off, on = oracle(pattern, "off"), oracle(pattern, "on")
    np.testing.assert_allclose(on["q"][:, 3:], off["q"][:, 3:], atol=1e-6)
    np.testing.assert_allclose(on["legs"], off["legs"], atol=1e-6)
    t = np.arange(STEPS + 1) * DT
    shift = np.outer(t, fb.DRIFT["on"] - fb.DRIFT["off"]) + 0.5 * np.outer(t**2, G["on"])
    np.testing.assert_allclose(on["com"] - off["com"], shift, atol=1e-6)


def test_side_title_and_labels_say_what_is_drawn():
    """The side view's title names the legs' colours where both are seen and says the legs are
    together in the "both legs" kick (where the right leg, drawn in front, hides the left: its
    points equal the left's); the angular momentum about G is written ℓ_G, as in chapter 14,
    in the figure and the readouts (it was l_G)."""
    from widget_helpers import shared

    exp = shared("floating_biped")          # handed out again at its defaults
    for pattern in fb.PATTERNS:
        exp.set(pattern=pattern, t_ms=300.0)
        s = exp._scene
        title = exp.side.get_title()
        together = np.allclose(s["left"][:, [0, 2]], s["right"][:, [0, 2]])
        assert together == (pattern == "both legs")
        assert ("legs together" in title) == together, (pattern, title)
        assert ("left leg light" in title) != together, (pattern, title)
    texts = [t.get_text() for t in exp.figure.findobj(lambda a: hasattr(a, "get_text"))]
    labels = [row[0] for row in exp.READOUTS]
    assert not [t for t in texts + labels if "l_G" in t]
    assert any("ℓ_G" in t for t in texts) and any("ℓ_G" in t for t in labels)
