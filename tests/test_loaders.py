"""Tree.from_mujoco and Tree.from_urdf against MuJoCo and Pinocchio on generated robots.

Every model is generated here as text (no files, no network): random trees of bodies with
welded bodies (URDF fixed joints, MuJoCo bodies without joints), several joints in one MuJoCo
body, hinge anchors off the body origin, reference positions (``ref``), rotated inertial frames,
free joints and floating bases.  MuJoCo reads the MJCF (``MjModel.from_xml_string``) and
Pinocchio reads the URDF with its own parser (``buildModelFromXML``); spatialbook reads the same
text with its loaders.  The engines' joint-space quantities are converted to the Tree's
conventions by the helpers below, which spell out the free joint's conventions:

- MuJoCo: qvel = [v_world; omega_body], qfrc = [f_world; n_body], qacc = d/dt qvel.
- Pinocchio: v = [v_body; omega_body], tau = [f_body; n_body], a = d/dt v.
- Tree: qd = [omega_body; v_body], tau = [n_body; f_body], qdd = d/dt qd.
"""

from __future__ import annotations

import numpy as np
import pytest

import spatialbook as sb

import mujoco  # test dependencies: a missing engine must fail, not skip
import pinocchio as pin
from tree_helpers import free_blocks

RTOL = 1e-9


def _num(x) -> str:
    return " ".join(repr(float(v)) for v in np.atleast_1d(x))


def _unit(rng, k=3):
    v = rng.normal(size=k)
    return v / np.linalg.norm(v)


def _moments(rng):
    m = np.sort(rng.uniform(0.05, 1.0, size=3))
    m[2] = min(m[2], 0.95 * (m[0] + m[1]))
    return rng.permutation(m)


def close(a, b, rtol=RTOL):
    """|a - b| <= rtol max|b|: relative to the size of the whole result."""
    a, b = np.asarray(a), np.asarray(b)
    scale = max(1.0, float(np.max(np.abs(b))))
    err = float(np.max(np.abs(a - b))) / scale
    assert err <= rtol, f"relative error {err:.3g} > {rtol:g}"
    return err


# --- MuJoCo ------------------------------------------------------------------------------------


def random_mjcf(rng, n, free=False):
    """MJCF text of n random bodies; gravity g."""
    parents = [-1] + [int(rng.integers(-1 if not free else 0, i)) for i in range(1, n)]
    children = {i: [j for j in range(n) if parents[j] == i] for i in range(-1, n)}

    def body(i):
        joints = ""
        if free and i == 0:
            joints = '<freejoint name="root"/>'
        else:
            for k in range(int(rng.choice([0, 1, 1, 2, 3]))):     # 0: welded to the parent
                kind = "hinge" if rng.uniform() < 0.7 else "slide"
                joints += (f'<joint name="j{i}_{k}" type="{kind}" axis="{_num(_unit(rng) * rng.uniform(0.5, 2))}" '
                           f'pos="{_num(rng.uniform(-0.3, 0.3, 3))}" ref="{rng.uniform(-1, 1)!r}"/>')
        inertial = (f'<inertial pos="{_num(rng.uniform(-0.4, 0.4, 3))}" quat="{_num(_unit(rng, 4))}" '
                    f'mass="{rng.uniform(0.5, 3)!r}" diaginertia="{_num(_moments(rng))}"/>')
        kids = "".join(body(j) for j in children[i])
        return (f'<body name="b{i}" pos="{_num(rng.uniform(-0.6, 0.6, 3))}" quat="{_num(_unit(rng, 4))}">'
                f'{joints}{inertial}{kids}</body>')

    g = rng.normal(size=3) * 5
    roots = "".join(body(i) for i in children[-1])
    return f"""<mujoco model="random">
      <compiler angle="radian"/>
      <option gravity="{_num(g)}"><flag contact="disable" constraint="disable" spring="disable" damper="disable"/></option>
      <worldbody>{roots}</worldbody>
    </mujoco>""", g


def mujoco_random_state(model, rng):
    qpos = model.qpos0 + rng.normal(size=model.nq)
    for j in range(model.njnt):
        if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
            a = model.jnt_qposadr[j]
            qpos[a + 3:a + 7] = _unit(rng, 4)
    return qpos, rng.normal(size=model.nv), rng.normal(size=model.nv)


def from_mujoco_dynamics(tree, qpos, qvel, qacc, qfrc, M):
    """MuJoCo's qacc, qfrc and M converted to the Tree's qdd, tau and H."""
    J = np.eye(tree.nv)                                   # qd = J qvel
    qdd, tau = qacc.copy(), qfrc.copy()
    for v, k in free_blocks(tree):
        R = sb.rotation_from_quaternion(qpos[k + 3:k + 7])
        w, vel = qvel[v + 3:v + 6], R.T @ qvel[v:v + 3]
        J[v:v + 6, v:v + 6] = 0.0
        J[v:v + 3, v + 3:v + 6] = np.eye(3)
        J[v + 3:v + 6, v:v + 3] = R.T
        qdd[v:v + 3] = qacc[v + 3:v + 6]
        qdd[v + 3:v + 6] = R.T @ qacc[v:v + 3] - np.cross(w, vel)   # d/dt (R^T v_world)
        tau[v:v + 3] = qfrc[v + 3:v + 6]
        tau[v + 3:v + 6] = R.T @ qfrc[v:v + 3]           # qfrc . qvel = tau . qd
    Jinv = np.linalg.inv(J)
    return qdd, tau, Jinv.T @ M @ Jinv


def mujoco_case(seed, n, free):
    rng = np.random.default_rng(seed)
    xml, g = random_mjcf(rng, n, free)
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    qpos, qvel, qacc = mujoco_random_state(model, rng)
    data.qpos[:], data.qvel[:] = qpos, qvel
    mujoco.mj_forward(model, data)
    M = np.zeros((model.nv, model.nv))
    mujoco.mj_fullM(model, data, M)
    data.qacc[:] = qacc
    mujoco.mj_inverse(model, data)
    qfrc = data.qfrc_inverse.copy()
    tau_applied = rng.normal(size=model.nv)
    data.qfrc_applied[:] = tau_applied
    mujoco.mj_forward(model, data)
    return model, g, (qpos, qvel, qacc, qfrc, M), (tau_applied, data.qacc.copy())


CASES = [(seed, n, free) for seed, n, free in [(1, 3, False), (2, 6, False), (3, 10, False), (4, 4, True),
                                               (5, 8, True), (6, 12, True), (7, 1, True)]]


@pytest.mark.parametrize("seed, n, free", CASES)
def test_from_mujoco_agrees_with_mujoco(seed, n, free):
    model, g, (qpos, qvel, qacc, qfrc, M), (tau_applied, qacc_fd) = mujoco_case(seed, n, free)
    tree = sb.Tree.from_mujoco(model)
    assert (tree.nq, tree.nv) == (model.nq, model.nv)
    assert list(tree.joint_names)[int(free):] == [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j)
                                                  for j in range(int(free), model.njnt)]
    q, qd = tree.state_from_mujoco(qpos, qvel)
    qdd, tau, H = from_mujoco_dynamics(tree, qpos, qvel, qacc, qfrc, M)
    close(sb.inverse_dynamics(tree, q, qd, qdd, g), tau)
    close(sb.mass_matrix(tree, q), H)
    _, tau_fd, _ = from_mujoco_dynamics(tree, qpos, qvel, qacc_fd, tau_applied, M)
    qdd_fd, _, _ = from_mujoco_dynamics(tree, qpos, qvel, qacc_fd, tau_applied, M)
    for method in ("crba", "aba"):
        close(sb.forward_dynamics(tree, q, qd, tau_fd, g, method=method), qdd_fd)


@pytest.mark.parametrize("seed, n, free", CASES[:5])
def test_mujoco_state_round_trip(seed, n, free):
    model, _, (qpos, qvel, *_), _ = mujoco_case(seed, n, free)
    tree = sb.Tree.from_mujoco(model)
    q, qd = tree.state_from_mujoco(qpos, qvel)
    qpos2, qvel2 = tree.mujoco_state(q, qd)
    np.testing.assert_allclose(qpos2, qpos, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(qvel2, qvel, rtol=1e-12, atol=1e-12)


def test_mujoco_free_joint_convention_by_finite_differences():
    """MuJoCo's own integration fixes its qvel convention: one Euler step of qpos by qvel
    (mj_integratePos) moves the body origin by qvel[:3] in WORLD axes and turns it by qvel[3:]
    in BODY axes, which is what state_from_mujoco assumes."""
    model, *_ = mujoco_case(4, 4, True)
    tree = sb.Tree.from_mujoco(model)
    rng = np.random.default_rng(0)
    qpos, qvel, _ = mujoco_random_state(model, rng)
    h = 1e-7
    after = qpos.copy()
    mujoco.mj_integratePos(model, after, qvel, h)
    R0, R1 = sb.rotation_from_quaternion(qpos[3:7]), sb.rotation_from_quaternion(after[3:7])
    np.testing.assert_allclose((after[:3] - qpos[:3]) / h, qvel[:3], rtol=1e-6)       # world axes
    W = R0.T @ (R1 - R0) / h                                                            # [omega_body]x
    np.testing.assert_allclose([W[2, 1], W[0, 2], W[1, 0]], qvel[3:6], rtol=1e-5, atol=1e-5)
    _, qd = tree.state_from_mujoco(qpos, qvel)
    np.testing.assert_allclose(qd[3:6], R0.T @ qvel[:3], rtol=1e-12)


# --- URDF and Pinocchio --------------------------------------------------------------------


def random_urdf(rng, n, floating_joint=False):
    """URDF text: link 0 the root, links 1..n-1 each on a random earlier link; joint types mixed."""
    def inertial():
        return (f'<inertial><origin xyz="{_num(rng.uniform(-0.4, 0.4, 3))}" rpy="{_num(rng.uniform(-3, 3, 3))}"/>'
                f'<mass value="{rng.uniform(0.5, 3)!r}"/>'
                + '<inertia ixx="{!r}" iyy="{!r}" izz="{!r}" ixy="0" ixz="0" iyz="0"/></inertial>'.format(*map(float, _moments(rng))))

    links = ['<link name="world"/>' if floating_joint else ""]
    joints = []
    if floating_joint:
        joints.append(f'<joint name="float" type="floating"><parent link="world"/><child link="l0"/>'
                      f'<origin xyz="{_num(rng.uniform(-1, 1, 3))}" rpy="{_num(rng.uniform(-3, 3, 3))}"/></joint>')
    for i in range(n):
        links.append(f'<link name="l{i}">{inertial()}<visual><geometry><box size="1 1 1"/></geometry></visual></link>')
        if i == 0:
            continue
        parent = int(rng.integers(0, i))
        kind = rng.choice(["revolute", "continuous", "prismatic", "fixed"], p=[0.35, 0.2, 0.25, 0.2])
        axis = np.round(_unit(rng), 6)                    # as written to 6 digits: |n| = 1 to ~1e-6
        name = f"{rng.choice(list('abcdefgh'))}{i}"       # names not in body order
        limit = '<limit lower="-1" upper="1" effort="10" velocity="1"/>' if kind in ("revolute", "prismatic") else ""
        joints.append(f'<joint name="{name}" type="{kind}"><parent link="l{parent}"/><child link="l{i}"/>'
                      f'<origin xyz="{_num(rng.uniform(-0.6, 0.6, 3))}" rpy="{_num(rng.uniform(-3, 3, 3))}"/>'
                      f'<axis xyz="{_num(axis)}"/>{limit}<dynamics damping="0" friction="0"/></joint>')
    return f'<robot name="random">{"".join(links)}{"".join(joints)}</robot>'


def pinocchio_dynamics(model, tree, q, qd, qdd, tau, g):
    """Pinocchio's tau, H and forward qdd (under tau), converted to the Tree's conventions."""
    data = model.createData()
    model.gravity.linear = np.asarray(g, float)
    qp, v = tree.pinocchio_state(q, qd)
    _, a = tree.pinocchio_state(q, qdd)
    _, tau_p = tree.pinocchio_state(q, tau)               # the same swap of halves as for v
    P = np.eye(tree.nv)
    for k, _ in free_blocks(tree):
        P[k:k + 6, k:k + 6] = np.eye(6)[np.r_[3:6, 0:3]]
    tau_pin = P @ pin.rnea(model, data, qp, v, a)
    H = pin.crba(model, data, qp)
    H = np.triu(H) + np.triu(H, 1).T
    qdd_pin = P @ pin.aba(model, data, qp, v, tau_p)
    return tau_pin, P @ H @ P, qdd_pin


def random_state(tree, rng):
    """A random (q, qd, qdd, tau, g): unit quaternions for free joints, gravity of random direction."""
    q = rng.normal(size=tree.nq)
    for _, k in free_blocks(tree):
        q[k + 3:k + 7] = _unit(rng, 4)
    qd, qdd, tau = (rng.normal(size=tree.nv) for _ in range(3))
    return q, qd, qdd, tau, rng.normal(size=3) * 5


def assert_agrees_with_pinocchio(model, tree, q, qd, qdd, tau, g):
    """The Tree's tau, H and qdd (both methods) equal Pinocchio's rnea, crba and aba at this state."""
    tau_pin, H_pin, qdd_pin = pinocchio_dynamics(model, tree, q, qd, qdd, tau, g)
    close(sb.inverse_dynamics(tree, q, qd, qdd, g), tau_pin)
    close(sb.mass_matrix(tree, q), H_pin)
    for method in ("crba", "aba"):
        close(sb.forward_dynamics(tree, q, qd, tau, g, method=method), qdd_pin)


URDF_CASES = [(11, 3, False, False), (12, 7, False, False), (13, 12, False, False), (14, 5, True, False),
              (15, 9, True, False), (16, 6, False, True), (17, 1, True, False)]


@pytest.mark.parametrize("seed, n, floating_base, floating_joint", URDF_CASES)
def test_from_urdf_agrees_with_pinocchio(seed, n, floating_base, floating_joint):
    rng = np.random.default_rng(seed)
    xml = random_urdf(rng, n, floating_joint)
    tree = sb.Tree.from_urdf(xml, floating_base=floating_base)
    model = pin.buildModelFromXML(xml, pin.JointModelFreeFlyer()) if floating_base else pin.buildModelFromXML(xml)
    names = list(model.names)[1:]
    assert list(tree.joint_names) == names
    assert tree.nv == model.nv
    assert_agrees_with_pinocchio(model, tree, *random_state(tree, rng))


def test_pinocchio_state_round_trip():
    rng = np.random.default_rng(3)
    tree = sb.Tree.from_urdf(random_urdf(rng, 8), floating_base=True)
    q = rng.normal(size=tree.nq)
    q[3:7] = _unit(rng, 4)
    qd = rng.normal(size=tree.nv)
    q2, qd2 = tree.state_from_pinocchio(*tree.pinocchio_state(q, qd))
    np.testing.assert_allclose(np.cos(q2) if False else q2[:7], q[:7], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.sin(q2 - q), 0.0, atol=1e-12)       # continuous joints come back modulo 2 pi
    np.testing.assert_allclose(qd2, qd, rtol=1e-12, atol=1e-12)


# --- floating trees: identities over batches ---------------------------------------------------


def test_floating_batches_equal_single_calls_and_forward_undoes_inverse():
    rng = np.random.default_rng(21)
    tree = sb.Tree.from_urdf(random_urdf(rng, 7), floating_base=True)
    N = 50
    q = rng.normal(size=(N, tree.nq))
    q[:, 3:7] = rng.normal(size=(N, 4))
    q[:, 3:7] /= np.linalg.norm(q[:, 3:7], axis=1, keepdims=True)
    qd, qdd = rng.normal(size=(2, N, tree.nv))
    tau, H = sb.inverse_dynamics(tree, q, qd, qdd), sb.mass_matrix(tree, q)
    assert tau.shape == (N, tree.nv) and H.shape == (N, tree.nv, tree.nv)
    for k in (0, 17, N - 1):
        np.testing.assert_allclose(tau[k], sb.inverse_dynamics(tree, q[k], qd[k], qdd[k]), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(H[k], sb.mass_matrix(tree, q[k]), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(H, np.swapaxes(H, 1, 2), atol=1e-12)
    assert np.all(np.linalg.eigvalsh(H) > 0)
    for method in ("crba", "aba"):
        np.testing.assert_allclose(sb.forward_dynamics(tree, q, qd, tau, method=method), qdd, rtol=1e-9, atol=1e-9)


def test_a_free_body_falls_freely_and_its_position_does_not_matter():
    """A free body with no joint forces accelerates at g whatever its pose: in body axes
    qdd = [0; R^T g] - omega x v (for omega = 0: just R^T g); shifting it changes nothing."""
    rng = np.random.default_rng(2)
    I = sb.spatial_inertia(2.0, [0.1, -0.2, 0.3], sb.DOOR["inertia_com"])
    tree = sb.Tree([-1], [np.eye(6)], [np.zeros(6)], [I], kinds=["free"])
    quat = _unit(rng, 4)
    R = sb.rotation_from_quaternion(quat)
    g = np.array([0.0, 0.0, -9.81])
    for p in ([0, 0, 0], [5.0, -3.0, 2.0]):
        qdd = sb.forward_dynamics(tree, np.r_[p, quat], np.zeros(6), np.zeros(6), g)
        np.testing.assert_allclose(qdd, np.r_[0, 0, 0, R.T @ g], atol=1e-12)


# --- errors that teach -------------------------------------------------------------------------

_I = sb.spatial_inertia(2.0, [0.4, 0.0, 0.1], sb.DOOR["inertia_com"])
_X = sb.motion_transform(sb.rotation_z(0.4) @ sb.rotation_x(0.3), [0.8, 0.1, -0.2])
_Z = [0, 0, 1.0, 0, 0, 0]


def test_linear_first_transform_is_recognised_and_the_converter_named():
    with pytest.raises(ValueError, match=r"^placements: .*LINEAR-FIRST.*sb\.matrix_to_linear_first"):
        sb.Tree([-1, 0], [np.eye(6), sb.matrix_to_linear_first(_X)], [_Z, _Z], [_I, _I])


def test_linear_first_inertia_is_recognised_and_the_converter_named():
    with pytest.raises(ValueError, match=r"^inertias: expected angular-first inertias, but inertias\[1\] is a spatial inertia in LINEAR-FIRST order.*matrix_to_linear_first"):
        sb.Tree([-1, 0], [np.eye(6), _X], [_Z, _Z], [_I, sb.matrix_to_linear_first(_I)])


def test_float32_input_is_accepted_and_agrees_to_its_precision():
    rng = np.random.default_rng(5)
    tree = sb.Tree.from_urdf(random_urdf(rng, 6))
    t32 = sb.Tree(tree.parents, tree.placements.astype(np.float32), tree.axes.astype(np.float32),
                  tree.inertias.astype(np.float32), kinds=tree.kinds)
    assert t32.placements.dtype == np.float64
    q, qd, qdd = (rng.normal(size=tree.nv) for _ in range(3))
    close(sb.inverse_dynamics(t32, q.astype(np.float32), qd, qdd), sb.inverse_dynamics(tree, q, qd, qdd), rtol=1e-5)


def test_urdf_text_after_a_byte_order_mark_is_read_as_text():
    """Before: read as a file path ("cannot read ... No such file or directory")."""
    tree = sb.Tree.from_urdf("\ufeff" + one_urdf())
    assert tree.joint_names == ("shoulder",)


def test_a_loader_normalises_an_axis_of_huge_entries():
    """Before: |axis| of 1e308 entries overflowed, and the zero axis left was refused with the
    constructor's advice to mark a free joint with kinds, which from_urdf does not take."""
    tree = sb.Tree.from_urdf(one_urdf(axis="0 1e308 1e308"))
    np.testing.assert_allclose(tree.axes[0], [0, 2 ** -0.5, 2 ** -0.5, 0, 0, 0], atol=1e-15)


def test_axis_off_unit_by_1e7_is_refused_by_tree_with_advice_and_normalised_by_loaders():
    axis = np.array([0, 0, 1 + 1e-7, 0, 0, 0])
    with pytest.raises(ValueError, match=r"^axes: .*normalise it"):
        sb.Tree([-1], [np.eye(6)], [axis], [_I])
    urdf = one_urdf(axis="0 0 1.0000001")
    np.testing.assert_allclose(sb.Tree.from_urdf(urdf).axes[0], [0, 0, 1, 0, 0, 0], atol=1e-15)


def test_zero_axis_explains_fixed_joints():
    with pytest.raises(ValueError, match=r"^axes: .*fixed joint.*merge"):
        sb.Tree([-1], [np.eye(6)], [np.zeros(6)], [_I])


URDF_ONE = """<robot name="one">
  <link name="base"/>
  <link name="arm"><inertial><origin xyz="0.5 0 0"/><mass value="2"/>
    <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><box size="1 1 1"/></geometry><material name="red"/></visual>
    <collision><geometry><box size="1 1 1"/></geometry></collision></link>
  <joint name="shoulder" type="{kind}"><parent link="base"/><child link="arm"/><axis xyz="{axis}"/>{extra}</joint>
  <gazebo reference="arm"/>
  <transmission name="t"><joint name="shoulder"/></transmission>
</robot>"""


def one_urdf(old: str = "", new: str = "", kind: str = "revolute", axis: str = "0 0 1",
             extra: str = "") -> str:
    """:data:`URDF_ONE` with ``old`` replaced by ``new`` (a changed link) and its joint's
    kind, axis and extra elements."""
    return (URDF_ONE.replace(old, new) if old else URDF_ONE).format(kind=kind, axis=axis,
                                                                    extra=extra)

_MJCF_BALL = """<mujoco><worldbody><body><joint name="wrist" type="ball"/>
  <geom type="sphere" size="0.1"/></body></worldbody></mujoco>"""

_MJCF_MOCAP = """<mujoco><worldbody><body name="hand" mocap="true" pos="1 0 0">
  <body><joint axis="1 0 0"/><geom size="0.1" pos="0 0.3 0"/></body></body></worldbody></mujoco>"""

BAD_LOADS = [
    (lambda: sb.Tree.from_urdf(one_urdf(extra='<mimic joint="elbow"/>')), r"^source: joint 'shoulder' is a mimic joint"),
    (lambda: sb.Tree.from_urdf(one_urdf(kind="planar")), r"^source: joint 'shoulder' has type 'planar'"),
    (lambda: sb.Tree.from_urdf(one_urdf(extra='<dynamics damping="0.5 N m s"/>')), r"^source: joint 'shoulder': <dynamics>: expected a number in damping"),
    (lambda: sb.Tree.from_urdf(one_urdf(extra="<spring k='3'/>")), r"^source: joint 'shoulder': unsupported tag <spring>"),
    (lambda: sb.Tree.from_urdf(one_urdf(axis="0 0 0")), r"^source: joint 'shoulder': expected a joint axis with a direction"),
    (lambda: sb.Tree.from_urdf(one_urdf(kind="fixed")), r"^source: expected at least one joint"),
    (lambda: sb.Tree.from_urdf("<mujoco/>"), r"^source: expected a URDF <robot>"),
    (lambda: sb.Tree.from_urdf(one_urdf('izz="0.1"', 'izz="0.5"')),
     r"^source: the body moved by joint 'shoulder' \(made of \"link 'arm'\".*not physical: expected principal moments .* triangle inequality"),
    (lambda: sb.Tree.from_urdf(one_urdf('value="2"', 'value="-2"')),
     r"^source: link 'arm': expected a non-negative <mass"),
    (lambda: sb.Tree.from_urdf("<robot"), r"^source: not well-formed"),
    (lambda: sb.Tree.from_urdf("/no/such/file.urdf"), r"^source: expected a URDF file path"),
    (lambda: sb.Tree.from_urdf(42), r"^source: expected a URDF file path"),
    (lambda: sb.Tree.from_urdf(one_urdf(), floating_base="yes"), r"^floating_base: expected"),
    (lambda: sb.Tree.from_mujoco(mujoco.MjModel.from_xml_string(_MJCF_BALL)), r"^model: joint 'wrist' is a ball joint"),
    (lambda: sb.Tree.from_mujoco("robot.xml"), r"^model: expected a mujoco.MjModel"),
    # a mocap body's pose is set at run time: what hangs from it cannot be a Tree (it was read as welded)
    (lambda: sb.Tree.from_mujoco(mujoco.MjModel.from_xml_string(_MJCF_MOCAP)),
     r"^model: body 'hand' is a mocap body and bodies with joints hang from it; its pose is set at run time"),
    # a misspelt or missing attribute read for the dynamics is refused, not read as its default
    (lambda: sb.Tree.from_urdf(one_urdf('<axis xyz="{axis}"/>', '<axis XYZ="{axis}"/>')),
     r"^source: joint 'shoulder': <axis> has unknown attribute\(s\) \['XYZ'\]; expected xyz"),
    (lambda: sb.Tree.from_urdf(one_urdf('<origin xyz="0.5 0 0"/>', '<origin xyz="0.5 0 0" ryp="0 0 1"/>')),
     r"^source: link 'arm': <origin> has unknown attribute\(s\) \['ryp'\]; expected rpy, xyz"),
    (lambda: sb.Tree.from_urdf(one_urdf('value="2"', 'Value="2"')),
     r"^source: link 'arm': <inertial> needs <mass value=\.\.\./>; missing value"),
    (lambda: sb.Tree.from_urdf(one_urdf(' izz="0.1"', '')),
     r"^source: link 'arm': <inertial> needs <inertia .*/>; missing izz"),
    (lambda: sb.Tree.from_urdf(one_urdf('<mass value="2"/>', '')),
     r"^source: link 'arm': <inertial> needs <mass value=\.\.\./>; <mass> is missing"),
    # links the root does not reach (a closed loop of joints), a joint from a link to itself
    (lambda: sb.Tree.from_urdf(one_urdf().replace(
        "</robot>", '<link name="a"/><link name="b"/><joint name="ab" type="revolute"><parent link="a"/><child link="b"/></joint>'
                    '<joint name="ba" type="revolute"><parent link="b"/><child link="a"/></joint></robot>')),
     r"^source: expected every link connected to the root 'base'; links \['a', 'b'\] are not \(their joints \['ab', 'ba'\] form a closed loop"),
    (lambda: sb.Tree.from_urdf(one_urdf().replace(
        "</robot>", '<joint name="self" type="revolute"><parent link="arm"/><child link="arm"/></joint></robot>')),
     r"^source: joint 'self': expected a child link other than its parent"),
    # a duplicated element read for the dynamics: only the first was read
    (lambda: sb.Tree.from_urdf(one_urdf('<mass value="2"/>', '<mass value="2"/><mass value="3"/>')),
     r"^source: link 'arm': expected at most one <mass> in <inertial>, got 2"),
    (lambda: sb.Tree.from_urdf(one_urdf('<origin xyz="0.5 0 0"/>', '<origin xyz="0.5 0 0"/><origin xyz="0.7 0 0"/>')),
     r"^source: link 'arm': expected at most one <origin> in <inertial>, got 2"),
    (lambda: sb.Tree.from_urdf(one_urdf('</inertial>', '</inertial><inertial><mass value="1"/></inertial>')),
     r"^source: link 'arm': expected at most one <inertial> in <link>, got 2"),
    (lambda: sb.Tree.from_urdf(one_urdf(extra='<axis xyz="1 0 0"/>')),
     r"^source: joint 'shoulder': expected at most one <axis> in <joint>, got 2"),
    (lambda: sb.Tree.from_urdf(one_urdf(extra='<origin xyz="0 0 1"/><origin xyz="0 0 2"/>')),
     r"^source: joint 'shoulder': expected at most one <origin> in <joint>, got 2"),
    (lambda: sb.Tree.from_urdf(one_urdf(extra='<parent link="arm"/>')),
     r"^source: joint 'shoulder': expected at most one <parent> in <joint>, got 2"),
    # numbers in plain decimal syntax only: Python's float() reads "0_5" as 5, "1_0" as 10, "١" as 1
    (lambda: sb.Tree.from_urdf(one_urdf('<origin xyz="0.5 0 0"/>', '<origin xyz="0_5 0 0"/>')),
     r"^source: link 'arm': expected 3 numbers in <origin> xyz=\"0_5 0 0\" \(plain decimal"),
    (lambda: sb.Tree.from_urdf(one_urdf('value="2"', 'value="1_0"')),
     r"^source: link 'arm': expected a number in <mass> value=\"1_0\""),
    (lambda: sb.Tree.from_urdf(one_urdf(axis="0 0 \u0661")),
     r"^source: joint 'shoulder': expected 3 numbers in <axis> xyz=\"0 0 \u0661\""),
    (lambda: sb.Tree.from_urdf(one_urdf('ixx="0.1"', 'ixx="0.1\u2003"')),
     r"^source: link 'arm': expected a number in <inertia> ixx="),
    (lambda: sb.Tree.from_urdf(one_urdf(axis="0 0 inf")),
     r"^source: joint 'shoulder': expected 3 finite numbers in <axis> xyz=\"0 0 inf\""),
    # what the Tree refuses is said of the source, not of the constructor's fields alone
    (lambda: sb.Tree.from_urdf(one_urdf('value="2"', 'value="1e150"')),
     r"^source: the robot as read cannot make a Tree: inertias: expected finite numbers"),
    (lambda: sb.Tree.from_urdf(one_urdf('"shoulder"', '"root_joint"'), floating_base=True),
     r"^source: the robot as read cannot make a Tree: joint_names: expected distinct names"),
]


def test_a_mocap_body_with_nothing_moving_below_it_is_dropped():
    """Only a mocap body that carries joints is refused: a bare mocap target is welded to the
    world like any jointless body, and the rest of the model loads."""
    model = mujoco.MjModel.from_xml_string("""<mujoco><worldbody>
      <body mocap="true" pos="1 0 0"><geom size="0.1"/><body><geom size="0.1"/></body></body>
      <body><joint name="hinge" axis="0 0 1"/><geom size="0.1" pos="0.3 0 0"/></body></worldbody></mujoco>""")
    assert sb.Tree.from_mujoco(model).joint_names == ("hinge",)


def test_a_chain_of_3000_links_loads_without_recursion():
    link = '<link name="l{0}"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>'
    joint = '<joint name="j{0:04d}" type="revolute"><parent link="l{1}"/><child link="l{0}"/><axis xyz="0 0 1"/></joint>'
    n = 3000
    tree = sb.Tree.from_urdf('<robot name="r"><link name="l0"/>' + "".join(link.format(i) for i in range(1, n))
                             + "".join(joint.format(i, i - 1) for i in range(1, n)) + "</robot>")
    assert tree.nv == n - 1 and tree.joint_names[-1] == f"j{n - 1:04d}"
    np.testing.assert_array_equal(tree.parents, np.arange(-1, n - 2))


@pytest.mark.parametrize("call, message", BAD_LOADS)
def test_loaders_refuse_what_they_cannot_model_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_ignored_tags_are_only_those_that_leave_the_dynamics_alone():
    tree = sb.Tree.from_urdf(one_urdf(kind="continuous", extra='<limit effort="1" velocity="1"/>'))
    np.testing.assert_allclose(sb.mass_matrix(tree, [0.0]), [[0.1 + 2 * 0.25]])


_FREE = sb.Tree([-1, 0], [np.eye(6), _X], [np.zeros(6), _Z], [_I, _I], kinds=["free", "revolute"], joint_names=["base", "hinge"])
_Q = np.r_[0, 0, 0, 1, 0, 0, 0, 0.3]

_CONTINUOUS = sb.Tree([-1], [np.eye(6)], [_Z], [_I], kinds=["continuous"])

BAD_STATE_CALLS = [
    (lambda: _FREE.mujoco_state(_Q[:-1]), "q"),
    (lambda: _FREE.mujoco_state(np.r_[0, 0, 0, 2, 0, 0, 0, 0.3]), "q"),
    (lambda: _FREE.mujoco_state(_Q, np.zeros(8)), "qd"),
    (lambda: _FREE.state_from_mujoco(_Q, "fast"), "qvel"),
    (lambda: _FREE.state_from_mujoco([None] * 8), "qpos"),
    (lambda: _FREE.state_from_mujoco(np.r_[0, 0, 0, 0, 0, 0, 0, 0.3]), "qpos"),
    (lambda: _FREE.pinocchio_state(_Q, [np.nan] * 7), "qd"),
    (lambda: _FREE.state_from_pinocchio(_Q[:-1]), "q"),
    (lambda: _FREE.state_from_pinocchio(np.r_[0, 0, 0, 0, 0, 0, 3, 0.3]), "q"),
    (lambda: _FREE.state_from_pinocchio(_Q, [1j] * 7), "v"),
    (lambda: sb.inverse_dynamics(_FREE, _Q, np.zeros(8), np.zeros(7)), "qd"),
    (lambda: sb.mass_matrix(_FREE, np.r_[0, 0, 0, 0.9, 0, 0, 0, 0.3]), "q"),
    (lambda: sb.forward_dynamics(_FREE, _Q, np.zeros(7), np.zeros(7), method="featherstone"), "method"),
    (lambda: sb.forward_dynamics(sb.Tree([-1], [np.eye(6)], [_Z], [np.zeros((6, 6))]), [0], [0], [1], method="aba"), "tree"),
    (lambda: sb.Tree([-1, 0], [np.eye(6)] * 2, [np.zeros(6), np.zeros(6)], [_I, _I], kinds=["free", "free"]), "kinds"),
    (lambda: sb.Tree([-1], [np.eye(6)], [_Z], [_I], kinds=["free"]), "axes"),
    (lambda: sb.Tree([-1], [np.eye(6)], [_Z], [_I], kinds=["prismatic"]), "axes"),
    (lambda: sb.Tree([-1], [np.eye(6)], [_Z], [_I], kinds=["fixed"]), "kinds"),
    (lambda: sb.Tree([-1], [np.eye(6)], [_Z], [_I], kinds="revolute"), "kinds"),
    (lambda: sb.Tree([-1, 0], [np.eye(6)] * 2, [_Z, _Z], [_I, _I], joint_names=["a", "a"]), "joint_names"),
    (lambda: sb.Tree([-1], [np.eye(6)], [np.zeros(6)], [_I], kinds=["free"], offsets=[1.0]), "offsets"),
    # a continuous joint's (cos, sin) must be a unit pair, as a free joint's quaternion is unit
    (lambda: _CONTINUOUS.state_from_pinocchio([0.3, 0.0]), "q"),
    (lambda: _CONTINUOUS.state_from_pinocchio([0.0, 0.0]), "q"),
    (lambda: _CONTINUOUS.state_from_pinocchio([0.3]), "q"),
]


@pytest.mark.parametrize("call, name", BAD_STATE_CALLS)
def test_bad_states_and_trees_name_the_argument(call, name):
    with pytest.raises(ValueError, match=rf"^{name}\b.*expected"):
        call()


_QD = np.r_[0.1, -0.2, 0.3, 1.0, 2.0, -0.5, 0.7]
_QPIN, _VPIN = _FREE.pinocchio_state(_Q, _QD)
STATE_PAIRS = [("mujoco_state", "q", "qd", _Q, _QD), ("state_from_mujoco", "qpos", "qvel", *_FREE.mujoco_state(_Q, _QD)),
               ("pinocchio_state", "q", "qd", _Q, _QD), ("state_from_pinocchio", "q", "v", _QPIN, _VPIN)]


@pytest.mark.parametrize("method, q_name, v_name, q, v", STATE_PAIRS)
def test_state_conversions_pair_batches_row_by_row(method, q_name, v_name, q, v):
    """A state is one q with its one qd: batches that do not broadcast are refused naming both
    (they were paired silently, or failed inside numpy); a single q with a batch of qd is used
    for every row, and each row equals its own single conversion."""
    convert = getattr(_FREE, method)
    with pytest.raises(ValueError, match=rf"{q_name} \(3,\), {v_name} \(5,\).*expected"):
        convert(np.tile(q, (3, 1)), np.tile(v, (5, 1)))
    rows = v * np.array([[1.0], [0.5], [-2.0]])
    got_q, got_v = convert(q, rows)
    assert got_q.shape[:-1] == got_v.shape[:-1] == (3,)
    for i, row in enumerate(rows):
        one_q, one_v = convert(q, row)
        np.testing.assert_allclose(got_q[i], one_q, rtol=0, atol=1e-15)
        np.testing.assert_allclose(got_v[i], one_v, rtol=0, atol=1e-15)
