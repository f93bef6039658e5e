"""A tree's state (q, qd) and the engines' states: MuJoCo's (qpos, qvel) and Pinocchio's (q, v).

The ``Tree`` methods ``mujoco_state``, ``state_from_mujoco``, ``pinocchio_state`` and
``state_from_pinocchio`` call these (``tree`` is the Tree itself).  Conventions of the free
joint: the Tree's qd = [omega; v] in body axes; MuJoCo's qvel = [v in world axes; omega in body
axes]; Pinocchio's v = [v; omega] in body axes, its quaternion [x, y, z, w].
"""

from __future__ import annotations

import numpy as np

from ._checks import batch_shape
from ._loading import _placement, _quat_mul, _quat_of, _rotation
from ._tree_checks import _ROTATION_TOL, _joint_values, _unit_quaternions


def mujoco_state(tree, q, qd=None):
    """MuJoCo's (qpos, qvel) of the tree's state (q, qd); qvel is None if qd is None.

    One-dof joints: qpos = q + offsets (MuJoCo's qpos0), qvel = qd.  A free joint: qpos =
    [x; quat] with x the body origin and quat = [w, x, y, z] its orientation in the world (the
    placement X_T composed with q's pose); qvel = [R v; omega]: the origin's velocity in WORLD
    axes, then the angular velocity in BODY axes (R: body -> world axes).  Batched over leading axes.

    >>> import numpy as np, spatialbook as sb
    >>> I = sb.spatial_inertia(1.0, [0, 0, 0], np.eye(3))
    >>> box = sb.Tree([-1], [np.eye(6)], [np.zeros(6)], [I], kinds=["free"])
    >>> half = np.pi / 4                                   # turned 90 degrees about z
    >>> qpos, qvel = box.mujoco_state([0, 0, 1, np.cos(half), 0, 0, np.sin(half)], [0, 0, 0, 1, 0, 0])
    >>> qvel.round(12) + 0.0                               # body x is world y
    array([0., 1., 0., 0., 0., 0.])
    """
    q, qd = _state_pair("q", _joint_values("q", q, tree.nq, tree),
                        "qd", None if qd is None else _joint_values("qd", qd, tree.nv, tree))
    qpos, qvel = q.copy(), None if qd is None else qd.copy()
    k = v = 0
    for i, kind in enumerate(tree.kinds):
        if kind != "free":
            qpos[..., k] += tree.offsets[i]
            k, v = k + 1, v + 1
            continue
        R_T, d_T = _placement(tree.placements[i])
        qpos[..., k:k + 3] = d_T + q[..., k:k + 3] @ R_T.T
        qpos[..., k + 3:k + 7] = _quat_mul(_quat_of(R_T), q[..., k + 3:k + 7])
        if qd is not None:
            R = _rotation(qpos[..., k + 3:k + 7])
            qvel[..., v:v + 3] = np.einsum("...ij,...j->...i", R, qd[..., v + 3:v + 6])
            qvel[..., v + 3:v + 6] = qd[..., v:v + 3]
        k, v = k + 7, v + 6
    return qpos, qvel


def state_from_mujoco(tree, qpos, qvel=None):
    """The tree's (q, qd) from MuJoCo's (qpos, qvel): the inverse of :func:`mujoco_state`.

    A free joint's quaternion is normalised first, as MuJoCo's kinematics does (a zero one is
    refused), so rounded keyframes are read as MuJoCo reads them.

    >>> import numpy as np, spatialbook as sb
    >>> I = sb.spatial_inertia(1.0, [0, 0, 0], np.eye(3))
    >>> box = sb.Tree([-1], [np.eye(6)], [np.zeros(6)], [I], kinds=["free"])
    >>> q, qd = box.state_from_mujoco([0, 0, 1, 1, 0, 0, 0], [1, 2, 3, 0, 0, 0.5])
    >>> qd                                                 # angular first, body axes
    array([0. , 0. , 0.5, 1. , 2. , 3. ])
    """
    qpos, qvel = _state_pair("qpos", _joint_values("qpos", qpos, tree.nq, None),
                             "qvel", None if qvel is None else _joint_values("qvel", qvel, tree.nv, None))
    qpos = _unit_quaternions(tree, qpos, "qpos", unit=False)   # as MuJoCo's kinematics reads it
    q, qd = qpos.copy(), None if qvel is None else qvel.copy()
    k = v = 0
    for i, kind in enumerate(tree.kinds):
        if kind != "free":
            q[..., k] -= tree.offsets[i]
            k, v = k + 1, v + 1
            continue
        R_T, d_T = _placement(tree.placements[i])
        q[..., k:k + 3] = (qpos[..., k:k + 3] - d_T) @ R_T
        conj = _quat_of(R_T) * [1, -1, -1, -1]
        q[..., k + 3:k + 7] = _quat_mul(conj, qpos[..., k + 3:k + 7])
        if qvel is not None:
            R = _rotation(qpos[..., k + 3:k + 7])
            qd[..., v:v + 3] = qvel[..., v + 3:v + 6]
            qd[..., v + 3:v + 6] = np.einsum("...ji,...j->...i", R, qvel[..., v:v + 3])
        k, v = k + 7, v + 6
    return q, qd


def _state_pair(q_name: str, q: np.ndarray, v_name: str, v):
    """Positions and velocities (v may be None) broadcast to their common batch shape; batches
    that do not broadcast are refused naming both (a state is one q with its one qd)."""
    if v is None:
        return q, None
    shape = batch_shape((q_name, q, 1), (v_name, v, 1))
    return (np.broadcast_to(q, shape + q.shape[-1:]).copy(),
            np.broadcast_to(v, shape + v.shape[-1:]).copy())


def _pinocchio_nq(tree) -> int:
    return sum({"free": 7, "continuous": 2}.get(k, 1) for k in tree.kinds)


def pinocchio_state(tree, q, qd=None):
    """Pinocchio's (q, v) of the tree's state (q, qd); v is None if qd is None.

    Joints in the tree's order (``from_urdf`` numbers them as Pinocchio does).  A continuous
    joint's q is [cos q_i, sin q_i]; a free joint's q is [x; quat] with quat = [x, y, z, w]
    and its v is [v; omega], linear first, both in body axes.  Offsets are not applied.

    >>> import numpy as np, spatialbook as sb
    >>> I = sb.spatial_inertia(1.0, [0, 0, 0], np.eye(3))
    >>> box = sb.Tree([-1], [np.eye(6)], [np.zeros(6)], [I], kinds=["free"])
    >>> q, v = box.pinocchio_state([0, 0, 1, 1, 0, 0, 0], [0, 0, 0.5, 1, 2, 3])
    >>> q, v
    (array([0., 0., 1., 0., 0., 0., 1.]), array([1. , 2. , 3. , 0. , 0. , 0.5]))
    """
    q, qd = _state_pair("q", _joint_values("q", q, tree.nq, tree),
                        "qd", None if qd is None else _joint_values("qd", qd, tree.nv, tree))
    out, vout = [], None if qd is None else qd.copy()
    k = v = 0
    for kind in tree.kinds:
        if kind == "free":
            out += [q[..., k:k + 3], q[..., k + 4:k + 7], q[..., k + 3:k + 4]]
            if qd is not None:
                vout[..., v:v + 3], vout[..., v + 3:v + 6] = qd[..., v + 3:v + 6], qd[..., v:v + 3]
            k, v = k + 7, v + 6
        elif kind == "continuous":
            out += [np.cos(q[..., k:k + 1]), np.sin(q[..., k:k + 1])]
            k, v = k + 1, v + 1
        else:
            out.append(q[..., k:k + 1])
            k, v = k + 1, v + 1
    return np.concatenate(out, axis=-1), vout


def state_from_pinocchio(tree, q, v=None):
    """The tree's (q, qd) from Pinocchio's (q, v): the inverse of :func:`pinocchio_state`.

    >>> import numpy as np, spatialbook as sb
    >>> I = sb.spatial_inertia(1.0, [0, 0, 0], np.eye(3))
    >>> box = sb.Tree([-1], [np.eye(6)], [np.zeros(6)], [I], kinds=["free"])
    >>> q, qd = box.state_from_pinocchio([0, 0, 1, 0, 0, 0, 1], [1, 2, 3, 0, 0, 0.5])
    >>> q, qd
    (array([0., 0., 1., 1., 0., 0., 0.]), array([0. , 0. , 0.5, 1. , 2. , 3. ]))
    """
    nq = _pinocchio_nq(tree)
    try:
        qp = _joint_values("q", q, nq, None)
    except ValueError as err:                 # Pinocchio's layout, not one entry per joint
        raise ValueError(str(err).replace("one entry per joint of the tree", "Pinocchio's layout: "
                         "7 per free joint [p; x, y, z, w], 2 per continuous joint (cos, sin), "
                         "1 per other joint")) from None
    qp, vv = _state_pair("q", qp, "v", None if v is None else _joint_values("v", v, tree.nv, None))
    out, qd = [], None if vv is None else vv.copy()
    k = j = 0
    for i, kind in enumerate(tree.kinds):
        if kind == "free":
            out += [qp[..., k:k + 3], qp[..., k + 6:k + 7], qp[..., k + 3:k + 6]]
            if vv is not None:
                qd[..., j:j + 3], qd[..., j + 3:j + 6] = vv[..., j + 3:j + 6], vv[..., j:j + 3]
            k, j = k + 7, j + 6
        elif kind == "continuous":           # a unit (cos, sin) pair, as quaternions are unit
            norm = np.hypot(qp[..., k], qp[..., k + 1])
            if np.any(np.abs(norm - 1.0) > _ROTATION_TOL):
                worst = float(norm.reshape(-1)[np.argmax(np.abs(norm - 1.0).reshape(-1))])
                raise ValueError(f"q: expected a unit (cos, sin) pair in q[..., {k}:{k + 2}] (continuous "
                                 f"joint {tree.joint_names[i]!r}), got |(cos, sin)| = {worst:.9g}")
            out.append(np.arctan2(qp[..., k + 1:k + 2], qp[..., k:k + 1]))
            k, j = k + 2, j + 1
        else:
            out.append(qp[..., k:k + 1])
            k, j = k + 1, j + 1
    q_tree = np.concatenate(out, axis=-1)
    try:
        q_tree = _unit_quaternions(tree, q_tree)
    except ValueError as err:
        raise ValueError(str(err).replace("[w, x, y, z]", "[x, y, z, w]")) from None
    return q_tree, qd
