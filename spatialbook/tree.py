"""Kinematic trees: inverse dynamics, the mass matrix and forward dynamics (book chapter 11).

A tree has n bodies numbered 0..n-1, each attached to its parent by one joint with one degree
of freedom; ``parents[i] < i`` and -1 is the fixed base.  Body i's coordinates are those of a
frame fixed in body i; "X_i" is the motion transform from the PARENT's coordinates to body i's
(conventions: ``spatialbook.__doc__``):

    X_i = X_J(q_i) X_T,i

- ``X_T,i`` (``placements[i]``): parent coordinates -> joint i's frame at q_i = 0, built as
  ``motion_transform(R, d)`` with R mapping joint-frame components to parent-frame components
  and d the joint frame's origin in parent coordinates (m).
- ``X_J(q_i)``: joint frame -> body i.  A revolute joint with axis S_i = [n; 0] turns body i's
  axes by q_i (rad) about n, so X_J = motion_transform(Rot(n, q_i), 0); a prismatic joint with
  S_i = [0; n] moves the origin by n q_i (m), so X_J = motion_transform(E, n q_i).  Either way
  S_i has the same components in the joint frame and in body i, and V_J = S_i qd_i.

The three algorithms, each a loop over the n bodies (never over the batch):

- ``inverse_dynamics``: the recursive Newton–Euler algorithm (RNEA).  Outward,
  V_i = X_i V_p + S_i qd_i and A_i = X_i A_p + S_i qdd_i + (V_i x S_i) qd_i, with the base at
  V = 0 and A = -[0; g] (gravity as a fictitious upward acceleration of the base, book
  chapter 8); F_i = I_i A_i + V_i x* I_i V_i.  Inward, tau_i = S_i^T F_i and
  F_p += X_i^T F_i (X_i^T is the force transform from body i back to its parent).
- ``mass_matrix``: the composite-rigid-body algorithm (CRBA).  Composite inertias
  I^c_p += X_i^T I^c_i X_i (the congruence of chapter 6), then H_ii = S_i^T I^c_i S_i and, along
  the path to the root, H_ji = H_ij = S_j^T (X^T ... I^c_i S_i).
- ``forward_dynamics``: H qdd = tau - C, where C = inverse_dynamics(q, qd, 0).

Units: q_i in rad (revolute) or m (prismatic), tau_i in N m or N, lengths m, masses kg.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._checks import STRUCTURE_TOL, as_array, as_spatial_inertia, batch_shape
from ._kernels import _cross, _skew

_G = (0.0, 0.0, -9.81)
_ROTATION_TOL = 1e-6          # as for every rotation the package accepts
_UNIT_TOL = 1e-9              # |n| = 1 for a joint axis


class _TreeFields(NamedTuple):
    parents: np.ndarray
    placements: np.ndarray
    axes: np.ndarray
    inertias: np.ndarray


class Tree(_TreeFields):
    """A kinematic tree of n bodies with one joint each (a named tuple, checked once here).

    Parameters
    ----------
    parents : sequence of int, shape (n,)
        ``parents[i]`` is the body that joint i attaches body i to; ``parents[i] < i``, and -1
        means the fixed base.
    placements : array_like, shape (n, 6, 6)
        ``placements[i]`` = X_T,i, the motion transform from the parent's coordinates to joint
        i's frame at q = 0: ``motion_transform(R, d)`` with R joint-frame -> parent-frame
        components and d the joint frame's origin in parent coordinates (m).  For a body on
        the base, "parent" means the base (world) frame.
    axes : array_like, shape (n, 6)
        ``axes[i]`` = S_i, joint i's motion axis in body i's coordinates: revolute [n; 0]
        (a hinge along n through body i's origin) or prismatic [0; n], with |n| = 1.
    inertias : array_like, shape (n, 6, 6)
        Body i's spatial inertia about its own origin, in its own axes (``spatial_inertia``).

    The fields are stored as read-only float arrays (``parents`` as int).  Bad input raises
    ``ValueError`` naming the field.

    Examples
    --------
    The door of chapter 8 as a one-body tree: hinge along z through the body origin O.

    >>> import numpy as np, spatialbook as sb
    >>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    >>> door = sb.Tree(parents=[-1], placements=[sb.motion_transform(np.eye(3), [0, 0, 0])],
    ...                axes=[[0, 0, 1, 0, 0, 0]], inertias=[I_O])
    >>> door.parents, door.axes.shape
    (array([-1]), (1, 6))
    """

    __slots__ = ()

    def __new__(cls, parents, placements, axes, inertias):
        parents = _numbers("parents", parents)
        placements = _numbers("placements", placements)
        axes = _numbers("axes", axes)
        inertias = _numbers("inertias", inertias)
        n = _body_count(parents=parents, placements=placements, axes=axes, inertias=inertias)
        parents = _check_parents(parents, n)
        placements = _check_placements(placements, n)
        axes = _check_axes(axes, n)
        inertias = _check_inertias(inertias, n)
        for arr in (parents, placements, axes, inertias):
            arr.flags.writeable = False
        return super().__new__(cls, parents, placements, axes, inertias)

    @classmethod
    def _make(cls, iterable):          # _replace goes through here: keep it checked
        return cls(*iterable)


# --- checks on the tree (once, in Tree) ----------------------------------------------------


def _numbers(name: str, value) -> np.ndarray:
    """``value`` as an array of real numbers: no None, bools, complex numbers, text or objects."""
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected an array of real numbers, got a ragged sequence or a non-number") from None
    if raw.dtype.kind not in "iuf":
        raise ValueError(f"{name}: expected real numbers (int or float), got dtype {raw.dtype} (shape {raw.shape})")
    return raw


def _body_count(**fields: np.ndarray) -> int:
    """n: the number of entries most fields agree on (a field that disagrees is then named)."""
    lengths = [arr.shape[0] if arr.ndim else -1 for arr in fields.values()]
    return max(lengths, key=lambda k: (lengths.count(k), k == lengths[0]))


def _check_parents(parents, n: int) -> np.ndarray:
    raw = _numbers("parents", parents)
    if raw.ndim != 1 or raw.shape[0] == 0:
        raise ValueError(f"parents: expected a non-empty 1-D sequence of body indices, got shape {raw.shape}")
    if raw.shape[0] != n:
        raise ValueError(
            f"parents: expected one entry per body, {n} as placements, axes and inertias have, got {raw.shape[0]}"
        )
    if raw.dtype.kind == "f":
        if not np.all(np.isfinite(raw)) or np.any(raw != np.round(raw)):
            raise ValueError(f"parents: expected integer body indices, got {raw.tolist()}")
    p = raw.astype(int)
    bad = np.flatnonzero((p < -1) | (p >= np.arange(p.shape[0])))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"parents: expected parents[i] < i with -1 for the base, got parents[{i}] = {int(p[i])} "
            f"(parents = {p.tolist()}); number the bodies so that every parent comes first"
        )
    return p


def _check_placements(placements, n: int) -> np.ndarray:
    X = _stack("placements", placements, (n, 6, 6))
    scale = max(1.0, float(np.max(np.abs(X))))
    Rt, U, L, B = X[:, :3, :3], X[:, :3, 3:], X[:, 3:, :3], X[:, 3:, 3:]
    for i in range(n):
        what = f"placements: expected motion transforms [[R^T, 0], [-R^T D, R^T]] (motion_transform(R, d)), but placements[{i}]"
        if not np.allclose(U[i], 0.0, rtol=0.0, atol=STRUCTURE_TOL * scale):
            raise ValueError(f"{what} has a non-zero upper-right 3x3 block (a force transform?)")
        if not np.allclose(Rt[i], B[i], rtol=0.0, atol=STRUCTURE_TOL * scale):
            raise ValueError(f"{what} has two different diagonal 3x3 blocks")
        R = Rt[i].T
        if not np.allclose(R.T @ R, np.eye(3), rtol=0.0, atol=_ROTATION_TOL):
            raise ValueError(f"{what} has an R that is not orthonormal (R^T R != E)")
        if np.linalg.det(R) < 0:
            raise ValueError(f"{what} has a reflection (det R = -1), not a rotation")
        D = -R @ L[i]
        if not np.allclose(D, -D.T, rtol=0.0, atol=STRUCTURE_TOL * scale):
            raise ValueError(f"{what} has a lower-left block that is not -R^T [d]x for any d")
    return X


def _check_axes(axes, n: int) -> np.ndarray:
    S = _stack("axes", axes, (n, 6))
    for i in range(n):
        ang, lin = np.linalg.norm(S[i, :3]), np.linalg.norm(S[i, 3:])
        unit = abs(max(ang, lin) - 1.0) <= _UNIT_TOL
        if min(ang, lin) > _UNIT_TOL or not unit:
            raise ValueError(
                f"axes: expected axes[{i}] revolute [n; 0] or prismatic [0; n] with a unit n, "
                f"got {S[i].tolist()}"
            )
    return S


def _check_inertias(inertias, n: int) -> np.ndarray:
    I = _stack("inertias", inertias, (n, 6, 6))
    for i in range(n):
        as_spatial_inertia(f"inertias: inertias[{i}]", I[i])
    return I


def _stack(name: str, value, shape: tuple[int, ...]) -> np.ndarray:
    arr = as_array(name, _numbers(name, value), shape[1:])
    if arr.shape != shape:
        raise ValueError(
            f"{name}: expected shape {shape}, one entry per body (n = {shape[0]}), got shape {arr.shape}"
        )
    return np.array(arr, dtype=float)


# --- checks on the state (once per public call) --------------------------------------------


def _check_tree(tree) -> Tree:
    if not isinstance(tree, Tree):
        raise ValueError(f"tree: expected a spatialbook.Tree(parents, placements, axes, inertias), got {type(tree).__name__}")
    return tree


def _joint_values(name: str, value, n: int) -> np.ndarray:
    arr = _numbers(name, value)
    if arr.ndim == 0 or arr.shape[-1] != n:
        raise ValueError(f"{name}: expected an array of shape (..., {n}), one entry per joint of the tree, got shape {arr.shape}")
    return as_array(name, arr, (n,))


def _gravity(value) -> np.ndarray:
    return as_array("gravity", _numbers("gravity", value), (3,))


def _broadcast(*items: tuple[str, np.ndarray, int]) -> list[np.ndarray]:
    """Broadcast the checked arrays' batch axes against each other (naming them if they clash)."""
    batch = batch_shape(*items)
    return [np.broadcast_to(arr, batch + arr.shape[arr.ndim - core:]) for _, arr, core in items]


# --- unchecked kernels (inside the loops over bodies) ---------------------------------------


def _joint_transform(S: np.ndarray, q: np.ndarray) -> np.ndarray:
    """X_J(q): motion transform from joint frame to body frame, shape q.shape + (6, 6)."""
    X = np.zeros(q.shape + (6, 6))
    if np.any(S[3:]):                                   # prismatic: R = E, d = n q
        X[..., :3, :3] = X[..., 3:, 3:] = np.eye(3)
        X[..., 3:, :3] = -_skew(S[3:] * q[..., None])
    else:                                               # revolute: R = Rot(n, q), d = 0
        N = _skew(S[:3])
        R = np.eye(3) + np.sin(q)[..., None, None] * N + (1.0 - np.cos(q))[..., None, None] * (N @ N)
        X[..., :3, :3] = X[..., 3:, 3:] = np.swapaxes(R, -1, -2)
    return X


def _mv(M: np.ndarray, v: np.ndarray) -> np.ndarray:
    """M v over leading axes (M (..., 6, 6), v (..., 6))."""
    return np.einsum("...ij,...j->...i", M, v)


def _mtv(M: np.ndarray, v: np.ndarray) -> np.ndarray:
    """M^T v over leading axes."""
    return np.einsum("...ji,...j->...i", M, v)


def _crm(V: np.ndarray, U: np.ndarray) -> np.ndarray:
    """V x U (motion cross product) without forming the 6x6 matrix."""
    w, v = V[..., :3], V[..., 3:]
    return np.concatenate((_cross(w, U[..., :3]), _cross(w, U[..., 3:]) + _cross(v, U[..., :3])), axis=-1)


def _crf(V: np.ndarray, F: np.ndarray) -> np.ndarray:
    """V x* F (force cross product) without forming the 6x6 matrix."""
    w, v = V[..., :3], V[..., 3:]
    return np.concatenate((_cross(w, F[..., :3]) + _cross(v, F[..., 3:]), _cross(w, F[..., 3:])), axis=-1)


def _transforms(tree: Tree, q: np.ndarray) -> list[np.ndarray]:
    """X_i = X_J(q_i) X_T,i for every body: parent coordinates -> body i coordinates."""
    return [_joint_transform(tree.axes[i], q[..., i]) @ tree.placements[i] for i in range(len(tree.parents))]


def _rnea(tree: Tree, q, qd, qdd, g) -> np.ndarray:
    parents, S, I = tree.parents, tree.axes, tree.inertias
    n = len(parents)
    X = _transforms(tree, q)
    V_0 = np.zeros(q.shape[:-1] + (6,))                 # the base is at rest ...
    A_0 = -np.concatenate((np.zeros_like(g), g), axis=-1)   # ... and accelerates at -g
    V, A, F = [None] * n, [None] * n, [None] * n
    for i in range(n):                                   # outward: velocities, accelerations
        V_p, A_p = (V_0, A_0) if parents[i] < 0 else (V[parents[i]], A[parents[i]])
        V[i] = _mv(X[i], V_p) + S[i] * qd[..., i, None]
        A[i] = _mv(X[i], A_p) + S[i] * qdd[..., i, None] + _crm(V[i], S[i] * qd[..., i, None])
        F[i] = _mv(I[i], A[i]) + _crf(V[i], _mv(I[i], V[i]))
    tau = np.empty(q.shape)
    for i in reversed(range(n)):                         # inward: wrenches, joint forces
        tau[..., i] = F[i] @ S[i]
        if parents[i] >= 0:
            F[parents[i]] = F[parents[i]] + _mtv(X[i], F[i])
    return tau


def _crba(tree: Tree, q) -> np.ndarray:
    parents, S, I = tree.parents, tree.axes, tree.inertias
    n = len(parents)
    X = _transforms(tree, q)
    Ic = [np.broadcast_to(I[i], q.shape[:-1] + (6, 6)) for i in range(n)]
    for i in reversed(range(n)):                         # composite inertias, leaves first
        if parents[i] >= 0:
            Ic[parents[i]] = Ic[parents[i]] + np.swapaxes(X[i], -1, -2) @ Ic[i] @ X[i]
    H = np.zeros(q.shape + (n,))
    for i in range(n):
        F = Ic[i] @ S[i]                                 # I^c_i S_i, a wrench in body i
        H[..., i, i] = F @ S[i]
        j = i
        while parents[j] >= 0:                           # carried toward the root
            F = _mtv(X[j], F)
            j = parents[j]
            H[..., i, j] = H[..., j, i] = F @ S[j]
    return H


# --- public functions --------------------------------------------------------------------


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
    """
    tree = _check_tree(tree)
    n = len(tree.parents)
    q, qd, qdd = (_joint_values(name, v, n) for name, v in (("q", q), ("qd", qd), ("qdd", qdd)))
    g = _gravity(gravity)
    q, qd, qdd, g = _broadcast(("q", q, 1), ("qd", qd, 1), ("qdd", qdd, 1), ("gravity", g, 1))
    return _rnea(tree, q, qd, qdd, g)


def mass_matrix(tree, q) -> np.ndarray:
    """Joint-space mass matrix H(q) (symmetric, positive definite): the CRBA.

    Kinetic energy T = 1/2 qd^T H qd.  Composite inertias are summed toward the root by the
    congruence of chapter 6, leaves first: I^c_i = I_i + sum over children c of
    X_c^T I^c_c X_c.  Then H_ii = S_i^T I^c_i S_i, and for each ancestor j of i,
    H_ji = H_ij = S_j^T F with F = I^c_i S_i carried toward the root by F <- X_k^T F.

    Parameters
    ----------
    tree : Tree
    q : array_like, shape (..., n)

    Returns
    -------
    ndarray, shape (..., n, n)
        Units kg m^2 (revolute-revolute), kg m (mixed), kg (prismatic-prismatic).

    Examples
    --------
    >>> import numpy as np, spatialbook as sb
    >>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    >>> door = sb.Tree([-1], [np.eye(6)], [[0, 0, 1, 0, 0, 0]], [I_O])
    >>> sb.mass_matrix(door, [0.0]).round(6)      # I_O,z = 8/75 + 2 * 0.4^2
    array([[0.426667]])
    """
    tree = _check_tree(tree)
    q = _joint_values("q", q, len(tree.parents))
    return _crba(tree, q)


def forward_dynamics(tree, q, qd, tau, gravity=_G) -> np.ndarray:
    """Joint accelerations qdd caused by joint forces tau: solves H(q) qdd = tau - C(q, qd).

    C = inverse_dynamics(tree, q, qd, 0, gravity) collects the velocity (Coriolis and
    centripetal) and gravity terms; H = mass_matrix(tree, q).  Batched over leading axes.

    Parameters
    ----------
    tree : Tree
    q, qd, tau : array_like, shape (..., n)
    gravity : array_like, shape (3,) or (..., 3), m/s^2 in base coordinates

    Returns
    -------
    ndarray, shape (..., n): qdd in rad/s^2 or m/s^2.

    Examples
    --------
    >>> import numpy as np, spatialbook as sb
    >>> I_O = sb.spatial_inertia(sb.DOOR["mass"], sb.DOOR["com"], sb.DOOR["inertia_com"])
    >>> door = sb.Tree([-1], [np.eye(6)], [[0, 0, 1, 0, 0, 0]], [I_O])
    >>> sb.forward_dynamics(door, [0.0], [2.0], [1.28]).round(12)
    array([3.])
    """
    tree = _check_tree(tree)
    n = len(tree.parents)
    q, qd, tau = (_joint_values(name, v, n) for name, v in (("q", q), ("qd", qd), ("tau", tau)))
    g = _gravity(gravity)
    q, qd, tau, g = _broadcast(("q", q, 1), ("qd", qd, 1), ("tau", tau, 1), ("gravity", g, 1))
    C = _rnea(tree, q, qd, np.zeros_like(qd), g)
    H = _crba(tree, q)
    try:
        return np.linalg.solve(H, (tau - C)[..., None])[..., 0]
    except np.linalg.LinAlgError:
        raise ValueError("tree: expected bodies with mass along every joint; the mass matrix H(q) is singular")  from None
