"""Trees of bodies (spatialbook.tree) against MuJoCo and Pinocchio, and against identities.

Every random tree is built three times from the same numbers: as an ``sb.Tree``, as MJCF for
MuJoCo (bodies nested as the tree says; MuJoCo numbers its degrees of freedom depth-first, so
its indices are mapped back to ours) and as a ``pin.Model`` (Pinocchio orders 6-vectors
linear first, but joint-space quantities need no conversion).
"""

from __future__ import annotations

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
