"""spatialbook against the real MuJoCo engine (``import mujoco``).

The door is built as MJCF (a hinge, a body whose COM is 0.4 m out along its x axis, the
plate's diagonal inertia, mass 2, gravity off); with qvel = 2 and qacc = 3 the engine's
cinert, cvel, cacc, cfrc_int, cdof and qfrc_inverse must equal what sb computes on its own.
MuJoCo refers all of these to the subtree COM of the body's kinematic tree
(``subtree_com[body_rootid]``), in world axes, angular part first.
"""

from __future__ import annotations

import numpy as np
import pytest

import spatialbook as sb

import mujoco  # noqa: E402  (a test dependency: a missing engine must fail, not skip)


def _num(x) -> str:
    return " ".join(repr(float(v)) for v in np.atleast_1d(x))


def _door_model(hinge_pos=(0, 0, 0), body_quat=(1, 0, 0, 0), handle=None):
    """MJCF of the door: the body frame sits on the hinge line (body z = hinge axis)."""
    I = np.diag(sb.DOOR["inertia_com"])
    handle_xml = ""
    if handle is not None:
        pos, mass, diag = handle
        handle_xml = f"""
        <body name="handle" pos="{_num(pos)}">
          <inertial pos="0 0 0" mass="{mass!r}" diaginertia="{_num(diag)}"/>
        </body>"""
    xml = f"""
    <mujoco model="door">
      <option gravity="0 0 0"/>
      <worldbody>
        <body name="door" pos="{_num(hinge_pos)}" quat="{_num(body_quat)}">
          <joint name="hinge" type="hinge" axis="0 0 1" pos="0 0 0"/>
          <inertial pos="{_num(sb.DOOR['com'])}" mass="{float(sb.DOOR['mass'])!r}" diaginertia="{_num(I)}"/>
          <site name="com" pos="{_num(sb.DOOR['com'])}"/>
          <site name="edge" pos="0.8 0 0.3" euler="0.3 -0.5 1.0"/>{handle_xml}
        </body>
      </worldbody>
    </mujoco>"""
    return mujoco.MjModel.from_xml_string(xml)


def _run(model, qpos=0.0, qvel=2.0, qacc=3.0):
    data = mujoco.MjData(model)
    data.qpos[:] = qpos
    data.qvel[:] = qvel
    mujoco.mj_forward(model, data)          # kinematics, com positions, cinert, cdof, cvel
    data.qacc[:] = qacc                     # now impose the acceleration we want
    mujoco.mj_inverse(model, data)          # qfrc_inverse = M qacc + bias
    mujoco.mj_rnePostConstraint(model, data)  # cacc, cfrc_int
    return data


def _quat_to_matrix(q):
    res = np.zeros(9)
    mujoco.mju_quat2Mat(res, np.asarray(q, float) / np.linalg.norm(q))
    return res.reshape(3, 3)


# --- the door of book chapter 8, as chapter 9 builds it in MuJoCo ------------------------------


def test_door_matches_mujoco_numbers():
    model = _door_model()
    data = _run(model)
    door = model.body("door").id
    c = data.subtree_com[model.body_rootid[door]]
    np.testing.assert_allclose(c, sb.DOOR["com"], atol=1e-12)   # here subtree_com is the COM

    X_CO = sb.motion_transform(np.eye(3), sb.DOOR["com"])
    I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    I_C = sb.transform_inertia(X_CO, I_O)
    V_C = X_CO @ [0, 0, 2, 0, 0, 0]
    A_C = X_CO @ [0, 0, 3, 0, 0, 0]
    F_C = sb.required_wrench(I_C, V_C, A_C)

    np.testing.assert_allclose(data.cinert[door], sb.to_cinert(I_C), atol=1e-12)
    np.testing.assert_allclose(sb.from_cinert(data.cinert[door]), I_C, atol=1e-12)
    np.testing.assert_allclose(data.cvel[door], V_C, atol=1e-12)
    np.testing.assert_allclose(data.cacc[door], A_C, atol=1e-12)
    np.testing.assert_allclose(data.cfrc_int[door], F_C, atol=1e-12)
    np.testing.assert_allclose(data.qfrc_inverse, [sb.generalized_force(sb.revolute_axis([0, 0, 1], [0, 0, 0], c), F_C)], atol=1e-12)
    # and the literal numbers
    np.testing.assert_allclose(data.qfrc_inverse, [1.28], atol=1e-12)
    np.testing.assert_allclose(data.cvel[door], [0, 0, 2, 0, 0.8, 0], atol=1e-12)
    np.testing.assert_allclose(data.cacc[door], [0, 0, 3, 0, 1.2, 0], atol=1e-12)
    np.testing.assert_allclose(data.cfrc_int[door], [0, 0, 0.32, -3.2, 2.4, 0], atol=1e-12)
    # the hinge's motion axis at the subtree COM
    np.testing.assert_allclose(data.cdof[0], [0, 0, 1, 0, 0.4, 0], atol=1e-12)


# --- turned, tilted and offset: nothing axis-aligned ---------------------------------------

HANDLE = ((0.7, -0.03, 0.1), 0.5, (1e-3, 2e-3, 2.5e-3))
CASES = {
    "turned-offset": dict(hinge_pos=(0.3, -1.2, 0.5), body_quat=(1, 0, 0, 0), qpos=0.9, handle=None),
    "tilted-offset": dict(hinge_pos=(-0.4, 0.25, 1.1), body_quat=(0.9, 0.3, -0.2, 0.25), qpos=-2.3, handle=None),
    "tilted-with-handle": dict(hinge_pos=(1.5, 0.5, -0.7), body_quat=(0.8, -0.1, 0.4, 0.3), qpos=0.6, handle=HANDLE),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_turned_tilted_door_matches_mujoco(case):
    qvel, qacc = 2.0, 3.0
    model = _door_model(case["hinge_pos"], case["body_quat"], case["handle"])
    data = _run(model, case["qpos"], qvel, qacc)
    door = model.body("door").id

    # sb's own description of the scene, in world axes
    x_O = np.asarray(case["hinge_pos"], float)                    # a point on the hinge line
    R_b = _quat_to_matrix(case["body_quat"])
    n = R_b[:, 2]                                                 # hinge axis = body z
    R = R_b @ sb.rotation_z(case["qpos"])                         # door axes -> world
    m_d, c_d = sb.DOOR["mass"], x_O + R @ sb.DOOR["com"]
    I_d = R @ sb.DOOR["inertia_com"] @ R.T
    parts = [(m_d, c_d, I_d)]
    if case["handle"] is not None:
        pos, m_h, diag = case["handle"]
        parts.append((m_h, x_O + R @ np.asarray(pos), R @ np.diag(diag) @ R.T))
    total = sum(m for m, _, _ in parts)
    sc = sum(m * c for m, c, _ in parts) / total                  # subtree COM
    np.testing.assert_allclose(data.subtree_com[model.body_rootid[door]], sc, atol=1e-12)
    assert np.linalg.norm(x_O) > 0.5 and np.count_nonzero(np.abs(R) > 1e-6) > 3   # not axis-aligned

    # inertia of each body about the subtree COM (this is what cinert holds)
    I_parts = [sb.spatial_inertia(m, c - sc, I) for m, c, I in parts]
    for body, I_sc in zip(range(door, door + len(parts)), I_parts):
        np.testing.assert_allclose(data.cinert[body], sb.to_cinert(I_sc), atol=1e-12)
        np.testing.assert_allclose(sb.from_cinert(data.cinert[body]), I_sc, atol=1e-12)

    S = sb.revolute_axis(n, x_O, sc)                              # hinge motion axis at sc
    V, A = S * qvel, S * qacc                                     # fixed hinge: Sdot = V x S = 0
    np.testing.assert_allclose(data.cdof[0], S, atol=1e-12)
    for body in range(door, door + len(parts)):                   # welded bodies share V and A
        np.testing.assert_allclose(data.cvel[body], V, atol=1e-12)
        np.testing.assert_allclose(data.cacc[body], A, atol=1e-12)

    F_total = sb.required_wrench(sum(I_parts), V, A)
    np.testing.assert_allclose(data.cfrc_int[door], F_total, atol=1e-12)
    if len(parts) > 1:
        np.testing.assert_allclose(data.cfrc_int[door + 1], sb.required_wrench(I_parts[1], V, A), atol=1e-12)
    np.testing.assert_allclose(data.qfrc_inverse, [sb.generalized_force(S, F_total)], atol=1e-12)

    # the same torque from the door alone, worked at its own COM in its own axes
    if len(parts) == 1:
        X = sb.motion_transform(R, c_d - sc)                      # subtree COM/world -> COM/door axes
        I_body = sb.spatial_inertia(m_d, [0, 0, 0], sb.DOOR["inertia_com"])
        F_body = sb.required_wrench(I_body, X @ V, X @ A)
        np.testing.assert_allclose(sb.force_transform(R, c_d - sc) @ F_total, F_body, atol=1e-12)
        np.testing.assert_allclose(X.T @ F_body, F_total, atol=1e-12)          # X* = X^-T, so X^T maps F back
        I_axis = n @ (I_d + m_d * ((c_d - x_O) @ (c_d - x_O) * np.eye(3) - np.outer(c_d - x_O, c_d - x_O))) @ n
        np.testing.assert_allclose(data.qfrc_inverse, [I_axis * qacc], atol=1e-12)

    # MuJoCo's linear velocity is the field extended to sc; at the body origin (on the hinge)
    # it is zero -- the confusion of mujoco issues 1120/1937/2210
    np.testing.assert_allclose(sb.velocity_field(data.cvel[door], data.xpos[door] - sc), 0, atol=1e-12)


# --- MuJoCo's spatial utilities -------------------------------------------------------------


def test_mju_transform_spatial_equals_sb_transforms():
    """mju_transformSpatial(res, vec, flg_force, newpos, oldpos, rotnew2old) vs sb.

    MuJoCo (engine_util_spatial.c) first shifts: dif = newpos - oldpos; a force gets
    tau - dif x f, a motion gets v - dif x omega; then it rotates both halves with
    rotnew2old^T.  Positions are given in the OLD frame's axes and rotnew2old maps NEW-frame
    components to OLD ones (its columns are the new axes), passed row-major as R.ravel().
    So, in our convention: R = rotnew2old (new -> old) and d = newpos - oldpos (old -> new,
    old axes), and the call equals motion_transform(R, d) @ vec, or force_transform(R, d) @ vec
    when flg_force = 1.
    """
    rng = np.random.default_rng(2024)
    n = 300
    q = rng.normal(size=(n, 4))
    R = np.stack([_quat_to_matrix(qi) for qi in q])
    oldpos, newpos = rng.normal(size=(n, 3)), rng.normal(size=(n, 3))
    vec = rng.normal(size=(n, 6))
    d = newpos - oldpos
    ours = {0: sb.transform_vectors(sb.motion_transform(R, d), vec),
            1: sb.transform_vectors(sb.force_transform(R, d), vec)}
    res = np.zeros(6)
    for flg in (0, 1):
        theirs = np.empty((n, 6))
        for i in range(n):
            mujoco.mju_transformSpatial(res, vec[i], flg, newpos[i], oldpos[i], R[i].ravel())
            theirs[i] = res
        np.testing.assert_allclose(theirs, ours[flg], atol=1e-12)
    # the mapping is not symmetric in R: with R^T (or swapped positions) it would disagree
    mujoco.mju_transformSpatial(res, vec[0], 0, newpos[0], oldpos[0], R[0].T.ravel())
    assert not np.allclose(res, ours[0][0])
    mujoco.mju_transformSpatial(res, vec[0], 1, oldpos[0], newpos[0], R[0].ravel())
    assert not np.allclose(res, ours[1][0])


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_object_velocity_and_acceleration_at_sites(case):
    """mj_objectVelocity / mj_objectAcceleration give the twist at a site (world or site axes)
    and the CLASSICAL acceleration of the material point there: sb's shift of cvel, its
    velocity field, and material_acceleration must agree."""
    qvel, qacc = 2.0, 3.0
    model = _door_model(case["hinge_pos"], case["body_quat"], case["handle"])
    data = _run(model, case["qpos"], qvel, qacc)
    door = model.body("door").id
    sc = data.subtree_com[model.body_rootid[door]]
    V, A = data.cvel[door], data.cacc[door]
    x_O = np.asarray(case["hinge_pos"], float)
    n = _quat_to_matrix(case["body_quat"])[:, 2]
    res = np.zeros(6)
    for name in ("com", "edge"):
        site = model.site(name).id
        x_s, R_s = data.site_xpos[site], data.site_xmat[site].reshape(3, 3)
        mujoco.mj_objectVelocity(model, data, mujoco.mjtObj.mjOBJ_SITE, site, res, 0)
        np.testing.assert_allclose(res, sb.shift_twist(V, x_s - sc), atol=1e-12)
        np.testing.assert_allclose(res[3:], sb.velocity_field([*(n * qvel), 0, 0, 0], x_s - x_O), atol=1e-12)
        mujoco.mj_objectVelocity(model, data, mujoco.mjtObj.mjOBJ_SITE, site, res, 1)
        np.testing.assert_allclose(res, sb.motion_transform(R_s, x_s - sc) @ V, atol=1e-12)
        mujoco.mj_objectAcceleration(model, data, mujoco.mjtObj.mjOBJ_SITE, site, res, 0)
        X = sb.motion_transform(np.eye(3), x_s - sc)
        a_s = sb.material_acceleration(X @ V, X @ A)
        np.testing.assert_allclose(res, np.r_[A[:3], a_s], atol=1e-12)
        # the hinge point is at rest: tangential alpha x r plus centripetal omega x (omega x r)
        a_classical = sb.acceleration_field([*(n * qvel), 0, 0, 0], [*(n * qacc), 0, 0, 0], x_s - x_O)
        np.testing.assert_allclose(res[3:], a_classical, atol=1e-12)
