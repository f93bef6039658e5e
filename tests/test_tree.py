"""Trees of bodies (spatialbook.tree) against MuJoCo and Pinocchio, and against identities.

Every random tree is built three times from the same numbers: as an ``sb.Tree``, as MJCF for
MuJoCo (bodies nested as the tree says; MuJoCo numbers its degrees of freedom depth-first, so
its indices are mapped back to ours) and as a ``pin.Model`` (Pinocchio orders 6-vectors
linear first, but joint-space quantities need no conversion).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import spatialbook as sb

import mujoco  # a test dependency: a missing engine must fail, not skip
import pinocchio as pin

RTOL = 1e-9


# --- one random tree, as plain numbers ------------------------------------------------------


def _unit(rng, k=3):
    v = rng.normal(size=k)
    return v / np.linalg.norm(v)


def random_tree(rng, n, chain=False):
    """A dict of plain numbers describing a random tree of n bodies (revolute and prismatic)."""
    parents = [i - 1 if chain else int(rng.integers(-1, i)) for i in range(n)]
    bodies = []
    for _ in range(n):
        quat = _unit(rng, 4)                                  # joint frame in the parent, [w x y z]
        moments = np.sort(rng.uniform(0.05, 1.0, size=3))
        moments[2] = min(moments[2], 0.95 * (moments[0] + moments[1]))   # a real body
        Q = sb.rotation_from_quaternion(_unit(rng, 4))
        bodies.append(dict(
            quat=quat,
            pos=rng.uniform(-0.8, 0.8, size=3),
            kind="hinge" if rng.uniform() < 0.65 else "slide",
            axis=_unit(rng),
            mass=float(rng.uniform(0.5, 3.0)),
            com=rng.uniform(-0.5, 0.5, size=3),
            inertia_com=Q @ np.diag(moments) @ Q.T,
        ))
    return dict(parents=parents, bodies=bodies)


def to_tree(spec) -> sb.Tree:
    placements, axes, inertias = [], [], []
    for b in spec["bodies"]:
        placements.append(sb.motion_transform(sb.rotation_from_quaternion(b["quat"]), b["pos"]))
        zero = np.zeros(3)
        axes.append(np.concatenate((b["axis"], zero) if b["kind"] == "hinge" else (zero, b["axis"])))
        inertias.append(sb.spatial_inertia(b["mass"], b["com"], b["inertia_com"]))
    return sb.Tree(spec["parents"], placements, axes, inertias)


# --- the same tree in MuJoCo ----------------------------------------------------------------


def _num(x) -> str:
    return " ".join(repr(float(v)) for v in np.atleast_1d(x))


def to_mujoco(spec, gravity):
    """(model, dof) with dof[i] = MuJoCo's dof index of our joint i."""
    parents, bodies = spec["parents"], spec["bodies"]

    def body_xml(i):
        b = bodies[i]
        I = b["inertia_com"]
        full = [I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]]
        children = "".join(body_xml(j) for j in range(len(parents)) if parents[j] == i)
        return f"""
        <body name="b{i}" pos="{_num(b['pos'])}" quat="{_num(b['quat'])}">
          <joint name="j{i}" type="{b['kind']}" axis="{_num(b['axis'])}" pos="0 0 0"/>
          <inertial pos="{_num(b['com'])}" mass="{b['mass']!r}" fullinertia="{_num(full)}"/>{children}
        </body>"""

    roots = "".join(body_xml(i) for i in range(len(parents)) if parents[i] == -1)
    xml = f"""
    <mujoco model="tree">
      <option gravity="{_num(gravity)}">
        <flag contact="disable" constraint="disable" spring="disable" damper="disable"/>
      </option>
      <worldbody>{roots}
      </worldbody>
    </mujoco>"""
    model = mujoco.MjModel.from_xml_string(xml)
    dof = np.array([model.jnt_dofadr[model.joint(f"j{i}").id] for i in range(len(parents))])
    return model, dof


def mujoco_dynamics(spec, gravity, q, qd, qdd, tau):
    """MuJoCo's (tau = qfrc_inverse, H = dense mass matrix, qdd = qacc under tau), in our order."""
    model, dof = to_mujoco(spec, gravity)
    n = len(dof)
    data = mujoco.MjData(model)
    data.qpos[dof], data.qvel[dof] = q, qd
    mujoco.mj_forward(model, data)
    H = np.zeros((n, n))
    mujoco.mj_fullM(model, data, H)
    data.qacc[dof] = qdd
    mujoco.mj_inverse(model, data)
    tau_inverse = data.qfrc_inverse[dof].copy()
    data.qfrc_applied[dof] = tau
    mujoco.mj_forward(model, data)
    return tau_inverse, H[np.ix_(dof, dof)], data.qacc[dof].copy()


# --- the same tree in Pinocchio -------------------------------------------------------------


def depth_first(parents):
    """Our body indices in depth-first order (children in increasing index), the order in
    which MuJoCo and Pinocchio number degrees of freedom.  Pinocchio's crba assumes it."""
    order = []

    def visit(i):
        order.append(i)
        for j in range(len(parents)):
            if parents[j] == i:
                visit(j)

    visit(-1)
    return order[1:]


def to_pinocchio(spec, gravity):
    """(model, dof) with dof[i] = Pinocchio's velocity index of our joint i."""
    model = pin.Model()
    joint_id = {-1: 0}                                        # 0 is Pinocchio's universe
    for i in depth_first(spec["parents"]):
        b = spec["bodies"][i]
        axis = np.asarray(b["axis"], float)
        joint = pin.JointModelRevoluteUnaligned(axis) if b["kind"] == "hinge" else pin.JointModelPrismaticUnaligned(axis)
        placement = pin.SE3(sb.rotation_from_quaternion(b["quat"]), np.asarray(b["pos"], float))
        joint_id[i] = model.addJoint(joint_id[spec["parents"][i]], joint, placement, f"j{i}")
        model.appendBodyToJoint(joint_id[i], pin.Inertia(b["mass"], b["com"], b["inertia_com"]), pin.SE3.Identity())
    model.gravity = pin.Motion(np.asarray(gravity, float), np.zeros(3))   # linear part first
    dof = np.array([model.idx_vs[joint_id[i]] for i in range(len(spec["parents"]))])
    return model, dof


def pinocchio_dynamics(spec, gravity, q, qd, qdd, tau):
    """Pinocchio's (rnea, crba symmetrized, aba), in our order."""
    model, dof = to_pinocchio(spec, gravity)
    data = model.createData()
    n = len(dof)
    q_, qd_, qdd_, tau_ = (np.zeros(n) for _ in range(4))
    q_[dof], qd_[dof], qdd_[dof], tau_[dof] = q, qd, qdd, tau
    tau_inverse = pin.rnea(model, data, q_, qd_, qdd_)[dof]
    H = pin.crba(model, data, q_).copy()
    H = np.triu(H) + np.triu(H, 1).T                      # crba fills the upper triangle
    qdd_forward = pin.aba(model, data, q_, qd_, tau_)[dof]
    return tau_inverse, H[np.ix_(dof, dof)], qdd_forward


# --- cases ------------------------------------------------------------------------------------

CASES = [(seed, n, chain) for seed, (n, chain) in enumerate(
    [(1, True), (2, True), (3, True), (4, True), (5, True), (6, True),
     (2, False), (3, False), (4, False), (5, False), (6, False), (6, False), (6, False), (5, False)])]


def _case(seed, n, chain):
    rng = np.random.default_rng(1000 + seed)
    spec = random_tree(rng, n, chain)
    gravity = rng.normal(scale=5.0, size=3)
    q, qd, qdd, tau = (rng.normal(size=n) for _ in range(4))
    return spec, gravity, q, qd, qdd, tau


def _close(actual, desired):
    scale = max(1.0, float(np.max(np.abs(desired))))
    np.testing.assert_allclose(actual, desired, rtol=0.0, atol=RTOL * scale)


@pytest.mark.parametrize("seed, n, chain", CASES)
def test_agrees_with_mujoco(seed, n, chain):
    spec, gravity, q, qd, qdd, tau = _case(seed, n, chain)
    tree = to_tree(spec)
    tau_mj, H_mj, qdd_mj = mujoco_dynamics(spec, gravity, q, qd, qdd, tau)
    _close(sb.inverse_dynamics(tree, q, qd, qdd, gravity), tau_mj)
    _close(sb.mass_matrix(tree, q), H_mj)
    _close(sb.forward_dynamics(tree, q, qd, tau, gravity), qdd_mj)


@pytest.mark.parametrize("seed, n, chain", CASES)
def test_agrees_with_pinocchio(seed, n, chain):
    spec, gravity, q, qd, qdd, tau = _case(seed, n, chain)
    tree = to_tree(spec)
    tau_pin, H_pin, qdd_pin = pinocchio_dynamics(spec, gravity, q, qd, qdd, tau)
    _close(sb.inverse_dynamics(tree, q, qd, qdd, gravity), tau_pin)
    _close(sb.mass_matrix(tree, q), H_pin)
    _close(sb.forward_dynamics(tree, q, qd, tau, gravity), qdd_pin)


# --- identities -------------------------------------------------------------------------------


def _rotation_about(n, angle):
    N = sb.skew(n)
    return np.eye(3) + np.sin(angle) * N + (1 - np.cos(angle)) * N @ N


def potential_energy(spec, q, gravity):
    """V = -sum m_k g . x_Ck, from world poses composed here, independently of sb.tree."""
    R, p = {-1: np.eye(3)}, {-1: np.zeros(3)}
    V = 0.0
    for i, b in enumerate(spec["bodies"]):
        par = spec["parents"][i]
        R_joint = R[par] @ sb.rotation_from_quaternion(b["quat"])
        origin = p[par] + R[par] @ b["pos"]
        if b["kind"] == "hinge":
            R[i], p[i] = R_joint @ _rotation_about(b["axis"], q[i]), origin
        else:
            R[i], p[i] = R_joint, origin + R_joint @ b["axis"] * q[i]
        V -= b["mass"] * np.dot(gravity, p[i] + R[i] @ b["com"])
    return V


@pytest.mark.parametrize("seed, n, chain", CASES)
def test_mass_matrix_is_symmetric_positive_definite(seed, n, chain):
    spec, _, _, _, _, _ = _case(seed, n, chain)
    q = np.random.default_rng(seed).normal(size=(20, n)) * 2.0
    H = sb.mass_matrix(to_tree(spec), q)
    np.testing.assert_array_equal(H, np.swapaxes(H, -1, -2))
    assert np.all(np.linalg.eigvalsh(H) > 0)


@pytest.mark.parametrize("seed, n, chain", CASES)
def test_skew_property_by_finite_differences(seed, n, chain):
    """qd^T (Hdot - 2C) qd = 0, i.e. qd^T Hdot qd = 2 qd^T c with c = C qd the velocity terms."""
    spec, _, q, qd, _, _ = _case(seed, n, chain)
    tree = to_tree(spec)
    h = 1e-5
    Hdot = (sb.mass_matrix(tree, q + h * qd) - sb.mass_matrix(tree, q - h * qd)) / (2 * h)
    c = sb.inverse_dynamics(tree, q, qd, np.zeros(n), gravity=[0, 0, 0])
    lhs, rhs = qd @ Hdot @ qd, 2 * qd @ c
    assert abs(lhs - rhs) <= 1e-7 * max(1.0, abs(rhs))
    if any(p >= 0 for p in spec["parents"]):
        assert abs(rhs) > 1e-3       # with a joint on a moving body, the identity is not 0 = 0


@pytest.mark.parametrize("seed, n, chain", CASES)
def test_power_balance(seed, n, chain):
    """tau . qd = dT/dt + dU/dt along q(t) = q + qd t + qdd t^2 / 2, at t = 0."""
    spec, gravity, q, qd, qdd, _ = _case(seed, n, chain)
    tree = to_tree(spec)
    tau = sb.inverse_dynamics(tree, q, qd, qdd, gravity)

    def energy(t):
        q_t, qd_t = q + qd * t + qdd * t * t / 2, qd + qdd * t
        T = 0.5 * qd_t @ sb.mass_matrix(tree, q_t) @ qd_t
        return T + potential_energy(spec, q_t, gravity)

    h = 1e-5
    dE_dt = (energy(h) - energy(-h)) / (2 * h)
    assert abs(tau @ qd - dE_dt) <= 1e-6 * max(1.0, abs(dE_dt))


def door_tree(hinge_axis=(0, 0, 1)):
    I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    return sb.Tree([-1], [sb.motion_transform(np.eye(3), [0, 0, 0])], [list(hinge_axis) + [0, 0, 0]], [I_O])


@pytest.mark.parametrize("gravity", [(0, 0, 0), (0, 0, -9.81)])
@pytest.mark.parametrize("angle", [0.0, 0.7, -2.0])
def test_one_body_tree_is_the_door_of_chapter_8(gravity, angle):
    door = door_tree()
    omega, alpha = sb.DOOR["omega"], sb.DOOR["alpha"]
    tau = sb.inverse_dynamics(door, [angle], [omega], [alpha], gravity)
    I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    F_O = sb.required_wrench(I_O, [0, 0, omega, 0, 0, 0], [0, 0, alpha, 0, 0, 0])
    np.testing.assert_allclose(tau, [F_O[2]], rtol=1e-14)
    np.testing.assert_allclose(tau, [1.28], rtol=1e-14)
    np.testing.assert_allclose(sb.mass_matrix(door, [angle]), [[I_O[2, 2]]], rtol=1e-14)


def test_door_with_a_tilted_hinge_feels_gravity():
    """Hinge along x (horizontal): gravity's moment m g x 0.4 cos(angle)-ish appears in tau."""
    door = door_tree((1, 0, 0))                  # hinge along x: the COM on it, no moment
    assert abs(sb.inverse_dynamics(door, [0.3], [0.0], [0.0])[0]) < 1e-12
    door_y = door_tree((0, 1, 0))                # hinge along y, COM 0.4 m along x
    tau = sb.inverse_dynamics(door_y, [0.3], [0.0], [0.0])[0]
    # body x turned by 0.3 about y: COM at 0.4 (cos 0.3, 0, -sin 0.3); holding it needs
    # tau_y = -(c x m g)_y = -(0.4 cos 0.3 * 2 * 9.81)
    np.testing.assert_allclose(tau, -0.4 * np.cos(0.3) * 2 * 9.81, rtol=1e-12)


def test_batches_equal_a_loop_and_broadcast():
    spec, gravity, _, _, _, _ = _case(11, 6, False)
    tree = to_tree(spec)
    rng = np.random.default_rng(5)
    q, qd, qdd = rng.normal(size=(4, 3, 6)), rng.normal(size=(3, 6)), rng.normal(size=6)
    g = rng.normal(size=(4, 1, 3))
    tau = sb.inverse_dynamics(tree, q, qd, qdd, g)
    H = sb.mass_matrix(tree, q)
    qdd_fd = sb.forward_dynamics(tree, q, qd, tau, g)
    assert tau.shape == (4, 3, 6) and H.shape == (4, 3, 6, 6) and qdd_fd.shape == (4, 3, 6)
    for a in range(4):
        for b in range(3):
            np.testing.assert_allclose(tau[a, b], sb.inverse_dynamics(tree, q[a, b], qd[b], qdd, g[a, 0]), rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(H[a, b], sb.mass_matrix(tree, q[a, b]), rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(qdd_fd[a, b], sb.forward_dynamics(tree, q[a, b], qd[b], tau[a, b], g[a, 0]), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("seed, n, chain", CASES)
def test_forward_undoes_inverse(seed, n, chain):
    spec, gravity, _, _, _, _ = _case(seed, n, chain)
    tree = to_tree(spec)
    rng = np.random.default_rng(seed)
    q, qd, qdd = (rng.normal(size=(10, n)) for _ in range(3))
    tau = sb.inverse_dynamics(tree, q, qd, qdd, gravity)
    np.testing.assert_allclose(sb.forward_dynamics(tree, q, qd, tau, gravity), qdd, rtol=1e-9, atol=1e-9)
    # and H qdd + C = tau, the equation forward dynamics solves
    C = sb.inverse_dynamics(tree, q, qd, np.zeros(n), gravity)
    np.testing.assert_allclose(np.einsum("...ij,...j->...i", sb.mass_matrix(tree, q), qdd) + C, tau, rtol=1e-10, atol=1e-10)


def test_inputs_are_not_modified_and_fields_are_read_only():
    spec, gravity, q, qd, qdd, _ = _case(3, 4, False)
    tree = to_tree(spec)
    q0 = q.copy()
    sb.inverse_dynamics(tree, q, qd, qdd, gravity)
    np.testing.assert_array_equal(q, q0)
    with pytest.raises(ValueError):
        tree.placements[0, 0, 0] = 2.0
    assert tree._replace(parents=list(tree.parents)).parents.tolist() == tree.parents.tolist()


# --- bad input --------------------------------------------------------------------------------

_DOOR = door_tree()
_I_O = _DOOR.inertias[0]
_E6 = np.eye(6)
_Z = [0, 0, 1, 0, 0, 0]


def _tree(**changes):
    fields = dict(parents=[-1, 0], placements=[_E6, _E6], axes=[_Z, _Z], inertias=[_I_O, _I_O])
    fields.update(changes)
    return lambda: sb.Tree(**fields)


BAD_TREES = [
    (_tree(parents=[0, 0]), "parents"),
    (_tree(parents=[-1, 1]), "parents"),
    (_tree(parents=[-1, -2]), "parents"),
    (_tree(parents=[-1, 0.5]), "parents"),
    (_tree(parents=[True, False]), "parents"),
    (_tree(parents=[]), "parents"),
    (_tree(parents="ab"), "parents"),
    (_tree(placements=[_E6]), "placements"),
    (_tree(placements=[_E6, sb.force_transform(np.eye(3), [1, 0, 0])]), "placements"),
    (_tree(placements=[_E6, 2 * _E6]), "placements"),
    (_tree(placements=[_E6, np.diag([1, 1, -1, 1, 1, -1.0])]), "placements"),
    (_tree(placements=[_E6, np.eye(5)]), "placements"),
    (_tree(placements=[_E6, np.full((6, 6), np.nan)]), "placements"),
    (_tree(axes=[_Z, [0, 0, 2, 0, 0, 0]]), "axes"),
    (_tree(axes=[_Z, [0, 0, 1, 0, 0, 1]]), "axes"),
    (_tree(axes=[_Z, [0, 0, 0, 0, 0, 0]]), "axes"),
    (_tree(axes=[_Z, [0, 0, 1j, 0, 0, 0]]), "axes"),
    (_tree(axes=[_Z]), "axes"),
    (_tree(inertias=[_I_O, -_I_O]), "inertias"),
    (_tree(inertias=[_I_O, np.eye(6) + np.diag(np.ones(5), 1)]), "inertias"),
    (_tree(inertias=[_I_O, sb.spatial_inertia(1.0, [0, 0, 0], np.diag([0.1, 0.1, 1.0]) * 0 + np.eye(3))[:, :5]]), "inertias"),
]


@pytest.mark.parametrize("call, name", BAD_TREES)
def test_bad_trees_name_the_field(call, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        call()


BAD_CALLS = [
    (lambda: sb.inverse_dynamics(("not", "a", "tree"), [0], [0], [0]), "tree"),
    (lambda: sb.mass_matrix(None, [0]), "tree"),
    (lambda: sb.inverse_dynamics(_DOOR, [0, 1], [0], [0]), "q"),
    (lambda: sb.inverse_dynamics(_DOOR, [0], [np.nan], [0]), "qd"),
    (lambda: sb.inverse_dynamics(_DOOR, [0], [0], [True]), "qdd"),
    (lambda: sb.inverse_dynamics(_DOOR, [0], [0], [1j]), "qdd"),
    (lambda: sb.inverse_dynamics(_DOOR, ["0"], [0], [0]), "q"),
    (lambda: sb.inverse_dynamics(_DOOR, 0.0, [0], [0]), "q"),
    (lambda: sb.inverse_dynamics(_DOOR, [0], [0], [0], gravity=[0, -9.81]), "gravity"),
    (lambda: sb.inverse_dynamics(_DOOR, [0], [0], [0], gravity="down"), "gravity"),
    (lambda: sb.inverse_dynamics(_DOOR, np.zeros((2, 1)), np.zeros((3, 1)), [0]), "batch shapes"),
    (lambda: sb.mass_matrix(_DOOR, [np.inf]), "q"),
    (lambda: sb.mass_matrix(_DOOR, [[0, 1]]), "q"),
    (lambda: sb.forward_dynamics(_DOOR, [0], [0], [0, 0]), "tau"),
    (lambda: sb.forward_dynamics(_DOOR, [0], [0], [False]), "tau"),
    (lambda: sb.forward_dynamics(_DOOR, [0], [0], [0], gravity=[[0, 0, 1], [0, 0]]), "gravity"),
    (lambda: sb.forward_dynamics(sb.Tree([-1], [_E6], [_Z], [np.zeros((6, 6))]), [0], [0], [1]), "tree"),
]


@pytest.mark.parametrize("call, name", BAD_CALLS)
def test_bad_arguments_name_the_argument(call, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        call()


def test_large_batches_equal_small_ones():
    """Across the library's internal blocks of states, results equal those of small calls."""
    spec, gravity, _, _, _, _ = _case(12, 6, False)
    tree = to_tree(spec)
    rng = np.random.default_rng(9)
    N = 2 * 8192 + 37
    q, qd, qdd = (rng.normal(size=(N, 6)) for _ in range(3))
    tau, H = sb.inverse_dynamics(tree, q, qd, qdd, gravity), sb.mass_matrix(tree, q)
    qdd_fd = sb.forward_dynamics(tree, q, qd, tau, gravity)
    for k in list(range(0, N, 997)) + [8191, 8192, N - 1]:
        np.testing.assert_allclose(tau[k], sb.inverse_dynamics(tree, q[k], qd[k], qdd[k], gravity), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(H[k], sb.mass_matrix(tree, q[k]), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(qdd_fd, qdd, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(sb.forward_dynamics(tree, q, qd, tau, gravity, method="aba"), qdd, rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("method", ["crba", "aba"])
@pytest.mark.parametrize("states", [1, 40])
def test_forward_dynamics_names_the_joint_that_moves_nothing(method, states):
    """A gripper's massless finger makes H(q) singular: forward dynamics refuses with a
    ValueError naming that joint (and only it), one state or a batch, either method."""
    import re

    I = sb.spatial_inertia(1.0, [0.3, 0, 0], 0.1 * np.eye(3))
    z = [0, 0, 1.0, 0, 0, 0]
    tree = sb.Tree([-1, 0, 1], [np.eye(6)] * 3, [z] * 3, [I, I, np.zeros((6, 6))],
                   joint_names=["shoulder", "elbow", "finger"])
    zeros = np.zeros((states, 3))
    with pytest.raises(ValueError, match=re.escape("singular (joint 'finger' moves no inertia)")):
        sb.forward_dynamics(tree, zeros + [0, 0.1, 0.2], zeros, zeros, method=method)


def _overflowing_tree():
    """Every input within the 1e100 cap, but products of them beyond float64 (1e308)."""
    B = 1e100
    Ib = sb.spatial_inertia(B, [0, 0, 0], np.eye(3) * B)
    return sb.Tree([-1, 0], [np.eye(6), sb.motion_transform(np.eye(3), [B, 0, 0])], [[0, 0, 1, 0, 0, 0]] * 2, [Ib, Ib])


_B = 1e100
_OVERFLOWS = [
    (lambda t, s: sb.inverse_dynamics(t, np.zeros(s), np.full(s, _B), np.full(s, _B), gravity=[_B] * 3), "tree, q, qd, qdd, gravity"),
    (lambda t, s: sb.forward_dynamics(t, np.zeros(s), np.full(s, _B), np.full(s, _B), gravity=[_B] * 3), "tree, q, qd, tau, gravity"),
    (lambda t, s: sb.forward_dynamics(t, np.zeros(s), np.full(s, _B), np.full(s, _B), gravity=[_B] * 3, method="aba"), "tree, q, qd, tau, gravity"),
    (lambda t, s: sb.centroidal_momentum(t, np.zeros(s), np.full(s, _B)), "tree, q, qd"),
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("shape", [(2,), (40, 2)])
@pytest.mark.parametrize("call, names", _OVERFLOWS)
def test_results_that_overflow_float64_are_refused_naming_the_arguments(call, names, shape):
    """Before: tau [nan nan], a centroidal momentum with inf, and forward dynamics (ABA) saying
    "joint1 moves no inertia" of a tree whose inertias are 1e300."""
    with pytest.raises(ValueError, match=rf"^{re.escape(names)}: the inputs' magnitudes overflow float64"):
        call(_overflowing_tree(), shape)


def test_trees_compare_by_value():
    """tree == sb.Tree(*tree) raised numpy's "truth value of an array is ambiguous"."""
    I = sb.spatial_inertia(1.0, [0.3, 0, 0], 0.1 * np.eye(3))
    tree = sb.Tree([-1, 0], [np.eye(6)] * 2, [[0, 0, 1, 0, 0, 0]] * 2, [I, I])
    assert tree == sb.Tree(*tree) and not (tree != sb.Tree(*tree))
    assert tree != tree._replace(inertias=[I, 2 * I])
    assert tree != tree._replace(kinds=["continuous", "revolute"])
    assert tree != tree._replace(joint_names=["a", "b"])
    assert tree != sb.Tree([-1], [np.eye(6)], [[0, 0, 1, 0, 0, 0]], [I])       # other shapes: unequal, no error
    assert tree != tuple(tree) and tree != "tree"
    with pytest.raises(TypeError):
        hash(tree)
