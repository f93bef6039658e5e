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
- ``rk4_step``: one fourth-order Runge-Kutta step of the motion q' = configuration_rate(q, qd),
  qd' = acceleration(t, q, qd), with each stage's configuration reached by ``integrate`` from
  the step's start (Munthe-Kaas's RKMK4), so a free joint's quaternion stays unit.
"""

from __future__ import annotations

import inspect

import numpy as np

from ._checks import as_array, as_scalar, batch_shape
from ._kernels import _cross, _skew
from .kinematics import _dof_slices, _quaternion_rotation
from ._tree_checks import _joint_state
from .tree import _check_tree


def _quaternion_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a (x) b for quaternions [w, x, y, z]: (a_w b_w - a.b, a_w b + b_w a + a x b)."""
    aw, av, bw, bv = a[..., :1], a[..., 1:], b[..., :1], b[..., 1:]
    return np.concatenate([aw * bw - np.sum(av * bv, axis=-1, keepdims=True),
                           aw * bv + bw * av + _cross(av, bv)], axis=-1)


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
    tree = _check_tree(tree)
    q, qd = _joint_state(tree, q, qd)
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
    tree = _check_tree(tree)
    q, qd = _joint_state(tree, q, qd)
    dt = as_scalar("dt", dt)
    batch = batch_shape(("q", q, 1), ("qd", qd, 1), ("dt", dt, 0))
    _check_step(qd, dt)
    return _integrate(tree, np.broadcast_to(q, batch + q.shape[-1:]), np.broadcast_to(qd, batch + qd.shape[-1:]),
                      np.broadcast_to(dt, batch))


#: the largest |qd_i dt| a step takes: the squares of a turn's angle must not overflow
_MAX_STEP = 1e150


def _check_step(qd: np.ndarray, h: np.ndarray) -> None:
    """A step with |qd_i dt| at most 1e150 (then a turn's angle squared stays finite), else a
    ValueError naming qd and dt (q came back all NaN from 1e154)."""
    with np.errstate(over="ignore", invalid="ignore"):
        worst = np.max(np.abs(qd * np.asarray(h)[..., None]), initial=0.0)
    if not worst <= _MAX_STEP:
        raise ValueError(f"qd, dt: expected a step with every |qd_i dt| at most {_MAX_STEP:g}, got {worst:.3g}")


def _check_finite(q: np.ndarray, qd: np.ndarray) -> None:
    """An RK4 step whose stages grew past what a step can take (a huge acceleration times dt)
    overflows to inf or NaN: a ValueError naming qd and dt rather than that result."""
    if not (np.all(np.isfinite(q)) and np.all(np.isfinite(qd))):
        raise ValueError("qd, dt: expected a step that stays finite, got one so large (|qd dt|) that "
                         "the new configuration overflows")


_ENTRIES: dict = {}


def _entries(tree) -> tuple[np.ndarray, np.ndarray, tuple]:
    """The q and qd entries of all one-dof joints (two index arrays) and each free joint's
    (q slice, qd slice), per tree (cached by identity: a Tree never changes)."""
    hit = _ENTRIES.get(id(tree))
    if hit is not None and hit[0] is tree:
        return hit[1]
    q_at, v_at = _dof_slices(tree)
    one = [k for k, kind in enumerate(tree.kinds) if kind != "free"]
    out = (np.array([q_at[k].start for k in one], dtype=int), np.array([v_at[k].start for k in one], dtype=int),
           tuple((q_at[k], v_at[k]) for k, kind in enumerate(tree.kinds) if kind == "free"))
    if len(_ENTRIES) > 64:
        _ENTRIES.clear()
    _ENTRIES[id(tree)] = (tree, out)
    return out


def _integrate(tree, q: np.ndarray, qd: np.ndarray, dt: np.ndarray) -> np.ndarray:
    """integrate on checked input of one batch shape: q (..., nq), qd (..., nv), dt (...)."""
    one_q, one_v, free = _entries(tree)
    out = np.array(q, dtype=float)
    out[..., one_q] = q[..., one_q] + qd[..., one_v] * dt[..., None]      # every one-dof joint at once
    for qs, vs in free:
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


def _bracket(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """[a, b] = a x b, the motion cross product of twists [omega; v] (se(3)'s Lie bracket)."""
    return np.concatenate([_cross(a[..., :3], b[..., :3]),
                           _cross(a[..., :3], b[..., 3:]) + _cross(a[..., 3:], b[..., :3])], axis=-1)


def _local_rate(tree, theta: np.ndarray, qd: np.ndarray) -> np.ndarray:
    """The rate of the local coordinate theta (nv numbers) at which q moved by theta moves with
    the rates qd: for each free joint xi + [theta, xi]/2 + [theta, [theta, xi]]/12 (the inverse
    of the exponential's derivative to the order a fourth-order step needs), xi its twist in
    qd and theta its block of theta; one-dof joints' rates unchanged."""
    out = np.array(qd, dtype=float)
    for _, vs in _entries(tree)[2]:
        th, xi = theta[..., vs], qd[..., vs]
        c = _bracket(th, xi)
        out[..., vs] = xi + 0.5 * c + _bracket(th, c) / 12.0
    return out


def _stage_acceleration(acceleration, t, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
    """acceleration(t, q, qd), checked: real, finite, shape (..., nv) broadcasting to qd's."""
    out = as_array("acceleration", acceleration(t, q.copy(), qd.copy()), qd.shape[-1:])   # copies: the
    # function may change its arguments in place without changing the step's own stages
    try:
        return np.broadcast_to(out, qd.shape)
    except ValueError:
        raise ValueError(f"acceleration: expected the function to return qdd of shape {qd.shape} (the batch of "
                         f"q and qd), got shape {out.shape}") from None


def _takes_three(f) -> bool:
    """Whether ``f`` can be called as f(t, q, qd) (True when its signature cannot be read)."""
    try:
        inspect.signature(f).bind(0.0, None, None)
    except TypeError:
        return False
    except ValueError:                    # a builtin without a readable signature
        return True
    return True


def rk4_step(tree, q, qd, acceleration, dt, t=0.0) -> tuple[np.ndarray, np.ndarray]:
    """One fourth-order Runge-Kutta step of a tree's motion: (q, qd) at time t -> at t + dt.

    The motion is q' = configuration_rate(tree, q, qd) and qd' = acceleration(t, q, qd)
    (typically ``forward_dynamics`` with the joint forces of the moment).  Adding stage rates to
    q, as classical RK4 does, would take a free joint's quaternion off the unit sphere and add
    twists measured in different body axes.  Instead every stage configuration is the step's
    start q moved by a local coordinate theta (nv numbers), q (+) theta = integrate(tree, q,
    theta, 1): for a free joint q exp(theta), theta a twist times seconds in the body axes at q.
    Classical RK4 is applied to theta and qd (Munthe-Kaas's RKMK4); with f = acceleration:

        q1 = q,                  v1 = qd,               a1 = f(t, q1, v1),          k1 = v1
        q2 = q (+) dt/2 k1,      v2 = qd + dt/2 a1,     a2 = f(t + dt/2, q2, v2),   k2 = L(dt/2 k1, v2)
        q3 = q (+) dt/2 k2,      v3 = qd + dt/2 a2,     a3 = f(t + dt/2, q3, v3),   k3 = L(dt/2 k2, v3)
        q4 = q (+) dt k3,        v4 = qd + dt a3,       a4 = f(t + dt, q4, v4),     k4 = L(dt k3, v4)
        q_new  = q (+) dt (k1 + 2 k2 + 2 k3 + k4) / 6,  qd_new = qd + dt (a1 + 2 a2 + 2 a3 + a4) / 6

    L(theta, v) is the rate of theta at which q (+) theta moves with the rates v.  For a one-dof
    joint it is v itself (so those joints get classical RK4).  For a free joint with body twist
    xi (its six entries of v, body axes at q (+) theta), differentiating q exp(theta(t)) gives
    xi = theta' - [theta, theta']/2 + [theta, [theta, theta']]/6 - ..., whose inverse is::

        L(theta, xi) = xi + [theta, xi]/2 + [theta, [theta, xi]]/12 + O(|theta|^4 |xi|),

    [a, b] = a x b the motion cross product [[omega_a]x, 0; [v_a]x, [omega_a]x] b (chapter 8).
    Kept to this order the step's error is O(dt^5) (Munthe-Kaas 1999), fourth order over a fixed
    time as for RK4 on a vector space.  With zero acceleration the step is exact: every theta
    is parallel to xi, the brackets vanish and q_new = integrate(tree, q, qd, dt).

    Parameters
    ----------
    tree : Tree
    q : array_like, shape (..., nq)
        m and unit quaternions [w, x, y, z] for free joints, rad or m for one-dof joints.
    qd : array_like, shape (..., nv)
        rad/s or m/s; a free joint's body twist [omega; v] in its body axes.
    acceleration : callable
        ``acceleration(t, q, qd) -> qdd``, called four times with fresh arrays q (..., nq) and
        qd (..., nv) of the batch's shape and t + c dt (s; c = 0, 1/2, 1/2, 1: a float when t
        and dt are single numbers, else an array of shape (...)).  Must return real finite
        qdd of shape (..., nv) (rad/s^2, m/s^2; a free joint's the derivative of its body
        twist, as ``forward_dynamics`` returns).
    dt : float or array_like, shape (...)
        The step in seconds (any sign); an array batches with q and qd.
    t : float or array_like, shape (...), optional
        The time at the start of the step (s), handed to ``acceleration``.

    Returns
    -------
    q_new : ndarray, shape (..., nq)
        Each free joint's quaternion unit.
    qd_new : ndarray, shape (..., nv)

    Examples
    --------
    A free body dropped from rest: its origin falls g dt^2 / 2 and it gains the speed g dt, as
    RK4 gives exactly for a constant acceleration (and the body does not turn).

    >>> import numpy as np, spatialbook as sb
    >>> I = sb.spatial_inertia(1.0, [0, 0, 0], np.eye(3))
    >>> free = sb.Tree([-1], [np.eye(6)], [np.zeros(6)], [I], kinds=["free"])
    >>> def falling(t, q, qd):
    ...     return sb.forward_dynamics(free, q, qd, np.zeros(6), gravity=[0, 0, -9.81])
    >>> q1, qd1 = sb.rk4_step(free, [0, 0, 0, 1, 0, 0, 0], np.zeros(6), falling, 0.5)
    >>> q1.round(6) + 0.0
    array([ 0.     ,  0.     , -1.22625,  1.     ,  0.     ,  0.     ,  0.     ])
    >>> qd1.round(6) + 0.0
    array([ 0.   ,  0.   ,  0.   ,  0.   ,  0.   , -4.905])
    """
    tree = _check_tree(tree)
    q, qd = _joint_state(tree, q, qd)
    if not callable(acceleration) or not _takes_three(acceleration):
        raise ValueError(f"acceleration: expected a function acceleration(t, q, qd) returning qdd of shape (..., nv), "
                         f"got {acceleration!r:.60}")
    dt = as_scalar("dt", dt)
    t = as_scalar("t", t)
    batch = batch_shape(("q", q, 1), ("qd", qd, 1), ("dt", dt, 0), ("t", t, 0))
    q = np.broadcast_to(q, batch + q.shape[-1:])
    qd = np.broadcast_to(qd, batch + qd.shape[-1:])
    h = np.broadcast_to(dt, batch)
    _check_step(qd, h)

    def time(c: float):
        s = t + c * dt
        return float(s) if s.ndim == 0 else np.broadcast_to(s, batch)

    def f(c: float, theta: np.ndarray, v: np.ndarray) -> np.ndarray:
        return _stage_acceleration(acceleration, time(c), _integrate(tree, q, theta, np.ones(batch)), v)

    hh = h[..., None]
    a1 = _stage_acceleration(acceleration, time(0.0), q, qd)
    k1 = qd
    v2 = qd + 0.5 * hh * a1
    a2 = f(0.5, 0.5 * hh * k1, v2)
    k2 = _local_rate(tree, 0.5 * hh * k1, v2)
    v3 = qd + 0.5 * hh * a2
    a3 = f(0.5, 0.5 * hh * k2, v3)
    k3 = _local_rate(tree, 0.5 * hh * k2, v3)
    v4 = qd + hh * a3
    a4 = f(1.0, hh * k3, v4)
    k4 = _local_rate(tree, hh * k3, v4)
    with np.errstate(over="ignore", invalid="ignore"):
        q_new = _integrate(tree, q, (k1 + 2.0 * k2 + 2.0 * k3 + k4) / 6.0, h)
        qd_new = qd + hh * (a1 + 2.0 * a2 + 2.0 * a3 + a4) / 6.0
    _check_finite(q_new, qd_new)
    return q_new, qd_new
