"""The book's robot models (book/models/) read by both loaders and checked against the engines.

Two robots, each written twice: the Franka Emika Panda arm (panda.xml, panda.urdf; published
parameters, see the files' headers) and a made-up floating biped (biped.xml, biped.urdf).
For each: the MJCF through ``Tree.from_mujoco`` and the URDF through ``Tree.from_urdf`` must
give the same dynamics; the MJCF tree must agree with MuJoCo (``mj_inverse``, ``mj_fullM``,
``qacc`` under ``qfrc_applied``) and the URDF tree with Pinocchio reading the same file
(``rnea``, ``crba``, ``aba``), at 20 random states with gravity, to 1e-9 of the largest entry.

The hand's Jacobian is written here with the book's operations only (``sb.motion_transform``,
``sb.inverse_transform``): the flange's spatial velocity is the sum over joints of X S_i qd_i,
each joint's motion subspace carried to the flange frame, and it must equal MuJoCo's
``mj_jacBody`` (body form: flange axes) and ``mj_jac`` at the world origin (space form).
MuJoCo's Jacobians are [linear; angular] in WORLD axes; the book's twists are
[angular; linear].

Conventions of the free joint (see ``Tree``): Tree qd = [omega_body; v_body]; MuJoCo
qvel = [v_world; omega_body]; Pinocchio v = [v_body; omega_body].
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import spatialbook as sb

import mujoco  # test dependencies: a missing engine must fail, not skip
import pinocchio as pin
from tree_helpers import free_blocks

MODELS = Path(__file__).resolve().parents[1] / "book" / "models"
RTOL = 1e-9
N_STATES = 20
FLOATING = {"panda": False, "biped": True}


def close(a, b, rtol=RTOL):
    """|a - b| <= rtol max|b|: relative to the size of the whole result; returns the error."""
    a, b = np.asarray(a), np.asarray(b)
    scale = max(1.0, float(np.max(np.abs(b))))
    err = float(np.max(np.abs(a - b))) / scale
    assert err <= rtol, f"relative error {err:.3g} > {rtol:g}"
    return err


def load(name):
    """(MuJoCo model, Tree from the MJCF, Tree from the URDF, Pinocchio model of the URDF)."""
    mj = mujoco.MjModel.from_xml_path(str(MODELS / f"{name}.xml"))
    mj.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT) | int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    assert not np.any(mj.dof_armature) and not np.any(mj.dof_damping)     # the rigid-body model only
    urdf = (MODELS / f"{name}.urdf").read_text()
    floating = FLOATING[name]
    pm = pin.buildModelFromXML(urdf, pin.JointModelFreeFlyer()) if floating else pin.buildModelFromXML(urdf)
    return mj, sb.Tree.from_mujoco(mj), sb.Tree.from_urdf(urdf, floating_base=floating), pm


@pytest.fixture(scope="module", params=sorted(FLOATING))
def robot(request):
    return (request.param, *load(request.param))


def random_states(mj, tree, seed, n=N_STATES):
    """n states (q, qd, qdd, tau) of the Tree: hinges inside MuJoCo's joint ranges, random
    unit quaternions and positions for free joints, random rates, accelerations, forces."""
    rng = np.random.default_rng(seed)
    q = np.zeros((n, tree.nq))
    k = 0
    for j in range(mj.njnt):
        if mj.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
            quat = rng.normal(size=(n, 4))
            q[:, k:k + 7] = np.c_[rng.uniform(-1, 1, (n, 3)), quat / np.linalg.norm(quat, axis=1, keepdims=True)]
            k += 7
        else:
            lo, hi = mj.jnt_range[j] if mj.jnt_limited[j] else (-np.pi, np.pi)
            q[:, k] = rng.uniform(lo, hi, n) - mj.qpos0[mj.jnt_qposadr[j]]
            k += 1
    qd, qdd, tau = (rng.normal(size=(n, tree.nv)) for _ in range(3))
    return q, qd, qdd, tau


# --- the files and the loaders ------------------------------------------------------------------


def test_both_loaders_read_the_same_robot(robot):
    name, mj, t_mj, t_urdf, pm = robot
    assert (t_mj.nq, t_mj.nv) == (t_urdf.nq, t_urdf.nv) == (mj.nq, mj.nv) == (pm.nq - sum(k == "continuous" for k in t_urdf.kinds), pm.nv)
    assert t_mj.joint_names[int(FLOATING[name]):] == t_urdf.joint_names[int(FLOATING[name]):]
    assert list(t_urdf.joint_names) == list(pm.names)[1:]
    mass = float(mj.body_mass.sum())
    assert mass == pytest.approx(sum(float(I.mass) for I in pm.inertias), rel=1e-12)
    for tree in (t_mj, t_urdf):                           # the bottom-right 3x3 of a spatial inertia is m 1
        assert float(np.sum(tree.inertias[:, 5, 5])) == pytest.approx(mass, rel=1e-12)


def test_panda_files_hold_the_published_numbers():
    """A few of the numbers the headers cite, as the engines read them (not as the loaders do)."""
    mj, _, _, pm = load("panda")
    np.testing.assert_allclose(mj.body_mass[1:8], [4.970684, 0.646926, 3.228604, 3.587895, 1.225946, 1.666555, 0.735522])
    np.testing.assert_allclose(mj.jnt_range[:, 0], [-2.8973, -1.7628, -2.8973, -3.0718, -2.8973, -0.0175, -2.8973])
    np.testing.assert_allclose(pm.upperPositionLimit, [2.8973, 1.7628, 2.8973, -0.0698, 2.8973, 3.7525, 2.8973])
    np.testing.assert_allclose(pm.effortLimit, [87] * 4 + [12] * 3)
    data = mujoco.MjData(mj)
    mujoco.mj_forward(mj, data)                            # q = 0: the DH offsets add up along the chain
    flange = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, "flange")
    np.testing.assert_allclose(data.xpos[flange], [0.088, 0.0, 0.333 + 0.316 + 0.384 - 0.107], atol=1e-12)


# --- MJCF tree == URDF tree ----------------------------------------------------------------------


def test_mjcf_and_urdf_trees_have_the_same_dynamics(robot):
    name, mj, t_mj, t_urdf, _ = robot
    q, qd, qdd, tau = random_states(mj, t_mj, seed=1)
    g = mj.opt.gravity
    close(sb.inverse_dynamics(t_mj, q, qd, qdd, g), sb.inverse_dynamics(t_urdf, q, qd, qdd, g))
    close(sb.mass_matrix(t_mj, q), sb.mass_matrix(t_urdf, q))
    for method in ("crba", "aba"):
        close(sb.forward_dynamics(t_mj, q, qd, tau, g, method=method),
              sb.forward_dynamics(t_urdf, q, qd, tau, g, method=method))


# --- against MuJoCo ------------------------------------------------------------------------------


def mujoco_velocity_map(tree, qpos):
    """J with qvel = J qd (identity but for free joints: v_world = R v_body, omega the same)."""
    J = np.eye(tree.nv)
    for v, k in free_blocks(tree):
        R = sb.rotation_from_quaternion(qpos[k + 3:k + 7])
        J[v:v + 6, v:v + 6] = 0.0
        J[v:v + 3, v + 3:v + 6] = R
        J[v + 3:v + 6, v:v + 3] = np.eye(3)
    return J


def test_mjcf_tree_agrees_with_mujoco(robot):
    name, mj, tree, _, _ = robot
    data = mujoco.MjData(mj)
    g = mj.opt.gravity
    q, qd, qdd, tau = random_states(mj, tree, seed=2)
    tau_sb, H_sb = sb.inverse_dynamics(tree, q, qd, qdd, g), sb.mass_matrix(tree, q)
    qdd_sb = {m: sb.forward_dynamics(tree, q, qd, tau, g, method=m) for m in ("crba", "aba")}
    for s in range(len(q)):
        qpos, qvel = tree.mujoco_state(q[s], qd[s])
        J = mujoco_velocity_map(tree, qpos)
        # the acceleration in MuJoCo's coordinates: qacc = d/dt (J qd) = J qdd + (dJ/dt) qd
        qacc = J @ qdd[s]
        for v, _ in free_blocks(tree):                    # d/dt (R v_body) = R (omega x v_body + dv_body/dt)
            R = J[v:v + 3, v + 3:v + 6]
            qacc[v:v + 3] = R @ (qdd[s, v + 3:v + 6] + np.cross(qd[s, v:v + 3], qd[s, v + 3:v + 6]))
        data.qpos[:], data.qvel[:] = qpos, qvel
        mujoco.mj_forward(mj, data)
        M = np.zeros((mj.nv, mj.nv))
        mujoco.mj_fullM(mj, data, M)
        close(H_sb[s], J.T @ M @ J)                       # kinetic energy: qvel^T M qvel = qd^T (J^T M J) qd
        data.qacc[:] = qacc                               # after mj_forward, which overwrites qacc
        mujoco.mj_inverse(mj, data)
        close(tau_sb[s], J.T @ data.qfrc_inverse)         # power: qfrc . qvel = tau . qd
        data.qfrc_applied[:] = np.linalg.solve(J.T, tau[s])
        mujoco.mj_forward(mj, data)
        expected = np.linalg.solve(J, data.qacc)          # the inverse of the map above
        for v, _ in free_blocks(tree):
            R = J[v:v + 3, v + 3:v + 6]
            expected[v + 3:v + 6] = R.T @ data.qacc[v:v + 3] - np.cross(qd[s, v:v + 3], qd[s, v + 3:v + 6])
        for m in ("crba", "aba"):
            close(qdd_sb[m][s], expected)
        data.qfrc_applied[:] = 0.0


# --- against Pinocchio ---------------------------------------------------------------------------


def test_urdf_tree_agrees_with_pinocchio(robot):
    name, mj, _, tree, pm = robot
    pd = pm.createData()
    g = mj.opt.gravity
    pm.gravity.linear = np.asarray(g, float)
    P = np.eye(tree.nv)                                   # Pinocchio's [v; omega] <-> the Tree's [omega; v]
    for v, _ in free_blocks(tree):
        P[v:v + 6, v:v + 6] = np.eye(6)[np.r_[3:6, 0:3]]
    q, qd, qdd, tau = random_states(mj, tree, seed=3)
    tau_sb, H_sb = sb.inverse_dynamics(tree, q, qd, qdd, g), sb.mass_matrix(tree, q)
    qdd_sb = {m: sb.forward_dynamics(tree, q, qd, tau, g, method=m) for m in ("crba", "aba")}
    for s in range(len(q)):
        qp, v = tree.pinocchio_state(q[s], qd[s])
        a, t = P @ qdd[s], P @ tau[s]
        close(tau_sb[s], P @ pin.rnea(pm, pd, qp, v, a))
        H = pin.crba(pm, pd, qp)
        close(H_sb[s], P @ (np.triu(H) + np.triu(H, 1).T) @ P)
        for m in ("crba", "aba"):
            close(qdd_sb[m][s], P @ pin.aba(pm, pd, qp, v, t))


# --- the hand's Jacobian: motion subspaces carried to one frame -----------------------------------


def joint_rotation(n, angle):
    """R (body axes -> joint-frame axes) of a turn by angle about the unit axis n (Rodrigues)."""
    K = sb.skew(n)
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def body_transforms(tree, q):
    """^iX_0 of every body (world coordinates -> body i's), composed joint by joint:
    ^iX_0 = X_J(q_i) X_T,i ^(parent)X_0, with X_J = motion_transform(R_J, d_J)."""
    out, k = [], 0
    for i, kind in enumerate(tree.kinds):
        if kind == "free":
            XJ = sb.motion_transform(sb.rotation_from_quaternion(q[k + 3:k + 7]), q[k:k + 3])
            k += 7
        else:
            S = tree.axes[i]
            if kind == "prismatic":
                XJ = sb.motion_transform(np.eye(3), S[3:] * q[k])
            else:
                XJ = sb.motion_transform(joint_rotation(S[:3], q[k]), np.zeros(3))
            k += 1
        X = XJ @ tree.placements[i]
        out.append(X if tree.parents[i] < 0 else X @ out[tree.parents[i]])
    return out


def motion_subspace(tree, i):
    """S_i, 6 x (dofs of joint i): the joint's axis, or the identity for a free joint (qd is the twist)."""
    return np.eye(6) if tree.kinds[i] == "free" else tree.axes[i][:, None]


def body_jacobian(tree, q, body, X_end):
    """J with V_end = J qd, V_end the spatial velocity of the frame X_end (^end X_body) in its own
    coordinates: columns ^end X_i S_i for the joints i on the path from the base to ``body``."""
    X0 = body_transforms(tree, q)
    X_end0 = X_end @ X0[body]
    cols, i = {}, body
    while i >= 0:
        cols[i] = X_end0 @ sb.inverse_transform(X0[i]) @ motion_subspace(tree, i)
        i = tree.parents[i]
    J = np.zeros((6, tree.nv))
    v = 0
    for i, kind in enumerate(tree.kinds):
        width = 6 if kind == "free" else 1
        if i in cols:
            J[:, v:v + width] = cols[i]
        v += width
    return J, X_end0


HANDS = {"panda": "flange", "biped": "left_foot"}


def welded_hand(mj, tree, name):
    """(MuJoCo body id, Tree body, placement ^hX_body) of a hand welded to its parent body: the
    parent's last joint is Tree body ``body`` (the Tree keeps MuJoCo's joint order), whose origin
    is that joint's anchor jnt_pos, so the hand frame sits at body_pos - anchor, turned by body_quat."""
    hand = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, name)
    parent = mj.body_parentid[hand]
    joint = mj.body_jntadr[parent] + mj.body_jntnum[parent] - 1
    body = list(tree.joint_names).index(mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_JOINT, joint))
    X_hand = sb.motion_transform(sb.rotation_from_quaternion(mj.body_quat[hand]), mj.body_pos[hand] - mj.jnt_pos[joint])
    return hand, body, X_hand


def test_hand_jacobian_agrees_with_mujoco(robot):
    """Body form against mj_jacBody (rotated into flange axes), space form against mj_jac at the
    world origin; both in the Tree's qd coordinates."""
    name, mj, tree, _, _ = robot
    data = mujoco.MjData(mj)
    hand, body, X_hand = welded_hand(mj, tree, HANDS[name])
    q, qd, _, _ = random_states(mj, tree, seed=4)
    for s in range(len(q)):
        qpos, qvel = tree.mujoco_state(q[s], qd[s])
        data.qpos[:] = qpos
        mujoco.mj_forward(mj, data)
        Jv = mujoco_velocity_map(tree, qpos)
        jacp, jacr = np.zeros((3, mj.nv)), np.zeros((3, mj.nv))
        mujoco.mj_jacBody(mj, data, jacp, jacr, hand)
        R = data.xmat[hand].reshape(3, 3)                 # hand axes -> world axes
        J_body, X_hand0 = body_jacobian(tree, q[s], body, X_hand)
        close(J_body, np.vstack([R.T @ jacr, R.T @ jacp]) @ Jv)
        close(J_body @ qd[s], np.r_[R.T @ (jacr @ qvel), R.T @ (jacp @ qvel)])   # the flange's twist
        J_space = sb.inverse_transform(X_hand0) @ J_body  # the same twist about the world origin, world axes
        mujoco.mj_jac(mj, data, jacp, jacr, np.zeros(3), hand)   # the hand-fixed point at the origin
        close(J_space, np.vstack([jacr, jacp]) @ Jv)


# --- the floating base: the free joint's block of H and the centroidal momentum -------------------


def test_floating_base_block_is_the_whole_robot_composite_inertia_and_momentum_matches_pinocchio():
    """H[:6, :6] = sum_i ^iX_t^T I_i ^iX_t (t the torso): the composite spatial inertia of the
    whole robot about the torso origin in torso axes (its mass is the robot's), and H[:6, :] qd
    its spatial momentum, which moved to the centre of mass in world axes is Pinocchio's
    centroidal momentum (there linear first)."""
    mj, _, tree, pm = load("biped")
    pd = pm.createData()
    q, qd, _, _ = random_states(mj, tree, seed=5, n=5)
    for s in range(len(q)):
        X0 = body_transforms(tree, q[s])
        Xt = [X @ sb.inverse_transform(X0[0]) for X in X0]           # ^iX_torso
        I_c = sum(X.T @ I @ X for X, I in zip(Xt, tree.inertias))     # motion^T I motion: a force-space sum
        H = sb.mass_matrix(tree, q[s])
        close(H[:6, :6], I_c)
        assert I_c[5, 5] == pytest.approx(float(mj.body_mass.sum()), rel=1e-12)
        h_torso = H[:6] @ qd[s]                                       # [angular; linear] about the torso origin
        R = sb.rotation_from_quaternion(q[s, 3:7])                   # torso axes -> world
        c_torso = sb.unskew(I_c[:3, 3:]) / I_c[5, 5]                 # the top-right block is m [c]x (chapter 6)
        c_world = q[s, :3] + R @ c_torso
        # the same momentum about the COM, in world axes: a force transform to the frame (world axes, origin c)
        X_f = sb.force_transform(R.T, c_torso)                        # torso -> (COM, world axes): R maps new->old
        h_g = X_f @ h_torso
        qp, v = tree.pinocchio_state(q[s], qd[s])
        hg = pin.computeCentroidalMomentum(pm, pd, qp, v)
        close(np.r_[hg.angular, hg.linear], h_g)
        close(pd.com[0], c_world)


# --- the library's kinematics, centroidal momentum and integration against the engines ---------------


def test_body_poses_and_jacobians_agree_with_pinocchio(robot):
    """sb.body_poses against Pinocchio's oMi (the URDF's joint frames are the Tree's body frames),
    and sb.jacobian's three frames against getJointJacobian WORLD, LOCAL, LOCAL_WORLD_ALIGNED
    (linear first: rows and a free joint's columns swapped), and against this file's
    hand-written body_transforms / body_jacobian."""
    name, mj, _, tree, pm = robot
    pd = pm.createData()
    P = np.eye(tree.nv)
    for k, _ in free_blocks(tree):
        P[k:k + 6, k:k + 6] = np.eye(6)[np.r_[3:6, 0:3]]
    rows = np.eye(6)[np.r_[3:6, 0:3]]
    frames = {"space": pin.ReferenceFrame.WORLD, "body": pin.ReferenceFrame.LOCAL,
              "mixed": pin.ReferenceFrame.LOCAL_WORLD_ALIGNED}
    q, qd, _, _ = random_states(mj, tree, seed=6, n=4)
    R_all, p_all = sb.body_poses(tree, q)                               # a batch of 4 states
    for s in range(len(q)):
        qp, _ = tree.pinocchio_state(q[s], qd[s])
        pin.forwardKinematics(pm, pd, qp)
        pin.computeJointJacobians(pm, pd, qp)
        X0 = body_transforms(tree, q[s])
        for i in range(len(tree.parents)):
            oMi = pd.oMi[i + 1]
            close(R_all[s, i], oMi.rotation)
            close(p_all[s, i], oMi.translation)
            close(sb.motion_transform(R_all[s, i], p_all[s, i]), X0[i])
            for frame, ref in frames.items():
                J = sb.jacobian(tree, q[s], i, frame=frame)
                close(J, rows @ pin.getJointJacobian(pm, pd, i + 1, ref) @ P)
            close(sb.jacobian(tree, q[s], tree.joint_names[i], frame="body"), body_jacobian(tree, q[s], i, np.eye(6))[0])


def test_hand_jacobian_with_a_placement_agrees_with_mj_jacBody(robot):
    """The welded hand (the Panda's flange, the biped's foot) as a placement in its Tree body:
    the mixed Jacobian is MuJoCo's mj_jacBody stacked angular first, the body form its rows
    turned into hand axes, the space form mj_jac at the world origin."""
    name, mj, tree, _, _ = robot
    data = mujoco.MjData(mj)
    hand, body, X_hand = welded_hand(mj, tree, HANDS[name])
    q, qd, _, _ = random_states(mj, tree, seed=7, n=4)
    J_batch = sb.jacobian(tree, q, body, frame="mixed", placement=X_hand)
    for s in range(len(q)):
        qpos, _ = tree.mujoco_state(q[s], qd[s])
        data.qpos[:] = qpos
        mujoco.mj_forward(mj, data)
        Jv = mujoco_velocity_map(tree, qpos)
        jacp, jacr = np.zeros((3, mj.nv)), np.zeros((3, mj.nv))
        mujoco.mj_jacBody(mj, data, jacp, jacr, hand)
        R = data.xmat[hand].reshape(3, 3)
        close(J_batch[s], np.vstack([jacr, jacp]) @ Jv)
        close(sb.jacobian(tree, q[s], body, frame="body", placement=X_hand), np.vstack([R.T @ jacr, R.T @ jacp]) @ Jv)
        mujoco.mj_jac(mj, data, jacp, jacr, np.zeros(3), hand)
        close(sb.jacobian(tree, q[s], body, frame="space", placement=X_hand), np.vstack([jacr, jacp]) @ Jv)


def test_center_of_mass_and_centroidal_momentum_agree_with_pinocchio(robot):
    """sb.center_of_mass against Pinocchio's com, sb.centroidal_momentum_matrix against ccrba's Ag
    (linear first), sb.centroidal_momentum against computeCentroidalMomentum; and MuJoCo's
    subtree_com of the first moving body."""
    name, mj, tree_mj, tree, pm = robot
    pd = pm.createData()
    data = mujoco.MjData(mj)
    P = np.eye(tree.nv)
    for k, _ in free_blocks(tree):
        P[k:k + 6, k:k + 6] = np.eye(6)[np.r_[3:6, 0:3]]
    rows = np.eye(6)[np.r_[3:6, 0:3]]
    q, qd, _, _ = random_states(mj, tree, seed=8, n=4)
    c = sb.center_of_mass(tree, q)
    h = sb.centroidal_momentum(tree, q, qd)
    for s in range(len(q)):
        qp, v = tree.pinocchio_state(q[s], qd[s])
        Ag = pin.ccrba(pm, pd, qp, v)
        close(sb.centroidal_momentum_matrix(tree, q[s]), rows @ Ag @ P)
        hg = pin.computeCentroidalMomentum(pm, pd, qp, v)
        close(h[s], np.r_[hg.angular, hg.linear])
        close(c[s], pin.centerOfMass(pm, pd, qp))
        qpos, _ = tree_mj.mujoco_state(q[s], qd[s])
        data.qpos[:] = qpos
        mujoco.mj_forward(mj, data)
        close(sb.center_of_mass(tree_mj, q[s]), data.subtree_com[1])


def test_integrate_is_pinocchios_and_configuration_rate_its_derivative(robot):
    """sb.integrate(q, qd, dt) equals Pinocchio's integrate(q, v dt) (the SE(3) exponential for
    the free flyer), and sb.configuration_rate is its derivative at dt = 0 (central differences)."""
    name, mj, _, tree, pm = robot
    q, qd, _, _ = random_states(mj, tree, seed=9, n=4)
    for dt in (0.003, 0.7, -0.2):
        out = sb.integrate(tree, q, qd, dt)
        for s in range(len(q)):
            qp, v = tree.pinocchio_state(q[s], qd[s])
            ref, _ = tree.state_from_pinocchio(pin.integrate(pm, qp, v * dt), v)
            close(out[s], ref)
    h = 1e-6
    fd = (sb.integrate(tree, q, qd, h) - sb.integrate(tree, q, qd, -h)) / (2 * h)
    close(sb.configuration_rate(tree, q, qd), fd, rtol=1e-8)


def test_floating_biped_conserves_centroidal_momentum_under_its_own_joint_torques():
    """Legs kicking in space: forward dynamics, integrated by RK4 (rates through
    sb.configuration_rate), keeps h_G = [l_G; M v_G] constant; with gravity l_G stays constant
    and M v_G grows by M g t.  A wrong bias force, mass matrix or free-joint map breaks it."""
    _, _, tree, _ = load("biped")
    rng = np.random.default_rng(10)
    q = np.zeros(tree.nq)
    q[3:7] = [1.0, 0, 0, 0]
    q[7:] = rng.uniform(-0.3, 0.3, tree.nq - 7)
    qd = np.r_[rng.normal(size=6) * 0.5, rng.normal(size=tree.nv - 6)]
    M = sb.mass_matrix(tree, q)[3, 3]
    dt, steps = 2e-3, 200

    def tau(t):
        return np.r_[np.zeros(6), 3.0 * np.sin(7.0 * t + np.arange(tree.nv - 6))]

    for g in (np.zeros(3), np.array([0.0, 0.0, -9.81])):
        def f(t, x):
            qq, vv = x[:tree.nq].copy(), x[tree.nq:]
            qq[3:7] /= np.linalg.norm(qq[3:7])                           # RK4's stages leave the unit sphere
            return np.r_[sb.configuration_rate(tree, qq, vv), sb.forward_dynamics(tree, qq, vv, tau(t), g)]

        x, t = np.r_[q, qd], 0.0
        h0 = sb.centroidal_momentum(tree, q, qd)
        for _ in range(steps):
            k1 = f(t, x)
            k2 = f(t + dt / 2, x + dt / 2 * k1)
            k3 = f(t + dt / 2, x + dt / 2 * k2)
            k4 = f(t + dt, x + dt * k3)
            x = x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            x[3:7] /= np.linalg.norm(x[3:7])
            t += dt
        h = sb.centroidal_momentum(tree, x[:tree.nq], x[tree.nq:])
        assert np.abs(x[tree.nq + 6:] - qd[6:]).max() > 0.5            # the legs really moved
        np.testing.assert_allclose(h, h0 + np.r_[0, 0, 0, M * g * t], atol=1e-6)
