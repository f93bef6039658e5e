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

import functools
from typing import NamedTuple

import numpy as np

from ._checks import STRUCTURE_TOL, as_array, as_spatial_inertia, batch_shape
from ._kernels import _skew

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


def _columns(*arrays: np.ndarray) -> list[np.ndarray]:
    """Checked (..., k) arrays with one batch shape -> contiguous (k, B) arrays, B = batch size."""
    return [np.ascontiguousarray(arr.reshape(-1, arr.shape[-1]).T) for arr in arrays]


#: States per block in :func:`_in_blocks`: a block's intermediate arrays stay in the CPU cache.
_STATES_PER_BLOCK = 8192


def _in_blocks(kernel, shape: tuple[int, ...], *columns: np.ndarray) -> np.ndarray:
    """``kernel(*columns)`` (each (k, B); result shape + (B,)), evaluated on blocks of states.

    Every block is one vectorized evaluation over thousands of states; splitting a large batch
    only keeps the intermediates in cache (several times faster than one pass over 10^5)."""
    B = columns[0].shape[-1]
    out = np.empty(shape + (B,))
    for start in range(0, B, _STATES_PER_BLOCK):
        block = slice(start, start + _STATES_PER_BLOCK)
        out[..., block] = kernel(*(c[:, block] for c in columns))
    return out


# --- unchecked kernels (inside the loops over bodies) ---------------------------------------
#
# Layout: inside the algorithms a batch of 6-vectors is a (6, B) array (component first), so
# each component is one contiguous row and a constant 6x6 matrix acts on all B vectors in one
# matrix product.  Each body's axes are turned once per tree (``_aligned``) so that its joint
# axis is z: S_i = e_z (revolute, row 2) or e_z of the linear part (prismatic, row 5), and
# X_J(q_i) changes only the x and y rows.  That is a change of body coordinates, so tau, H and
# qdd are unchanged; the q = 0 placement and the inertia are re-expressed to match.


class _Aligned(NamedTuple):
    """A tree in aligned body coordinates (constant per tree)."""
    parents: tuple
    prismatic: tuple      # per body: True for a prismatic joint
    row: tuple            # per body: the row of S_i = e_row (2 revolute, 5 prismatic)
    T: np.ndarray         # (n, 6, 6) X_T,i between aligned frames
    Tt: np.ndarray        # (n, 6, 6) its transpose, contiguous
    I: np.ndarray         # (n, 6, 6) inertias in aligned body axes
    I_params: np.ndarray  # (n, 10, 1) the same as [xx yy zz xy xz yz hx hy hz m]
    congruence: np.ndarray  # (n, 10, 10) X_T,i^T (.) X_T,i acting on those 10 numbers


def _axis_frame(n: np.ndarray) -> np.ndarray:
    """A rotation Q whose third column is the unit vector n (its columns: new axes, old coords)."""
    a = np.array([1.0, 0.0, 0.0]) if abs(n[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = a - (a @ n) * n
    x /= np.linalg.norm(x)
    return np.column_stack((x, np.cross(n, x), n))


_INERTIA_ROWS = np.array([0, 1, 2, 0, 0, 1])
_INERTIA_COLS = np.array([0, 1, 2, 1, 2, 2])


def _inertia_params(M: np.ndarray) -> np.ndarray:
    """[Ixx Iyy Izz Ixy Ixz Iyz hx hy hz m] of [[I, [h]x], [-[h]x, m E]] (h = m c)."""
    return np.concatenate((M[_INERTIA_ROWS, _INERTIA_COLS], [M[2, 4], M[0, 5], M[1, 3], M[3, 3]]))


def _inertia_matrix(p: np.ndarray) -> np.ndarray:
    M = np.zeros((6, 6))
    M[_INERTIA_ROWS, _INERTIA_COLS] = M[_INERTIA_COLS, _INERTIA_ROWS] = p[:6]
    M[:3, 3:] = _skew(p[6:9])
    M[3:, :3] = -M[:3, 3:]
    M[3:, 3:] = p[9] * np.eye(3)
    return M


@functools.lru_cache(maxsize=64)
def _aligned_cached(n: int, parents: bytes, placements: bytes, axes: bytes, inertias: bytes) -> _Aligned:
    parents_ = np.frombuffer(parents, dtype=int)
    X_T = np.frombuffer(placements).reshape(n, 6, 6)
    S = np.frombuffer(axes).reshape(n, 6)
    I = np.frombuffer(inertias).reshape(n, 6, 6)
    prismatic = tuple(bool(np.any(S[i, 3:])) for i in range(n))
    P = np.zeros((n, 6, 6))                  # P_i = diag(Q_i, Q_i): aligned -> given body axes
    for i in range(n):
        Q = _axis_frame(S[i, 3:] if prismatic[i] else S[i, :3])
        P[i, :3, :3] = P[i, 3:, 3:] = Q
    T = np.stack([P[i].T @ X_T[i] @ (P[parents_[i]] if parents_[i] >= 0 else np.eye(6)) for i in range(n)])
    I_al = np.stack([P[i].T @ I[i] @ P[i] for i in range(n)])
    basis = [_inertia_matrix(e) for e in np.eye(10)]
    congruence = np.stack([np.column_stack([_inertia_params(T[i].T @ M @ T[i]) for M in basis]) for i in range(n)])
    return _Aligned(tuple(int(p) for p in parents_), prismatic, tuple(5 if pr else 2 for pr in prismatic),
                    T, np.ascontiguousarray(np.swapaxes(T, 1, 2)), I_al,
                    np.stack([_inertia_params(M) for M in I_al])[:, :, None], congruence)


def _aligned(tree: Tree) -> _Aligned:
    n = len(tree.parents)
    return _aligned_cached(n, tree.parents.astype(int).tobytes(), tree.placements.tobytes(),
                           tree.axes.tobytes(), tree.inertias.tobytes())


class _X(NamedTuple):
    """X_i = X_J(q_i) X_T,i for a batch: the constant X_T,i (T, its transpose Tt and its
    congruence L on inertias) and cos, sin of q_i (revolute) or q_i itself in s (prismatic:
    then c is None)."""
    T: np.ndarray
    Tt: np.ndarray
    L: np.ndarray
    c: np.ndarray | None
    s: np.ndarray


def _transforms(tree: _Aligned, q: np.ndarray) -> list[_X]:
    """X_i for every body; q is (n, B)."""
    return [_X(tree.T[i], tree.Tt[i], tree.congruence[i], None, q[i]) if tree.prismatic[i]
            else _X(tree.T[i], tree.Tt[i], tree.congruence[i], np.cos(q[i]), np.sin(q[i]))
            for i in range(len(tree.parents))]


#: Work per BLAS call in :func:`_matmul` (rows x columns x inner length).  OpenBLAS runs a
#: product this small on one thread; split across both cores of a busy machine, a product of a
#: few rows by very many columns is many times slower than on one.
_BLAS_WORK = 200_000


def _matmul(M: np.ndarray, U: np.ndarray) -> np.ndarray:
    """A constant matrix times a batch of column vectors U (k, ...): M @ U, row-major result,
    computed as (U^T M^T)^T, block by block (one BLAS call per block of columns)."""
    U2 = np.ascontiguousarray(U).reshape(U.shape[0], -1)
    out = np.empty((M.shape[0], U2.shape[1]))
    Mt, step = M.T, max(256, _BLAS_WORK // M.size)
    for start in range(0, U2.shape[1], step):
        np.matmul(U2[:, start:start + step].T, Mt, out=out[:, start:start + step].T)
    return out.reshape((M.shape[0],) + U.shape[1:])


def _motion(X: _X, U: np.ndarray) -> np.ndarray:
    """X U for motion vectors U (6, ...): first X_T,i, then the joint's X_J(q_i)."""
    W = _matmul(X.T, U)
    if X.c is None:                                      # translate by z q: v -= (z q) x w
        W[3] += X.s * W[1]
        W[4] -= X.s * W[0]
    else:                                                # turn by q about z: R^T on both halves
        x, y = W[0::3], W[1::3]                          # rows (0, 3) and (1, 4)
        x_new = X.c * x + X.s * y
        y[...] = X.c * y - X.s * x
        x[...] = x_new
    return W


def _force_back(X: _X, F: np.ndarray) -> np.ndarray:
    """X^T F: a wrench (6, ...) in body i's coordinates re-expressed in its parent's."""
    G = np.array(F)
    if X.c is None:                                      # tau += (z q) x f
        G[0] -= X.s * F[4]
        G[1] += X.s * F[3]
    else:                                                # R on both halves
        x, y = F[0::3], F[1::3]
        G[0::3] = X.c * x - X.s * y
        G[1::3] = X.s * x + X.c * y
    return _matmul(X.Tt, G)


def _cross_axis(V: np.ndarray, row: int) -> np.ndarray:
    """V x S for S = e_row (row 2: [0 0 1 0 0 0], row 5: [0 0 0 0 0 1])."""
    out = np.zeros_like(V)
    if row == 2:                                         # [w x z; v x z]
        out[0], out[1], out[3], out[4] = V[1], -V[0], V[4], -V[3]
    else:                                                # [0; w x z]
        out[3], out[4] = V[1], -V[0]
    return out


def _cross3(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.stack((a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]))


def _crf(V: np.ndarray, F: np.ndarray) -> np.ndarray:
    """V x* F = [w x tau + v x f; w x f] for (6, B) arrays."""
    w, v = V[:3], V[3:]
    return np.concatenate((_cross3(w, F[:3]) + _cross3(v, F[3:]), _cross3(w, F[3:])))


def _inertia_back(X: _X, p: np.ndarray) -> np.ndarray:
    """X^T I X on the 10 numbers p (10, ...) of a spatial inertia: I in body i -> parent."""
    xx, yy, zz, xy, xz, yz, hx, hy, hz, m = p
    if X.c is None:                                      # shift the origin back by z q
        q = X.s
        shift = q * (2 * hz + q * m)
        p = np.stack(np.broadcast_arrays(xx + shift, yy + shift, zz, xy, xz - q * hx, yz - q * hy,
                                         hx, hy, hz + q * m, m))
    else:                                                # turn back by q about z
        c, s = X.c, X.s
        c2, s2 = c * c - s * s, 2 * s * c
        a, d = (xx + yy) / 2, (xx - yy) / 2
        p = np.stack(np.broadcast_arrays(a + c2 * d - s2 * xy, a - c2 * d + s2 * xy, zz, s2 * d + c2 * xy,
                                         c * xz - s * yz, s * xz + c * yz, c * hx - s * hy, s * hx + c * hy, hz, m))
    return _matmul(X.L, p)


def _rnea(tree: _Aligned, q, qd, qdd, g) -> np.ndarray:
    """tau (n, B) from q, qd, qdd (n, B) and g (3, B or 1), in aligned body coordinates."""
    parents, row, n = tree.parents, tree.row, len(tree.parents)
    X = _transforms(tree, q)
    B = q.shape[1]
    VA_0 = np.zeros((6, 2, B))                           # [V_0, A_0]: the base at rest,
    VA_0[3:, 1] = -g                                     # accelerating at -g
    VA, F = [None] * n, [None] * n
    for i in range(n):                                   # outward
        VA[i] = _motion(X[i], VA_0 if parents[i] < 0 else VA[parents[i]])   # [X_i V_p, X_i A_p]
        V_i, A_i = VA[i][:, 0], VA[i][:, 1]
        V_i[row[i]] += qd[i]                             # V_i = X_i V_p + S_i qd_i
        A_i[row[i]] += qdd[i]                            # A_i = X_i A_p + S_i qdd_i + (V_i x S_i) qd_i
        A_i += _cross_axis(V_i, row[i]) * qd[i]
        IV_i, IA_i = _matmul(tree.I[i], VA[i]).transpose(1, 0, 2)
        F[i] = IA_i + _crf(V_i, IV_i)                    # F_i = I_i A_i + V_i x* I_i V_i
    tau = np.empty((n, B))
    for i in reversed(range(n)):                         # inward
        tau[i] = F[i][row[i]]                            # tau_i = S_i^T F_i
        if parents[i] >= 0:
            F[parents[i]] += _force_back(X[i], F[i])     # F_p += X_i^T F_i
    return tau


def _crba(tree: _Aligned, q) -> np.ndarray:
    """H (n, n, B) from q (n, B), in aligned body coordinates."""
    parents, row, n = tree.parents, tree.row, len(tree.parents)
    X = _transforms(tree, q)
    B = q.shape[1]
    Ic = [np.broadcast_to(tree.I_params[i], (10, B)) for i in range(n)]   # I^c_i = I_i, ...
    F = [[] for _ in range(n)]          # per body: (columns j, wrenches I^c_j S_j in its coordinates)
    H = np.zeros((n, n, B))
    for i in reversed(range(n)):                         # leaves first
        cols = [i] + [j for j, _ in F[i]]
        F_i = np.stack([_composite_times_axis(Ic[i], row[i])] + [f for _, f in F[i]], axis=1)
        H[i, cols] = F_i[row[i]]                         # H_ij = S_i^T (X^T ... I^c_j S_j)
        H[cols, i] = F_i[row[i]]
        p = parents[i]
        if p >= 0:
            Ic[p] = Ic[p] + _inertia_back(X[i], Ic[i])   # I^c_p += X_i^T I^c_i X_i
            F[p] += list(zip(cols, _force_back(X[i], F_i).transpose(1, 0, 2)))   # carried inward
    return H


def _composite_times_axis(p: np.ndarray, row: int) -> np.ndarray:
    """I S for the inertia with 10 numbers p (10, B) and S = e_row: column ``row`` of the 6x6."""
    xx, yy, zz, xy, xz, yz, hx, hy, hz, m = p
    zero = np.zeros_like(m)
    if row == 2:                                         # [I e_z; -[h]x e_z] = [I e_z; z x h]
        return np.stack((xz, yz, zz, -hy, hx, zero))
    return np.stack((hy, -hx, zero, zero, zero, m))      # [[h]x e_z; m e_z]


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
    tau = _in_blocks(functools.partial(_rnea, _aligned(tree)), (n,), *_columns(q, qd, qdd, g))
    return tau.T.reshape(q.shape)


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
    n = len(tree.parents)
    q = _joint_values("q", q, n)
    H = _in_blocks(functools.partial(_crba, _aligned(tree)), (n, n), *_columns(q))
    return np.moveaxis(H, -1, 0).reshape(q.shape + (n,))


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
    aligned = _aligned(tree)
    q_, qd_, tau_, g_ = _columns(q, qd, tau, g)
    C = _in_blocks(functools.partial(_rnea, aligned), (n,), q_, qd_, np.zeros_like(qd_), g_)   # (n, B)
    H = np.moveaxis(_in_blocks(functools.partial(_crba, aligned), (n, n), q_), -1, 0)      # (B, n, n)
    try:
        return np.linalg.solve(H, (tau_ - C).T[..., None])[..., 0].reshape(q.shape)
    except np.linalg.LinAlgError:
        raise ValueError("tree: expected bodies with mass along every joint; the mass matrix H(q) is singular")  from None
