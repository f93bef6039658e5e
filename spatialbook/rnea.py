"""Inverse dynamics of a kinematic tree: the recursive Newton-Euler algorithm (book chapter 11).

Outward from the base (V = 0, A = -[0; g]: gravity as a fictitious upward acceleration of the
base, chapter 8), in each body's coordinates, V_i = X_i V_p + S_i qd_i and
A_i = X_i A_p + S_i qdd_i + (V_i x S_i) qd_i; F_i = I_i A_i + V_i x* I_i V_i.  Inward,
tau_i = S_i^T F_i and F_p += X_i^T F_i (X_i^T is the force transform from body i back to its
parent).  A free body has A_i = qdd_i + X_i [0; -g] (only its orientation enters, through
gravity) and tau_i = F_i.
"""

from __future__ import annotations

import functools

import numpy as np

from ._tree_aligned import _Aligned, _aligned
from ._tree_blocks import _Arena, _in_blocks, _rnea_block
from ._tree_kernels import _add_velocity_product, _crf, _force_back, _gravity_in_body, _matmul, _motion, _transforms
from ._tree_world import _WORLD_STATES, _rnea_world
from ._tree_checks import _broadcast, _G, _gravity, _joint_values, _rows
from ._checks import _finite_result
from .tree import _check_tree


def _rnea(tree: _Aligned, q, qd, qdd, g, arena: _Arena) -> np.ndarray:
    """tau (nv, b) from q (nq, b), qd, qdd (nv, b) and g (3, b), in aligned body coordinates."""
    parents, row, free, iq, iv = tree.parents, tree.row, tree.free, tree.iq, tree.iv
    n, b = len(parents), q.shape[1]
    X = _transforms(tree, q, arena)
    VA, F = arena("VA", n + 1, 6, 2, b), arena("F", n, 6, b)   # VA[i] = [V_i, A_i]; VA[n]: base
    VA[n] = 0.0                                          # the base at rest,
    np.negative(g, out=VA[n, 3:, 1])                     # accelerating at -g
    IVA, crf = arena("IVA", 6, 2, b), arena("crf", 6, b)
    for i in range(n):                                   # outward
        V_i, A_i = VA[i, :, 0], VA[i, :, 1]
        if free[i]:                                      # V_i = qd, A_i = qdd + X_i [0; -g]
            V_i[...] = qd[iv[i]:iv[i] + 6]
            A_i[...] = qdd[iv[i]:iv[i] + 6]
            A_i[3:] -= _gravity_in_body(tree.T[i], q[iq[i] + 3:iq[i] + 7], g, arena("grav", 3, b), arena)
        else:
            _motion(X[i], VA[parents[i]], VA[i], arena)  # [X_i V_p, X_i A_p]  (VA[-1] is the base)
            k = iv[i]
            V_i[row[i]] += qd[k]                         # V_i = X_i V_p + S_i qd_i
            A_i[row[i]] += qdd[k]                        # A_i = X_i A_p + S_i qdd_i + (V_i x S_i) qd_i
            _add_velocity_product(A_i, V_i, row[i], qd[k], arena)
        _matmul(tree.I[i], VA[i], IVA)                   # [I_i V_i, I_i A_i]
        np.add(IVA[:, 1], _crf(V_i, IVA[:, 0], crf, arena), out=F[i])   # F_i = I_i A_i + V_i x* I_i V_i
    tau, back = arena("tau", tree.nv, b), arena("back", 6, b)
    for i in reversed(range(n)):                         # inward
        if free[i]:
            tau[iv[i]:iv[i] + 6] = F[i]                  # tau = S^T F_i with S = E
            continue
        tau[iv[i]] = F[i, row[i]]                        # tau_i = S_i^T F_i
        if parents[i] >= 0:
            F[parents[i]] += _force_back(X[i], F[i], back, arena)   # F_p += X_i^T F_i
    return tau


def inverse_dynamics(tree, q, qd, qdd, gravity=_G) -> np.ndarray:
    """Joint forces tau that produce joint accelerations qdd at (q, qd): the RNEA.

    Outward from the base (V = 0, A = -[0; g]) in each body's coordinates::

        X_i = X_J(q_i) X_T,i
        V_i = X_i V_p + S_i qd_i
        A_i = X_i A_p + S_i qdd_i + (V_i x S_i) qd_i
        F_i = I_i A_i + V_i x* (I_i V_i)

    then inward, leaves first: tau_i = S_i^T F_i and F_p += X_i^T F_i.  F_i is the wrench that
    joint i transmits to body i (its share along S_i is tau_i; the rest is the bearing's
    constraint wrench), referred to body i's origin in body i's axes.

    Parameters
    ----------
    tree : Tree
    q, qd, qdd : array_like, shape (..., n)
        Joint positions (rad or m), rates (rad/s or m/s), accelerations (rad/s^2 or m/s^2).
        Leading axes batch and broadcast against each other.
    gravity : array_like, shape (3,) or (..., 3)
        Acceleration of gravity in base coordinates, m/s^2; default (0, 0, -9.81).

    Returns
    -------
    ndarray, shape (..., n)
        tau_i in N m (revolute) or N (prismatic).

    Examples
    --------
    The door of chapter 8 (hinge along z): omega = 2 rad/s, alpha = 3 rad/s^2 needs 1.28 N m,
    with or without gravity along its vertical hinge.

    >>> import numpy as np, spatialbook as sb
    >>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    >>> door = sb.Tree([-1], [np.eye(6)], [[0, 0, 1, 0, 0, 0]], [I_O])
    >>> sb.inverse_dynamics(door, [0.0], [2.0], [3.0]).round(12)
    array([1.28])
    >>> sb.inverse_dynamics(door, [[0.0], [1.0]], [2.0], [3.0], gravity=[0, 0, 0]).round(12)
    array([[1.28],
           [1.28]])

    The bifold door: a second leaf hinged at the first one's free edge (0.8 m out along x).
    Turning both rigidly together (qd_2 = qdd_2 = 0, leaves in line) takes tau_1 = H_11 alpha,
    and the second hinge must hold its leaf with tau_2 = H_21 alpha:

    >>> X_T2 = sb.motion_transform(np.eye(3), [sb.DOOR["width"], 0, 0])
    >>> bifold = sb.Tree([-1, 0], [np.eye(6), X_T2], [[0, 0, 1, 0, 0, 0]] * 2, [I_O, I_O])
    >>> sb.inverse_dynamics(bifold, [0.0, 0.0], [2.0, 0.0], [3.0, 0.0]).round(12)
    array([10.24,  3.2 ])
    """
    tree = _check_tree(tree)
    nq, nv = tree.nq, tree.nv
    q = _joint_values("q", q, nq, tree)
    qd, qdd = (_joint_values(name, v, nv, tree) for name, v in (("qd", qd), ("qdd", qdd)))
    g = _gravity(gravity)
    q, qd, qdd, g = _broadcast(("q", q, 1), ("qd", qd, 1), ("qdd", qdd, 1), ("gravity", g, 1))
    rows = _rows(q, qd, qdd, g)
    aligned = _aligned(tree)
    if rows[0].shape[0] == 0:                          # an empty batch: an empty answer
        return np.zeros(qd.shape)
    if rows[0].shape[0] <= _WORLD_STATES:
        tau = _rnea_world(aligned, *rows)
    else:
        tau = _in_blocks(functools.partial(_rnea, aligned), (nv,), *rows, block=_rnea_block(aligned))
    return _finite_result(tau, "tree, q, qd, qdd, gravity").reshape(qd.shape)
