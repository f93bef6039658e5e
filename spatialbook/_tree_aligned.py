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
    K: np.ndarray           # (n, 21, 21) X_T^T M X_T on the 21 numbers of a symmetric 6x6 M (``_ARTICULATED``)
    I: np.ndarray           # (n, 6, 6) inertias in aligned body axes
    I21: np.ndarray         # (n, 21, 1) the same as the 21 numbers of ``_ARTICULATED`` (the ABA's start)
    I_params: np.ndarray    # (n, 10, 1) the same as [d xz hx xy yz hy a zz hz m] (``_TURN``)
    congruence: np.ndarray  # (n, 10, 10) X_T,i^T (.) X_T,i acting on those 10 numbers
    subtree: tuple          # per body: its subtree's bodies, itself first (children's in order)
    slot: tuple             # per body: where its subtree starts in its parent's subtree
    below: tuple            # per body: the entries of qd moved by the one-dof joints in its subtree
                            # (after itself, in subtree order): a slice, or an index array
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

# The ABA's articulated inertias (symmetric 6x6 M) are kept as 21 numbers chosen, like the 10
# of ``_TURN``, so that the joint's turn by q about z is a few row operations.  With (0, 1) and
# (3, 4) the x-y pairs of the two halves, the blocks A = M_[01][01], B = M_[34][34] and
# C = M_[01][34] split into a part that turns by 2q (dA = (M00 - M11)/2 with oA = M01; dB, oB
# likewise; dC = (M03 - M14)/2 with oC = (M04 + M13)/2) and a part the turn leaves alone (the
# half traces tA, tB, tC and kC = (M04 - M13)/2); the entries pairing x, y with z turn by q:
#
#   rows 0-3 with 4-7 turn by q:    [M02 M05 M32 M35] with [M12 M15 M42 M45]
#   rows 8-10 with 15-17 by 2q:     [dC dA dB] with [oC oA oB]
#   the rest stays:                 kC (row 11), tC tA tB (12-14), M22 M25 M55 (18-20)
#
# so rows 8-11 are (P1 - P2)/2 and rows 12-15 (P1 + P2)/2 with P1 = [M03 M00 M33 M04] and
# P2 = [M14 M11 M44 M13].  _ARTICULATED (21, 36) maps a flattened symmetric M to the 21
# numbers, _ARTICULATED_FULL (36, 21) back.
_PAIRS = [(0, 2), (0, 5), (3, 2), (3, 5), (1, 2), (1, 5), (4, 2), (4, 5)]
_P1, _P2 = [(0, 3), (0, 0), (3, 3), (0, 4)], [(1, 4), (1, 1), (4, 4), (1, 3)]
_REST = [(0, 1), (3, 4), (2, 2), (2, 5), (5, 5)]
_ARTICULATED = np.zeros((21, 36))
for _k, (_a, _b) in enumerate(_PAIRS):
    _ARTICULATED[_k, 6 * _a + _b] = 1.0
for _k, ((_a, _b), (_c, _d)) in enumerate(zip(_P1, _P2)):
    _ARTICULATED[8 + _k, [6 * _a + _b, 6 * _c + _d]] = [0.5, -0.5]
    _ARTICULATED[12 + _k, [6 * _a + _b, 6 * _c + _d]] = [0.5, 0.5]
for _k, (_a, _b) in enumerate(_REST):
    _ARTICULATED[16 + _k, 6 * _a + _b] = 1.0
_SYMMETRIC = np.zeros((36, 21))                          # the 21 entries on and above the diagonal -> M
for _k, (_a, _b) in enumerate((_a, _b) for _a in range(6) for _b in range(_a, 6)):
    _SYMMETRIC[[6 * _a + _b, 6 * _b + _a], _k] = 1.0
_ARTICULATED_FULL = _SYMMETRIC @ np.linalg.inv(_ARTICULATED @ _SYMMETRIC)
#: The articulated inertia's column S = e_row (U = I^A S) among the 21 numbers, row 2 and row 5.
_COLUMN = {2: np.array([0, 4, 18, 2, 6, 19]), 5: np.array([1, 5, 19, 3, 7, 20])}
#: a w^T for parallel 6-vectors a, w: its 21 numbers are products a[_OUTER_A] * w[_OUTER_W],
#: with rows 8-15 holding P1, P2 (then turned into their half difference and half sum).
_OUTER_A = np.array([a for a, _ in _PAIRS + _P1 + _P2 + _REST])
_OUTER_W = np.array([b for _, b in _PAIRS + _P1 + _P2 + _REST])


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
    subtree, slot, children = [[i] for i in range(n)], [0] * n, [[] for _ in range(n)]
    for c, p in enumerate(parents_.tolist()):            # children in increasing order
        if p >= 0:
            children[p].append(c)
    for i in reversed(range(n)):                         # (parents[i] < i: a child's subtree is done)
        for c in children[i]:
            slot[c] = len(subtree[i])
            subtree[i] += subtree[c]
    iq = np.concatenate(([0], np.cumsum([7 if f else 1 for f in free])))
    iv = np.concatenate(([0], np.cumsum([6 if f else 1 for f in free])))
    below = []                                           # the one-dof joints below each body, in subtree order:
    for i in range(n):                                   # a slice when contiguous (depth-first numbering)
        cols = iv[np.array(subtree[i][1:], dtype=int)]
        contiguous = cols.size and np.array_equal(cols, np.arange(cols[0], cols[0] + cols.size))
        below.append(slice(int(cols[0]), int(cols[-1]) + 1) if contiguous else cols)
    params = _TURN @ np.stack([_inertia_params(M) for M in I_al])[:, :, None]
    return _Aligned(tuple(int(p) for p in parents_), prismatic, tuple(5 if pr else 2 for pr in prismatic),
                    T, np.ascontiguousarray(np.swapaxes(T, 1, 2)),
                    np.stack([_ARTICULATED @ np.kron(t.T, t.T) @ _ARTICULATED_FULL for t in T]), I_al,
                    (_ARTICULATED @ I_al.reshape(n, 36, 1)),
                    params, _TURN @ congruence @ np.linalg.inv(_TURN),
                    tuple(tuple(s) for s in subtree), tuple(slot), tuple(below), tuple(free),
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
