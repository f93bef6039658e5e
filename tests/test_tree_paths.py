"""The two evaluation paths of the tree dynamics agree with each other and with Pinocchio.

A few states per call (up to ``_WORLD_STATES``) are computed in base coordinates
(``spatialbook/_tree_world.py``); more go body by body over blocks of states
(``_tree_kernels.py``, ``_tree_blocks.py``).  On the 44-dof humanoid of
``benchmarks/bench_tree.py`` and on a tree with every joint kind (free, revolute, continuous,
prismatic, in two branches), tau, H and qdd from one state per call, from a call on a few
states and from a call on many states agree with each other and with Pinocchio's rnea, crba
and aba, state by state.  For many states the mass matrix of a deep tree is found in base
coordinates (``_tree_base.py``); on random depth-first trees of every joint kind it equals the
body-by-body one.

    .venv/bin/python -m pytest -q tests/test_tree_paths.py
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import spatialbook as sb
from spatialbook._tree_world import _WORLD_STATES

import pinocchio as pin  # test dependency: a missing engine must fail, not skip

ROOT = Path(__file__).resolve().parent.parent


def _bench():
    spec = importlib.util.spec_from_file_location("bench_tree", ROOT / "benchmarks" / "bench_tree.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def every_kind_urdf() -> str:
    """A floating trunk with a revolute-prismatic-continuous arm and a continuous-revolute leg."""
    def link(name, mass, xyz, rpy):
        return (f'<link name="{name}"><inertial><origin xyz="{xyz}" rpy="{rpy}"/><mass value="{mass}"/>'
                f'<inertia ixx="0.03" iyy="0.05" izz="0.06" ixy="0.001" ixz="-0.002" iyz="0.003"/></inertial></link>')

    def joint(name, kind, parent, child, xyz, rpy, axis):
        limit = '<limit lower="-1" upper="1" effort="10" velocity="3"/>' if kind != "continuous" else ""
        return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
                f'<origin xyz="{xyz}" rpy="{rpy}"/><axis xyz="{axis}"/>{limit}</joint>')

    links = [link("trunk", 5.0, "0.02 -0.01 0.05", "0.1 0.2 0.3"), link("upper", 1.5, "0.1 0 0", "0 0.3 0"),
             link("slider", 0.8, "0 0.05 0", "0.2 0 0"), link("hand", 0.4, "0.02 0.02 0", "0 0 0.5"),
             link("thigh", 2.0, "0 0 -0.2", "0.1 0 0"), link("shin", 1.2, "0 0.01 -0.2", "0 0.2 0.1")]
    joints = [joint("shoulder", "revolute", "trunk", "upper", "0.1 0.2 0.3", "0.3 0 0.1", "0.6 0.8 0"),
              joint("extend", "prismatic", "upper", "slider", "0.3 0 0", "0 0.2 0", "0 0.6 0.8"),
              joint("wrist", "continuous", "slider", "hand", "0 0.1 0", "0.1 0.1 0", "1 0 0"),
              joint("hip", "continuous", "trunk", "thigh", "0 -0.1 -0.2", "0 0 0.4", "0 1 0"),
              joint("knee", "revolute", "thigh", "shin", "0 0 -0.4", "0.05 0 0", "0 0.8 0.6")]
    return f'<robot name="every_kind">{"".join(links)}{"".join(joints)}</robot>'


@pytest.fixture(scope="module", params=["humanoid", "every_kind"])
def robot(request):
    xml = _bench().humanoid_urdf() if request.param == "humanoid" else every_kind_urdf()
    tree = sb.Tree.from_urdf(xml, floating_base=True)
    model = pin.buildModelFromXML(xml, pin.JointModelFreeFlyer())
    assert list(tree.joint_names) == list(model.names)[1:]
    if request.param == "every_kind":
        assert set(tree.kinds) == {"free", "revolute", "continuous", "prismatic"}
    return tree, model


def _states(tree, n, seed):
    rng = np.random.default_rng(seed)
    q = rng.uniform(-1, 1, size=(n, tree.nq))
    q[:, 3:7] /= np.linalg.norm(q[:, 3:7], axis=1, keepdims=True)
    qd, qdd, tau = (rng.uniform(-1, 1, size=(n, tree.nv)) for _ in range(3))
    g = rng.normal(size=3) * 5.0
    return q, qd, qdd, tau, g


def _pinocchio(tree, model, q, qd, qdd, tau, g):
    """tau, H and qdd of Pinocchio for one state, in this library's velocity order."""
    model.gravity = pin.Motion(g, np.zeros(3))
    data = model.createData()
    qp, vp = tree.pinocchio_state(q, qd)
    _, ap = tree.pinocchio_state(q, qdd)
    _, tp = tree.pinocchio_state(q, tau)
    P = np.eye(tree.nv)
    P[:6, :6] = np.eye(6)[np.r_[3:6, 0:3]]               # Pinocchio's free joint: linear first
    H = pin.crba(model, data, qp)
    H = np.triu(H) + np.triu(H, 1).T
    return P @ pin.rnea(model, data, qp, vp, ap), P @ H @ P, P @ pin.aba(model, data, qp, vp, tp)


def _close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9 * max(1.0, float(np.abs(b).max())))


def test_few_and_many_states_agree_with_each_other_and_with_pinocchio(robot):
    tree, model = robot
    many = 2 * _WORLD_STATES + 3                          # body by body, in blocks of states
    q, qd, qdd, tau, g = _states(tree, many, seed=len(tree.kinds))
    results = {}
    for label, rows in (("many", slice(None)), ("few", slice(0, _WORLD_STATES)), ("one", None)):
        if rows is None:                                  # one state per call
            results[label] = [np.stack([f(k) for k in range(4)]) for f in (
                lambda k: sb.inverse_dynamics(tree, q[k], qd[k], qdd[k], g),
                lambda k: sb.mass_matrix(tree, q[k]),
                lambda k: sb.forward_dynamics(tree, q[k], qd[k], tau[k], g))]
        else:
            results[label] = [sb.inverse_dynamics(tree, q[rows], qd[rows], qdd[rows], g), sb.mass_matrix(tree, q[rows]),
                              sb.forward_dynamics(tree, q[rows], qd[rows], tau[rows], g)]
    for k in range(4):
        expected = _pinocchio(tree, model, q[k], qd[k], qdd[k], tau[k], g)
        for label in ("one", "few", "many"):
            for ours, theirs in zip(results[label], expected):
                _close(ours[k], theirs)
    for ours, theirs in zip(results["few"], results["many"]):   # every state the two paths share
        _close(ours, theirs[:_WORLD_STATES])
    _close(sb.forward_dynamics(tree, q, qd, tau, g, method="aba"), results["many"][2])
    _close(sb.forward_dynamics(tree, q[:3], qd[:3], tau[:3], g, method="aba"), results["many"][2][:3])


def test_articulated_inertias_in_21_numbers_turn_as_6x6_matrices():
    """The ABA keeps a symmetric 6x6 M as 21 numbers (``_ARTICULATED``): they give M back; the
    joint's turn on them (``_turn_articulated``) is X_J^T M X_J for a turn by q about z; the
    product of a rank-one U U^T / D (``_articulated_outer``) and the constant X_T^T M X_T (the
    tree's ``K``) are those of the 6x6 algebra."""
    from spatialbook._tree_aligned import _ARTICULATED, _ARTICULATED_FULL, _aligned
    from spatialbook._tree_blocks import _Arena
    from spatialbook._tree_kernels import _articulated_outer, _turn_articulated

    rng = np.random.default_rng(21)
    b = 5
    A = rng.normal(size=(b, 6, 6))
    M = A @ np.swapaxes(A, 1, 2)                          # symmetric
    p = np.ascontiguousarray((M.reshape(b, 36) @ _ARTICULATED.T).T)   # (21, b)
    np.testing.assert_allclose((_ARTICULATED_FULL @ p).T.reshape(b, 6, 6), M, atol=1e-12)
    q = rng.uniform(-3, 3, size=b)
    c, s = np.cos(q), np.sin(q)
    X_J = np.zeros((b, 6, 6))                             # motion transform of a turn by q about z
    for k in (0, 3):
        X_J[:, k:k + 3, k:k + 3] = np.stack([np.stack([c, s, 0 * q], -1), np.stack([-s, c, 0 * q], -1),
                                             np.stack([0 * q, 0 * q, 1 + 0 * q], -1)], 1)
    turned = _turn_articulated(p.copy(), c, s, np.cos(2 * q), np.sin(2 * q), _Arena())
    expected = np.swapaxes(X_J, 1, 2) @ M @ X_J
    np.testing.assert_allclose((_ARTICULATED_FULL @ turned).T.reshape(b, 6, 6), expected, atol=1e-12)
    U, D = rng.normal(size=(6, b)), rng.uniform(0.5, 2.0, size=b)
    outer = _articulated_outer(U / D, U, np.empty((21, b)), np.empty((21, b)))
    np.testing.assert_allclose((_ARTICULATED_FULL @ outer).T.reshape(b, 6, 6),
                               np.einsum("ib,jb->bij", U, U) / D[:, None, None], atol=1e-12)
    tree = _aligned(sb.Tree.from_urdf(every_kind_urdf(), floating_base=True))
    T = tree.T[2]
    np.testing.assert_allclose((_ARTICULATED_FULL @ (tree.K[2] @ p)).T.reshape(b, 6, 6), T.T @ M @ T, atol=1e-10)


def _depth_first_tree(rng, n):
    """A random tree numbered depth first (each subtree a run of bodies), with free roots,
    one-dof roots, revolute and prismatic joints, rotated placements and inertias."""
    parents, kinds = [], []
    for i in range(n):
        if i == 0 or rng.random() < 0.15:
            parents.append(-1)                             # a new root
        else:                                              # a body on the path from the last body to its root
            path = [i - 1]
            while parents[path[-1]] >= 0:
                path.append(parents[path[-1]])
            parents.append(int(rng.choice(path)))
        kinds.append("free" if parents[i] < 0 and rng.random() < 0.5 else
                     "prismatic" if rng.random() < 0.25 else "revolute")
    axes, inertias = [], []
    for kind in kinds:
        a = rng.normal(size=3)
        a /= np.linalg.norm(a)
        axes.append(np.zeros(6) if kind == "free" else np.r_[a, 0, 0, 0] if kind == "revolute" else np.r_[0, 0, 0, a])
        moments = np.sort(rng.uniform(0.05, 1.0, size=3))
        moments[2] = min(moments[2], 0.9 * (moments[0] + moments[1]))
        R = sb.rotation_from_quaternion(rng.normal(size=4))
        inertias.append(sb.spatial_inertia(rng.uniform(0.2, 3.0), rng.normal(size=3) * 0.3, R @ np.diag(moments) @ R.T))
    placements = [sb.motion_transform(sb.rotation_from_quaternion(rng.normal(size=4)), rng.normal(size=3))
                  for _ in range(n)]
    return sb.Tree(parents, placements, axes, inertias, kinds=kinds)


@pytest.mark.parametrize("seed", range(40))
def test_mass_matrix_in_base_coordinates_agrees_with_the_carried_wrenches(seed):
    """Many states: ``_crba_base`` (composite pseudo-inertias summed in each subtree's base
    coordinates, nothing carried) gives the H of ``_crba`` (wrenches carried joint by joint),
    itself checked against Pinocchio above, on random depth-first trees of every joint kind; and
    ``mass_matrix`` takes the base path for the humanoid (deep), the carrying one for the
    bifold door (shallow)."""
    import functools

    from spatialbook._tree_aligned import _aligned
    from spatialbook._tree_base import _base_ready, _crba_base
    from spatialbook._tree_blocks import _in_blocks
    from spatialbook.crba import _crba

    rng = np.random.default_rng(seed)
    tree = _aligned(_depth_first_tree(rng, int(rng.integers(1, 12))))
    q = rng.uniform(-3, 3, size=(37, tree.nq))
    for f in [i for i, free in enumerate(tree.free) if free]:
        quat = q[:, tree.iq[f] + 3:tree.iq[f] + 7]
        quat /= np.linalg.norm(quat, axis=1, keepdims=True)
    H_carried = _in_blocks(functools.partial(_crba, tree), (tree.nv, tree.nv), q, block=16, into=True)
    H_base = _in_blocks(functools.partial(_crba_base, tree), (tree.nv, tree.nv), q, block=16, into=True)
    _close(H_base, H_carried)
    assert _base_ready(_aligned(sb.Tree.from_urdf(_bench().humanoid_urdf(), floating_base=True)))
    assert not _base_ready(_aligned(_bench().sb_tree(_bench().bifold_door())))
