"""A Tree in joint-aligned body coordinates, built once per tree (cached) for the algorithms."""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from ._kernels import _skew


# --- the tree in aligned body coordinates (once per tree) ------------------------------------
#
# Each body's axes are turned once per tree so that its joint axis is z: S_i = e_z (revolute,
# row 2) or e_z of the linear part (prismatic, row 5), and X_J(q_i) changes only the x and y
# rows.  That is a change of body coordinates, so tau, H and qdd are unchanged; the q = 0
# placements and the inertias are re-expressed to match.


class _Aligned(NamedTuple):
    """A tree in aligned body coordinates (constant per tree)."""
    parents: tuple
    prismatic: tuple        # per body: True for a prismatic joint
    row: tuple              # per body: the row of S_i = e_row (2 revolute, 5 prismatic)
    T: np.ndarray           # (n, 6, 6) X_T,i between aligned frames
    Tt: np.ndarray          # (n, 6, 6) its transpose, contiguous
    Tt2: np.ndarray         # (n, 21, 21) X_T^T M X_T on the upper entries of a symmetric 6x6 M
    I: np.ndarray           # (n, 6, 6) inertias in aligned body axes
    I_params: np.ndarray    # (n, 10, 1) the same as [d xz hx xy yz hy a zz hz m] (``_TURN``)
    congruence: np.ndarray  # (n, 10, 10) X_T,i^T (.) X_T,i acting on those 10 numbers
    subtree: tuple          # per body: its subtree's bodies, itself first (children's in order)
    slot: tuple             # per body: where its subtree starts in its parent's subtree
    free: tuple             # per body: True for a free joint (6 dof; no alignment)
    iq: tuple               # per body: its first entry in q
    iv: tuple               # per body: its first entry in qd, qdd, tau
    nq: int
    nv: int


def _axis_frame(n: np.ndarray) -> np.ndarray:
    """A rotation Q whose third column is the unit vector n (its columns: new axes, old coords)."""
    a = np.array([1.0, 0.0, 0.0]) if abs(n[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = a - (a @ n) * n
    x /= np.linalg.norm(x)
    return np.column_stack((x, np.cross(n, x), n))


#: [d xz hx xy yz hy a zz hz m] = _TURN @ [xx yy zz xy xz yz hx hy hz m], d = (xx - yy)/2 and
#: a = (xx + yy)/2: a turn by q about z turns (d, xy) by 2q and (xz, yz), (hx, hy) by q, and
#: leaves the last four alone, so that the turn is a few row operations (``_turn_inertias``).
_TURN = np.zeros((10, 10))
_TURN[[0, 0, 6, 6], [0, 1, 0, 1]] = [0.5, -0.5, 0.5, 0.5]
_TURN[[1, 2, 3, 4, 5, 7, 8, 9], [4, 6, 3, 5, 7, 2, 8, 9]] = 1.0

#: The 21 entries on and above the diagonal of a symmetric 6x6 matrix (flattened), and where
#: each sits below it.
_UPPER = np.array([6 * a + b for a in range(6) for b in range(a, 6)])
_LOWER = np.array([6 * b + a for a in range(6) for b in range(a, 6)])


def _symmetric_congruence(Tt: np.ndarray) -> np.ndarray:
    """K (21, 21): the upper entries of X_T^T M X_T from the upper entries of a symmetric M."""
    K = np.kron(Tt, Tt)                                  # on all 36 entries, row-major
    return K[_UPPER][:, _UPPER] + np.where(_UPPER != _LOWER, K[_UPPER][:, _LOWER], 0.0)


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
def _aligned_cached(n: int, parents: bytes, placements: bytes, axes: bytes, inertias: bytes, free: tuple) -> _Aligned:
    parents_ = np.frombuffer(parents, dtype=int)
    X_T = np.frombuffer(placements).reshape(n, 6, 6)
    S = np.frombuffer(axes).reshape(n, 6)
    I = np.frombuffer(inertias).reshape(n, 6, 6)
    prismatic = tuple(bool(np.any(S[i, 3:])) and not free[i] for i in range(n))
    P = np.zeros((n, 6, 6))                  # P_i = diag(Q_i, Q_i): aligned -> given body axes
    for i in range(n):
        Q = np.eye(3) if free[i] else _axis_frame(S[i, 3:] if prismatic[i] else S[i, :3])
        P[i, :3, :3] = P[i, 3:, 3:] = Q
    T = np.stack([P[i].T @ X_T[i] @ (P[parents_[i]] if parents_[i] >= 0 else np.eye(6)) for i in range(n)])
    I_al = np.stack([P[i].T @ I[i] @ P[i] for i in range(n)])
    basis = [_inertia_matrix(e) for e in np.eye(10)]
    congruence = np.stack([np.column_stack([_inertia_params(T[i].T @ M @ T[i]) for M in basis]) for i in range(n)])
    subtree, slot = [[i] for i in range(n)], [0] * n
    for i in reversed(range(n)):
        p = int(parents_[i])
        if p >= 0:
            slot[i] = len(subtree[p])
            subtree[p] += subtree[i]
    iq = np.concatenate(([0], np.cumsum([7 if f else 1 for f in free])))
    iv = np.concatenate(([0], np.cumsum([6 if f else 1 for f in free])))
    params = _TURN @ np.stack([_inertia_params(M) for M in I_al])[:, :, None]
    return _Aligned(tuple(int(p) for p in parents_), prismatic, tuple(5 if pr else 2 for pr in prismatic),
                    T, np.ascontiguousarray(np.swapaxes(T, 1, 2)), np.stack([_symmetric_congruence(t.T) for t in T]), I_al,
                    params, _TURN @ congruence @ np.linalg.inv(_TURN),
                    tuple(tuple(s) for s in subtree), tuple(slot), tuple(free),
                    tuple(int(k) for k in iq[:-1]), tuple(int(k) for k in iv[:-1]), int(iq[-1]), int(iv[-1]))


_BY_ID: dict = {}


def _aligned(tree) -> _Aligned:
    """The aligned form of a Tree: found by identity first (a Tree never changes), else by value."""
    hit = _BY_ID.get(id(tree))
    if hit is not None and hit[0] is tree:
        return hit[1]
    n = len(tree.parents)
    out = _aligned_cached(n, tree.parents.astype(int).tobytes(), tree.placements.tobytes(),
                           tree.axes.tobytes(), tree.inertias.tobytes(), tuple(k == "free" for k in tree.kinds))
    if len(_BY_ID) > 64:
        _BY_ID.clear()
    _BY_ID[id(tree)] = (tree, out)
    return out
