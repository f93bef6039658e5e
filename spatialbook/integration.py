"""Moving a tree's configuration through time (book chapter 14).

For one-dof joints the rates are the time derivatives of the positions.  A free joint is
different: its 7 position numbers [p; quat] and its 6 rates, the body twist [omega; v] in body
axes, are not a position and its derivative.  Differentiating the pose (R, p) of a body moving
with the body twist [omega; v] gives R' = R [omega]x and p' = R v; for the unit quaternion of R
this is quat' = 1/2 quat (x) (0, omega) (the quaternion product with the pure quaternion of
omega, on the right because omega is in body axes).

- ``configuration_rate``: dq/dt from (q, qd).
- ``integrate``: the configuration after a time dt at constant qd: q_i + qd_i dt for one-dof
  joints, and for a free joint the exact screw motion of a constant body twist (the SE(3)
  exponential), as Pinocchio's ``integrate(model, q, v * dt)``.
"""

from __future__ import annotations

import numpy as np

from ._checks import as_scalar, batch_shape
from ._kernels import _cross, _skew
from .kinematics import _dof_slices, _quaternion_rotation
from ._tree_checks import _joint_values
from .tree import _check_tree


def _quaternion_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a (x) b for quaternions [w, x, y, z]: (a_w b_w - a.b, a_w b + b_w a + a x b)."""
    aw, av, bw, bv = a[..., :1], a[..., 1:], b[..., :1], b[..., 1:]
    return np.concatenate([aw * bw - np.sum(av * bv, axis=-1, keepdims=True),
                           aw * bv + bw * av + _cross(av, bv)], axis=-1)


def _checked_state(tree, q, qd):
    tree = _check_tree(tree)
    q = _joint_values("q", q, tree.nq, tree)
    qd = _joint_values("qd", qd, tree.nv, tree)
    batch = batch_shape(("q", q, 1), ("qd", qd, 1))
    return tree, np.broadcast_to(q, batch + q.shape[-1:]), np.broadcast_to(qd, batch + qd.shape[-1:])


def configuration_rate(tree, q, qd) -> np.ndarray:
    """dq/dt: the time derivative of the configuration of a tree moving with rates qd.

    A one-dof joint's entry is qd_i.  A free joint [p; quat] moving with the body twist
    [omega; v] (body axes) has p' = R v and quat' = 1/2 quat (x) (0, omega), R the quaternion's
    rotation (body axes -> the joint frame's, the world's for a floating base).

    Parameters
    ----------
    tree : Tree
    q : array_like, shape (..., nq)
    qd : array_like, shape (..., nv)

    Returns
    -------
    ndarray, shape (..., nq)

    Examples
    --------
    A free body turned 90 degrees about z (quaternion [cos 45, 0, 0, sin 45]) moving along its
    own x axis at 1 m/s goes along the world's y; spinning about its own z at 2 rad/s, its
    quaternion turns at 1/2 quat (x) (0, 0, 0, 2).

    >>> import numpy as np, spatialbook as sb
    >>> I = sb.spatial_inertia(1.0, [0, 0, 0], np.eye(3))
    >>> free = sb.Tree([-1], [np.eye(6)], [np.zeros(6)], [I], kinds=["free"])
    >>> c = np.cos(np.pi / 4)
    >>> sb.configuration_rate(free, [0, 0, 0, c, 0, 0, c], [0, 0, 2.0, 1.0, 0, 0]).round(6) + 0.0
    array([ 0.      ,  1.      ,  0.      , -0.707107,  0.      ,  0.      ,
            0.707107])
    """
    tree, q, qd = _checked_state(tree, q, qd)
    q_at, v_at = _dof_slices(tree)
    rate = np.empty(q.shape)
    for kind, qs, vs in zip(tree.kinds, q_at, v_at):
        if kind != "free":
            rate[..., qs] = qd[..., vs]
            continue
        quat, omega, v = q[..., qs][..., 3:], qd[..., vs][..., :3], qd[..., vs][..., 3:]
        rate[..., qs.start:qs.start + 3] = (_quaternion_rotation(quat) @ v[..., None])[..., 0]
        pure = np.concatenate([np.zeros(omega.shape[:-1] + (1,)), omega], axis=-1)
        rate[..., qs.start + 3:qs.stop] = 0.5 * _quaternion_product(quat, pure)
    return rate


def _exp_coefficients(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """sin(t)/t, (1 - cos t)/t^2, (t - sin t)/t^3 and sin(t/2)/t, with their series near t = 0."""
    small = theta < 1e-4
    t = np.where(small, 1.0, theta)
    t2 = theta * theta
    a = np.where(small, 1.0 - t2 / 6.0, np.sin(t) / t)
    b = np.where(small, 0.5 - t2 / 24.0, (1.0 - np.cos(t)) / t ** 2)
    c = np.where(small, 1.0 / 6.0 - t2 / 120.0, (t - np.sin(t)) / t ** 3)
    h = np.where(small, 0.5 - t2 / 48.0, np.sin(t / 2.0) / t)
    return a, b, c, h


def integrate(tree, q, qd, dt) -> np.ndarray:
    """The configuration reached from q by moving with constant rates qd for dt seconds.

    One-dof joints: q_i + qd_i dt.  A free joint moves by the exact screw motion of its constant
    body twist xi = [omega; v] dt (the SE(3) exponential, in body axes): with theta = norm(omega dt)
    and W = [omega dt]x,

        R_new = R exp(W),            exp(W) = E + sin(theta)/theta W + (1 - cos theta)/theta^2 W^2
        p_new = p + R V v dt,        V      = E + (1 - cos theta)/theta^2 W + (theta - sin theta)/theta^3 W^2
        quat_new = quat (x) [cos(theta/2); sin(theta/2)/theta omega dt]

    (renormalised), as Pinocchio's ``integrate(model, q, v * dt)`` for a free flyer.  A step of a
    simulation is then ``integrate(tree, q, qd_new, dt)`` after ``qd_new = qd + qdd dt``
    (semi-implicit Euler).

    Parameters
    ----------
    tree : Tree
    q : array_like, shape (..., nq)
    qd : array_like, shape (..., nv)
    dt : float or array_like, shape (...)
        Seconds (any sign); an array batches with q and qd.

    Returns
    -------
    ndarray, shape (..., nq)

    Examples
    --------
    A free body spinning about its own z at pi/2 rad/s while moving along its own x at 1 m/s
    for one second: a quarter turn, along a quarter circle of radius 2/pi (the screw motion).

    >>> import numpy as np, spatialbook as sb
    >>> I = sb.spatial_inertia(1.0, [0, 0, 0], np.eye(3))
    >>> free = sb.Tree([-1], [np.eye(6)], [np.zeros(6)], [I], kinds=["free"])
    >>> q1 = sb.integrate(free, [0, 0, 0, 1, 0, 0, 0], [0, 0, np.pi / 2, 1.0, 0, 0], 1.0)
    >>> q1[:3].round(6) + 0.0, q1[3:].round(6) + 0.0
    (array([0.63662, 0.63662, 0.     ]), array([0.707107, 0.      , 0.      , 0.707107]))
    """
    tree, q, qd = _checked_state(tree, q, qd)
    dt = as_scalar("dt", dt)
    batch = batch_shape(("q", q, 1), ("dt", dt, 0))
    q = np.broadcast_to(q, batch + q.shape[-1:])
    qd = np.broadcast_to(qd, batch + qd.shape[-1:])
    dt = np.broadcast_to(dt, batch)
    q_at, v_at = _dof_slices(tree)
    out = np.array(q, dtype=float)
    for kind, qs, vs in zip(tree.kinds, q_at, v_at):
        if kind != "free":
            out[..., qs] = q[..., qs] + qd[..., vs] * dt[..., None]
            continue
        p, quat = q[..., qs][..., :3], q[..., qs][..., 3:]
        w = qd[..., vs][..., :3] * dt[..., None]                  # omega dt, body axes
        u = qd[..., vs][..., 3:] * dt[..., None]                  # v dt, body axes
        theta = np.linalg.norm(w, axis=-1)
        _, b, c, h = _exp_coefficients(theta)
        W = _skew(w)
        V = np.eye(3) + b[..., None, None] * W + c[..., None, None] * (W @ W)
        out[..., qs.start:qs.start + 3] = p + (_quaternion_rotation(quat) @ (V @ u[..., None]))[..., 0]
        step = np.concatenate([np.cos(theta / 2.0)[..., None], h[..., None] * w], axis=-1)
        new = _quaternion_product(quat, step)
        out[..., qs.start + 3:qs.stop] = new / np.linalg.norm(new, axis=-1, keepdims=True)
    return out
